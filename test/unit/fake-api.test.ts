// The unit tests' API server answers writes as the real one does, with the client's errors:
// what the installer, check and the engine are tested against must not be kinder than it.
import { CONFIG_MAP } from '../../src/core/kinds';
import type { Child, WebService } from '../../src/core/model';
import { ConflictError, NotFoundError, orNull } from '../../src/kube/errors';
import { FakeApi } from '../support/fake-api';
import { LEASE, WEBSERVICE_TYPE } from '../../src/core/resource-types';
import type { Lease } from '../../src/kube/api';

const cm = (name: string, labels: Record<string, string> = {}): Child => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', labels },
  data: { a: '1' },
});
const ws = (finalizers: string[] = []): WebService => ({
  metadata: { name: 'web', namespace: 'ns', uid: 'uid-web', resourceVersion: '7', finalizers },
  spec: { image: 'nginx:1.27' },
});

describe('the fake API server', () => {
  it('gives a created object a uid and a resourceVersion, and refuses a second of that name: AlreadyExists', async () => {
    const api = new FakeApi();
    const created = await api.create<Child>(CONFIG_MAP, 'ns', cm('a'));
    expect(created.metadata).toMatchObject({ uid: expect.any(String), resourceVersion: expect.any(String) });
    const again = api.create<Child>(CONFIG_MAP, 'ns', cm('a'));
    await expect(again).rejects.toBeInstanceOf(ConflictError);
    await expect(again).rejects.toMatchObject({ kind: 'AlreadyExists', message: 'configmaps "a" already exists' });
  });

  it('answers a patch of nothing with NotFound, and one with a stale resourceVersion with Conflict', async () => {
    const api = new FakeApi({ children: [cm('a')] });
    await expect(api.patch<Child>(CONFIG_MAP, 'ns', 'b', { data: { a: '2' } })).rejects.toBeInstanceOf(NotFoundError);
    const live = (await orNull(api.get<Child>(CONFIG_MAP, 'ns', 'a')))!;
    const patched = await api.patch<Child>(CONFIG_MAP, 'ns', 'a', {
      metadata: { resourceVersion: live.metadata.resourceVersion },
      data: { b: '2' },
    });
    expect(patched).toMatchObject({ data: { a: '1', b: '2' } });
    expect(patched.metadata.resourceVersion).not.toBe(live.metadata.resourceVersion);
    await expect(
      api.patch<Child>(CONFIG_MAP, 'ns', 'a', { metadata: { resourceVersion: live.metadata.resourceVersion } }),
    ).rejects.toMatchObject({ kind: 'Conflict' });
  });

  it('applies an object by uid only to that object, and keeps its status', async () => {
    const api = new FakeApi({ children: [{ ...cm('a'), metadata: { ...cm('a').metadata, uid: 'u1' } }] });
    api.changeChild('ConfigMap', 'ns', 'a', (child) => Object.assign(child, { status: { seen: true } }));
    const as = { fieldManager: 'me', force: true };
    const withUid = (uid: string) => ({ ...cm('a'), data: { a: '3' }, metadata: { ...cm('a').metadata, uid } });
    const applied = await api.apply<Child>(CONFIG_MAP, 'ns', withUid('u1'), as);
    expect(applied).toMatchObject({ data: { a: '3' }, status: { seen: true }, metadata: { uid: 'u1' } });
    await expect(api.apply(CONFIG_MAP, 'ns', withUid('other'), as)).rejects.toMatchObject({ kind: 'Conflict' });
  });

  it('records who wrote, by field manager and operation, and answers a write without managedFields unless asked', async () => {
    const api = new FakeApi();
    const created = await api.create<Child>(CONFIG_MAP, 'ns', cm('a'), { fieldManager: 'me', keepManagedFields: true });
    expect(created.metadata).toMatchObject({ managedFields: [{ manager: 'me', operation: 'Update' }] });
    const applied = await api.apply<Child>(CONFIG_MAP, 'ns', cm('a'), { fieldManager: 'you' });
    expect(applied.metadata).not.toHaveProperty('managedFields');
    const live = await api.get<Child & { metadata: { managedFields?: object[] } }>(CONFIG_MAP, 'ns', 'a');
    expect(live.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'me', operation: 'Update' }),
      expect.objectContaining({ manager: 'you', operation: 'Apply' }),
    ]);
    expect((await api.list<Child>(CONFIG_MAP, 'ns')).items[0].metadata).not.toHaveProperty('managedFields');
  });

  it('lists by label selector: equality, inequality, existence and absence', async () => {
    const api = new FakeApi({ children: [cm('a', { app: 'web' }), cm('b', { app: 'api' }), cm('c')] });
    const names = async (labelSelector: string) =>
      (await api.list<Child>(CONFIG_MAP, 'ns', { labelSelector })).items.map((c) => c.metadata.name);
    expect(await names('app=web')).toEqual(['a']);
    expect(await names('app!=web')).toEqual(['b', 'c']);
    expect(await names('app')).toEqual(['a', 'b']);
    expect(await names('!app')).toEqual(['c']);
  });

  it('keeps a WebService with finalizers, marked, until its last finalizer goes; deletes by uid only', async () => {
    const api = new FakeApi({ webServices: [ws(['x'])] });
    await expect(
      api.delete(WEBSERVICE_TYPE, 'ns', 'web', { uid: 'other', propagationPolicy: 'Orphan' }),
    ).rejects.toMatchObject({ kind: 'Conflict' });
    expect(await api.delete(WEBSERVICE_TYPE, 'ns', 'web', { uid: 'uid-web', propagationPolicy: 'Orphan' })).toBe(true);
    const marked = await api.get<WebService>(WEBSERVICE_TYPE, 'ns', 'web');
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    await api.patch<WebService>(WEBSERVICE_TYPE, 'ns', 'web', { metadata: { finalizers: null } });
    await expect(api.get<WebService>(WEBSERVICE_TYPE, 'ns', 'web')).rejects.toBeInstanceOf(NotFoundError);
    expect(await api.delete(WEBSERVICE_TYPE, 'ns', 'web', { uid: 'uid-web', propagationPolicy: 'Orphan' })).toBe(false);
  });

  it('changes only the status through the status subresource, and never the status through the object', async () => {
    const api = new FakeApi({ webServices: [ws()] });
    await api.patchStatus<WebService>(WEBSERVICE_TYPE, 'ns', 'web', {
      metadata: {},
      status: { observedGeneration: 1 },
      spec: { image: 'ignored' },
    });
    await api.patch<WebService>(WEBSERVICE_TYPE, 'ns', 'web', { status: { observedGeneration: 9 } });
    expect(await api.get<WebService>(WEBSERVICE_TYPE, 'ns', 'web')).toMatchObject({
      spec: { image: 'nginx:1.27' },
      status: { observedGeneration: 1 },
    });
  });

  it('stores nothing in a server dry run, and answers as if it had', async () => {
    const api = new FakeApi({ dryRun: 'server' });
    expect((await api.create<Child>(CONFIG_MAP, 'ns', cm('a'))).metadata.name).toBe('a');
    expect(api.hasChild('ConfigMap', 'ns', 'a')).toBe(false);
  });

  it('updates a Lease only at the resourceVersion read: two candidates never both win', async () => {
    const api = new FakeApi();
    const created = await api.create<Lease>(LEASE, 'ns', {
      metadata: { name: 'l', namespace: 'ns' },
      spec: { holderIdentity: 'a' },
    });
    const read = { metadata: { ...created.metadata }, spec: { holderIdentity: 'b' } };
    await api.update(LEASE, 'ns', read);
    await expect(api.update(LEASE, 'ns', { ...read, spec: { holderIdentity: 'c' } })).rejects.toMatchObject({
      kind: 'Conflict',
    });
    expect((await orNull(api.get<Lease>(LEASE, 'ns', 'l')))?.spec?.holderIdentity).toBe('b');
  });
});

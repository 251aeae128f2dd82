// The child writes (src/kube/child-writes.ts) as functions over the generic verbs, run here on
// the fake as against the API server, as the field owner the caller wraps the client with
// (src/kube/field-owner.ts). The managers' names on a real server: test/integration.
import { CONFIG_MAP } from '../../src/core/kinds';
import type { Child } from '../../src/core/model';
import type { ManagedFieldsEntry, MovedEntry } from '../../src/core/moved';
import { applyChild, takeOverChild } from '../../src/kube/child-writes';
import { withFieldOwner } from '../../src/kube/field-owner';
import { FakeApi } from '../support/fake-api';

const OWNER = 'owner';

const cm = (name: string, managedFields?: ManagedFieldsEntry[]): Child => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', ...(managedFields ? { managedFields } : {}) },
  data: { a: '1' },
});

/** The stored object's managedFields, as a GET answers them. */
async function managersOf(api: FakeApi, name: string): Promise<ManagedFieldsEntry[] | undefined> {
  const live = await api.get<{ metadata: { managedFields?: ManagedFieldsEntry[] } }>(CONFIG_MAP, 'ns', name);
  return live.metadata.managedFields;
}

describe('a child apply, over the generic verbs', () => {
  it('with a uid: one forced apply as the owner, with the uid and resourceVersion as preconditions', async () => {
    const api = new FakeApi({ children: [cm('a')] });
    const live = await api.get<Child>(CONFIG_MAP, 'ns', 'a');
    const { uid, resourceVersion } = live.metadata;
    await applyChild(withFieldOwner(api, OWNER), CONFIG_MAP, 'ns', cm('a'), { uid, resourceVersion });
    expect(api.writes).toEqual([
      expect.objectContaining({ verb: 'apply', detail: { fieldManager: OWNER, force: true, uid, resourceVersion } }),
    ]);
    const other = applyChild(withFieldOwner(api, OWNER), CONFIG_MAP, 'ns', cm('a'), { uid: 'another' });
    await expect(other).rejects.toMatchObject({ kind: 'Conflict' });
  });

  it("a handover's apply goes as the owner's handover manager", async () => {
    const api = new FakeApi({ children: [cm('a')] });
    const { uid } = (await api.get<Child>(CONFIG_MAP, 'ns', 'a')).metadata;
    await applyChild(withFieldOwner(api, OWNER), CONFIG_MAP, 'ns', cm('a'), { uid, handover: true });
    expect(api.writes.map((w) => w.detail)).toEqual([expect.objectContaining({ fieldManager: `${OWNER}-handover` })]);
  });

  it("without a uid: a create as the owner, then the create's entry made an Apply entry; AlreadyExists when taken", async () => {
    const api = new FakeApi();
    const created = await applyChild(withFieldOwner(api, OWNER), CONFIG_MAP, 'ns', cm('a'), {});
    expect(api.calls).toEqual(['create configmaps', 'patch configmaps']);
    expect(created.metadata).not.toHaveProperty('managedFields');
    expect(await managersOf(api, 'a')).toEqual([expect.objectContaining({ manager: OWNER, operation: 'Apply' })]);
    const again = applyChild(withFieldOwner(api, OWNER), CONFIG_MAP, 'ns', cm('a'), {});
    await expect(again).rejects.toMatchObject({ kind: 'AlreadyExists' });
  });

  it('without a uid in a server dry run: the create alone, nothing stored to convert', async () => {
    const api = new FakeApi({ dryRun: 'server' });
    await applyChild(withFieldOwner(api, OWNER), CONFIG_MAP, 'ns', cm('a'), {});
    expect(api.calls).toEqual(['create configmaps']);
    expect(api.hasChild('ConfigMap', 'ns', 'a')).toBe(false);
  });
});

describe("a take-over of a child's keyed list entries", () => {
  const held: ManagedFieldsEntry = {
    manager: 'kubectl-edit',
    operation: 'Update',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } },
  };
  const entries: MovedEntry[] = [{ path: 'data.a', steps: ['data', 'a'] }];

  it('moves the entries another manager holds to the owner, by a patch of managedFields at the version read', async () => {
    const api = new FakeApi({ children: [cm('a', [held])] });
    const { uid, resourceVersion } = (await api.get<Child>(CONFIG_MAP, 'ns', 'a')).metadata;
    await takeOverChild(withFieldOwner(api, OWNER), CONFIG_MAP, 'ns', 'a', entries, { uid, resourceVersion });
    expect(api.calls).toEqual(['get configmaps', 'get configmaps', 'patch configmaps']);
    expect(await managersOf(api, 'a')).toEqual([
      { ...held, fieldsV1: { 'f:data': { 'f:b': {} } } },
      expect.objectContaining({ manager: OWNER, operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } }),
    ]);
  });

  it('writes nothing when no other manager holds them', async () => {
    const api = new FakeApi({ children: [cm('a')] });
    await takeOverChild(withFieldOwner(api, OWNER), CONFIG_MAP, 'ns', 'a', entries, {});
    expect(api.writes).toEqual([]);
  });
});

describe('the field owner around a client', () => {
  it("names the owner on each write unless the write names another; all else is the client's own", async () => {
    const api = new FakeApi({ dryRun: 'server', children: [cm('a')] });
    const owned = withFieldOwner(api, OWNER);
    await owned.create(CONFIG_MAP, 'ns', cm('c'));
    await owned.patch(CONFIG_MAP, 'ns', 'a', { data: {} }, { fieldManager: 'other' });
    await owned.apply(CONFIG_MAP, 'ns', cm('a'), { force: true });
    await api.create(CONFIG_MAP, 'ns', cm('b'));
    expect(api.writes.map((w) => w.fieldManager)).toEqual([OWNER, 'other', OWNER, undefined]);
    expect(owned.dryRun).toBe('server');
    expect(owned.requests).toBe(api.requests);
  });
});

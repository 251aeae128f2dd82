// install's and uninstall's logic on the fake API server: what they write, in which order, and
// what they leave alone (the plane tests, install.test.ts and uninstall.test.ts, check the
// same against a real API server and its audit log).
import { CONFIG_MAP, DEPLOYMENT } from '../../src/core/kinds';
import { Child, FINALIZER, WebService } from '../../src/core/model';
import { desiredLabels, desiredOwnerReference } from '../../src/core/ownership';
import { InstallOptions, UninstallOptions, install, uninstall } from '../../src/install/installer';
import { CRD_NAME, VERSION_LABEL, allBundledManifests, bundledManifests } from '../../src/install/manifests';
import { NotFoundError, UserError, orNull } from '../../src/kube/errors';
import { KubeObject, objectLocation } from '../../src/kube/object-location';
import { FakeApi } from '../support/fake-api';
import { CUSTOM_RESOURCE_DEFINITION, WEBSERVICE_TYPE } from '../../src/core/resource-types';
import type { CustomResourceDefinition } from '../../src/kube/api';
import { getInstalled } from '../../src/kube/installed-objects';

const VERSION = '0.5.0';
const INSTALL: InstallOptions = { dryRun: 'none', establishTimeoutMs: 1_000, version: VERSION };
const UNINSTALL: UninstallOptions = { force: false, cascade: 'background', dryRun: 'none', timeoutMs: 0 };

const everything = () => allBundledManifests(VERSION);
/** `apply customresourcedefinitions webservices.apps.labhub.io`: each write, in order. */
const writesOf = (api: FakeApi) => api.writes.map((w) => `${w.verb} ${w.resource} ${w.name}`);
const written = (objects: KubeObject[], verb: string) =>
  objects.map((o) => `${verb} ${objectLocation(o).resource} ${o.metadata.name}`);

/** The fake with the bundled objects installed, as install leaves them. */
async function installed(objects: KubeObject[], webServices: WebService[] = [], children: Child[] = []) {
  const api = new FakeApi({ webServices, children });
  await install(api, objects, INSTALL);
  api.requests.length = 0;
  return api;
}

const webService = (name: string, finalizers = [FINALIZER]): WebService => ({
  metadata: { name, namespace: 'shop', uid: `uid-${name}`, finalizers },
  spec: { image: 'nginx:1.27' },
});
const childOf = (parent: WebService, row: typeof CONFIG_MAP, name: string): Child => ({
  apiVersion: row.apiVersion,
  kind: row.kind,
  metadata: {
    name,
    namespace: parent.metadata.namespace,
    uid: `uid-${row.kind}-${name}`,
    labels: desiredLabels(parent.metadata.name),
    ownerReferences: [desiredOwnerReference({ name: parent.metadata.name, uid: parent.metadata.uid! })],
  },
});

describe('install', () => {
  it('applies every object on an empty cluster, in the bundled order, forced, and waits for the CRD', async () => {
    const api = new FakeApi({ absent: ['webservices'] });
    const objects = everything();
    const results = await install(api, objects, INSTALL);
    expect(results.map((r) => r.action)).toEqual(objects.map(() => 'created'));
    expect(writesOf(api)).toEqual(written(objects, 'apply'));
    expect(api.writes.every((w) => (w.detail as { force?: boolean }).force === true)).toBe(true);
    expect(new Set(api.writes.map((w) => w.fieldManager))).toEqual(new Set(['kubectl-webservice']));
    // Established, and its WebServices listed once: apply --all works right after.
    expect(api.calls.slice(-2)).toEqual(['get customresourcedefinitions', 'list webservices']);
    const crd = await orNull(api.get<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITION, null, CRD_NAME));
    expect(crd?.metadata.labels?.[VERSION_LABEL]).toBe(VERSION);
  });

  it('makes no write a second time: every object is unchanged, and the CRD is not waited for', async () => {
    const api = await installed(everything());
    const results = await install(api, everything(), INSTALL);
    expect(results.map((r) => r.action)).toEqual(everything().map(() => 'unchanged'));
    expect(api.writes).toEqual([]);
    expect(api.calls).toEqual(everything().map((o) => `get ${objectLocation(o).resource}`));
  });

  it("after the plugin's upgrade applies every object again (each carries the version), the CRD first", async () => {
    const api = await installed(allBundledManifests('0.4.0'));
    const results = await install(api, everything(), INSTALL);
    expect(results.filter((r) => r.action !== 'unchanged').map((r) => [r.object.kind, r.action])).toEqual(
      everything().map((o) => [o.kind, 'configured']),
    );
    // Every object carries the version label, so every one is applied again: the CRD first.
    expect(writesOf(api)[0]).toBe(`apply customresourcedefinitions ${CRD_NAME}`);
  });

  it('configures only the object someone changed by hand', async () => {
    const api = await installed(bundledManifests({ rbac: true }, VERSION));
    api.changeOther('ClusterRole', '', 'webservice-reconciler', (role) => (role.rules = []));
    const results = await install(api, bundledManifests({ rbac: true }, VERSION), INSTALL);
    expect(results.map((r) => r.action)).toEqual(['unchanged', 'configured']);
    expect(writesOf(api)).toEqual(['apply clusterroles webservice-reconciler']);
  });

  it('refuses a newer CRD before any write, and changes nothing', async () => {
    const api = await installed(bundledManifests({}, '9.0.0'));
    const attempt = install(api, bundledManifests({ rbac: true }, VERSION), INSTALL);
    await expect(attempt).rejects.toBeInstanceOf(UserError);
    await expect(attempt).rejects.toThrow(
      /is at version 9\.0\.0 .*newer than this plugin's 0\.5\.0.*nothing was changed$/,
    );
    expect(api.writes).toEqual([]);
  });

  it('in a client dry run reads and compares, and sends no write', async () => {
    const api = new FakeApi();
    const results = await install(api, everything(), { ...INSTALL, dryRun: 'client' });
    expect(results.map((r) => r.action)).toEqual(everything().map(() => 'created'));
    expect(api.writes).toEqual([]);
  });

  it('in a server dry run has every apply checked and nothing stored; what a new namespace would hold is noted', async () => {
    const api = new FakeApi();
    const objects = everything();
    const results = await install(api, objects, { ...INSTALL, dryRun: 'server' });
    const noted = results.filter((r) => r.note).map((r) => r.object);
    expect(noted.length).toBeGreaterThan(0);
    expect(noted.every((o) => o.metadata.namespace === 'webservice-system')).toBe(true);
    const sent = objects.filter((o) => !noted.includes(o));
    expect(sent.map((o) => o.kind)).toContain('Namespace');
    expect(writesOf(api)).toEqual(written(sent, 'apply'));
    expect(api.writes.every((w) => (w.detail as { dryRun?: boolean }).dryRun === true)).toBe(true);
    expect(api.tracker.all()).toEqual([]);
  });

  it('says what a CRD that is never Established is waiting for', async () => {
    const api = new FakeApi();
    const get = api.get.bind(api);
    const crd: CustomResourceDefinition = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: CRD_NAME },
      status: { conditions: [{ type: 'NamesAccepted', status: 'False', message: '"ws" is already in use' }] },
    };
    api.get = ((...args: Parameters<FakeApi['get']>) =>
      args[0] === CUSTOM_RESOURCE_DEFINITION ? Promise.resolve(crd) : get(...args)) as FakeApi['get'];
    await expect(install(api, bundledManifests({}, VERSION), { ...INSTALL, establishTimeoutMs: 100 })).rejects.toThrow(
      `customresourcedefinition ${CRD_NAME} was applied but is not Established after 0.1s: "ws" is already in use`,
    );
  });
});

describe('uninstall', () => {
  it('deletes every object that exists, the controller first and the CRD last, each by its uid', async () => {
    const api = await installed(everything());
    const uids = await Promise.all(everything().map(async (o) => (await getInstalled(api, o))?.metadata.uid));
    api.requests.length = 0;
    const report = await uninstall(api, everything(), UNINSTALL);
    const reversed = [...everything()].reverse();
    expect(report.results.map((r) => r.action)).toEqual(reversed.map(() => 'deleted'));
    expect(writesOf(api)).toEqual(written(reversed, 'delete'));
    expect(api.writes.map((w) => (w.detail as { uid?: string }).uid)).toEqual([...uids].reverse());
    expect(api.tracker.all()).toEqual([]);
    expect(report).toMatchObject({ apps: [], webServicesLost: 0, finalizersRemoved: 0 });
  });

  it('sends no delete for what is not there, and waits for nothing it did not delete', async () => {
    const api = await installed(bundledManifests({}, VERSION));
    const report = await uninstall(api, everything(), { ...UNINSTALL, timeoutMs: 5_000 });
    expect(report.results.filter((r) => r.action === 'deleted').map((r) => r.object.kind)).toEqual([
      'CustomResourceDefinition',
    ]);
    expect(writesOf(api)).toEqual([`delete customresourcedefinitions ${CRD_NAME}`]);
  });

  it('refuses while WebServices exist, naming each with its children, and writes nothing', async () => {
    const web = webService('web');
    const api = await installed(everything(), [web], [childOf(web, CONFIG_MAP, 'web-desired')]);
    await expect(uninstall(api, everything(), UNINSTALL)).rejects.toThrow(
      /^1 WebService exists in 1 namespace, .*: shop\/web \(configmap\/web-desired\)\. .*nothing was changed$/,
    );
    expect(api.writes).toEqual([]);
  });

  it('forced, takes our finalizer off each WebService at the version read, and the CRD takes them with it', async () => {
    const web = webService('web');
    const api = await installed(bundledManifests({}, VERSION), [web, webService('plain', [])]);
    const report = await uninstall(api, everything(), { ...UNINSTALL, force: true });
    expect(writesOf(api)).toEqual(['patch webservices web', `delete customresourcedefinitions ${CRD_NAME}`]);
    expect(api.writes[0].detail).toEqual({
      metadata: { resourceVersion: expect.any(String), finalizers: [] },
    });
    expect(report).toMatchObject({ webServicesLost: 2, finalizersRemoved: 1 });
    await expect(api.list<WebService>(WEBSERVICE_TYPE, null)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('orphaned, releases each child, lets each WebService go, then deletes the CRD: the children stay', async () => {
    const web = webService('web');
    const children = [childOf(web, CONFIG_MAP, 'web-desired'), childOf(web, DEPLOYMENT, 'web')];
    const api = await installed(bundledManifests({}, VERSION), [web], children);
    const report = await uninstall(api, everything(), { ...UNINSTALL, cascade: 'orphan', timeoutMs: 5_000 });
    expect(writesOf(api)).toEqual([
      'patch configmaps web-desired',
      'patch deployments web',
      'patch webservices web',
      'delete webservices web',
      `delete customresourcedefinitions ${CRD_NAME}`,
    ]);
    expect(api.writes[3].detail).toEqual({ uid: 'uid-web', propagationPolicy: 'Orphan' });
    expect(report).toMatchObject({
      cascade: 'orphan',
      webServicesLost: 0,
      finalizersRemoved: 1,
      apps: [{ namespace: 'shop', name: 'web', children: ['configmap/web-desired', 'deployment/web'] }],
    });
    const left = await orNull(api.get<Child>(DEPLOYMENT, 'shop', 'web'));
    expect(left?.metadata.ownerReferences).toBeUndefined();
    expect(api.hasChild('ConfigMap', 'shop', 'web-desired')).toBe(true);
  });

  it('orphaned in a client dry run, reports what it would do and writes nothing', async () => {
    const web = webService('web');
    const api = await installed(bundledManifests({}, VERSION), [web], [childOf(web, CONFIG_MAP, 'web-desired')]);
    const report = await uninstall(api, everything(), { ...UNINSTALL, cascade: 'orphan', dryRun: 'client' });
    expect(api.writes).toEqual([]);
    expect(report.results.find((r) => r.object.kind === 'CustomResourceDefinition')?.action).toBe('deleted');
    expect(report.apps).toEqual([{ namespace: 'shop', name: 'web', children: ['configmap/web-desired'] }]);
  });

  it('orphaned in a server dry run, sends every write as a dry run, and nothing changes', async () => {
    const web = webService('web');
    const seeded = new FakeApi({ webServices: [web], children: [childOf(web, CONFIG_MAP, 'web-desired')] });
    await install(seeded, bundledManifests({}, VERSION), INSTALL);
    const before = seeded.tracker.all();
    // The same cluster, behind a client that dry-runs every write on the server.
    const api = new FakeApi({ dryRun: 'server', objects: before });
    const report = await uninstall(api, everything(), { ...UNINSTALL, cascade: 'orphan', dryRun: 'server' });
    expect(writesOf(api)).toEqual([
      'patch configmaps web-desired',
      'patch webservices web',
      'delete webservices web',
      `delete customresourcedefinitions ${CRD_NAME}`,
    ]);
    expect(report.apps.map((app) => app.name)).toEqual(['web']);
    expect(api.tracker.all()).toEqual(before);
  });
});

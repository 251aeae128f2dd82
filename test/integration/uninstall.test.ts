// uninstall with WebServices that run apps, on a plane of its own that runs pods (uninstall
// deletes the CRD and the controller's cluster-wide objects, which every other file uses at
// the same time): the refusal names each WebService and its children; --cascade=orphan, in
// each dry-run spelling, writes nothing; then, with a controller still running, it deletes
// the WebServices and the CRD and leaves every app running, without our ownerReferences.
// (--force, which deletes the apps too, runs in the fault suite: test/faults/uninstall.test.ts.)
import {
  AuditWindow,
  CRD,
  CRD_REF,
  MUTATING,
  applyYaml,
  createNamespace,
  describeEvent,
  getJson,
  plugin,
  sleep,
  tryGetJson,
  webService,
} from '../support/cluster';
import { ControllerProcess } from '../support/controller';
import { ownPlane } from '../support/plane';
import { FINALIZER, KIND } from '../../src/core/model';

const IMAGE = 'registry.example.com/team/webservice-controller:v1.2.3';
// A plane of its own with pods: only where this run builds and starts local planes with them.
const ownPlaneWithPods = process.env.USE_EXISTING_CLUSTER !== 'true' && process.env.WEBSERVICE_CP_WORKLOADS === 'true';

(ownPlaneWithPods ? describe : describe.skip)('uninstall of a cluster whose WebServices run apps', () => {
  const plane = ownPlane({ prefix: 'webservice-uninstall', workloads: true });
  let ns: string;
  let audit: AuditWindow;
  /** What web and lab made: kind/name as kubectl names them, in the kind table's order. */
  let webChildren: string[];
  let children: string[];
  const get = (ref: string) => tryGetJson(['get', ref, '-n', ns]);
  /** The ownerReferences of ours an object carries: to a WebService. */
  const ourReferences = (ref: string) =>
    (get(ref)?.metadata.ownerReferences ?? []).filter((r: { kind: string }) => r.kind === KIND);
  const podUids = () =>
    getJson(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/instance=web'])
      .items.map((p: { metadata: { uid: string } }) => p.metadata.uid)
      .sort();

  beforeAll(() => {
    plane.up();
    const installed = plugin(['install', '--rbac', '--controller', '--image', IMAGE]);
    if (installed.status !== 0) throw new Error(installed.stderr);
    ns = createNamespace('uninstall');
    audit = new AuditWindow(ns);
    // web runs an app and carries our finalizer, as an older plugin added it: a finalize
    // would delete its children. lab is the lab's kind: a ConfigMap alone.
    applyYaml(
      ns,
      webService(
        'web',
        { image: 'nginx:1.27', replicas: 2, workload: { port: 8080, disruption: { maxUnavailable: 1 } } },
        { finalizers: [FINALIZER] },
      ),
    );
    applyYaml(ns, webService('lab', { image: 'nginx:1.27' }));
    const applied = plugin(['apply', '--all', '-n', ns, '--wait=3m']);
    if (applied.status !== 0) throw new Error(applied.stderr);
    // web's one revision, named after the hash of what its pods run.
    const revisions = getJson(['get', 'controllerrevisions', '-n', ns]).items.map(
      (r: { metadata: { name: string } }) => `controllerrevision/${r.metadata.name}`,
    );
    expect(revisions).toEqual([expect.stringMatching(/^controllerrevision\/web-[0-9a-f]{8}$/)]);
    webChildren = ['configmap/web-desired', ...revisions, 'deployment/web', 'service/web', 'poddisruptionbudget/web'];
    children = [...webChildren, 'configmap/lab-desired'];
  }, 300_000);
  afterAll(() => plane.down());

  it("install --controller --image runs that image; without it, install warns that deploy/'s is a placeholder", () => {
    const deployment = getJson(['get', 'deployment', 'webservice-controller', '-n', 'webservice-system']);
    expect(deployment.spec.template.spec.containers.map((c: { image: string }) => c.image)).toEqual([IMAGE]);
    const again = plugin(['install', '--controller', '--dry-run']);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(
      /^warning: the controller's image labhub\/webservice-controller:\S+ is a placeholder: build one from deploy\/Dockerfile and pass it with --image\n$/,
    );
    expect(again.stdout).toContain('deployment.apps/webservice-controller configured (dry run)\n');
  });

  it('refuses while WebServices exist, naming each and its children, and changes nothing', async () => {
    for (const ref of children) expect([ref, ourReferences(ref)]).toEqual([ref, [expect.anything()]]);
    audit.mark();
    const result = plugin(['uninstall']);
    expect([result.status, result.stdout]).toEqual([1, '']);
    expect(result.stderr).toBe(
      `error: 2 WebServices exist in 1 namespace, and deleting the CRD deletes them all and 6 children with them: ` +
        `${ns}/lab (configmap/lab-desired), ${ns}/web (${webChildren.join(', ')}). ` +
        'Delete them first, or pass --cascade=orphan to keep their children running without them, ' +
        'or --force to delete the children too; nothing was changed\n',
    );
    const both = plugin(['uninstall', '--cascade=orphan', '--force']);
    expect([both.status, both.stderr]).toEqual([
      1,
      'error: --cascade=orphan keeps what the WebServices run and --force deletes it: give one; nothing was changed\n',
    ]);
    const unknown = plugin(['uninstall', '--cascade=foreground']);
    expect([unknown.status, unknown.stderr]).toEqual([
      1,
      'error: invalid --cascade value (foreground); must be "background" or "orphan"\n',
    ]);
    expect((await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb)).map(describeEvent)).toEqual([]);
  });

  it('--cascade=orphan in a client dry run, in each spelling, says what it would do and sends no write', async () => {
    for (const spelling of ['--dry-run', '--dry-run=client', '--dry-run=true']) {
      audit.mark();
      const result = plugin(['uninstall', '--cascade=orphan', spelling]);
      expect([spelling, result.stderr, result.status]).toEqual([spelling, '', 0]);
      const lines = result.stdout.trim().split('\n');
      expect(lines[0]).toBe('deployment.apps/webservice-controller deleted (dry run)');
      expect(lines.slice(-3)).toEqual([
        `webservice ${ns}/lab deleted (dry run); left running without it: configmap/lab-desired`,
        `webservice ${ns}/web deleted (dry run); left running without it: ${webChildren.join(', ')}`,
        `${CRD_REF} deleted (dry run)`,
      ]);
      expect((await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb)).map(describeEvent)).toEqual([]);
    }
  });

  it('--cascade=orphan --dry-run=server sends every write as a server-side dry run, and nothing changes', async () => {
    audit.mark();
    const result = plugin(['uninstall', '--cascade=orphan', '--dry-run=server', '-o', 'json']);
    expect([result.stderr, result.status]).toEqual(['', 0]);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ cascade: 'orphan', dryRun: 'server', webServicesLost: 0 });
    expect(report.apps).toEqual([
      { namespace: ns, name: 'lab', children: ['configmap/lab-desired'] },
      { namespace: ns, name: 'web', children: webChildren },
    ]);
    const writes = (await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb));
    // The API server checked each write: the releases, the finalizer, the deletes.
    expect(writes.filter((e) => e.objectRef?.namespace === ns).map(describeEvent)).toEqual(
      expect.arrayContaining([
        'patch deployments/web',
        'patch configmaps/web-desired',
        'patch webservices/web',
        'delete webservices/web',
        'delete webservices/lab',
      ]),
    );
    expect(writes.filter((e) => !e.requestURI?.includes('dryRun=All')).map(describeEvent)).toEqual([]);
    expect(tryGetJson(['get', 'crd', CRD])).not.toBeNull();
    expect(getJson(['get', 'webservice', 'web', '-n', ns]).metadata.finalizers).toEqual([FINALIZER]);
    for (const ref of children) expect([ref, ourReferences(ref)]).toEqual([ref, [expect.anything()]]);
  });

  it('--cascade=orphan deletes the WebServices and the CRD, and leaves every app running without our ownerReferences', async () => {
    const before = Object.fromEntries(children.map((ref) => [ref, get(ref).metadata.uid]));
    const pods = podUids();
    expect(pods).toHaveLength(2);
    // A controller still running meanwhile neither takes the children back nor deletes them.
    const controller = new ControllerProcess(['-n', ns]);
    try {
      await controller.waitForLog(/controller working/);
      const result = plugin(['uninstall', '--cascade=orphan']);
      expect([result.stderr, result.status]).toEqual(['', 0]);
      const lines = result.stdout.trim().split('\n');
      expect(lines[0]).toBe('deployment.apps/webservice-controller deleted');
      expect(lines.slice(-3)).toEqual([
        `webservice ${ns}/lab deleted; left running without it: configmap/lab-desired`,
        `webservice ${ns}/web deleted; left running without it: ${webChildren.join(', ')}`,
        `${CRD_REF} deleted`,
      ]);
    } finally {
      await controller.stop();
    }
    // Gone when uninstall returns: it waited.
    expect(tryGetJson(['get', 'crd', CRD])).toBeNull();
    expect(tryGetJson(['get', 'namespace', 'webservice-system'])).toBeNull();
    // The garbage collector has had its time to delete what still named a deleted owner.
    await sleep(5_000);
    for (const ref of children) {
      expect([ref, get(ref)?.metadata.uid, ourReferences(ref)]).toEqual([ref, before[ref], []]);
    }
    expect(get('deployment/web').status).toMatchObject({ replicas: 2, readyReplicas: 2 });
    // The same pods, still running: nothing was rolled or restarted.
    expect(podUids()).toEqual(pods);
  });
});

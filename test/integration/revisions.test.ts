// Every change that rolls the pods is a revision, on the plane with pods: a ControllerRevision
// per change, the ConfigMaps the pods read snapshotted per content (and Secrets with
// snapshotSecrets), an old ReplicaSet that keeps its own content, `history`, and a `rollback`
// that brings back the image, the spec and the config, pinned until the source changes again.
// Revisions and snapshots stop at the limit, and none is left once the WebService is gone.
import {
  AuditWindow,
  MUTATING,
  applyYaml,
  describeEvent,
  describeWorkloads,
  eventually,
  fromPlugin,
  getJson,
  kubectl,
  plugin,
  tryGetJson,
  useNamespace,
  webService,
} from '../support/cluster';
import { appliedQuietly, pluginMutations } from '../support/commands';

const OURS = 'app.kubernetes.io/managed-by=webservice-controller';
const WORKLOAD = {
  port: 8080,
  env: [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
  files: [{ mountPath: '/etc/shop', configMap: 'files' }],
};

interface Revision {
  metadata: { name: string; annotations?: Record<string, string> };
  revision: number;
  data: { image: string; config: { kind: string; name: string; snapshot?: string }[] };
}

function revisions(ns: string, name: string): Revision[] {
  const list = getJson(['get', 'controllerrevisions', '-n', ns, '-l', `${OURS},app.kubernetes.io/instance=${name}`]);
  return (list.items as Revision[]).sort((a, b) => a.revision - b.revision);
}

/** Our snapshots in the namespace, of a kind: name -> data. */
function snapshots(ns: string, kind: 'configmaps' | 'secrets'): Record<string, Record<string, string>> {
  const list = getJson(['get', kind, '-n', ns, '-l', `${OURS},webservice.labhub.io/role=config-snapshot`]);
  return Object.fromEntries(list.items.map((item: any) => [item.metadata.name, item.data ?? {}]));
}

/** The ConfigMap a Deployment's (or a ReplicaSet's) pod template mounts at /etc/shop. */
const mountedConfigMap = (object: any): string =>
  object.spec.template.spec.volumes.find((v: any) => v.configMap)?.configMap.name;

const replicaSetsOf = (ns: string, name: string) =>
  getJson(['get', 'replicasets', '-n', ns, '-l', `app.kubernetes.io/instance=${name}`]).items as any[];

describeWorkloads('revisions, history and rollback', () => {
  const namespace = useNamespace('revisions');
  const audit = new AuditWindow(namespace);
  const apply = (name: string, wait = true) => appliedQuietly(namespace(), name, wait && '3m');
  const deployment = (name: string) => getJson(['get', 'deployment', name, '-n', namespace()]);
  const status = (name: string) => getJson(['get', 'webservice', name, '-n', namespace()]).status;
  const editFiles = (content: string) =>
    kubectl([
      'patch',
      'configmap',
      'files',
      '-n',
      namespace(),
      '-p',
      JSON.stringify({ data: { 'app.conf': content } }),
    ]);
  const pluginWrites = () => pluginMutations(audit);

  beforeAll(() => {
    const ns = namespace();
    kubectl(['create', 'secret', 'generic', 'db', '-n', ns, '--from-literal=password=hunter2']);
    kubectl(['create', 'configmap', 'files', '-n', ns, '--from-literal=app.conf=threads=4']);
    applyYaml(ns, webService('shop', { image: 'nginx:1.27', workload: WORKLOAD }));
    apply('shop');
  });

  it('makes revision 1, and mounts a snapshot of the ConfigMap, not the ConfigMap', () => {
    const [first, ...more] = revisions(namespace(), 'shop');
    expect(more).toEqual([]);
    expect(first).toMatchObject({
      revision: 1,
      metadata: { annotations: { 'webservice.labhub.io/change-cause': 'first revision' } },
      data: { image: 'nginx:1.27' },
    });
    const mounted = mountedConfigMap(deployment('shop'));
    expect(mounted).toMatch(/^shop-files-[0-9a-f]{10}$/);
    const snapshot = getJson(['get', 'configmap', mounted, '-n', namespace()]);
    expect(snapshot).toMatchObject({ immutable: true, data: { 'app.conf': 'threads=4' } });
    expect(snapshot.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'WebService', name: 'shop' })]);
    // A Secret is read as it is, unless the spec asks for snapshots of Secrets.
    expect(first.data.config).toEqual([
      expect.objectContaining({ kind: 'ConfigMap', name: 'files', snapshot: mounted }),
      expect.not.objectContaining({ snapshot: expect.anything() }),
    ]);
    expect(status('shop')).toMatchObject({ currentRevision: 1, updateRevision: 1 });
  });

  it('a converged pass writes nothing, and a label edit of the config rolls nothing', async () => {
    audit.mark();
    kubectl(['label', 'configmap', 'files', '-n', namespace(), 'edited=yes']);
    expect(apply('shop').decision.action).toBe('noop');
    expect(await pluginWrites()).toEqual([]);
    expect(revisions(namespace(), 'shop')).toHaveLength(1);
  });

  it('keeps the old ReplicaSet on its own content when the ConfigMap changes mid-rollout', async () => {
    const ns = namespace();
    const before = mountedConfigMap(deployment('shop'));
    editFiles('threads=8');
    // No wait: the new pods are on their way while the old ReplicaSet still has its pods.
    apply('shop', false);
    const after = mountedConfigMap(deployment('shop'));
    expect(after).not.toBe(before);
    // The Deployment controller makes the new ReplicaSet a moment later.
    const sets = await eventually(() => {
      const found = replicaSetsOf(ns, 'shop');
      return found.length === 2 ? found : undefined;
    }, 30_000);
    expect(sets.map(mountedConfigMap).sort()).toEqual([before, after].sort());
    const data = snapshots(ns, 'configmaps');
    expect(data[before]).toEqual({ 'app.conf': 'threads=4' });
    expect(data[after]).toEqual({ 'app.conf': 'threads=8' });
    expect(
      revisions(ns, 'shop').map((r) => [r.revision, r.metadata.annotations?.['webservice.labhub.io/change-cause']]),
    ).toEqual([
      [1, 'first revision'],
      [2, 'configmap/files changed'],
    ]);
    apply('shop');
    expect(status('shop')).toMatchObject({ currentRevision: 2, updateRevision: 2 });
  });

  it('sends one RevisionCreated Event per revision, by name only', () => {
    const events = getJson([
      'get',
      'events.events.k8s.io',
      '-n',
      namespace(),
      '--field-selector',
      'reason=RevisionCreated,regarding.name=shop',
    ]).items.map((e: any) => e.note);
    expect(events.sort()).toEqual(['revision 1: first revision', 'revision 2: configmap/files changed']);
  });

  it('rolls back to revision 1 after an image change and a config edit: image, spec and config', async () => {
    const ns = namespace();
    kubectl(['patch', 'webservice', 'shop', '-n', ns, '--type=merge', '-p', '{"spec":{"image":"nginx:1.28"}}']);
    apply('shop');
    editFiles('threads=16');
    apply('shop');
    expect(revisions(ns, 'shop').map((r) => r.revision)).toEqual([1, 2, 3, 4]);

    // A dry run says what it would write, and writes nothing.
    audit.mark();
    const dry = plugin(['rollback', 'shop', '-n', ns, '--to-revision=1', '--dry-run=client', '-o', 'json']);
    expect(dry.status).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      toRevision: 1,
      image: 'nginx:1.27',
      pinned: ['configmap/files'],
      next: { action: 'update' },
    });
    expect(await pluginWrites()).toEqual([]);
    // A server dry run sends the patch with dryRun=All: admitted, persisted nowhere.
    audit.mark();
    const server = plugin(['rollback', 'shop', '-n', ns, '--to-revision=1', '--dry-run=server']);
    expect(server.stdout).toMatch(/rolled back to revision 1 \(server dry run\)/);
    const sent = (await audit.events()).filter((e) => fromPlugin(e) && MUTATING.has(e.verb));
    expect(sent.map(describeEvent)).toEqual([expect.stringMatching(/^patch .*webservices/)]);
    expect(sent.every((e) => /[?&]dryRun=All(&|$)/.test(e.requestURI ?? ''))).toBe(true);
    expect(getJson(['get', 'webservice', 'shop', '-n', ns]).spec.image).toBe('nginx:1.28');

    const rolled = plugin(['rollback', 'shop', '-n', ns, '--to-revision=1']);
    expect(rolled.stderr).toBe('');
    expect(rolled.stdout).toMatch(/^webservice\.apps\.labhub\.io\/shop rolled back to revision 1\n/);
    apply('shop');
    const first = revisions(ns, 'shop').find((r) => r.revision === 5)!;
    expect(first.metadata.annotations).toMatchObject({
      'webservice.labhub.io/change-cause': 'rollback to revision 1 (from revision 4)',
      'webservice.labhub.io/rolled-back-from': '4',
    });
    const live = deployment('shop');
    expect(live.spec.template.spec.containers[0].image).toBe('nginx:1.27');
    expect(snapshots(ns, 'configmaps')[mountedConfigMap(live)]).toEqual({ 'app.conf': 'threads=4' });
    expect(status('shop')).toMatchObject({ currentRevision: 5, updateRevision: 5 });

    // history shows it: revision 5 runs, revision 4 was rolled back.
    const history = JSON.parse(plugin(['history', 'shop', '-n', ns, '-o', 'json']).stdout);
    expect(history.revisions.map((r: any) => [r.revision, r.status, r.image])).toEqual([
      [5, 'current', 'nginx:1.27'],
      [4, 'rolled back', 'nginx:1.28'],
      [3, '', 'nginx:1.28'],
      [2, '', 'nginx:1.27'],
    ]);
    expect(history.pinned).toEqual(['configmap/files']);
    const table = plugin(['history', 'shop', '-n', ns]);
    expect(table.stdout.split('\n')[0]).toMatch(/^REVISION\s+AGE\s+STATUS\s+IMAGE\s+CONFIG\s+CHANGE$/);

    // Pinned: a pass rolls nothing while the source is unchanged...
    audit.mark();
    expect(apply('shop').decision.action).toBe('noop');
    expect(await pluginWrites()).toEqual([]);
    // ...and its next edit releases the pin: the pods get the new content, once.
    editFiles('threads=32');
    apply('shop');
    expect(snapshots(ns, 'configmaps')[mountedConfigMap(deployment('shop'))]).toEqual({ 'app.conf': 'threads=32' });
    expect(getJson(['get', 'webservice', 'shop', '-n', ns]).metadata.annotations ?? {}).not.toHaveProperty(
      'webservice.labhub.io/config-pins',
    );
    audit.mark();
    expect(apply('shop').decision.action).toBe('noop');
    expect(await pluginWrites()).toEqual([]);
  });

  it('brings back an old Secret value when the spec snapshots Secrets, and says so when it does not', () => {
    const ns = namespace();
    // Without snapshots: a rollback cannot bring back the old password, and says so.
    kubectl(['patch', 'secret', 'db', '-n', ns, '-p', JSON.stringify({ stringData: { password: 'rotated' } })]);
    apply('shop');
    const unsnapshotted = plugin(['rollback', 'shop', '-n', ns, '--dry-run=client']);
    expect(unsnapshotted.stderr).toContain('warning: secret/db is not snapshotted: the pods read it as it is now');

    applyYaml(ns, webService('vault', { image: 'nginx:1.27', workload: { ...WORKLOAD, snapshotSecrets: true } }));
    apply('vault');
    const secretName = () =>
      deployment('vault').spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name as string;
    const before = secretName();
    expect(before).toMatch(/^vault-db-[0-9a-f]{10}$/);
    kubectl(['patch', 'secret', 'db', '-n', ns, '-p', JSON.stringify({ stringData: { password: 'next' } })]);
    apply('vault');
    expect(secretName()).not.toBe(before);
    expect(plugin(['rollback', 'vault', '-n', ns]).status).toBe(0);
    apply('vault');
    expect(secretName()).toBe(before);
    const value = snapshots(ns, 'secrets')[before].password;
    expect(Buffer.from(value, 'base64').toString()).toBe('rotated');
  });

  it('keeps revisions and snapshots to revisionHistoryLimit, and leaves none once the WebService is gone', async () => {
    const ns = namespace();
    kubectl([
      'patch',
      'webservice',
      'shop',
      '-n',
      ns,
      '--type=merge',
      '-p',
      '{"spec":{"workload":{"revisionHistoryLimit":2}}}',
    ]);
    for (const threads of [64, 128, 256]) {
      editFiles(`threads=${threads}`);
      apply('shop');
    }
    const kept = revisions(ns, 'shop');
    expect(kept.map((r) => r.revision)).toHaveLength(2);
    const named = kept.flatMap((r) => r.data.config.flatMap((c) => (c.snapshot ? [c.snapshot] : [])));
    const shopSnapshots = Object.keys(snapshots(ns, 'configmaps')).filter((name) => name.startsWith('shop-'));
    expect(shopSnapshots.sort()).toEqual([...new Set(named)].sort());

    kubectl(['delete', 'webservice', 'shop', 'vault', '-n', ns, '--wait=true']);
    // The garbage collector takes the rest: they are all owned by the WebService.
    await eventually(() => {
      const left = [
        ...getJson(['get', 'controllerrevisions', '-n', ns, '-l', OURS]).items,
        ...getJson(['get', 'configmaps,secrets', '-n', ns, '-l', `${OURS},webservice.labhub.io/role=config-snapshot`])
          .items,
      ];
      return left.length === 0 && tryGetJson(['get', 'deployment', 'shop', '-n', ns]) === null ? true : undefined;
    }, 60_000);
  });
});

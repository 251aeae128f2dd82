// The config the pods read rolls them, once, on the plane with pods: a rotated Secret that env
// reads, an edited ConfigMap mounted through files, one read through envFrom. A label edit rolls
// nothing, nor does any edit after an opt-out, and a converged pass writes nothing. `apply` and
// `run` alike; a missing Secret is named, and a user who may not read one is told which.
import {
  AuditWindow,
  type AuditEvent,
  MUTATING,
  applyYaml,
  describeEvent,
  describeWorkloads,
  eventually,
  getJson,
  kubectl,
  patchWebService,
  plugin,
  serviceAccountKubeconfig,
  useNamespace,
  webService,
} from '../support/cluster';
import { appliedQuietly, pluginMutations } from '../support/commands';
import {
  CONTROLLER_USER,
  ControllerProcess,
  controlledNamespace,
  controllerKubeconfig,
  endControlled,
} from '../support/controller';
import { WatchProxy } from '../support/proxy';

const CONFIG_KEY = 'webservice-config-key';
const DIGEST = 'webservice.labhub.io/config-digest';

/** Secret db (env), ConfigMap settings (envFrom) and ConfigMap files (mounted), in a namespace. */
function configObjects(ns: string): void {
  kubectl(['create', 'secret', 'generic', 'db', '-n', ns, '--from-literal=password=hunter2']);
  kubectl(['create', 'configmap', 'settings', '-n', ns, '--from-literal=MODE=blue']);
  kubectl(['create', 'configmap', 'files', '-n', ns, '--from-literal=app.conf=threads=4']);
}

const READS_CONFIG = {
  port: 8080,
  env: [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
  envFrom: [{ configMapRef: { name: 'settings' } }],
  files: [{ mountPath: '/etc/shop', configMap: 'files' }],
};

function replicaSets(ns: string, name: string): string[] {
  const list = getJson(['get', 'replicasets', '-n', ns, '-l', `app.kubernetes.io/instance=${name}`]);
  return list.items.map((rs: any) => rs.metadata.name).sort();
}

const templateDigest = (ns: string, name: string) =>
  getJson(['get', 'deployment', name, '-n', ns]).spec.template.metadata.annotations?.[DIGEST];

describeWorkloads('the config the pods read, with apply', () => {
  const namespace = useNamespace('config');
  const audit = new AuditWindow(namespace);
  const applyWait = (name: string) => appliedQuietly(namespace(), name);
  /** An apply that must change nothing: noop, and no mutating request at all. */
  const applyNothing = async (name: string) => {
    audit.mark();
    expect(applyWait(name).decision.action).toBe('noop');
    expect(await pluginMutations(audit)).toEqual([]);
  };

  beforeAll(() => {
    configObjects(namespace());
    applyYaml(namespace(), webService('shop', { image: 'nginx:1.27', workload: READS_CONFIG }));
    applyWait('shop');
  });

  it('makes the namespace its config key once, and carries a digest that no plain hash gives', () => {
    const key = getJson(['get', 'secret', CONFIG_KEY, '-n', namespace()]);
    expect(key).toMatchObject({
      immutable: true,
      metadata: { labels: { 'app.kubernetes.io/managed-by': 'webservice-controller' } },
    });
    expect(templateDigest(namespace(), 'shop')).toMatch(
      /^configmap\/files=[0-9a-f]{16},configmap\/settings=[0-9a-f]{16},secret\/db=[0-9a-f]{16}$/,
    );
    expect(replicaSets(namespace(), 'shop')).toHaveLength(1);
  });

  it('is converged: a second pass writes nothing', async () => {
    await applyNothing('shop');
  });

  it('rolls the pods once for a rotated Secret, a mounted ConfigMap and an envFrom one', async () => {
    const ns = namespace();
    const edits: [string, string[]][] = [
      ['secret', ['patch', 'secret', 'db', '-n', ns, '-p', JSON.stringify({ stringData: { password: 'rotated' } })]],
      ['files', ['patch', 'configmap', 'files', '-n', ns, '-p', JSON.stringify({ data: { 'app.conf': 'threads=8' } })]],
      ['envFrom', ['patch', 'configmap', 'settings', '-n', ns, '-p', JSON.stringify({ data: { MODE: 'green' } })]],
    ];
    for (const [what, edit] of edits) {
      const before = replicaSets(ns, 'shop');
      const digest = templateDigest(ns, 'shop');
      kubectl(edit);
      const result = applyWait('shop');
      expect({ what, action: result.decision.action }).toEqual({ what, action: 'update' });
      expect(templateDigest(ns, 'shop')).not.toBe(digest);
      // One new ReplicaSet: the pods rolled once.
      expect(replicaSets(ns, 'shop').filter((rs) => !before.includes(rs))).toHaveLength(1);
      expect(getJson(['get', 'webservice', 'shop', '-n', ns]).status.conditions).toContainEqual(
        expect.objectContaining({ type: 'Ready', status: 'True' }),
      );
      await applyNothing('shop');
    }
  });

  it("rolls the pods once for what a sidecar reads, which reads the revision's snapshot", async () => {
    const ns = namespace();
    kubectl(['create', 'configmap', 'proxy', '-n', ns, '--from-literal=UPSTREAM=a']);
    const sidecars = [{ name: 'proxy', image: 'envoy:1', envFrom: [{ configMapRef: { name: 'proxy' } }] }];
    applyYaml(ns, webService('edge', { image: 'nginx:1.27', workload: { port: 8080, sidecars } }));
    applyWait('edge');
    const readBySidecar = () =>
      getJson(['get', 'deployment', 'edge', '-n', ns]).spec.template.spec.initContainers[0].envFrom[0].configMapRef
        .name as string;
    const snapshot = readBySidecar();
    expect(snapshot).toMatch(/^edge-proxy-[0-9a-f]{10}$/);
    expect(templateDigest(ns, 'edge')).toMatch(/^configmap\/proxy=[0-9a-f]{16}$/);
    const before = replicaSets(ns, 'edge');
    kubectl(['patch', 'configmap', 'proxy', '-n', ns, '-p', JSON.stringify({ data: { UPSTREAM: 'b' } })]);
    expect(applyWait('edge').decision.action).toBe('update');
    expect(readBySidecar()).not.toBe(snapshot);
    expect(replicaSets(ns, 'edge').filter((rs) => !before.includes(rs))).toHaveLength(1);
    await applyNothing('edge');
  });

  it('rolls nothing for a label edit, nor once the pods opted out', async () => {
    const ns = namespace();
    const before = replicaSets(ns, 'shop');
    kubectl(['label', 'secret', 'db', '-n', ns, 'rotated=soon']);
    await applyNothing('shop');
    // Opting out removes the digest from the pod template: that is one rollout, and the last.
    patchWebService(ns, 'shop', { spec: { workload: { restartOnConfigChange: false } } });
    applyWait('shop');
    expect(templateDigest(ns, 'shop')).toBeUndefined();
    const optedOut = replicaSets(ns, 'shop');
    expect(optedOut.filter((rs) => !before.includes(rs))).toHaveLength(1);
    kubectl(['patch', 'secret', 'db', '-n', ns, '-p', JSON.stringify({ stringData: { password: 'again' } })]);
    await applyNothing('shop');
    expect(replicaSets(ns, 'shop')).toEqual(optedOut);
  });

  it('names a missing Secret, Stalled, and an optional one blocks nothing', () => {
    const ns = namespace();
    const env = [
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'absent', key: 'token' } } },
      { name: 'EXTRA', valueFrom: { secretKeyRef: { name: 'absent-too', key: 'x', optional: true } } },
    ];
    applyYaml(ns, webService('lost', { image: 'nginx:1.27', workload: { port: 8080, env } }));
    // Stalled (exit 1): the pods cannot start until someone makes the Secret.
    expect(plugin(['apply', 'lost', '-n', ns, '-o', 'json']).status).toBe(1);
    const conditions = getJson(['get', 'webservice', 'lost', '-n', ns]).status.conditions;
    expect(conditions).toContainEqual(
      expect.objectContaining({
        type: 'Ready',
        status: 'False',
        reason: 'ConfigNotFound',
        message: 'secret/absent not found; the pods read it (env TOKEN)',
      }),
    );
    expect(conditions).toContainEqual(
      expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'ConfigNotFound' }),
    );
  });

  it('tells a user who may not read a Secret which one, in one line, and writes nothing', async () => {
    const ns = namespace();
    kubectl([
      'create',
      'role',
      'no-secrets',
      '-n',
      ns,
      '--verb=get,list,watch,create,patch,delete',
      '--resource=webservices.apps.labhub.io,webservices.apps.labhub.io/status,configmaps,deployments.apps,services,' +
        'poddisruptionbudgets.policy,horizontalpodautoscalers.autoscaling,ingresses.networking.k8s.io,' +
        'networkpolicies.networking.k8s.io,events.events.k8s.io,' +
        'controllerrevisions.apps',
    ]);
    const kubeconfig = serviceAccountKubeconfig(ns, 'no-secrets', ['--role=no-secrets']);
    kubectl(['patch', 'secret', 'db', '-n', ns, '-p', JSON.stringify({ stringData: { password: 'unseen' } })]);
    audit.mark();
    const result = plugin(['apply', 'shop', '-n', ns, '--kubeconfig', kubeconfig]);
    expect(result.status).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: webservice\/shop reads secret\/db: secrets "db" is forbidden: /),
    ]);
    expect(await pluginMutations(audit)).toEqual([]);
  });
});

describeWorkloads('the config the pods read, with run', () => {
  let ns: string;
  let ctl: ControllerProcess;
  // The controller talks through the test proxy, which counts what it reads of Secrets: the audit
  // log cannot tell a list of their metadata from a list of their data.
  let proxy: WatchProxy;
  beforeAll(async () => {
    proxy = await WatchProxy.start(controllerKubeconfig(), { delayP: 0, delayMs: 0, seed: 1 });
    ({ ns, ctl } = await controlledNamespace('config-run', proxy.kubeconfig));
    configObjects(ns);
    applyYaml(ns, webService('shop', { image: 'nginx:1.27', workload: READS_CONFIG }));
    await eventually(() => (readyOf(ns, 'shop') === 'True' ? true : undefined), 120_000);
  });
  afterAll(async () => {
    await endControlled(ns, ctl);
    await proxy.stop();
  });

  const readyOf = (namespace: string, name: string) =>
    getJson(['get', 'webservice', name, '-n', namespace]).status?.conditions?.find((c: any) => c.type === 'Ready')
      ?.status;
  const controllerWrite = (e: AuditEvent) => e.user.username === CONTROLLER_USER && MUTATING.has(e.verb);
  const controllerWrites = async (audit: AuditWindow) =>
    (await audit.events()).filter(controllerWrite).map(describeEvent);

  it('rolls the pods once for a rotated Secret, then writes nothing', async () => {
    const before = replicaSets(ns, 'shop');
    kubectl(['patch', 'secret', 'db', '-n', ns, '-p', JSON.stringify({ stringData: { password: 'rotated' } })]);
    await eventually(() => (replicaSets(ns, 'shop').length === before.length + 1 ? true : undefined), 60_000);
    await eventually(() => (readyOf(ns, 'shop') === 'True' ? true : undefined), 120_000);
    // The rollout's last Events may still be on their way; steady state starts after them.
    const audit = new AuditWindow(ns);
    await audit.markWhenQuiet(controllerWrite);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await controllerWrites(audit)).toEqual([]);
    expect(replicaSets(ns, 'shop')).toHaveLength(before.length + 1);
  });

  it('rolls nothing for a label edit of the Secret', async () => {
    const before = replicaSets(ns, 'shop');
    const audit = new AuditWindow(ns);
    audit.mark();
    kubectl(['label', 'secret', 'db', '-n', ns, 'rotated=soon']);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await controllerWrites(audit)).toEqual([]);
    expect(replicaSets(ns, 'shop')).toEqual(before);
  });

  it('reads the data of the Secrets the pods read, and of no other', async () => {
    const audit = new AuditWindow(ns);
    audit.mark();
    const digest = templateDigest(ns, 'shop');
    kubectl(['create', 'secret', 'generic', 'unrelated', '-n', ns, '--from-literal=x=y']);
    kubectl(['patch', 'secret', 'db', '-n', ns, '-p', JSON.stringify({ stringData: { password: 'rotated-again' } })]);
    await eventually(() => (templateDigest(ns, 'shop') !== digest ? true : undefined), 60_000);
    const reads = (await audit.events()).filter(
      (e) => e.user.username === CONTROLLER_USER && e.objectRef?.resource === 'secrets' && e.verb === 'get',
    );
    expect(reads.map((e) => e.objectRef?.name)).not.toContain('unrelated');
    expect(reads.map((e) => e.objectRef?.name)).toContain('db');
    // Through the proxy: every list and watch of Secrets asked for their metadata alone, and the
    // only Secrets whose data the controller read are the one its pods read and the digest key.
    const counts = await eventually(() => {
      const now = proxy.counts();
      return now.secretsRead.includes('db') ? now : undefined;
    }, 5_000);
    expect(counts.secretLists).toBe(0);
    expect(counts.secretMetadataLists).toBeGreaterThan(0);
    expect(counts.secretsRead.sort()).toEqual(['db', CONFIG_KEY]);
  });
});

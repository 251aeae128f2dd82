// A real app on a WebService: the pod's whole spec, end to end with the bundled plugin on a
// plane that runs pods. Each field reaches the pod template and goes when the spec drops it;
// every spelling the server rewrites converges to zero writes; hand edits of our fields are put
// back while everyone else's stay; and when pods cannot be made, the status says why, in the
// API server's words, and recovers by itself.
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
  numbered,
  patchWebService,
  plugin,
  sleep,
  tryGetJson,
  useNamespace,
  webService,
} from '../support/cluster';
import {
  EVERY_POD_FIELD,
  POD_PRIORITY_CLASS,
  boundClaim,
  podFieldsPrerequisites,
  podPriorityClass,
} from '../support/pod-fields';
import { ControllerProcess, controllerKubeconfig, useControlledNamespace } from '../support/controller';
import { pluginMutations } from '../support/commands';

const title = 'the pod spec';

type Json = Record<string, any>;

const EVERY_FIELD = EVERY_POD_FIELD;

/** A volume that someone else adds to the pods. */
const HAND_VOLUME = { name: 'added-by-hand', emptyDir: {} };
/** An init container that someone else adds (a service mesh's, say). */
const HAND_INIT = { name: 'added-by-hand', image: 'busybox:1.36', command: ['true'] };

const conditionOf = (ws: Json, type: string) => (ws.status?.conditions ?? []).find((c: Json) => c.type === type);

describeWorkloads(title, () => {
  const ns = useNamespace('pod-spec');
  const audit = new AuditWindow(ns);
  beforeAll(() => podFieldsPrerequisites(ns()));

  const deployment = (name: string) => getJson(['get', 'deployment', name, '-n', ns()]);
  const web = (name: string) => deployment(name).spec.template.spec.containers.find((c: Json) => c.name === 'web');
  const converge = (name: string) => {
    const result = plugin(['apply', name, '-n', ns(), '--wait=3m', '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  };
  /** A strategic merge patch of the Deployment's pod spec, as someone else (kubectl) makes it. */
  const patchPod = (name: string, spec: Json) =>
    kubectl(['patch', 'deployment', name, '-n', ns(), '-p', JSON.stringify({ spec: { template: { spec } } })]);
  const setWorkload = (name: string, workload: Json) =>
    applyYaml(ns(), webService(name, { image: 'nginx:1.27', replicas: 2, workload }));

  it('every field set reaches the pod template, and the rollout completes', () => {
    setWorkload('shop', EVERY_FIELD);
    converge('shop');
    const spec = deployment('shop').spec;
    expect(spec.progressDeadlineSeconds).toBe(120);
    expect(spec.strategy).toEqual(EVERY_FIELD.strategy);
    expect(spec.template.metadata.labels.team).toBe('payments');
    expect(spec.template.metadata.annotations['sidecar.istio.io/inject']).toBe('true');
    const pod = spec.template.spec;
    expect(pod).toMatchObject({
      serviceAccountName: 'shop',
      imagePullSecrets: [{ name: 'registry' }],
      securityContext: { fsGroup: 2000, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      nodeSelector: EVERY_FIELD.nodeSelector,
      tolerations: EVERY_FIELD.tolerations,
      affinity: EVERY_FIELD.affinity,
      topologySpreadConstraints: EVERY_FIELD.topologySpreadConstraints,
      terminationGracePeriodSeconds: 45,
    });
    expect(pod.volumes).toEqual([
      expect.objectContaining({
        // The revision's snapshot of ConfigMap features, named after its content's digest.
        configMap: expect.objectContaining({
          name: expect.stringMatching(/^shop-features-[0-9a-f]{10}$/),
          items: EVERY_FIELD.files[0].items,
        }),
      }),
      { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
      // As the server stores it: with its defaults.
      {
        name: 'identity',
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 3600 } },
            {
              downwardAPI: {
                items: [{ path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } }],
              },
            },
          ],
        },
      },
    ]);
    // The sidecar first, then the init container: both under the restricted profile.
    const restricted = {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    };
    expect(pod.initContainers).toEqual([
      expect.objectContaining({ name: 'proxy', restartPolicy: 'Always', securityContext: restricted }),
      expect.objectContaining({ name: 'migrate', command: ['/bin/true'], securityContext: restricted }),
    ]);
    // Every reference to ConfigMap features reads that snapshot; Secret db is read as it is.
    const snapshot = pod.volumes[0].configMap.name as string;
    const readingSnapshot = <T>(refs: T): T =>
      JSON.parse(JSON.stringify(refs).split('"name":"features"').join(`"name":"${snapshot}"`)) as T;
    expect(web('shop')).toMatchObject({
      command: EVERY_FIELD.command,
      args: EVERY_FIELD.args,
      env: readingSnapshot(EVERY_FIELD.env),
      envFrom: readingSnapshot(EVERY_FIELD.envFrom),
      // As the server stores them.
      resources: { requests: { cpu: '500m', memory: '1536Mi' }, limits: { cpu: '1', memory: '2Gi' } },
      readinessProbe: expect.objectContaining({ httpGet: expect.objectContaining({ path: '/ready', port: 8080 }) }),
      livenessProbe: expect.objectContaining({ periodSeconds: 10 }),
      startupProbe: expect.objectContaining({ failureThreshold: 30 }),
      lifecycle: EVERY_FIELD.lifecycle,
      securityContext: {
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      volumeMounts: [expect.objectContaining({ mountPath: '/etc/shop', readOnly: true }), ...EVERY_FIELD.volumeMounts],
    });
    expect(web('shop').ports).toEqual([
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
    ]);
    expect(getJson(['get', 'service', 'shop', '-n', ns()]).spec.ports).toEqual([
      { name: 'http', port: 8080, targetPort: 8080, protocol: 'TCP' },
      { name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' },
    ]);
    expect(getJson(['get', 'webservice', 'shop', '-n', ns()]).status.ready).toBe('2/2');
  });

  it('a converged pass with every field set makes no write', async () => {
    audit.mark();
    const result = plugin(['apply', 'shop', '-n', ns(), '-o', 'json']);
    expect(JSON.parse(result.stdout).decision.action).toBe('noop');
    expect(await pluginMutations(audit)).toEqual([]);
  });

  it('hand edits of our fields are put back; what others add stays', () => {
    kubectl(['set', 'env', 'deployment/shop', '-n', ns(), '-c', 'web', 'LOG_LEVEL=trace', 'ADDED_BY_HAND=1']);
    kubectl(['set', 'resources', 'deployment/shop', '-n', ns(), '-c', 'web', '--requests=cpu=250m']);
    kubectl(['label', 'deployment', 'shop', '-n', ns(), 'cost-center=42']);
    kubectl(['annotate', 'deployment', 'shop', '-n', ns(), 'owner=team-a']);
    // A container and a volume of someone else's, and an init container (a service mesh's),
    // beside ours in the lists merged by name. And a toleration: an atomic list the spec sets is
    // wholly ours, so that one goes.
    patchPod('shop', {
      containers: [{ name: 'sidecar', image: 'envoy:1.30' }],
      volumes: [HAND_VOLUME],
      initContainers: [HAND_INIT],
      tolerations: [...EVERY_FIELD.tolerations, { key: 'spot', operator: 'Exists' }],
    });
    kubectl(['rollout', 'restart', 'deployment/shop', '-n', ns()]);
    const restartedAt = deployment('shop').spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'];
    expect(restartedAt).toBeDefined();
    converge('shop');
    const after = deployment('shop');
    const env = Object.fromEntries(web('shop').env.map((e: Json) => [e.name, e.value]));
    expect(env).toMatchObject({ LOG_LEVEL: 'debug', ADDED_BY_HAND: '1' });
    expect(web('shop').resources.requests.cpu).toBe('500m');
    expect(after.metadata.labels['cost-center']).toBe('42');
    expect(after.metadata.annotations.owner).toBe('team-a');
    expect(after.spec.template.spec.containers.map((c: Json) => c.name).sort()).toEqual(['sidecar', 'web']);
    expect(after.spec.template.spec.tolerations).toEqual(EVERY_FIELD.tolerations);
    // Theirs stays, where their patch put it (before ours); ours keep their order.
    const inits = after.spec.template.spec.initContainers.map((c: Json) => c.name) as string[];
    expect(inits.filter((name) => name !== HAND_INIT.name)).toEqual(['proxy', 'migrate']);
    expect(inits).toContain(HAND_INIT.name);
    expect(after.spec.template.spec.volumes.map((v: Json) => v.name)).toEqual(
      expect.arrayContaining(['cache', 'identity', HAND_VOLUME.name]),
    );
    // The restart happened, and is not undone.
    expect(after.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toBe(restartedAt);
  });

  it("replicas written through the WebService's scale subresource reach the Deployment and stay", () => {
    kubectl(['scale', 'webservice', 'shop', '-n', ns(), '--replicas=3']);
    converge('shop');
    expect(deployment('shop').spec.replicas).toBe(3);
    converge('shop');
    expect(deployment('shop').spec.replicas).toBe(3);
  });

  it("a field removed from the spec is removed from the Deployment; others' stay", () => {
    const {
      env: _env,
      resources: _resources,
      files: _files,
      podLabels: _labels,
      nodeSelector: _nodeSelector,
      tolerations: _tolerations,
      affinity: _affinity,
      topologySpreadConstraints: _spread,
      terminationGracePeriodSeconds: _grace,
      lifecycle: _lifecycle,
      ports: _ports,
      volumes: _volumes,
      volumeMounts: _volumeMounts,
      sidecars: _sidecars,
      initContainers: _initContainers,
      ...rest
    } = EVERY_FIELD;
    setWorkload('shop', rest);
    converge('shop');
    const after = deployment('shop');
    const container = web('shop');
    expect(container.env).toEqual([{ name: 'ADDED_BY_HAND', value: '1' }]);
    expect(container.resources ?? {}).toEqual({});
    expect(container.volumeMounts).toBeUndefined();
    expect(container.lifecycle).toBeUndefined();
    expect(container.ports.map((p: Json) => p.name)).toEqual(['http']);
    expect(getJson(['get', 'service', 'shop', '-n', ns()]).spec.ports.map((p: Json) => p.name)).toEqual(['http']);
    const pod = after.spec.template.spec;
    // The volume someone else added stays.
    expect(pod.volumes).toEqual([HAND_VOLUME]);
    expect(pod.initContainers.map((c: Json) => c.name)).toEqual([HAND_INIT.name]);
    for (const field of ['nodeSelector', 'tolerations', 'affinity'])
      expect({ field, value: pod[field] }).toEqual({ field, value: undefined });
    // The spec's constraints go; with no placement of its own left, the default spread takes their place.
    expect(pod.topologySpreadConstraints.map((c: Json) => c.topologyKey)).toEqual([
      'kubernetes.io/hostname',
      'topology.kubernetes.io/zone',
    ]);
    // The server's default again.
    expect(pod.terminationGracePeriodSeconds).toBe(30);
    expect(after.spec.template.metadata.labels.team).toBeUndefined();
    expect(pod.containers.map((c: Json) => c.name).sort()).toEqual(['sidecar', 'web']);
    expect(after.metadata.labels['cost-center']).toBe('42');
  });

  it("an atomic list the spec does not set is someone else's: it stays, and makes no write", async () => {
    const tolerations = [{ key: 'spot', operator: 'Exists', effect: 'NoSchedule' }];
    patchPod('shop', { tolerations });
    // The pods roll to the new template first: the status follows them, which is a write of its own.
    converge('shop');
    audit.mark();
    const result = plugin(['apply', 'shop', '-n', ns(), '-o', 'json']);
    expect(JSON.parse(result.stdout).decision.action).toBe('noop');
    expect(await pluginMutations(audit)).toEqual([]);
    expect(deployment('shop').spec.template.spec.tolerations).toEqual(tolerations);
  });

  it('a priority class reaches the pod template, and goes with the spec', () => {
    setWorkload('urgent', { priorityClassName: POD_PRIORITY_CLASS });
    converge('urgent');
    expect(deployment('urgent').spec.template.spec.priorityClassName).toBe(POD_PRIORITY_CLASS);
    setWorkload('urgent', {});
    converge('urgent');
    expect(deployment('urgent').spec.template.spec.priorityClassName).toBeUndefined();
  });

  it('an existing Deployment is adopted only when it asks for it', () => {
    // A Deployment's selector cannot change: one moved under a WebService already selects its pods.
    const selector = { 'app.kubernetes.io/name': 'webservice', 'app.kubernetes.io/instance': 'legacy' };
    const legacy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'legacy', labels: { team: 'old' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: selector },
        template: { metadata: { labels: selector }, spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] } },
      },
    };
    applyYaml(ns(), JSON.stringify(legacy));
    const before = deployment('legacy').metadata.resourceVersion;
    setWorkload('legacy', {});
    const refused = plugin(['apply', 'legacy', '-n', ns(), '-o', 'json']);
    expect(JSON.parse(refused.stdout).decision).toMatchObject({ action: 'conflict', target: 'deployment/legacy' });
    expect(deployment('legacy').metadata.resourceVersion).toBe(before);
    kubectl(['annotate', 'deployment', 'legacy', '-n', ns(), 'webservice.labhub.io/adopt=legacy']);
    converge('legacy');
    const adopted = deployment('legacy');
    const owner = getJson(['get', 'webservice', 'legacy', '-n', ns()]).metadata.uid;
    expect(adopted.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: owner, controller: true })]);
    expect(web('legacy').image).toBe('nginx:1.27');
    expect(adopted.metadata.labels.team).toBe('old');
  });

  it('plan -f and observe -f take Deployments and Services as kubectl prints them', () => {
    const objects = kubectl([
      'get',
      'webservice,configmap,secret,controllerrevision,deployment,service',
      '-n',
      ns(),
      '-o',
      'json',
    ]);
    const plan = plugin(['plan', '-f', '-', '-o', 'json'], { input: objects });
    expect(plan.stderr).toBe('');
    const decisions = JSON.parse(plan.stdout).items as Json[];
    expect(decisions.find((d) => d.name === 'shop')).toMatchObject({ action: 'noop' });
    const observed = plugin(['observe', '-f', '-', '-o', 'json'], { input: objects });
    expect(observed.status).toBe(0);
    const refused = plugin(['plan', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }),
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/ConfigMap, Secret, ControllerRevision, Deployment, Service/);
  });
});

/** Zero writes at steady state for every spelling the server rewrites: one WebService a row. */
const SPELLINGS: [string, Json][] = [
  ['cpu 0.5', { resources: { requests: { cpu: '0.5' } } }],
  ['cpu 500m', { resources: { requests: { cpu: '500m' } } }],
  ['cpu as a number', { resources: { requests: { cpu: 1 } } }],
  ['memory 1.5Gi', { resources: { requests: { memory: '1.5Gi' } } }],
  ['memory 1536Mi', { resources: { requests: { memory: '1536Mi' } } }],
  ['memory 100M', { resources: { limits: { memory: '100M' } } }],
  ['memory 1e9', { resources: { limits: { memory: '1e9' } } }],
  ['a probe with every default left out', { readinessProbe: { httpGet: { path: '/', port: 8080 } } }],
  [
    'a probe with 0 for its defaults',
    { livenessProbe: { tcpSocket: { port: 8080 }, timeoutSeconds: 0, periodSeconds: 0 } },
  ],
  ['env without optional', { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }],
  ['env with optional', { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } }] }],
  ['env with an empty value', { env: [{ name: 'EMPTY', value: '' }] }],
  ['a securityContext with only some fields', { securityContext: { runAsUser: 1000 } }],
  ['a strategy with percentages', { strategy: { rollingUpdate: { maxSurge: '50%' } } }],
  ['a node selector', { nodeSelector: { 'kubernetes.io/os': 'linux' } }],
  ['a toleration without its operator', { tolerations: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }] }],
  ['a toleration of any value', { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }],
  [
    'a required node affinity',
    {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }],
          },
        },
      },
    },
  ],
  [
    'a preferred pod anti-affinity',
    {
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } },
            },
          ],
        },
      },
    },
  ],
  [
    'a topology spread with its defaults left out',
    {
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' },
      ],
    },
  ],
  ['a priority class', { priorityClassName: POD_PRIORITY_CLASS }],
  [
    'an emptyDir of {}',
    { volumes: [{ name: 'scratch', emptyDir: {} }], volumeMounts: [{ name: 'scratch', mountPath: '/s' }] },
  ],
  ['an emptyDir of 1.5Gi', { volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1.5Gi', medium: 'Memory' } }] }],
  [
    'a projected volume with its defaults left out',
    {
      volumes: [
        {
          name: 'p',
          projected: {
            sources: [
              { serviceAccountToken: { path: 't' } },
              { secret: { name: 's', items: [{ key: 'k', path: 'k' }] } },
              { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } },
            ],
          },
        },
      ],
      volumeMounts: [{ name: 'p', mountPath: '/p', readOnly: true }],
    },
  ],
  [
    'a claim by name',
    {
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
    },
  ],
  [
    "a sidecar with its restartPolicy and its probe's defaults left out",
    {
      sidecars: [
        {
          name: 'proxy',
          image: 'envoyproxy/envoy:v1.31',
          ports: [{ containerPort: 9901 }],
          startupProbe: { tcpSocket: { port: 9901 }, periodSeconds: 0 },
        },
      ],
    },
  ],
  [
    'a sidecar with restartPolicy Always given, and a quantity',
    {
      sidecars: [
        { name: 'log', image: 'busybox:1.36', restartPolicy: 'Always', resources: { requests: { cpu: '0.1' } } },
      ],
    },
  ],
  [
    'an init container with an empty value and a quantity',
    {
      initContainers: [
        {
          name: 'migrate',
          image: 'busybox:1.36',
          env: [{ name: 'A', value: '' }],
          resources: { limits: { memory: '1.5Gi' } },
        },
      ],
    },
  ],
  [
    'a sidecar and an init container sharing a volume',
    {
      volumes: [{ name: 'shared', emptyDir: {} }],
      sidecars: [
        { name: 'proxy', image: 'envoyproxy/envoy:v1.31', volumeMounts: [{ name: 'shared', mountPath: '/s' }] },
      ],
      initContainers: [{ name: 'seed', image: 'busybox:1.36', volumeMounts: [{ name: 'shared', mountPath: '/s' }] }],
    },
  ],
  ['a port with its protocol left out', { ports: [{ name: 'metrics', port: 9090 }] }],
  [
    'ports over UDP and TCP, and a probe on one by name',
    {
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'admin', port: 9901, protocol: 'TCP' },
      ],
      readinessProbe: { tcpSocket: { port: 'admin' } },
    },
  ],
  ['a grace period of 0', { terminationGracePeriodSeconds: 0 }],
  ['a preStop httpGet without its scheme', { lifecycle: { preStop: { httpGet: { path: '/stop', port: 8080 } } } }],
  [
    'a postStart exec and a preStop sleep',
    { lifecycle: { postStart: { exec: { command: ['true'] } }, preStop: { sleep: { seconds: 1 } } } },
  ],
];

describeWorkloads(`${title}: every spelling converges to zero writes`, () => {
  let ctl: ControllerProcess | undefined;
  const ns = useNamespace('spellings', { beforeDelete: () => ctl?.stop() });
  const audit = new AuditWindow(ns);
  beforeAll(() => {
    kubectl(['create', 'secret', 'generic', 's', '-n', ns(), '--from-literal=k=v']);
    podPriorityClass();
    boundClaim(ns(), 'data');
  });

  const names = numbered('spelling', SPELLINGS.length);

  it('apply --all converges them, then writes nothing, twice', async () => {
    const items = SPELLINGS.map(([, workload], i) =>
      JSON.parse(webService(names[i], { image: 'nginx:1.27', workload: { port: 8080, ...workload } })),
    );
    applyYaml(ns(), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const first = plugin(['apply', '--all', '-n', ns(), '--wait=3m', '-o', 'json']);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    for (let pass = 0; pass < 2; pass++) {
      audit.mark();
      const again = plugin(['apply', '--all', '-n', ns(), '-o', 'json']);
      const actions = (JSON.parse(again.stdout).items as Json[]).map((item) => [
        item.name,
        item.decision?.action ?? item.action,
      ]);
      expect(actions).toEqual(names.map((name) => [name, 'noop']));
      const writes = await pluginMutations(audit);
      expect({ pass, writes }).toEqual({ pass, writes: [] });
    }
  }, 240_000);

  it('run makes no write over 20 s', async () => {
    ctl = new ControllerProcess(['-n', ns(), '--kubeconfig', controllerKubeconfig()]);
    await ctl.waitForLog(/controller working/);
    await sleep(2_000);
    audit.mark();
    await sleep(20_000);
    const requests = (await audit.all()).filter(fromPlugin);
    expect(requests.filter((e) => MUTATING.has(e.verb)).map(describeEvent)).toEqual([]);
    expect(ctl.exit).toBeNull();
  }, 60_000);
});

describeWorkloads(`${title}: pods that cannot be made`, () => {
  const { ns } = useControlledNamespace('cannot-make');

  const ws = (name: string) => getJson(['get', 'webservice', name, '-n', ns()]);
  const stalledWith = (name: string, message: RegExp) => () => {
    const stalled = conditionOf(ws(name), 'Stalled');
    return stalled?.status === 'True' && stalled.reason === 'FailedCreate' && message.test(stalled.message);
  };
  const ready = (name: string) => () => conditionOf(ws(name), 'Ready')?.status === 'True';

  it("a quota that demands requests: Stalled with the quota's message, and Ready once it is gone", async () => {
    kubectl(['create', 'quota', 'compute', '-n', ns(), '--hard=requests.cpu=2,limits.cpu=4']);
    applyYaml(ns(), webService('quota', { image: 'nginx:1.27', replicas: 1, workload: {} }));
    await eventually(stalledWith('quota', /must specify .*cpu/), 60_000);
    expect(conditionOf(ws('quota'), 'Ready')).toMatchObject({ status: 'False', reason: 'FailedCreate' });
    kubectl(['delete', 'quota', 'compute', '-n', ns()]);
    await eventually(ready('quota'), 180_000);
    expect(conditionOf(ws('quota'), 'Stalled')).toMatchObject({ status: 'False' });
  }, 300_000);

  it('a namespace that enforces restricted: refused pods are Stalled with the admission message; podSecurity: restricted rolls out', async () => {
    kubectl(['label', 'namespace', ns(), 'pod-security.kubernetes.io/enforce=restricted']);
    applyYaml(ns(), webService('plain', { image: 'nginx:1.27', replicas: 1, workload: {} }));
    applyYaml(
      ns(),
      webService('hardened', { image: 'nginx:1.27', replicas: 1, workload: { podSecurity: 'restricted' } }),
    );
    await eventually(stalledWith('plain', /violates PodSecurity "restricted/), 60_000);
    await eventually(ready('hardened'), 120_000);
    // The fix is one setting; the stall ends by itself.
    patchWebService(ns(), 'plain', { spec: { workload: { podSecurity: 'restricted' } } });
    await eventually(ready('plain'), 180_000);
    expect(
      tryGetJson(['get', 'deployment', 'plain', '-n', ns()])?.spec.template.spec.securityContext.runAsNonRoot,
    ).toBe(true);
  }, 300_000);

  it("a service account that does not exist: Stalled with the server's words", async () => {
    kubectl(['label', 'namespace', ns(), 'pod-security.kubernetes.io/enforce-']);
    applyYaml(
      ns(),
      webService('nosa', { image: 'nginx:1.27', replicas: 1, workload: { serviceAccountName: 'missing' } }),
    );
    await eventually(stalledWith('nosa', /serviceaccount "missing" not found/), 60_000);
    kubectl(['create', 'serviceaccount', 'missing', '-n', ns()]);
    await eventually(ready('nosa'), 180_000);
  }, 300_000);
});

// The pod fields of spec.workload, one group at a time: what the builder makes of each, what
// the server's defaults and spellings make of it (nothing to write), and what admission, and
// plan -f on a file, refuse.
import { storedDifferences } from '../../src/core/compare';
import type { Deployment, Json, WorkloadSpec } from '../../src/core/model';
import { podTemplate } from '../../src/core/pod';
import { appliedDeployment, decideFixture, decisionOf } from '../support/decide-fixtures';

/** The pod template a workload makes. */
const template = (workload: WorkloadSpec): Json =>
  podTemplate({ name: 'shop', image: 'nginx:1.27', tier: 'dev', workload, selector: { app: 'shop' } });
const podOf = (workload: WorkloadSpec) => template(workload).spec as Json;
const webOf = (workload: WorkloadSpec) => (podOf(workload).containers as Json[])[0];

/** What a Deployment with this pod template differs in from a live one with that one. */
const differences = (want: Json, have: Json) =>
  storedDifferences(
    { apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: want } } },
    { apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: have } } },
  );

/** What plan -f says of a file with this workload: the error's message, or '' when it is taken. */
const refusal = (workload: Json): string => {
  const raw = decideFixture('create-workload');
  try {
    decisionOf({ ...raw, parent: { ...raw.parent, spec: { ...raw.parent.spec, workload } } });
    return '';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('placement', () => {
  const placement = {
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    tolerations: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
        },
      },
    },
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' }],
    priorityClassName: 'high',
  };

  it('reaches the pod as given, and only when set', () => {
    expect(podOf(placement)).toMatchObject(placement);
    for (const field of Object.keys(placement)) expect(podOf({})[field]).toBeUndefined();
  });

  it("the server's default of a toleration's operator is no difference", () => {
    const stored = { ...podOf(placement), tolerations: [{ ...placement.tolerations[0], operator: 'Equal' }] };
    expect(differences(podOf(placement), stored)).toEqual([]);
  });

  it("tolerations are atomic: ours whole when the spec sets them, someone else's when it does not", () => {
    const more = [...placement.tolerations, { key: 'other', operator: 'Exists' }];
    expect(differences(podOf(placement), { ...podOf(placement), tolerations: more }).map((d) => d.path)).toEqual([
      'spec.template.spec.tolerations',
    ]);
    expect(differences(podOf({}), { ...podOf({}), tolerations: more })).toEqual([]);
  });

  it('a file with placement of the wrong shape is refused, in one line', () => {
    expect(refusal({ tolerations: { key: 'a' } })).toBe('parent.spec.workload.tolerations must be a list');
    expect(refusal({ nodeSelector: ['a'] })).toBe('parent.spec.workload.nodeSelector must be an object');
    expect(refusal({ priorityClassName: 1 })).toBe('parent.spec.workload.priorityClassName must be a string');
    expect(refusal(placement)).toBe('');
  });
});

describe('the default spread', () => {
  interface Constraint {
    topologyKey: string;
    whenUnsatisfiable: string;
    maxSkew: number;
    labelSelector: unknown;
  }
  const constraintsOf = (deployment: Deployment) =>
    (deployment.spec?.template?.spec?.topologySpreadConstraints ?? []) as Constraint[];
  /** The topology keys of the Deployment that a spec makes. */
  const spreadOf = (spec: Json): string[] => {
    const raw = decideFixture('create-workload');
    const decision = decisionOf({ ...raw, parent: { ...raw.parent, spec: { ...raw.parent.spec, ...spec } } });
    return constraintsOf(appliedDeployment(decision)).map((c) => `${c.topologyKey}/${c.whenUnsatisfiable}`);
  };
  const BOTH = ['kubernetes.io/hostname/ScheduleAnyway', 'topology.kubernetes.io/zone/ScheduleAnyway'];
  const AUTOSCALING = { maxReplicas: 5, targetCPUUtilizationPercentage: 70 };

  it.each<[string, Json, string[]]>([
    ['one replica: none', { replicas: 1, workload: { port: 8080 } }, []],
    ['more than one: hosts, then zones', { replicas: 3, workload: { port: 8080 } }, BOTH],
    [
      "autoscaling up to more than one, from one: the spec's maximum counts, not the live count",
      { replicas: 1, workload: { port: 8080, autoscaling: AUTOSCALING } },
      BOTH,
    ],
    [
      'autoscaling that never runs more than one: none',
      { replicas: 1, workload: { port: 8080, autoscaling: { maxReplicas: 1 } } },
      [],
    ],
    [
      "constraints of the spec's own: those alone",
      {
        replicas: 3,
        workload: {
          port: 8080,
          topologySpreadConstraints: [{ maxSkew: 2, topologyKey: 'rack', whenUnsatisfiable: 'DoNotSchedule' }],
        },
      },
      ['rack/DoNotSchedule'],
    ],
    [
      "an affinity of the spec's own: none",
      {
        replicas: 3,
        workload: {
          port: 8080,
          affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
        },
      },
      [],
    ],
    [
      'a PersistentVolumeClaim, which a ReadWriteOnce claim would keep on one node: none',
      {
        replicas: 3,
        workload: { port: 8080, volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] },
      },
      [],
    ],
    [
      'an emptyDir: still spread',
      { replicas: 3, workload: { port: 8080, volumes: [{ name: 'tmp', emptyDir: {} }] } },
      BOTH,
    ],
    ['defaultSpread: false: none', { replicas: 3, workload: { port: 8080, defaultSpread: false } }, []],
  ])('%s', (_, spec, keys) => {
    expect(spreadOf(spec)).toEqual(keys);
  });

  it("selects the app's pods, as the Deployment does", () => {
    const raw = decideFixture('create-workload');
    const deployment = appliedDeployment(decisionOf(raw));
    for (const constraint of constraintsOf(deployment)) {
      expect(constraint.labelSelector).toEqual(deployment.spec?.selector);
      expect(constraint.maxSkew).toBe(1);
    }
  });
});

describe('shutdown', () => {
  const shutdown = { terminationGracePeriodSeconds: 45, lifecycle: { preStop: { sleep: { seconds: 5 } } } };

  it('reaches the pod and the container web, and only when set', () => {
    expect(podOf(shutdown).terminationGracePeriodSeconds).toBe(45);
    expect(webOf(shutdown).lifecycle).toEqual(shutdown.lifecycle);
    expect(podOf({}).terminationGracePeriodSeconds).toBeUndefined();
    expect(webOf({}).lifecycle).toBeUndefined();
  });

  it("a hook's server defaults are no difference", () => {
    const hook = { lifecycle: { postStart: { httpGet: { path: '/warm', port: 8080 } } } };
    const stored = { lifecycle: { postStart: { httpGet: { path: '/warm', port: 8080, scheme: 'HTTP' } } } };
    expect(differences(podOf(hook), { containers: [{ name: 'web', image: 'nginx:1.27', ...stored }] })).toEqual([]);
  });

  it('a file with a grace period that is not a count of seconds is refused, in one line', () => {
    for (const bad of [-1, 1.5, '30'])
      expect(refusal({ terminationGracePeriodSeconds: bad })).toBe(
        'parent.spec.workload.terminationGracePeriodSeconds must be an integer of 0 or more',
      );
    expect(refusal({ terminationGracePeriodSeconds: 0 })).toBe('');
    expect(refusal({ lifecycle: 'stop' })).toBe('parent.spec.workload.lifecycle must be an object');
  });
});

describe('ports', () => {
  const ports = {
    port: 8080,
    ports: [
      { name: 'metrics', port: 9090 },
      { name: 'dns', port: 53, protocol: 'UDP' as const },
    ],
  };

  it('reach the container beside http, TCP where unset', () => {
    expect(webOf(ports).ports).toEqual([
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
      { name: 'dns', containerPort: 53, protocol: 'UDP' },
    ]);
    expect(webOf({ ports: ports.ports }).ports).toHaveLength(2);
    expect(webOf({}).ports).toBeUndefined();
  });

  it('reach the Service too, each on its own number', () => {
    const input = decideFixture('create-workload');
    const decision = decisionOf({
      ...input,
      parent: { ...input.parent, spec: { ...input.parent.spec, workload: ports } },
    });
    const service = decision.ops.find((op) => op.op === 'applyChild' && op.kind === 'Service');
    expect(service?.op === 'applyChild' && (service.object as unknown as Json).spec).toMatchObject({
      ports: [
        { name: 'http', port: 8080, targetPort: 8080, protocol: 'TCP' },
        { name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' },
        { name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' },
      ],
    });
  });

  it('a probe may name one of them', () => {
    expect(refusal({ ...ports, readinessProbe: { httpGet: { path: '/', port: 'metrics' } } })).toBe('');
    expect(refusal({ ...ports, livenessProbe: { tcpSocket: { port: 'admin' } } })).toBe(
      'parent.spec.workload.livenessProbe.tcpSocket.port "admin" names no port: ' +
        "the container's ports are named http, metrics, dns",
    );
  });

  it.each<[string, Json, string]>([
    [
      'the name http',
      { ports: [{ name: 'http', port: 9090 }] },
      'ports[0].name: http is the name of spec.workload.port',
    ],
    [
      'a name twice',
      {
        ports: [
          { name: 'a', port: 1 },
          { name: 'a', port: 2 },
        ],
      },
      'ports[1].name: a is the name of another port',
    ],
    [
      'a number and protocol twice',
      {
        ports: [
          { name: 'a', port: 1 },
          { name: 'b', port: 1, protocol: 'TCP' },
        ],
      },
      'ports[1]: 1/TCP is the number and protocol of another port',
    ],
    ["spec.workload.port's number over TCP", { port: 8080, ports: [{ name: 'a', port: 8080 }] }, 'ports[0]: 8080/TCP'],
    ['a name without a letter', { ports: [{ name: '123', port: 1 }] }, "ports[0].name must be a port's name"],
    ['a name of 16 characters', { ports: [{ name: 'a'.repeat(16), port: 1 }] }, "ports[0].name must be a port's name"],
    ['a port of 0', { ports: [{ name: 'a', port: 0 }] }, 'ports[0].port must be an integer from 1 to 65535'],
    [
      'a protocol Kubernetes has not',
      { ports: [{ name: 'a', port: 1, protocol: 'HTTP' }] },
      'ports[0].protocol must be TCP or UDP or SCTP',
    ],
  ])('a file with %s is refused, in one line', (_what, workload, message) => {
    expect(refusal(workload)).toContain(`parent.spec.workload.${message}`);
  });

  it('one number over two protocols is two ports', () => {
    expect(refusal({ port: 53, ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] })).toBe('');
  });
});

describe('volumes and volumeMounts', () => {
  const file = { mountPath: '/etc/shop', configMap: 'features' };
  const volumes = {
    files: [file],
    volumes: [
      { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'shop-data' } },
      { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'vault' } }] } },
    ],
    volumeMounts: [
      { name: 'cache', mountPath: '/cache' },
      { name: 'token', mountPath: '/var/run/token', readOnly: true },
    ],
  };

  it("live beside files': files' volumes and mounts first, then the spec's", () => {
    const pod = podOf(volumes);
    expect((pod.volumes as Json[]).map((v) => v.name)).toEqual([
      expect.stringMatching(/^files-/),
      'cache',
      'data',
      'token',
    ]);
    expect((pod.volumes as Json[]).slice(1)).toEqual(volumes.volumes);
    expect(webOf(volumes).volumeMounts).toEqual([
      { name: expect.stringMatching(/^files-/), mountPath: '/etc/shop', readOnly: true },
      ...volumes.volumeMounts,
    ]);
    expect(podOf({ volumes: volumes.volumes }).volumes).toEqual(volumes.volumes);
  });

  it("the server's spellings and defaults are no difference: a size's quantity, a projected volume's mode, a token's expiry", () => {
    const stored = structuredClone(podOf(volumes));
    const [, cache, , token] = stored.volumes as Json[];
    cache.emptyDir = { sizeLimit: '1024Mi' };
    token.projected = {
      defaultMode: 420,
      sources: [{ serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 3600 } }],
    };
    expect(differences(podOf(volumes), stored)).toEqual([]);
    expect(
      differences(podOf({ volumes: [{ name: 'scratch', emptyDir: {} }] }), {
        ...podOf({}),
        volumes: [{ name: 'scratch', emptyDir: {} }],
      }),
    ).toEqual([]);
  });

  it.each<[string, Json, string]>([
    [
      'a volume named like files',
      { volumes: [{ name: 'files-1', emptyDir: {} }] },
      'volumes[0].name: files-… are the names of the volumes of spec.workload.files',
    ],
    [
      'a volume of two kinds',
      { volumes: [{ name: 'a', emptyDir: {}, projected: { sources: [] } }] },
      'volumes[0] must be one of emptyDir, persistentVolumeClaim, projected',
    ],
    ['a volume of none', { volumes: [{ name: 'a' }] }, 'volumes[0] must be one of'],
    [
      'a volume name twice',
      {
        volumes: [
          { name: 'a', emptyDir: {} },
          { name: 'a', emptyDir: {} },
        ],
      },
      'volumes[1].name: a is the name of another volume',
    ],
    [
      'a mount of no volume',
      { volumeMounts: [{ name: 'cache', mountPath: '/cache' }] },
      'volumeMounts[0].name: cache names no volume of spec.workload.volumes',
    ],
    [
      "a mount at a file's path",
      { files: [file], volumes: [{ name: 'a', emptyDir: {} }], volumeMounts: [{ name: 'a', mountPath: '/etc/shop' }] },
      'volumeMounts[0].mountPath: /etc/shop has another mount (one of files)',
    ],
    [
      'two mounts at one path',
      {
        volumes: [{ name: 'a', emptyDir: {} }],
        volumeMounts: [
          { name: 'a', mountPath: '/x' },
          { name: 'a', mountPath: '/x', subPath: 'b' },
        ],
      },
      'volumeMounts[1].mountPath: /x has another mount (of volumeMounts)',
    ],
  ])('a file with %s is refused, in one line', (_what, workload, message) => {
    expect(refusal(workload)).toContain(`parent.spec.workload.${message}`);
  });

  it('and a file with them right is taken', () => {
    expect(refusal(volumes)).toBe('');
  });
});

describe('sidecars and init containers', () => {
  const proxy = {
    name: 'proxy',
    image: 'envoyproxy/envoy:v1.31',
    ports: [{ containerPort: 9901 }],
    startupProbe: { tcpSocket: { port: 9901 }, periodSeconds: 0 },
    lifecycle: { preStop: { sleep: { seconds: 2 } } },
    volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
  };
  const migrate = { name: 'migrate', image: 'shop:2.4.1', command: ['/app/migrate'] };
  const workload = {
    sidecars: [proxy],
    initContainers: [migrate],
    volumes: [{ name: 'cache', emptyDir: {} }],
  };
  const initOf = (w: WorkloadSpec) => podOf(w).initContainers as Json[] | undefined;

  it("are the pod's initContainers: the sidecars first, restartPolicy Always, then the init containers", () => {
    expect(initOf(workload)).toEqual([
      // A probe's 0 is stored as its default, as for web's.
      { ...proxy, startupProbe: { tcpSocket: { port: 9901 }, periodSeconds: 10 }, restartPolicy: 'Always' },
      migrate,
    ]);
    expect(initOf({ initContainers: [migrate], sidecars: [proxy] })!.map((c) => c.name)).toEqual(['proxy', 'migrate']);
    expect(initOf({})).toBeUndefined();
    expect((podOf(workload).containers as Json[]).map((c) => c.name)).toEqual(['web']);
  });

  it('podSecurity: restricted applies to each of them, under what each sets itself', () => {
    const hardened = initOf({
      ...workload,
      podSecurity: 'restricted',
      initContainers: [{ ...migrate, securityContext: { runAsUser: 1000 } }],
    })!;
    for (const container of hardened)
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
    expect(hardened[1].securityContext).toMatchObject({ runAsUser: 1000 });
    expect(initOf(workload)![1].securityContext).toBeUndefined();
  });

  it("the server's defaults are no difference; someone else's init container beside ours is none either", () => {
    const stored = structuredClone(podOf(workload));
    for (const container of stored.initContainers as Json[])
      Object.assign(container, {
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      });
    const [sidecar] = stored.initContainers as Json[];
    sidecar.ports = [{ containerPort: 9901, protocol: 'TCP' }];
    sidecar.startupProbe = {
      ...(sidecar.startupProbe as Json),
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    };
    (stored.initContainers as Json[]).push({ name: 'istio-init', image: 'istio/proxyv2' });
    expect(differences(podOf(workload), stored)).toEqual([]);
  });

  it("a hand edit of a sidecar of ours is a difference, at the sidecar's name", () => {
    const stored = structuredClone(podOf(workload));
    (stored.initContainers as Json[])[0].image = 'envoyproxy/envoy:v1.30';
    expect(differences(podOf(workload), stored)).toEqual([
      {
        path: 'spec.template.spec.initContainers[proxy].image',
        want: 'envoyproxy/envoy:v1.31',
        have: 'envoyproxy/envoy:v1.30',
      },
    ]);
  });

  it("a probe of web on a sidecar's port is no warning: the sidecar declares it", () => {
    const input = decideFixture('create-workload');
    const withProbe = { ...workload, port: 8080, readinessProbe: { httpGet: { path: '/', port: 9901 } } };
    const decision = decisionOf({
      ...input,
      parent: { ...input.parent, spec: { ...input.parent.spec, workload: withProbe } },
    });
    expect(decision.warnings).toBeUndefined();
  });

  it.each<[string, Json, string]>([
    [
      'a sidecar named web',
      { sidecars: [{ ...proxy, name: 'web' }] },
      'sidecars[0].name: web is the name of the main container',
    ],
    [
      'an init container named web',
      { initContainers: [{ ...migrate, name: 'web' }] },
      'initContainers[0].name: web is the name',
    ],
    [
      'a sidecar and an init container of one name',
      { sidecars: [{ ...proxy, volumeMounts: [] }], initContainers: [{ ...migrate, name: 'proxy' }] },
      'initContainers[0].name: proxy is the name of another sidecar or init container',
    ],
    [
      'an init container with a probe',
      { initContainers: [{ ...migrate, readinessProbe: { exec: { command: ['true'] } } }] },
      'initContainers[0] cannot have readinessProbe: an init container runs to completion',
    ],
    [
      'an init container with lifecycle',
      { initContainers: [{ ...migrate, lifecycle: {} }] },
      'initContainers[0] cannot have lifecycle',
    ],
    [
      'an init container with restartPolicy Always',
      { initContainers: [{ ...migrate, restartPolicy: 'Always' }] },
      'initContainers[0] cannot have restartPolicy',
    ],
    [
      'a sidecar with restartPolicy Never',
      { sidecars: [{ ...proxy, volumeMounts: [], restartPolicy: 'Never' }] },
      "sidecars[0].restartPolicy: a sidecar's is Always",
    ],
    ['a sidecar without an image', { sidecars: [{ name: 'proxy' }] }, 'sidecars[0].image must be a non-empty string'],
    [
      'a sidecar mounting a volume the spec has not',
      { sidecars: [proxy] },
      'sidecars[0].volumeMounts[0].name: cache names no volume',
    ],
    ['sidecars that are not a list', { sidecars: proxy }, 'sidecars must be a list'],
  ])('a file with %s is refused, in one line', (_what, given, message) => {
    expect(refusal(given)).toContain(`parent.spec.workload.${message}`);
  });

  it('and a file with them right is taken, restartPolicy Always on a sidecar too', () => {
    expect(refusal(workload)).toBe('');
    expect(refusal({ ...workload, sidecars: [{ ...proxy, restartPolicy: 'Always' }] })).toBe('');
  });
});

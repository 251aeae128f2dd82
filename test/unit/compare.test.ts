// The comparison as the server stores: quantities by value, keyed lists by key, emptiness
// the server drops, others' fields ignored.
import { storedDifferences } from '../../src/core/compare';
import { quantityNanos, sameQuantity } from '../../src/core/quantity';

describe('quantities', () => {
  it.each([
    ['0.5', '500m'],
    ['1', '1000m'],
    [1, '1'],
    ['1.5Gi', '1536Mi'],
    ['1Gi', '1024Mi'],
    ['1e3', '1k'],
    ['1E3', '1000'],
    ['100M', '100000k'],
    ['0.1', '100m'],
    ['2Ki', '2048'],
    ['.5', '500m'],
    ['+1', '1'],
    ['0.0000000001', '1n'],
  ])('%s is %s', (a, b) => {
    expect(sameQuantity(a, b)).toBe(true);
  });

  it.each([
    ['1', '1001m'],
    ['1Gi', '1G'],
    ['100M', '100Mi'],
    ['-1', '1'],
  ])('%s is not %s', (a, b) => {
    expect(sameQuantity(a, b)).toBe(false);
  });

  it('reads nano-units, and nothing from what is no quantity', () => {
    expect(quantityNanos('500m')).toBe(500_000_000n);
    expect(quantityNanos('1Ki')).toBe(1_024_000_000_000n);
    expect(quantityNanos('one')).toBeUndefined();
    expect(quantityNanos('1Q')).toBeUndefined();
    expect(quantityNanos({})).toBeUndefined();
  });
});

describe('storedDifferences', () => {
  /** A Deployment of two replicas with these containers. */
  const deployment = <T>(containers: T) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    spec: { replicas: 2, template: { spec: { containers } } },
  });

  const live = deployment([
    { name: 'sidecar', image: 'envoy' },
    {
      name: 'web',
      image: 'nginx:1.27',
      imagePullPolicy: 'IfNotPresent',
      env: [{ name: 'FOREIGN', value: 'x' }, { name: 'EMPTY' }, { name: 'A', value: '1' }],
      ports: [{ containerPort: 8080, protocol: 'TCP' }],
      resources: { requests: { cpu: '500m', memory: '1536Mi' } },
      readinessProbe: {
        httpGet: { path: '/', port: 8080, scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
      command: ['nginx', '-g', 'daemon off;'],
      volumeMounts: [{ name: 'files', mountPath: '/etc/app', readOnly: true }],
    },
  ]);

  const want = deployment([
    {
      name: 'web',
      image: 'nginx:1.27',
      env: [
        { name: 'A', value: '1' },
        { name: 'EMPTY', value: '' },
      ],
      ports: [{ containerPort: 8080 }],
      resources: { requests: { cpu: '0.5', memory: '1.5Gi' } },
      readinessProbe: { httpGet: { path: '/', port: 8080 } },
      command: ['nginx', '-g', 'daemon off;'],
      volumeMounts: [{ name: 'files', mountPath: '/etc/app', readOnly: true }],
    },
  ]);

  it('sees none where the server holds our fields, in its spelling, beside others', () => {
    expect(storedDifferences(want, live)).toEqual([]);
  });

  it('names the field that differs, by the keys of its lists', () => {
    const changed = structuredClone(want);
    changed.spec.template.spec.containers[0].env[0].value = '2';
    changed.spec.template.spec.containers[0].resources.requests.cpu = '0.6';
    expect(storedDifferences(changed, live)).toEqual([
      { path: 'spec.template.spec.containers[web].env[A].value', want: '2', have: '1' },
      { path: 'spec.template.spec.containers[web].resources.requests.cpu', want: '0.6', have: '500m' },
    ]);
  });

  it('sees an item of ours that is gone', () => {
    const edited = structuredClone(live);
    edited.spec.template.spec.containers[1].env = [{ name: 'FOREIGN', value: 'x' }];
    expect(storedDifferences(want, edited).map((d) => d.path)).toEqual([
      'spec.template.spec.containers[web].env[A]',
      'spec.template.spec.containers[web].env[EMPTY]',
    ]);
  });

  it('compares an atomic list whole: another order or another length differs', () => {
    const reordered = structuredClone(live);
    reordered.spec.template.spec.containers[1].command = ['nginx', 'daemon off;', '-g'];
    expect(storedDifferences(want, reordered).map((d) => d.path)).toEqual([
      'spec.template.spec.containers[web].command',
    ]);
    const longer = structuredClone(live);
    longer.spec.template.spec.containers[1].command?.push('-v');
    expect(storedDifferences(want, longer)).toHaveLength(1);
  });

  it('tells a port apart by its protocol', () => {
    const udp = structuredClone(live);
    udp.spec.template.spec.containers[1].ports = [{ containerPort: 8080, protocol: 'UDP' }];
    expect(storedDifferences(want, udp).map((d) => d.path)).toEqual([
      'spec.template.spec.containers[web].ports[8080/TCP]',
    ]);
  });

  it('finds a port by its number, not its name: a name put on a live unnamed port is one field of it', () => {
    const named = structuredClone(want);
    Object.assign(named.spec.template.spec.containers[0].ports[0], { name: 'http' });
    expect(storedDifferences(named, live)).toEqual([
      { path: 'spec.template.spec.containers[web].ports[8080/TCP].name', want: 'http', have: undefined },
    ]);
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      spec: { ports: [{ name: 'http', port: 8080, targetPort: 8080, protocol: 'TCP' }] },
    };
    const unnamed = { ...service, spec: { ports: [{ port: 8080, targetPort: 8080, protocol: 'TCP' }] } };
    expect(storedDifferences(service, unnamed).map((d) => d.path)).toEqual(['spec.ports[8080/TCP].name']);
    expect(storedDifferences(service, service)).toEqual([]);
  });

  it("keys a list as the OpenAPI does at its place: a Service's ports by port, a container's by containerPort", () => {
    const service = (ports: object[]) => ({ apiVersion: 'v1', kind: 'Service', spec: { ports } });
    const wantService = service([{ port: 80, targetPort: 8080 }]);
    const liveService = service([
      { port: 443, protocol: 'TCP', targetPort: 8443 },
      { port: 80, protocol: 'TCP', targetPort: 8080 },
    ]);
    expect(storedDifferences(wantService, liveService)).toEqual([]);
    const moved = service([{ port: 80, protocol: 'TCP', targetPort: 9090 }]);
    expect(storedDifferences(wantService, moved)).toEqual([
      { path: 'spec.ports[80/TCP].targetPort', want: 8080, have: 9090 },
    ]);
    // A container's ports, by containerPort and protocol.
    const named = structuredClone(want);
    Object.assign(named.spec.template.spec.containers[0].ports[0], { name: 'http' });
    expect(storedDifferences(named, live)).toEqual([
      { path: 'spec.template.spec.containers[web].ports[8080/TCP].name', want: 'http', have: undefined },
    ]);
  });

  it('reads an unset key field as its default in the OpenAPI: a port without a protocol is TCP', () => {
    const service = (ports: object[]) => ({ apiVersion: 'v1', kind: 'Service', spec: { ports } });
    const stored = service([{ port: 80, protocol: 'TCP', targetPort: 8080 }]);
    expect(storedDifferences(service([{ port: 80, targetPort: 8080 }]), stored)).toEqual([]);
    expect(storedDifferences(service([{ port: 80, protocol: 'UDP' }]), stored)).toEqual([
      { path: 'spec.ports[80/UDP]', want: { port: 80, protocol: 'UDP' }, have: undefined },
    ]);
  });

  it('keys the lists the OpenAPI keys, whatever their name, and only within the kinds it describes', () => {
    const spread = (constraints: object[]) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { template: { spec: { topologySpreadConstraints: constraints } } },
    });
    const zone = { topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', maxSkew: 1 };
    const host = { topologyKey: 'host', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 2 };
    // Keyed by topologyKey and whenUnsatisfiable: another order and another's item make no difference.
    expect(storedDifferences(spread([zone]), spread([host, zone]))).toEqual([]);
    expect(storedDifferences(spread([zone]), spread([{ ...zone, maxSkew: 3 }]))).toEqual([
      {
        path: 'spec.template.spec.topologySpreadConstraints[zone/DoNotSchedule].maxSkew',
        want: 1,
        have: 3,
      },
    ]);
    // Without a kind, no list is keyed: containers are compared whole.
    const bare = { spec: { containers: [{ name: 'web' }] } };
    expect(storedDifferences(bare, { spec: { containers: [{ name: 'sidecar' }, { name: 'web' }] } })).toHaveLength(1);
  });

  it('sees a value where the server has none, unless ours is empty', () => {
    expect(storedDifferences({ a: { b: 1 } }, {})).toEqual([{ path: 'a', want: { b: 1 }, have: undefined }]);
    expect(storedDifferences({ a: false, b: '', c: [], d: {}, e: 0 }, {})).toEqual([]);
  });

  it("reads an autoscaler metric's targets as quantities, and no other value", () => {
    const hpa = (target: object, env = 'debug') => ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      spec: {
        metrics: [{ type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', ...target } } }],
        note: { value: env },
      },
    });
    expect(storedDifferences(hpa({ averageValue: '0.5' }), hpa({ averageValue: '500m' }))).toEqual([]);
    expect(storedDifferences(hpa({ value: 2 }), hpa({ value: '2' }))).toEqual([]);
    expect(storedDifferences(hpa({ averageValue: '1' }), hpa({ averageValue: '2' }))).not.toEqual([]);
    expect(storedDifferences(hpa({}, '1'), hpa({}, '1.0'))).not.toEqual([]);
  });
});

// The default spread: with more than one replica and no placement of its own, a WebService's
// pods are spread over hosts and zones, ScheduleAnyway. On the plane's two fake Nodes, each
// given a zone for the file's length: pods on both; held to one Node, every pod still
// schedules; converged, nothing is written; defaultSpread: false takes it off.
import { AuditWindow } from '../support/audit';
import {
  applyYaml,
  describeWorkloads,
  eventually,
  getJson,
  kubectl,
  plugin,
  useNamespace,
  webService,
} from '../support/cluster';
import { pluginMutations } from '../support/commands';

type Json = Record<string, any>;

const ZONE = 'topology.kubernetes.io/zone';

describeWorkloads('the default spread over hosts and zones', () => {
  const ns = useNamespace('spread');
  const audit = new AuditWindow(ns);
  let nodes: string[] = [];

  beforeAll(() => {
    nodes = getJson(['get', 'nodes', '-l', 'type=kwok']).items.map((n: Json) => n.metadata.name as string);
    nodes.forEach((node, i) => kubectl(['label', 'node', node, `${ZONE}=zone-${i}`, '--overwrite']));
  });
  afterAll(() => {
    for (const node of nodes) kubectl(['label', 'node', node, `${ZONE}-`]);
  });

  const setSpec = (replicas: number, workload: Json) =>
    applyYaml(ns(), webService('shop', { image: 'nginx:1.27', replicas, workload: { port: 8080, ...workload } }));
  const converge = () => {
    const result = plugin(['apply', 'shop', '-n', ns(), '--wait=3m']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  };
  const template = () => getJson(['get', 'deployment', 'shop', '-n', ns()]).spec.template.spec;
  const podNodes = () =>
    getJson(['get', 'pods', '-n', ns(), '-l', 'app.kubernetes.io/instance=shop']).items.map(
      (p: Json) => p.spec.nodeName as string | undefined,
    );

  it('spreads three replicas over both Nodes, by constraints that select the pods', async () => {
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    setSpec(3, {});
    converge();
    const selector = getJson(['get', 'deployment', 'shop', '-n', ns()]).spec.selector;
    expect(template().topologySpreadConstraints).toEqual(
      ['kubernetes.io/hostname', ZONE].map((topologyKey) => ({
        maxSkew: 1,
        topologyKey,
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: selector,
      })),
    );
    await eventually(() => podNodes().length === 3 && podNodes().every(Boolean));
    expect(new Set(podNodes()).size).toBe(2);
  });

  it('writes nothing once converged', async () => {
    audit.mark();
    converge();
    expect(await pluginMutations(audit)).toEqual([]);
  });

  it('never keeps a pod from scheduling: held to one Node, every pod runs there', async () => {
    setSpec(3, { nodeSelector: { 'kubernetes.io/hostname': nodes[0] } });
    converge();
    expect(template().topologySpreadConstraints).toHaveLength(2);
    await eventually(() => {
      const where = podNodes();
      return where.length === 3 && where.every((node: string | undefined) => node === nodes[0]);
    });
  });

  it('goes with defaultSpread: false, and with one replica', () => {
    setSpec(3, { defaultSpread: false });
    converge();
    expect(template().topologySpreadConstraints).toBeUndefined();
    setSpec(2, {});
    converge();
    expect(template().topologySpreadConstraints).toHaveLength(2);
    setSpec(1, {});
    converge();
    expect(template().topologySpreadConstraints).toBeUndefined();
  });
});

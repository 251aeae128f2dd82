// spec.workload.disruption: a PodDisruptionBudget named after the WebService over its pods, a
// row of the kind table like the Deployment and the Service. On a plane that runs pods and the
// disruption controller: the budget is made and counted, the API server refuses the eviction
// that would break it, a converged pass writes nothing, it goes when the spec drops it, and
// admission refuses a budget that sets both bounds or neither.
import { AuditWindow } from '../support/audit';
import {
  applyYaml,
  describeWorkloads,
  eventually,
  getJson,
  plugin,
  run,
  useNamespace,
  webService,
} from '../support/cluster';
import { pluginMutations } from '../support/commands';

type Json = Record<string, any>;

describeWorkloads('a disruption budget', () => {
  const ns = useNamespace('disruption');
  const audit = new AuditWindow(ns);

  const budget = (name: string) => getJson(['get', 'poddisruptionbudget', name, '-n', ns()]);
  const setDisruption = (name: string, disruption: Json | undefined) =>
    applyYaml(ns(), webService(name, { image: 'nginx:1.27', replicas: 3, workload: { port: 80, disruption } }));
  const converge = (name: string) => {
    const result = plugin(['apply', name, '-n', ns(), '--wait=3m']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  };
  const evict = (pod: string) =>
    run('kubectl', ['create', '--raw', `/api/v1/namespaces/${ns()}/pods/${pod}/eviction`, '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: pod, namespace: ns() },
      }),
    });

  it('is made over the pods, owned by the WebService, and counted by the disruption controller', async () => {
    setDisruption('shop', { maxUnavailable: 1 });
    converge('shop');
    const ws = getJson(['get', 'webservice', 'shop', '-n', ns()]);
    const pdb = budget('shop');
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(pdb.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'WebService', name: 'shop', uid: ws.metadata.uid, controller: true }),
    ]);
    // Its selector is the pods': every pod of the WebService, and no other.
    const selector = Object.entries(pdb.spec.selector.matchLabels as Record<string, string>)
      .map(([key, value]) => `${key}=${value}`)
      .sort();
    expect(selector).toEqual((ws.status.selector as string).split(',').sort());
    await eventually(() => budget('shop').status?.currentHealthy === 3, 60_000);
    expect(budget('shop').status).toMatchObject({ expectedPods: 3, desiredHealthy: 2, disruptionsAllowed: 1 });
  });

  it('lets a pod be evicted while the budget allows it, and refuses the eviction it does not', async () => {
    const pods = () =>
      getJson<{ items: Json[] }>(['get', 'pods', '-n', ns(), '-l', 'app.kubernetes.io/instance=shop']).items;
    const allowed = evict(pods()[0].metadata.name);
    expect(allowed.stderr).toBe('');
    expect(allowed.status).toBe(0);
    // No room at all: the API server refuses, in its own words.
    setDisruption('shop', { maxUnavailable: 0 });
    converge('shop');
    await eventually(() => {
      const pdb = budget('shop');
      return pdb.status?.observedGeneration === pdb.metadata.generation && pdb.status?.currentHealthy === 3;
    }, 60_000);
    expect(budget('shop').status.disruptionsAllowed).toBe(0);
    const refused = evict(pods()[1].metadata.name);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/Cannot evict pod as it would violate the pod's disruption budget/);
  });

  it('a converged pass writes nothing, whether the bound is a count or a percentage', async () => {
    for (const maxUnavailable of [1, '50%']) {
      setDisruption('shop', { maxUnavailable });
      converge('shop');
      expect(budget('shop').spec.maxUnavailable).toBe(maxUnavailable);
      audit.mark();
      expect(plugin(['apply', 'shop', '-n', ns()]).stdout).toMatch(/^shop\s+noop\s/m);
      expect(plugin(['apply', '--all', '-n', ns()]).stdout).toMatch(/^shop\s+noop\s/m);
      expect(await pluginMutations(audit)).toEqual([]);
    }
  });

  it('describe shows it among the children', () => {
    const { stdout } = plugin(['describe', 'shop', '-n', ns()]);
    expect(stdout).toMatch(/PodDisruptionBudget\/shop\s+Ready\s+\S+\s+\d+\/\d+ healthy, \d+ disruptions? allowed/);
  });

  it('goes when the spec no longer asks for it', () => {
    setDisruption('shop', undefined);
    converge('shop');
    const found = run('kubectl', ['get', 'poddisruptionbudget', 'shop', '-n', ns()]);
    expect(found.stderr).toMatch(/NotFound|not found/);
  });

  it.each([
    [{ maxUnavailable: 1, minAvailable: 2 }, /a disruption budget sets one of maxUnavailable or minAvailable/],
    [{}, /a disruption budget sets one of maxUnavailable or minAvailable/],
    [{ minAvailable: -1 }, /must be a count of pods \(0 or more\) or a percentage such as 25%/],
    [{ maxUnavailable: 'half' }, /must be a count of pods \(0 or more\) or a percentage such as 25%/],
  ])('admission refuses %j, and nothing changes', (disruption, message) => {
    const before = getJson(['get', 'webservice', 'shop', '-n', ns()]).metadata.resourceVersion;
    const refused = run('kubectl', ['apply', '-n', ns(), '-f', '-'], {
      input: webService('shop', { image: 'nginx:1.27', replicas: 3, workload: { port: 80, disruption } }),
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(message);
    expect(getJson(['get', 'webservice', 'shop', '-n', ns()]).metadata.resourceVersion).toBe(before);
  });
});

// The invariant checker must catch what it is there to catch, or a clean report means nothing.
import { applyYaml, createNamespace, getJson, kubectl, plugin, webService } from '../support/cluster';
import { checkInvariants } from '../support/invariants';
import { cleanNamespace } from './support';

let ns: string;
beforeAll(() => {
  ns = createNamespace('canary');
});
afterAll(() => cleanNamespace(ns));

it('passes a namespace that apply has converged', async () => {
  applyYaml(ns, webService('fine', { image: 'nginx:1.27' }));
  expect(plugin(['apply', '--all', '-n', ns]).status).toBe(0);
  const report = await checkInvariants({ namespace: ns, live: ['fine'], withinMs: 5_000, steadyWindowMs: 2_000 });
  expect(report.violations).toEqual([]);
});

it('reports an unreconciled CR, a lost CR, a stale child, an orphan, a moved foreign object and a steady-state write', async () => {
  applyYaml(ns, webService('never-reconciled', { image: 'nginx:1.27' }));
  kubectl(['patch', 'configmap', 'fine-desired', '-n', ns, '--type=merge', '-p', '{"data":{"image":"drifted"}}']);
  applyYaml(
    ns,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'orphan', labels: { 'app.kubernetes.io/managed-by': 'webservice-controller' } },
    }),
  );
  applyYaml(
    ns,
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'theirs' }, data: { a: '1' } }),
  );
  const theirs = getJson(['get', 'configmap', 'theirs', '-n', ns]).metadata.resourceVersion;
  kubectl(['patch', 'configmap', 'theirs', '-n', ns, '--type=merge', '-p', '{"data":{"a":"2"}}']);

  const report = await checkInvariants({
    namespace: ns,
    live: ['fine', 'never-reconciled', 'vanished'],
    foreign: [{ resource: 'configmaps', name: 'theirs', resourceVersion: theirs }],
    withinMs: 1_000,
    steadyWindowMs: 1_000,
    duringSteadyState: () => kubectl(['label', 'configmap', 'theirs', '-n', ns, 'touched=yes']),
  });
  const text = report.violations.join('\n');
  expect(text).toContain('webservice/never-reconciled: observedGeneration undefined != generation 1');
  expect(text).toContain('webservice/never-reconciled: controls 0 ConfigMaps, want exactly 1');
  expect(text).toContain('webservice/vanished was lost');
  expect(text).toMatch(/webservice\/fine: child fine-desired has .*"image":"drifted"/);
  expect(text).toContain('configmap/orphan carries our label but no live owner');
  expect(text).toMatch(/foreign configmaps\/theirs moved/);
  expect(text).toMatch(/1 write\(s\) in the steady-state window: patch configmaps\/theirs/);
  expect(report.figures).toMatchObject({ lost: 1, orphans: 1, foreignModified: 1, steadyStateWrites: 1 });
});

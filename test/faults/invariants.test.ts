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

it('with workloads: reports a WebService without its Deployment, a Deployment behind its spec, orphans', async () => {
  const workloads = createNamespace('canary-workloads');
  try {
    const labelled = { 'app.kubernetes.io/managed-by': 'webservice-controller' };
    const selector = { 'app.kubernetes.io/name': 'webservice', 'app.kubernetes.io/instance': 'left' };
    // Never reconciled: no Deployment, no Service.
    applyYaml(workloads, webService('bare', { image: 'nginx:1.27', workload: { port: 8080 } }));
    // A Deployment and a Service with our label and no owner: orphans.
    applyYaml(
      workloads,
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'left', labels: labelled },
        spec: {
          replicas: 0,
          selector: { matchLabels: selector },
          template: { metadata: { labels: selector }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
        },
      }),
    );
    applyYaml(
      workloads,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'left', labels: labelled },
        spec: { selector, ports: [{ port: 8080 }] },
      }),
    );
    // Reconciled with no pods, then scaled without a reconcile: its Deployment is behind.
    applyYaml(workloads, webService('behind', { image: 'nginx:1.27', replicas: 0, workload: {} }));
    plugin(['apply', 'behind', '-n', workloads]);
    expect(getJson(['get', 'deployment', 'behind', '-n', workloads]).spec.replicas).toBe(0);
    kubectl(['patch', 'webservice', 'behind', '-n', workloads, '--type=merge', '-p', '{"spec":{"replicas":1}}']);

    const report = await checkInvariants({
      namespace: workloads,
      live: ['bare', 'behind'],
      workloads: true,
      withinMs: 1_000,
      steadyWindowMs: 1_000,
    });
    const text = report.violations.join('\n');
    expect(text).toContain('webservice/bare: controls no Deployment(s), want deployment/bare');
    expect(text).toContain('deployment/left carries our label but no live owner');
    expect(text).toContain('service/left carries our label but no live owner');
    expect(text).toContain('webservice/behind: deployment/behind has 0 x nginx:1.27, want 1 x nginx:1.27');
    expect(text).toContain('webservice/behind: deployment/behind 0 ready, 0 updated of 1');
    expect(report.figures.orphans).toBe(2);
  } finally {
    cleanNamespace(workloads);
  }
});

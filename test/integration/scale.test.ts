// The scale subresource: kubectl scale sets spec.replicas, the reconcile carries it to the
// child, and a HorizontalPodAutoscaler may target a WebService.
import { applyYaml, createNamespace, deleteNamespace, getJson, kubectl, plugin, webService } from '../support/cluster';

let ns: string;
beforeAll(() => {
  ns = createNamespace('scale');
  applyYaml(ns, webService('web', { image: 'nginx:1.27', replicas: 2 }));
  expect(plugin(['apply', 'web', '-n', ns]).status).toBe(0);
});
afterAll(() => deleteNamespace(ns));

it('kubectl scale sets spec.replicas, and apply carries it to the child and the status', () => {
  expect(kubectl(['scale', 'webservice', 'web', '-n', ns, '--replicas=4'])).toContain('scaled');
  expect(getJson(['get', 'webservice', 'web', '-n', ns]).spec.replicas).toBe(4);
  const applied = JSON.parse(plugin(['apply', 'web', '-n', ns, '-o', 'json']).stdout);
  expect(applied.decision).toMatchObject({ action: 'update' });
  expect(getJson(['get', 'configmap', 'web-desired', '-n', ns]).data.replicas).toBe('4');
  const scale = getJson(['get', 'webservice', 'web', '-n', ns, '--subresource=scale']);
  expect(scale).toMatchObject({ kind: 'Scale', spec: { replicas: 4 }, status: { replicas: 4 } });
});

it('an HorizontalPodAutoscaler may target a WebService (server-side dry run)', () => {
  const hpa = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: ns },
    spec: {
      scaleTargetRef: { apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
      ],
    },
  };
  expect(kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(hpa))).toContain(
    'horizontalpodautoscaler.autoscaling/web created (server dry run)',
  );
});

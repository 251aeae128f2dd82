// observe, driven as a user would (the bundled plugin in a child process) against the
// real apiserver.
import { applyYaml, plugin, useNamespace, webService } from '../../support/cluster';
import { inNamespace } from '../../support/commands';

const ns = useNamespace('observe');
const { json, ws } = inNamespace(ns);

describe('observe', () => {
  beforeAll(() => applyYaml(ns(), webService('obs', { image: 'nginx:1.27', replicas: 2 })));

  it('-o json: desired is the spec with defaults, actual is {} before the child exists', () => {
    const { status, value } = json(['observe', 'obs']);
    expect(status).toBe(0);
    expect(value.desired).toEqual({ image: 'nginx:1.27', replicas: 2, tier: 'dev' });
    expect(value.actual).toEqual({});
    expect(value.children.ConfigMap).toBeNull();
    expect(value.uid).toBe(ws('obs').metadata.uid);
  });

  it('prints a table', () => {
    const result = plugin(['observe', 'obs', '-n', ns()]);
    expect(result.status).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^NAME\s{3,}DESIRED IMAGE\s{3,}ACTUAL IMAGE/);
    expect(result.stdout).toMatch(new RegExp(`^obs\\s+nginx:1\\.27\\s+<none>\\s+2\\s+-\\s+absent`, 'm'));
  });

  it('-f -: observes objects given on stdin, without a cluster', () => {
    const input = JSON.stringify({ parent: ws('obs') });
    const result = plugin(['observe', '-f', '-', '-o', 'json'], { input, env: { KUBECONFIG: '/nonexistent' } });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).desired.image).toBe('nginx:1.27');
  });
});

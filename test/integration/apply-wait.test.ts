// apply --all --wait over many passes reports what each WebService had done to it (not only
// the last pass), says when it timed out, and stops cleanly on Ctrl-C.
import { spawn } from 'node:child_process';
import {
  PLUGIN,
  applyYaml,
  createNamespace,
  deleteNamespace,
  eventually,
  getJson,
  kubectl,
  plugin,
  webService,
} from '../support/cluster';

describe('apply --all --wait', () => {
  let ns: string;
  beforeAll(() => {
    ns = createNamespace('wait-report');
    for (const name of ['a', 'b']) applyYaml(ns, webService(name, { image: 'nginx:1.27' }));
    applyYaml(ns, webService('waiting', { image: 'nginx:1.27', dependsOn: ['ghost'] }));
  });
  afterAll(() => deleteNamespace(ns));

  it('keeps the create of pass 1 in the report, and says it timed out waiting', () => {
    const result = plugin(['apply', '--all', '--wait=3s', '--requeue-after=1', '-n', ns, '-o', 'json']);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('error: timed out after 3s waiting for waiting\n');
    const items = JSON.parse(result.stdout).items as { name: string; action: string }[];
    expect(Object.fromEntries(items.map((i) => [i.name, i.action]))).toEqual({
      a: 'create',
      b: 'create',
      waiting: 'requeue',
    });
  });
});

describe('Ctrl-C during apply --all', () => {
  const COUNT = 300;
  let ns: string;
  beforeAll(() => {
    ns = createNamespace('interrupt');
    const items = Array.from({ length: COUNT }, (_, i) => ({
      apiVersion: 'apps.labhub.io/v1',
      kind: 'WebService',
      metadata: { name: `ws-${i}` },
      spec: { image: 'nginx:1.27' },
    }));
    kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  });
  afterAll(() => deleteNamespace(ns));

  it('finishes what is in flight, starts nothing new, prints the summary and exits 130', async () => {
    const child = spawn(PLUGIN, ['apply', '--all', '--wait=5m', '--concurrency=2', '-n', ns], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Interrupt once some, but far from all, children exist.
    await eventually(
      () => getJson(['get', 'configmaps', '-n', ns, '-l', 'app.kubernetes.io/instance']).items.length >= 20,
    );
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain(
      'interrupted: the WebServices above were reconciled, each to the end; no other was touched',
    );

    const children = getJson(['get', 'configmaps', '-n', ns, '-l', 'app.kubernetes.io/instance']).items.length;
    const withStatus = getJson(['get', 'webservices', '-n', ns]).items.filter(
      (ws: any) => ws.status?.observedGeneration === ws.metadata.generation,
    ).length;
    expect(children).toBeLessThan(COUNT);
    // Each WebService it started was carried to the end: a child and its status, never one alone.
    expect(withStatus).toBe(children);
    const rows = stdout.split('\n').filter((line) => line.startsWith('ws-'));
    expect(rows).toHaveLength(children);
    expect(stdout).toMatch(new RegExp(`\\n${children} create; converged: false\\n$`));
  });
});

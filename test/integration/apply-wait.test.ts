// apply --all --wait over many passes reports what each WebService had done to it (not only
// the last pass), says when it timed out, and stops cleanly on Ctrl-C.
import {
  applyYaml,
  backgroundPlugin,
  createWebServices,
  eventually,
  getJson,
  numbered,
  plugin,
  useNamespace,
  webService,
} from '../support/cluster';
import { INSTANCE_LABEL } from '../../src/core/model';

describe('apply --all --wait', () => {
  const ns = useNamespace('wait-report');
  beforeAll(() => {
    for (const name of ['a', 'b']) applyYaml(ns(), webService(name, { image: 'nginx:1.27' }));
    applyYaml(ns(), webService('waiting', { image: 'nginx:1.27', dependsOn: ['ghost'] }));
  });

  it('keeps the create of pass 1 in the report, and says it timed out waiting', () => {
    const result = plugin(['apply', '--all', '--wait=3s', '--requeue-after=1', '-n', ns(), '-o', 'json']);
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
  const ns = useNamespace('interrupt');
  beforeAll(() => createWebServices(ns(), numbered('ws', COUNT)));

  it('finishes what is in flight, starts nothing new, prints the summary and exits 130', async () => {
    const apply = backgroundPlugin(['apply', '--all', '--wait=5m', '--concurrency=2', '-n', ns()]);
    const children = () => getJson(['get', 'configmaps', '-n', ns(), '-l', INSTANCE_LABEL]).items.length;
    // Interrupt once some, but far from all, children exist.
    await eventually(() => children() >= 20);
    apply.signal('SIGINT');
    expect((await apply.exited).code).toBe(130);
    expect(apply.stderr).toContain(
      'interrupted: the WebServices above were reconciled, each to the end; no other was touched',
    );

    const made = children();
    const withStatus = getJson(['get', 'webservices', '-n', ns()]).items.filter(
      (ws: any) => ws.status?.observedGeneration === ws.metadata.generation,
    ).length;
    expect(made).toBeLessThan(COUNT);
    // Each WebService it started was carried to the end: a child and its status, never one alone.
    expect(withStatus).toBe(made);
    const rows = apply.stdout.split('\n').filter((line) => line.startsWith('ws-'));
    expect(rows).toHaveLength(made);
    expect(apply.stdout).toMatch(new RegExp(`\\n${made} create; converged: false\\n$`));
  });
});

// status -w, like kubectl get -w: the table, then a line each time a WebService's status,
// generation or child changes, until interrupted. It only reads: apply does the writing.
// These watch with --computed, the status a pass would write, which follows the children too;
// the stored status (the default) is shown in workload-record.test.ts.
import {
  AuditWindow,
  Background,
  MUTATING,
  applyYaml,
  backgroundPlugin,
  kubectl,
  patchWebService,
  plugin,
  useNamespace,
  webService,
  fromPlugin,
} from '../support/cluster';
import { FINALIZER } from '../../src/core/model';

const ns = useNamespace('watch');
const audit = new AuditWindow(ns);

/** The lines of one WebService, as printed so far. */
const linesOf = (watch: Background, name: string) =>
  watch.stdout.split('\n').filter((line) => line.split(/\s+/)[0] === name);

/** Ctrl-C, and the exit (SIGKILL if it does not come within 10 s). */
const interrupt = (watch: Background) => watch.end('SIGINT', 10_000);

const pluginWrites = async () => (await audit.mutating()).filter((e) => fromPlugin(e) && MUTATING.has(e.verb));

describe('status -w --computed: without a NAME, the namespace, as kubectl get -w', () => {
  let watch: Background;
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
    await watch?.end('SIGINT', 10_000);
  });

  it('prints the table first', async () => {
    applyYaml(ns(), webService('first', { image: 'nginx:1.27' }));
    watch = backgroundPlugin(['status', '-w', '--computed', '-n', ns()]);
    await watch.waitFor(/^NAME\s+READY\s+REASON\s+GENERATION\s+OBSERVED\s+REPLICAS\s+AGE\n/);
    await watch.waitFor(new RegExp(`^first\\s+False\\s+ChildMissing\\s+1\\s+1\\s+1\\s+\\d+s$`, 'm'));
  });

  it('prints a line for a new WebService, and writes nothing itself', async () => {
    audit.mark();
    // Held by our finalizer, as a user may put it there, so its deletion shows Deleting first.
    applyYaml(ns(), webService('second', { image: 'nginx:1.27', replicas: 2 }, { finalizers: [FINALIZER] }));
    await watch.waitFor(new RegExp(`^second\\s+False\\s+ChildMissing\\s+1\\s+1\\s+2\\s+\\d+s$`, 'm'));
    expect(await pluginWrites()).toEqual([]);
  });

  it('prints a line when a WebService converges, once', async () => {
    const applied = plugin(['apply', '--all', '-n', ns()]);
    expect(applied.status).toBe(0);
    await watch.waitFor(new RegExp(`^first\\s+True\\s+Reconciled\\s+1\\s+1\\s+1\\s+\\d+s$`, 'm'));
    await watch.waitFor(new RegExp(`^second\\s+True\\s+Reconciled\\s+1\\s+1\\s+2\\s+\\d+s$`, 'm'));
    // apply's further writes (status, Events) change nothing a line shows.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(linesOf(watch, 'first').map((line) => line.split(/\s+/).slice(1, 3).join(' '))).toEqual([
      'False ChildMissing',
      'True Reconciled',
    ]);
  });

  it('prints a line for a new generation and for a changed child', async () => {
    patchWebService(ns(), 'first', { spec: { replicas: 3 } });
    await watch.waitFor(new RegExp(`^first\\s+False\\s+ChildOutOfDate\\s+2\\s+2\\s+3\\s+\\d+s$`, 'm'));
    expect(plugin(['apply', 'first', '-n', ns()]).status).toBe(0);
    await watch.waitFor(new RegExp(`^first\\s+True\\s+Reconciled\\s+2\\s+2\\s+3\\s+\\d+s$`, 'm'));
    kubectl([
      'patch',
      'configmap',
      'second-desired',
      '-n',
      ns(),
      '--type=merge',
      '-p',
      '{"data":{"image":"evil:latest"}}',
    ]);
    await watch.waitFor(new RegExp(`^second\\s+False\\s+ChildOutOfDate\\s+1\\s+1\\s+2\\s+\\d+s$`, 'm'));
  });

  it('follows a deletion: Deleting while our finalizer holds it, then Deleted once finalized', async () => {
    kubectl(['delete', 'webservice', 'second', '-n', ns(), '--wait=false']);
    await watch.waitFor(new RegExp(`^second\\s+Deleting\\s`, 'm'));
    expect(plugin(['finalize', 'second', '-n', ns()]).status).toBe(0);
    await watch.waitFor(new RegExp(`^second\\s+Deleted\\s`, 'm'));
    // READY was sized for "Deleting" before any row said it, so REASON never moves right.
    const readyWidth = (line: string) => {
      const starts = [...line.matchAll(/\S+/g)].map((match) => match.index);
      return starts[2] - starts[1];
    };
    const [header, ...rows] = watch.stdout.split('\n').filter(Boolean);
    expect(rows.length).toBeGreaterThan(4);
    for (const row of rows) expect([row, readyWidth(row)]).toEqual([row, readyWidth(header)]);
  });

  it('exits 0 on SIGINT', async () => {
    const exit = await interrupt(watch);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(watch.stderr).toBe('');
  });
});

describe('status NAME -w --computed -o json', () => {
  it('prints the status as one JSON object per change', async () => {
    applyYaml(ns(), webService('solo', { image: 'nginx:1.27' }));
    const watch = backgroundPlugin(['status', 'solo', '-w', '--computed', '-n', ns(), '-o', 'json']);
    try {
      await watch.waitFor(/"name": "solo"/);
      expect(plugin(['apply', 'solo', '-n', ns()]).status).toBe(0);
      await watch.waitFor(/"reason": "Reconciled"/);
      const objects = watch.stdout
        .split(/(?<=^\})\n/m)
        .filter((text) => text.trim())
        .map((text) => JSON.parse(text));
      expect(objects.map((o) => [o.name, o.status.conditions[0].reason])).toEqual([
        ['solo', 'ChildMissing'],
        ['solo', 'Reconciled'],
      ]);
      expect(objects.every((o) => o.written === false)).toBe(true);
    } finally {
      expect(await interrupt(watch)).toEqual({ code: 0, signal: null });
    }
  });

  it('refuses a WebService that does not exist, in one line', () => {
    const result = plugin(['status', 'nope', '-w', '-n', ns()]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('error: webservices.apps.labhub.io "nope" not found\n');
  });
});

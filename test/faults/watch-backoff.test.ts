// The watches while the API server is away and while the CRD is gone: run retries ever more
// slowly (800 ms doubling to 30 s, as client-go's reflector), is not ready (/readyz says why)
// until its watches work again, and status -w says each cause once, not once per retry.
import { CRD, applyYaml, createNamespace, eventually, kubectl, plugin, sleep, webService } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { checkInvariants } from '../support/invariants';
import { PluginProcess, cleanNamespace, onLocalPlane, planeCommand, recordResult } from './support';

const localPlane = onLocalPlane ? describe : describe.skip;

/** How long the API server is away. */
const OUTAGE_MS = 20_000;
/**
 * Tries a reflector may make in OUTAGE_MS: at 800 ms doubling, the delays add up to 12.4 s
 * before the fifth try and 24.8 s before the sixth (with jitter, at least half that). Retries
 * at a fixed 0.4 to 0.8 s made about 34.
 */
const MAX_TRIES = 8;

localPlane('watches while the API server is away, and while the CRD is gone', () => {
  let ns: string;
  let ctl: ControllerProcess;
  let watch: PluginProcess;
  let port = 0;
  const readyz = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    return { status: res.status, body: await res.text() };
  };
  /** The log's retries since entry `from`, by reflector. */
  const retries = (from: number) => {
    const counts: Record<string, number> = { webservices: 0 };
    for (const e of ctl.entries.slice(from).filter((e) => /list\/watch failed/.test(e.msg)))
      counts[String(e.reflector)] = (counts[String(e.reflector)] ?? 0) + 1;
    return counts;
  };
  const warnings = () => watch.stderr.split('\n').filter((line) => line.startsWith('warning:'));

  beforeAll(async () => {
    ns = createNamespace('backoff');
    applyYaml(ns, webService('web', { image: 'nginx:1.27' }));
    ctl = new ControllerProcess([
      '-n',
      ns,
      '--kubeconfig',
      controllerKubeconfig(),
      '--health-probe-bind-address',
      '127.0.0.1:0',
    ]);
    port = Number((await ctl.waitForLog(/serving \/healthz/)).port);
    await ctl.waitForLog(/controller working/);
    watch = new PluginProcess(['status', '-w', '-n', ns]);
    await eventually(() => watch.stdout.includes('web') || undefined);
  });
  afterAll(async () => {
    await watch.end('SIGINT', 10_000);
    await ctl.stop();
    cleanNamespace(ns);
  });

  it('the API server stopped for 20 s: a few tries each, not ready meanwhile, ready again after', async () => {
    expect(await readyz()).toEqual({ status: 200, body: 'ok' });
    const from = ctl.entries.length;
    planeCommand('stop-component', 'kube-apiserver');
    let notReady = '';
    try {
      const until = Date.now() + OUTAGE_MS;
      while (Date.now() < until) {
        const answer = await readyz();
        if (answer.status !== 200) notReady = answer.body;
        await sleep(1_000);
      }
    } finally {
      planeCommand('start-component', 'kube-apiserver');
    }
    const during = retries(from);
    await eventually(async () => (await readyz()).status === 200 || undefined, 60_000);
    await ctl.waitForLog(/list\/watch works again/, 10_000, from);
    // Changes made after the outage converge.
    kubectl(['patch', 'webservice', 'web', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":2}}']);
    const report = await checkInvariants({ namespace: ns, live: ['web'], withinMs: 60_000, steadyWindowMs: 5_000 });
    recordResult('kube-apiserver stopped for 20 s while run is up', 'run', report, {
      retriesByReflector: during,
      statusWarnings: warnings().length,
    });
    expect(report.violations).toEqual([]);
    expect(notReady).toMatch(/^not ready: .*list\/watch failed \d+ times in a row: the connection to the server/);
    expect(Object.keys(during).length).toBeGreaterThan(1);
    const tooMany = Object.entries(during).filter(([, tries]) => tries > MAX_TRIES);
    expect(tooMany).toEqual([]);
    // Every reflector met the same few causes (its watch reset, the connection refused, the
    // storage initializing at the start): status -w said each once, not once per retry.
    const said = warnings().map((line) => line.replace(/; retrying in \S+:/, ':'));
    expect(said.length).toBeLessThanOrEqual(4);
    expect(new Set(said).size).toBe(said.length);
    expect(said).toContainEqual(expect.stringMatching(/^warning: list\/watch failed: the connection to the server/));
  }, 120_000);

  it('the CRD deleted: not ready, saying so, and tries backing off; ready again once it is back', async () => {
    const from = ctl.entries.length;
    const warned = warnings().length;
    kubectl(['delete', 'crd', CRD, '--wait=true', '--timeout=60s']);
    try {
      const answer = await eventually(async () => {
        const now = await readyz();
        return now.status === 503 ? now : undefined;
      }, 30_000);
      expect(answer.body).toMatch(
        /^not ready: webservices: list\/watch failed \d+ times in a row: the server could not find/,
      );
      await sleep(OUTAGE_MS);
      const tries = retries(from).webservices;
      process.stderr.write(`the CRD deleted: ${tries} tries of the webservices reflector in ${OUTAGE_MS / 1000} s\n`);
      expect(tries).toBeLessThanOrEqual(MAX_TRIES);
      expect(warnings().length - warned).toBeLessThanOrEqual(2);
    } finally {
      expect(plugin(['install']).status).toBe(0);
    }
    await eventually(async () => (await readyz()).status === 200 || undefined, 90_000);
  }, 240_000);
});

// The lab, end to end: every step L1-L8 run for real against the cluster in
// KUBECONFIG, narrated, then a table of every check. Bundled to dist/lab-demo.js
// and started by scripts/demo.sh, which prepares the cluster and PATH first.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Chalk } from 'chalk';
import { formatTable, wantsColor } from '../../src/print/output';

const ROOT = process.env.DEMO_ROOT ?? path.resolve(__dirname, '..');
const LAB_DIR = path.resolve(process.env.LAB_DIR || path.join(os.homedir(), 'op', 'reconcile'));
const OUT = path.join(LAB_DIR, 'out');
const SCRIPT = path.join(LAB_DIR, 'reconcile.sh');
const NS = 'crd-lab';
const CRD = 'webservices.apps.labhub.io';
const FINALIZER = 'webservice.labhub.io/cleanup';
const MANAGED_BY = 'app.kubernetes.io/managed-by';
const KUBECTL = process.env.KUBECTL || 'kubectl';

const color = new Chalk({ level: wantsColor(true, process.stdout, process.env) ? 1 : 0 });

interface Check {
  step: string;
  what: string;
  ok: boolean;
  detail: string;
}
const checks: Check[] = [];

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

// --- narration -----------------------------------------------------------------

function title(step: string, text: string): void {
  process.stdout.write(`\n${color.bold.blue(`== ${step}`)} ${color.bold(text)}\n`);
}

function shown(argv: string[], redirect?: string): string {
  const words = argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`));
  const display = words
    .join(' ')
    .replaceAll(LAB_DIR, '$LAB_DIR')
    .replaceAll(ROOT + '/', '');
  return redirect ? `${display} > ${redirect.replaceAll(LAB_DIR, '$LAB_DIR')}` : display;
}

/** Runs argv (no shell), shows it, optionally saves stdout to a file. */
function run(
  argv: string[],
  options: { save?: string; env?: NodeJS.ProcessEnv; quiet?: boolean; input?: string } = {},
): Ran {
  process.stdout.write(`${color.dim('$')} ${shown(argv, options.save)}\n`);
  const result = spawnSync(argv[0], argv.slice(1), {
    encoding: 'utf8',
    input: options.input,
    env: { ...process.env, ...options.env },
  });
  if (result.error) throw result.error;
  const ran = { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  if (options.save) fs.writeFileSync(options.save, ran.stdout);
  const echo = options.save ? '' : ran.stdout;
  for (const line of `${echo}${ran.stderr}`
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, options.quiet ? 0 : 12)) {
    process.stdout.write(`  ${color.dim(line)}\n`);
  }
  return ran;
}

function kubectl(args: string[], options: Parameters<typeof run>[1] = {}): Ran {
  return run([KUBECTL, ...args], options);
}

/** A read for a check: not narrated, never throws. */
function getJson(args: string[]): any {
  const result = spawnSync(KUBECTL, [...args, '-o', 'json'], { encoding: 'utf8' });
  if (result.status !== 0) return null;
  return JSON.parse(result.stdout);
}

function readJson(file: string): any {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function check(step: string, what: string, ok: boolean, detail = ''): void {
  checks.push({ step, what, ok, detail });
  const mark = ok ? color.green('✓') : color.red('✗');
  process.stdout.write(`  ${mark} ${what}${detail ? color.dim(` (${detail})`) : ''}\n`);
}

function must(ran: Ran, what: string): Ran {
  if (ran.status !== 0) throw new Error(`${what} failed (exit ${ran.status}): ${ran.stderr.trim()}`);
  return ran;
}

const sample = (name: string) => path.join(ROOT, 'crds', 'samples', `${name}.yaml`);
const out = (file: string) => path.join(OUT, file);
const readyOf = (ws: any) => ws?.status?.conditions?.find((c: any) => c.type === 'Ready');

// --- steps ---------------------------------------------------------------------

function cleanStart(): void {
  title('Start', 'a clean crd-lab and LAB_DIR (a previous run is removed, finalizers included)');
  if (getJson(['get', 'namespace', NS])) {
    const leftovers = getJson(['get', 'webservices', '-n', NS])?.items ?? [];
    for (const ws of leftovers) {
      if (ws.metadata.finalizers?.length) {
        kubectl([
          'patch',
          'webservice',
          ws.metadata.name,
          '-n',
          NS,
          '--type=merge',
          '-p',
          '{"metadata":{"finalizers":null}}',
        ]);
      }
    }
    must(kubectl(['delete', 'namespace', NS, '--wait=true', '--timeout=120s']), 'deleting the old crd-lab');
  }
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  check(
    'Start',
    `namespace ${NS} absent and ${shown([OUT])} empty`,
    !getJson(['get', 'namespace', NS]) && fs.readdirSync(OUT).length === 0,
  );
}

function setup(): void {
  title('Setup', 'the CRD (applied when absent) and the namespace');
  if (getJson(['get', 'crd', CRD])) {
    process.stdout.write(
      `  ${color.dim(`crd/${CRD} is present; applying the repository's declaration keeps it current`)}\n`,
    );
  }
  must(kubectl(['apply', '-f', path.join(ROOT, 'crds', `${CRD}.yaml`)]), 'applying the CRD');
  // kubectl wait fails at once, rather than waits, on a CRD the API server has given no condition yet.
  const conditionsBy = Date.now() + 60_000;
  while (!getJson(['get', 'crd', CRD])?.status?.conditions && Date.now() < conditionsBy) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
  }
  must(kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${CRD}`]), 'waiting for the CRD');
  must(kubectl(['create', 'namespace', NS]), 'creating the namespace');

  const crd = getJson(['get', 'crd', CRD]);
  const version = crd?.spec?.versions?.find((v: any) => v.storage);
  const schema = version?.schema?.openAPIV3Schema?.properties ?? {};
  const spec = schema.spec ?? {};
  const status = schema.status?.properties ?? {};
  check('Setup', 'CRD has subresources.status', Boolean(version?.subresources?.status));
  check(
    'Setup',
    'status defines replicas, observedGeneration, conditions',
    ['replicas', 'observedGeneration', 'conditions'].every((k) => k in status),
  );
  check('Setup', 'spec.image is required', (spec.required ?? []).includes('image'));
  check(
    'Setup',
    'spec.replicas defaults to 1, spec.tier to dev',
    spec.properties?.replicas?.default === 1 && spec.properties?.tier?.default === 'dev',
  );
  check('Setup', `namespace ${NS} exists`, Boolean(getJson(['get', 'namespace', NS])));
}

function reconcileScript(name: string, outDir = OUT): Ran {
  return run([SCRIPT, name, NS], { env: { OUT_DIR: outDir } });
}

function l1Observe(): void {
  title('L1', 'observe: read the desired state (CR spec) and the actual state (child ConfigMap)');
  must(kubectl(['apply', '-n', NS, '-f', sample('checkout')]), 'creating checkout');
  fs.copyFileSync(path.join(ROOT, 'scripts', 'lab', 'reconcile.sh'), SCRIPT);
  fs.chmodSync(SCRIPT, 0o755);
  process.stdout.write(`  ${color.dim(`installed ${shown([SCRIPT])} (chmod +x)`)}\n`);
  const ws = getJson(['get', 'webservice', 'checkout', '-n', NS]);
  check(
    'L1',
    'checkout: image nginx:1.27, replicas 3, tier dev',
    ws?.spec?.image === 'nginx:1.27' && ws?.spec?.replicas === 3 && ws?.spec?.tier === 'dev',
  );
  check('L1', 'reconcile.sh exists and is executable', isExecutable(SCRIPT));

  must(reconcileScript('checkout'), 'the first reconcile.sh run');
  const observed = readJson(out('observe.json'));
  check('L1', 'observe.json is {"desired": …, "actual": …}', Boolean(observed?.desired) && Boolean(observed?.actual));
  check(
    'L1',
    'desired.image equals the CR spec.image',
    observed?.desired?.image === ws?.spec?.image,
    String(observed?.desired?.image),
  );
  check('L1', 'actual is empty before the child exists', JSON.stringify(observed?.actual) === '{}');
}

function l2Decide(): void {
  title('L2', 'decide: the first run decided create, with a reason and a target');
  fs.copyFileSync(out('decision.json'), out('decision-1.json'));
  process.stdout.write(`  ${color.dim('saved out/decision.json of the first run as out/decision-1.json')}\n`);
  const d = readJson(out('decision-1.json'));
  check('L2', 'decision-1.json: action create', d?.action === 'create');
  check('L2', 'decision-1.json: reason says why', typeof d?.reason === 'string' && d.reason.length > 0, d?.reason);
  check('L2', 'decision-1.json: target configmap/checkout-desired', d?.target === 'configmap/checkout-desired');
}

function l3Act(): void {
  title('L3', 'act: the script created the child from the CR');
  const ws = getJson(['get', 'webservice', 'checkout', '-n', NS]);
  const cm = getJson(['get', 'configmap', 'checkout-desired', '-n', NS]);
  kubectl(['get', 'configmap', 'checkout-desired', '-n', NS, '--show-labels']);
  check('L3', 'data.image equals the CR spec.image', cm?.data?.image === ws?.spec?.image, String(cm?.data?.image));
  check(
    'L3',
    "ownerReferences[0].uid is checkout's uid",
    cm?.metadata?.ownerReferences?.[0]?.uid === ws?.metadata?.uid,
  );
  check(
    'L3',
    `label ${MANAGED_BY}: webservice-controller`,
    cm?.metadata?.labels?.[MANAGED_BY] === 'webservice-controller',
  );
}

function l4Idempotent(): void {
  title('L4', 'idempotency, proved by resourceVersion around a second run');
  const rv = ['get', 'cm', 'checkout-desired', '-n', NS, '-o', 'jsonpath={.metadata.resourceVersion}'];
  must(kubectl(rv, { save: out('rv-before.txt') }), 'reading rv-before');
  must(reconcileScript('checkout'), 'the second reconcile.sh run');
  fs.copyFileSync(out('decision.json'), out('decision-2.json'));
  must(kubectl(rv, { save: out('rv-after.txt') }), 'reading rv-after');
  const before = fs.readFileSync(out('rv-before.txt'), 'utf8');
  const after = fs.readFileSync(out('rv-after.txt'), 'utf8');
  check('L4', 'rv-before.txt equals rv-after.txt', before !== '' && before === after, `${before} → ${after}`);
  check('L4', 'decision-2.json: action noop', readJson(out('decision-2.json'))?.action === 'noop');
}

function l5Status(): void {
  title('L5', 'status, written through the status subresource');
  kubectl(['get', 'webservice', 'checkout', '-n', NS]);
  const ws = getJson(['get', 'webservice', 'checkout', '-n', NS]);
  check('L5', 'condition Ready is "True"', readyOf(ws)?.status === 'True', readyOf(ws)?.reason);
  check(
    'L5',
    'status.observedGeneration = metadata.generation',
    ws?.status?.observedGeneration === ws?.metadata?.generation,
  );
  check('L5', 'status.replicas = spec.replicas', ws?.status?.replicas === ws?.spec?.replicas);
  check(
    'L5',
    'reconcile.sh contains --subresource=status',
    fs.readFileSync(SCRIPT, 'utf8').includes('--subresource=status'),
  );
}

function l6Requeue(): void {
  title('L6', 'a dependency that is not ready is a requeue, not an error');
  must(kubectl(['apply', '-n', NS, '-f', sample('frontend')]), 'creating frontend');
  kubectl(['webservice', 'plan', 'frontend', '-n', NS, '-o', 'json'], { save: out('requeue.json') });
  const r = readJson(out('requeue.json'));
  check('L6', 'requeue.json: action requeue', r?.action === 'requeue', r?.reason);
  check(
    'L6',
    'requeue.json: after_seconds is an integer > 0',
    Number.isInteger(r?.after_seconds) && r.after_seconds > 0,
  );
  check('L6', 'requeue.json: is_error false', r?.is_error === false);
  fs.copyFileSync(path.join(ROOT, 'scripts', 'lab', 'backoff-note.txt'), out('backoff-note.txt'));
  const note = fs.readFileSync(out('backoff-note.txt'), 'utf8');
  process.stdout.write(`  ${color.dim('copied the backoff note to out/backoff-note.txt')}\n`);
  check('L6', 'backoff-note.txt: why backoff grows exponentially', /exponential/i.test(note));
  check(
    'L6',
    'backoff-note.txt: errors flood the log and starve the queue',
    /flood/i.test(note) && /starve/i.test(note),
  );
  // frontend only shows the requeue; L8's pass is over checkout, billing and search.
  must(kubectl(['delete', 'webservice', 'frontend', '-n', NS]), 'removing frontend');
}

function l7Finalizer(): void {
  title('L7', 'a finalizer: deletion waits for the last reconcile to clean up');
  must(kubectl(['apply', '-n', NS, '-f', sample('ephemeral')]), 'creating ephemeral');
  must(reconcileScript('ephemeral', path.join(OUT, 'ephemeral')), 'reconciling ephemeral');
  const child = getJson(['get', 'configmap', 'ephemeral-desired', '-n', NS]);
  const ws = getJson(['get', 'webservice', 'ephemeral', '-n', NS]);
  check('L7', `ephemeral carries ${FINALIZER}`, (ws?.metadata?.finalizers ?? []).includes(FINALIZER));
  check(
    'L7',
    'child ephemeral-desired made as in L3',
    child?.metadata?.ownerReferences?.[0]?.uid === ws?.metadata?.uid &&
      child?.metadata?.labels?.[MANAGED_BY] === 'webservice-controller',
  );

  must(kubectl(['delete', 'webservice', 'ephemeral', '-n', NS, '--wait=false']), 'deleting ephemeral');
  must(
    kubectl(['get', 'webservice', 'ephemeral', '-n', NS, '-o', 'json'], { save: out('terminating.json') }),
    'saving terminating.json',
  );
  const t = readJson(out('terminating.json'));
  check(
    'L7',
    'terminating.json shows metadata.deletionTimestamp',
    Boolean(t?.metadata?.deletionTimestamp),
    t?.metadata?.deletionTimestamp,
  );
  check('L7', 'terminating.json shows metadata.finalizers', (t?.metadata?.finalizers ?? []).includes(FINALIZER));

  must(
    kubectl(['webservice', 'finalize', 'ephemeral', '-n', NS], { save: out('cleanup.txt'), env: { NO_COLOR: '1' } }),
    'finalize',
  );
  process.stdout.write(`${fs.readFileSync(out('cleanup.txt'), 'utf8').trimEnd().replace(/^/gm, '  ')}\n`);
  check(
    'L7',
    'cleanup.txt names configmap/ephemeral-desired',
    fs.readFileSync(out('cleanup.txt'), 'utf8').includes('configmap/ephemeral-desired'),
  );
  check('L7', 'child ephemeral-desired is gone', getJson(['get', 'configmap', 'ephemeral-desired', '-n', NS]) === null);
  const gone = waitFor(() => getJson(['get', 'webservice', 'ephemeral', '-n', NS]) === null, 30_000);
  check('L7', 'ephemeral is really gone', gone);
}

function l8Report(): void {
  title('L8', 'one pass over checkout, billing and search, with a report');
  must(kubectl(['apply', '-n', NS, '-f', sample('billing'), '-f', sample('search')]), 'creating billing and search');
  kubectl(['webservice', 'apply', '--all', '-n', NS, '-o', 'json'], { save: out('reconcile-report.json') });
  kubectl(['webservice', 'status', '--all', '-n', NS]);
  const report = readJson(out('reconcile-report.json'));
  const items: any[] = report?.items ?? [];
  const actions = ['create', 'update', 'noop', 'requeue'];
  check(
    'L8',
    'items are {name, action} for billing, checkout, search',
    JSON.stringify(items.map((i) => i.name).sort()) === '["billing","checkout","search"]' &&
      items.every((i) => actions.includes(i.action)),
    items.map((i) => `${i.name}:${i.action}`).join(' '),
  );
  check(
    'L8',
    'summary.noop counts the items that did nothing',
    report?.summary?.noop === items.filter((i) => i.action === 'noop').length,
    `noop=${report?.summary?.noop}`,
  );
  check('L8', 'converged: true', report?.converged === true);
  for (const name of ['checkout', 'billing', 'search']) {
    const ws = getJson(['get', 'webservice', name, '-n', NS]);
    check(
      'L8',
      `${name}: status.observedGeneration = metadata.generation`,
      ws?.status?.observedGeneration === ws?.metadata?.generation,
      `${ws?.status?.observedGeneration}/${ws?.metadata?.generation}`,
    );
  }
}

// --- helpers and main -------------------------------------------------------------

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function waitFor(condition: () => boolean, timeoutMs: number): boolean {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    spawnSync('sleep', ['0.3']);
  }
  return true;
}

function summary(): number {
  process.stdout.write(`\n${color.bold('Verification')}\n`);
  process.stdout.write(
    formatTable(
      ['step', 'check', 'result'],
      checks.map((c) => [
        { text: c.step },
        { text: c.what },
        { text: c.ok ? '✓ pass' : '✗ FAIL', style: c.ok ? color.green : color.red },
      ]),
    ),
  );
  const failed = checks.filter((c) => !c.ok).length;
  const line = `${checks.length - failed} of ${checks.length} lab checks passed; artifacts in ${OUT}`;
  process.stdout.write(`\n${failed === 0 ? color.green.bold(line) : color.red.bold(line)}\n`);
  return failed === 0 ? 0 : 1;
}

function main(): number {
  process.stdout.write(color.bold(`kubectl-webservice: the reconcile lab, L1-L8 (LAB_DIR=${LAB_DIR})\n`));
  try {
    cleanStart();
    setup();
    l1Observe();
    l2Decide();
    l3Act();
    l4Idempotent();
    l5Status();
    l6Requeue();
    l7Finalizer();
    l8Report();
  } catch (err) {
    check('Abort', (err as Error).message, false);
  }
  return summary();
}

process.exitCode = main();

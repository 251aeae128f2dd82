// npm run bench: how fast and how lean the plugin and its controller are on a real
// control plane, against the targets of report.ts. For each N it creates N WebServices in a
// fresh namespace and times every case as a child process, counting requests in the
// apiserver's audit log; then it writes results.json and RESULTS.md's table of targets.
// Bundled to dist/bench.js and started by scripts/bench.sh.
//
//   --quick         N = 10 and 100 only, a smaller controller burst; output in .cache/bench/
//   --sizes=A,B     other sizes (for development); the cases of one size (burst, runtimes,
//                   floor, workload, config) then run at the largest of them, if smaller than theirs
//   --only=A,B      only these cases (default: all): plugin burst runtimes floor backlog workload
//                   every-field config canary
//   With --only or --sizes, what DIR/results.json held of other cases (and of the plugin case's
//   other sizes) is kept, and RESULTS.md names the run it came from (merge.ts).
//   --scale[=N]     instead of the cases: the run at N = 100 000 (or N) into DIR/scale.json, then
//                   RESULTS.md rewritten from DIR/results.json and it
//   --out=DIR       where to write (default bench/, or .cache/bench/ with --quick)
//   --report-only   rewrite RESULTS.md's table from DIR/results.json (and scale.json), measure nothing
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Audit } from './audit';
import { controllerBacklog } from './backlog';
import { pluginCases } from './cases';
import { createNamespace, createWebServices, deleteNamespace } from './cluster';
import { controllerBurst, controllerStartup } from './controller';
import { FLOOR_CREATOR, FLOOR_IN_FLIGHT, writeFloor } from './floor';
import { runtimeCases } from './runtimes';
import { checkWorkloadCapacity, podsNeeded, workloadBurst } from './workload';
import { configCase } from './config';
import { canaryCase } from './canary';
import { CASES, Case, mergeResults } from './merge';
import { resultsMarkdown, targets } from './report';
import { Results, ScaleRun } from './results';
import { SCALE_N, scaleRun } from './scale';
import { PLUGIN, ROOT, kubectl, progress, run } from './proc';

const FULL_SIZES = [10, 100, 1000, 10_000];
const QUICK_SIZES = [10, 100];

interface Options {
  quick: boolean;
  sizes: number[];
  /** --sizes was given. */
  sized: boolean;
  only: Case[];
  out: string;
  reportOnly: boolean;
  /** --scale: the N of the scale run, instead of the cases. */
  scale: number | null;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    quick: false,
    sizes: FULL_SIZES,
    sized: false,
    only: [...CASES],
    out: '',
    reportOnly: false,
    scale: null,
  };
  for (const arg of argv) {
    if (arg === '--quick') options.quick = true;
    else if (arg === '--report-only') options.reportOnly = true;
    else if (arg.startsWith('--sizes=')) {
      options.sizes = arg.slice('--sizes='.length).split(',').map(Number);
      options.sized = true;
    } else if (arg.startsWith('--only=')) {
      const only = arg.slice('--only='.length).split(',');
      const unknown = only.filter((c) => !(CASES as readonly string[]).includes(c));
      if (unknown.length > 0 || only.length === 0)
        throw new Error(`--only: unknown case(s) ${unknown.join(',')}: want some of ${CASES.join(',')}`);
      options.only = CASES.filter((c) => only.includes(c));
    } else if (arg.startsWith('--out=')) options.out = arg.slice('--out='.length);
    else if (arg === '--scale') options.scale = SCALE_N;
    else if (arg.startsWith('--scale=')) options.scale = Number(arg.slice('--scale='.length));
    else
      throw new Error(
        `unknown argument ${arg}: want --quick, --sizes=A,B, --only=A,B, --scale[=N], --out=DIR or --report-only`,
      );
  }
  if (options.quick && !options.sized) options.sizes = QUICK_SIZES;
  if (options.sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`--sizes wants whole numbers, got ${options.sizes.join(',')}`);
  if (options.scale !== null && (!Number.isInteger(options.scale) || options.scale < 1))
    throw new Error(`--scale wants a whole number, got ${options.scale}`);
  options.out = path.resolve(ROOT, options.out || (options.quick ? '.cache/bench' : 'bench'));
  return options;
}

async function machine(): Promise<Results['machine']> {
  const version = JSON.parse((await kubectl(['version', '-o', 'json'], { capture: true })).stdout) as {
    serverVersion?: { gitVersion?: string };
  };
  const git = async (args: string[]) => {
    const result = await run(['git', '-C', ROOT, ...args], { capture: true });
    return result.status === 0 ? result.stdout : null;
  };
  const changes = await git(['status', '--porcelain', '--', 'src']);
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    kubernetes: version.serverVersion?.gitVersion ?? 'unknown',
    plugin: (await run([PLUGIN, '--version'], { capture: true })).stdout.trim(),
    commit: (await git(['rev-parse', 'HEAD']))?.trim() ?? null,
    srcChanges: (changes ?? '')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3)),
  };
}

/** The N of a one-size case: its own, or less with --quick or --sizes (for development). */
function caseSize(options: Options, own: number): number {
  if (options.sized) return Math.min(own, Math.max(...options.sizes));
  return options.quick ? Math.min(own, 100) : own;
}

/** Now, to the second, as results.json records times. */
function stamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function loadAverage(): number[] {
  return os.loadavg().map((v) => Math.round(v * 100) / 100);
}

/** kubectl caches discovery on disk: fill it first, so no case pays for it. */
async function warmUp(): Promise<void> {
  await kubectl(['api-resources']);
  await kubectl(['get', 'webservices', '-A']);
}

function readJson<T>(file: string): T | undefined {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : undefined;
}

/** results.json and RESULTS.md (with the scale run of scale.json, when there is one). */
function writeOutputs(results: Results, out: string): void {
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const mdFile = path.join(out, 'RESULTS.md');
  const previous = fs.existsSync(mdFile) ? fs.readFileSync(mdFile, 'utf8') : undefined;
  const scale = readJson<ScaleRun>(path.join(out, 'scale.json'));
  fs.writeFileSync(mdFile, resultsMarkdown(results, previous, scale));
}

function printSummary(results: Results, out: string, scale?: ScaleRun): void {
  process.stdout.write(
    `\nkubectl-webservice bench${results.quick ? ' (--quick)' : ''}: N = ${results.sizes.join(', ')}\n\n`,
  );
  for (const t of targets(results, scale)) {
    process.stdout.write(`${t.standing.padEnd(12)} ${t.target}: ${t.goal}\n             ${t.measured}\n`);
  }
  process.stdout.write(`\nwritten: ${path.relative(process.cwd(), out) || '.'}/{results.json,RESULTS.md}\n`);
}

async function measureAll(options: Options): Promise<Results> {
  const audit = Audit.open();
  if (!audit) progress('no KUBE_AUDIT_LOG: requests and writes will not be counted');
  const results: Results = {
    schema: 1,
    quick: options.quick,
    startedAt: stamp(),
    finishedAt: '',
    machine: await machine(),
    loadAverage: { start: loadAverage(), end: [] },
    sizes: options.sizes,
    plugin: [],
    controller: { startup: [], bursts: [], latency: null, steady: null },
    ...(options.only.length < CASES.length ? { only: options.only } : {}),
  };
  const wants = (c: Case) => options.only.includes(c);
  if (wants('workload') || wants('every-field') || wants('config') || wants('canary')) {
    await checkWorkloadCapacity(
      Math.max(
        podsNeeded(wants('workload') ? caseSize(options, 200) : 0),
        podsNeeded(caseSize(options, 1000), wants('config') ? 'own secret' : 'port'),
        podsNeeded(wants('canary') ? caseSize(options, 1000) : 0, 'canary'),
      ),
    );
  }
  await warmUp();
  const largest = Math.max(...options.sizes);
  const tag = `${process.pid}`;

  for (const n of wants('plugin') ? options.sizes : []) {
    const namespace = `bench-${n}-${tag}`;
    await inNamespace(
      namespace,
      async () => {
        progress(`N=${n}: creating ${n} WebServices`);
        const setupMs = await createWebServices(namespace, n);
        results.plugin.push(await pluginCases(audit, namespace, n, setupMs));
        const steadySeconds = n === largest ? (options.quick ? 15 : 60) : 0;
        const { startup, steady } = await controllerStartup(audit, namespace, n, steadySeconds);
        results.controller.startup.push(startup);
        if (steady) results.controller.steady = steady;
      },
      `N=${n}: `,
    );
  }
  const burstN = caseSize(options, 1000);
  const bursts = wants('burst') ? (options.quick ? 1 : 3) : 0;
  for (let run = 0; run < bursts; run++) {
    await inNamespace(`bench-controller-${run}-${tag}`, async (namespace) => {
      // The latency is measured after the last burst, on its N converged WebServices.
      const last = run === bursts - 1;
      const { burst, latency } = await controllerBurst(audit, namespace, burstN, {
        latencySamples: last ? (options.quick ? 30 : 200) : 0,
      });
      results.controller.bursts.push(burst);
      if (latency) results.controller.latency = latency;
    });
  }

  if (wants('runtimes')) results.runtimes = await runtimeCases(audit, tag, caseSize(options, 1000));

  if (wants('floor')) {
    // Three rounds, each the floor at every concurrency and `run`'s burst beside it, so that
    // the machine's drift (a floor alone moves by 50% between runs) falls on both alike. The
    // burst's creates come from the floor's own client; `run` has its default workers.
    results.writeFloor = [];
    results.floorBursts = [];
    for (let round = 1; round <= (options.quick ? 1 : 3); round++) {
      for (const inFlight of FLOOR_IN_FLIGHT) {
        const floor = await inNamespace(`bench-floor-${inFlight}-${round}-${tag}`, (namespace) =>
          writeFloor(audit, namespace, burstN, inFlight),
        );
        results.writeFloor.push(floor);
      }
      const { burst } = await inNamespace(`bench-floor-run-${round}-${tag}`, (namespace) =>
        controllerBurst(audit, namespace, burstN, { creator: FLOOR_CREATOR }),
      );
      results.floorBursts.push(burst);
    }
  }

  if (wants('backlog')) {
    results.backlog = [
      await inNamespace(`bench-backlog-${tag}`, (namespace) => controllerBacklog(namespace, caseSize(options, 2000))),
    ];
  }

  // The workload bursts come last and depend most on the plane (its Nodes, its Service range):
  // one that fails is recorded, and the run's other measurements are still written.
  const steady = options.quick ? 15 : 60;
  if (wants('workload')) {
    await recordFailure(results, 'workload', async () => {
      const n = caseSize(options, 200);
      results.workloadBurst = await workloadBurst(audit, `bench-workload-${tag}`, n, steady);
    });
  }
  if (wants('every-field')) {
    await recordFailure(results, 'every-field', async () => {
      const n = caseSize(options, 1000);
      // The port-only burst again at this N (unless the workload case just ran it, as --quick
      // does): kube-controller-manager's throttled queues make a burst's time per WebService
      // grow with N, so only the same N tells what the fields cost.
      if (results.workloadBurst?.n !== n) {
        results.portBurstSameN = await workloadBurst(audit, `bench-workload-${n}-${tag}`, n, steady);
      }
      results.everyFieldBurst = await workloadBurst(audit, `bench-every-field-${tag}`, n, steady, 'every field');
    });
  }
  if (wants('config')) {
    await recordFailure(results, 'config', async () => {
      const n = caseSize(options, 1000);
      // The port-only burst of this N, if the run made one: the case does not make it twice.
      const port = [results.portBurstSameN, results.workloadBurst].find((b) => b?.n === n);
      results.config = await configCase(audit, tag, n, steady, options.quick ? 30 : 100, port);
    });
  }

  if (wants('canary')) {
    await recordFailure(results, 'canary', async () => {
      results.canary = await canaryCase(audit, tag, caseSize(options, 1000), steady, options.quick ? 30 : 100);
    });
  }

  results.finishedAt = stamp();
  results.loadAverage.end = loadAverage();
  return results;
}

async function recordFailure(results: Results, name: Case, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    progress(`${name}: failed: ${(err as Error).message}`);
    (results.failed ??= []).push({ case: name, error: (err as Error).message });
  }
}

/** Runs a case in a fresh namespace, deleted afterwards whatever becomes of the case. */
async function inNamespace<T>(namespace: string, body: (namespace: string) => Promise<T>, prefix = ''): Promise<T> {
  await createNamespace(namespace);
  try {
    return await body(namespace);
  } finally {
    progress(`${prefix}deleting namespace ${namespace}`);
    await deleteNamespace(namespace);
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const resultsFile = path.join(options.out, 'results.json');
  if (options.scale !== null) {
    const startedAt = stamp();
    const start = loadAverage();
    const info = await machine();
    await warmUp();
    const measured = await scaleRun(Audit.open(), options.scale, `${process.pid}`);
    const scale: ScaleRun = {
      schema: 1,
      startedAt,
      finishedAt: stamp(),
      machine: info,
      loadAverage: { start, end: loadAverage() },
      ...measured,
    };
    fs.mkdirSync(options.out, { recursive: true });
    fs.writeFileSync(path.join(options.out, 'scale.json'), `${JSON.stringify(scale, null, 2)}\n`);
    const results = readJson<Results>(resultsFile);
    if (results) {
      writeOutputs(results, options.out);
      printSummary(results, options.out, scale);
    }
    return;
  }
  if (options.reportOnly) {
    const results = readJson<Results>(resultsFile);
    if (!results) throw new Error(`--report-only: no ${resultsFile}`);
    writeOutputs(results, options.out);
    printSummary(results, options.out, readJson<ScaleRun>(path.join(options.out, 'scale.json')));
    return;
  }
  const measured = await measureAll(options);
  const previous = readJson<Results>(resultsFile);
  const partial = options.sized || options.only.length < CASES.length;
  const results =
    partial && previous && previous.quick === measured.quick
      ? mergeResults(previous, measured, options.only)
      : measured;
  writeOutputs(results, options.out);
  printSummary(results, options.out, readJson<ScaleRun>(path.join(options.out, 'scale.json')));
  if (results.failed) throw new Error(`case(s) failed: ${results.failed.map((f) => f.case).join(', ')}`);
}

main().catch((err: Error) => {
  process.stderr.write(`error: ${err.stack ?? err.message}\n`);
  process.exit(1);
});

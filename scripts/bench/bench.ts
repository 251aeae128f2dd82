// npm run bench (scripts/bench.sh says how to run it): each case on a real control plane, in
// a fresh namespace, every plugin run a child process, requests counted in the audit log; then
// results.json and RESULTS.md's table of targets (report.ts). Bundled to dist/bench.js.
//
//   --quick         N = 10 and 100 only, smaller one-size cases; output in .cache/bench/
//   --sizes=A,B     other sizes; the one-size cases then run at the largest, if smaller than theirs
//   --only=A,B      only these cases (CASES); results.json keeps what it held of the others (merge.ts)
//   --scale[=N]     instead: the run at N = 100 000 (or N) into scale.json
//   --out=DIR       where to write (default bench/, or .cache/bench/ with --quick)
//   --report-only   rewrite RESULTS.md from DIR/results.json and scale.json, measuring nothing
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Audit } from './audit';
import { controllerBacklog } from './backlog';
import { pluginCases } from './cases';
import { createWebServices, inNamespace } from './cluster';
import { controllerBurst, controllerStartup } from './controller';
import { FLOOR_CREATOR, FLOOR_IN_FLIGHT, writeFloor } from './floor';
import { runtimeCases } from './runtimes';
import { WorkloadCase, checkWorkloadCapacity, podsNeeded, workloadBurst } from './workload';
import { configCase } from './config';
import { canaryCase } from './canary';
import { peerCase } from './peer';
import { CASES, Case, mergeResults } from './merge';
import { resultsMarkdown, targets } from './report';
import { ControllerBurst, Results, ScaleRun, WriteFloor } from './results';
import { SCALE_N, scaleRun } from './scale';
import { PLUGIN, ROOT, kubectl, progress, run } from './proc';

type Options = ReturnType<typeof parseArgs>;

function parseArgs(argv: string[]) {
  const options = {
    quick: false,
    sizes: [] as number[],
    sized: false,
    only: [...CASES] as Case[],
    out: '',
    reportOnly: false,
    scale: null as number | null,
  };
  const wholes = (flag: string, value: string) => {
    const values = value.split(',').map(Number);
    if (!value || values.some((n) => !Number.isInteger(n) || n < 1))
      throw new Error(`${flag} wants whole numbers, got ${value}`);
    return values;
  };
  for (const arg of argv) {
    const [flag, value = ''] = arg.split(/=(.*)/s);
    if (arg === '--quick') options.quick = true;
    else if (arg === '--report-only') options.reportOnly = true;
    else if (arg === '--scale') options.scale = SCALE_N;
    else if (flag === '--scale') options.scale = wholes(flag, value)[0];
    else if (flag === '--sizes') [options.sizes, options.sized] = [wholes(flag, value), true];
    else if (flag === '--out' && value) options.out = value;
    else if (flag === '--only' && value) {
      const unknown = value.split(',').filter((c) => !(CASES as readonly string[]).includes(c));
      if (unknown.length > 0)
        throw new Error(`--only: unknown case(s) ${unknown.join(',')}: want some of ${CASES.join(',')}`);
      options.only = CASES.filter((c) => value.split(',').includes(c));
    } else
      throw new Error(
        `unknown argument ${arg}: want --quick, --sizes=A,B, --only=A,B, --scale[=N], --out=DIR or --report-only`,
      );
  }
  if (!options.sized) options.sizes = options.quick ? [10, 100] : [10, 100, 1000, 10_000];
  options.out = path.resolve(ROOT, options.out || (options.quick ? '.cache/bench' : 'bench'));
  return options;
}

async function machine(): Promise<Results['machine']> {
  const version = JSON.parse((await kubectl(['version', '-o', 'json'], { capture: true })).stdout) as {
    serverVersion?: { gitVersion?: string };
  };
  const git = async (...args: string[]) => (await run(['git', '-C', ROOT, ...args], { capture: true })).stdout.trim();
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    kubernetes: version.serverVersion?.gitVersion ?? 'unknown',
    plugin: (await run([PLUGIN, '--version'], { capture: true })).stdout.trim(),
    commit: (await git('rev-parse', 'HEAD')) || null,
    srcChanges: (await git('status', '--porcelain', '--', 'src'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3)),
  };
}

/** The N of a one-size case: its own, or less with --quick or --sizes. */
function caseSize(options: Options, own: number): number {
  return Math.min(own, options.sized ? Math.max(...options.sizes) : options.quick ? 100 : own);
}

const stamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const loadAverage = () => os.loadavg().map((v) => Math.round(v * 100) / 100);

function readJson<T>(file: string): T | undefined {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : undefined;
}

/** kubectl caches discovery on disk: fill it first, so that no case pays for it. */
async function warmUp(): Promise<void> {
  await kubectl(['api-resources']);
  await kubectl(['get', 'webservices', '-A']);
}

/** results.json, RESULTS.md (with scale.json's run), and the summary on stdout. */
function writeOutputs(results: Results, out: string): void {
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const mdFile = path.join(out, 'RESULTS.md');
  const previous = fs.existsSync(mdFile) ? fs.readFileSync(mdFile, 'utf8') : undefined;
  const scale = readJson<ScaleRun>(path.join(out, 'scale.json'));
  fs.writeFileSync(mdFile, resultsMarkdown(results, previous, scale));
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
  const [n1000, steady, samples] = [caseSize(options, 1000), options.quick ? 15 : 60, options.quick ? 30 : 100];
  if (['workload', 'every-field', 'config', 'canary'].some((c) => wants(c as Case))) {
    const port = podsNeeded(wants('workload') ? caseSize(options, 200) : 0);
    const each = podsNeeded(n1000, wants('config') ? 'own secret' : 'port');
    await checkWorkloadCapacity(Math.max(port, each, podsNeeded(wants('canary') ? n1000 : 0, 'canary')));
  }
  await warmUp();
  const tag = `${process.pid}`;
  // A case that fails is recorded, and the run's other figures are still written.
  const attempt = async (name: Case, body: () => Promise<void>) => {
    if (!wants(name)) return;
    try {
      await body();
    } catch (err) {
      progress(`${name}: failed: ${(err as Error).message}`);
      (results.failed ??= []).push({ case: name, error: (err as Error).message });
    }
  };

  await attempt('plugin', async () => {
    for (const n of options.sizes) {
      await inNamespace(`bench-${n}-${tag}`, async (namespace) => {
        progress(`N=${n}: creating ${n} WebServices`);
        await createWebServices(namespace, n);
        results.plugin.push(await pluginCases(audit, namespace, n));
        const largest = n === Math.max(...options.sizes);
        const { startup, steady: quiet } = await controllerStartup(audit, namespace, n, largest ? steady : 0);
        results.controller.startup.push(startup);
        if (quiet) results.controller.steady = quiet;
      });
    }
  });
  await attempt('burst', async () => {
    const bursts = options.quick ? 1 : 3;
    for (let i = 0; i < bursts; i++) {
      // The latency is measured after the last burst, on its N converged WebServices.
      const latencySamples = i === bursts - 1 ? (options.quick ? 30 : 200) : 0;
      const { burst, latency } = await inNamespace(`bench-controller-${i}-${tag}`, (namespace) =>
        controllerBurst(audit, namespace, n1000, { latencySamples }),
      );
      results.controller.bursts.push(burst);
      if (latency) results.controller.latency = latency;
    }
  });
  await attempt('runtimes', async () => {
    results.runtimes = await runtimeCases(audit, tag, n1000);
  });
  await attempt('floor', async () => {
    // Rounds of the floor at each concurrency and `run`'s burst beside it, so that the machine's
    // drift falls on both alike; the burst's creates come from the floor's own client.
    const [floors, bursts]: [WriteFloor[], ControllerBurst[]] = [[], []];
    for (let round = 1; round <= (options.quick ? 1 : 3); round++) {
      for (const inFlight of FLOOR_IN_FLIGHT) {
        const ns = `bench-floor-${inFlight}-${round}-${tag}`;
        floors.push(await inNamespace(ns, (namespace) => writeFloor(audit, namespace, n1000, inFlight)));
      }
      const { burst } = await inNamespace(`bench-floor-run-${round}-${tag}`, (namespace) =>
        controllerBurst(audit, namespace, n1000, { creator: FLOOR_CREATOR }),
      );
      bursts.push(burst);
    }
    [results.writeFloor, results.floorBursts] = [floors, bursts];
  });
  await attempt('backlog', async () => {
    const n = caseSize(options, 2000);
    results.backlog = [await inNamespace(`bench-backlog-${tag}`, (namespace) => controllerBacklog(namespace, n))];
  });
  const workloads: WorkloadCase = { audit, tag, n: n1000, steadySeconds: steady, samples };
  await attempt('workload', async () => {
    const n = caseSize(options, 200);
    results.workloadBurst = await workloadBurst({ ...workloads, namespace: `bench-workload-${tag}`, n });
  });
  await attempt('every-field', async () => {
    // The port-only burst at this N too (kube-controller-manager's throttling makes a burst's time
    // per WebService grow with N), unless the workload case just ran it.
    if (results.workloadBurst?.n !== n1000)
      results.portBurstSameN = await workloadBurst({ ...workloads, namespace: `bench-workload-${n1000}-${tag}` });
    results.everyFieldBurst = await workloadBurst(
      { ...workloads, namespace: `bench-every-field-${tag}` },
      'every field',
    );
  });
  await attempt('config', async () => {
    const port = [results.portBurstSameN, results.workloadBurst].find((b) => b?.n === n1000);
    results.config = await configCase(workloads, port);
  });
  await attempt('canary', async () => {
    results.canary = await canaryCase(workloads);
  });
  await attempt('peer', async () => {
    results.peer = await peerCase(audit, tag, n1000, options.quick);
  });
  results.finishedAt = stamp();
  results.loadAverage.end = loadAverage();
  return results;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const resultsFile = path.join(options.out, 'results.json');
  const previous = readJson<Results>(resultsFile);
  if (options.scale !== null) {
    const [startedAt, start, info] = [stamp(), loadAverage(), await machine()];
    await warmUp();
    const measured = await scaleRun(Audit.open(), options.scale, `${process.pid}`);
    const end = { finishedAt: stamp(), machine: info, loadAverage: { start, end: loadAverage() } };
    const scale: ScaleRun = { schema: 1, startedAt, ...end, ...measured };
    fs.mkdirSync(options.out, { recursive: true });
    fs.writeFileSync(path.join(options.out, 'scale.json'), `${JSON.stringify(scale, null, 2)}\n`);
    if (previous) writeOutputs(previous, options.out);
    return;
  }
  if (options.reportOnly) {
    if (!previous) throw new Error(`--report-only: no ${resultsFile}`);
    return writeOutputs(previous, options.out);
  }
  const measured = await measureAll(options);
  const partial = options.sized || options.only.length < CASES.length;
  const merge = partial && previous && previous.quick === measured.quick;
  const results = merge ? mergeResults(previous, measured, options.only) : measured;
  writeOutputs(results, options.out);
  if (results.failed) throw new Error(`case(s) failed: ${results.failed.map((f) => f.case).join(', ')}`);
}

main().catch((err: Error) => {
  process.stderr.write(`error: ${err.stack ?? err.message}\n`);
  process.exit(1);
});

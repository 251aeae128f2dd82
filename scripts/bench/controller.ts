// `kubectl-webservice run` (or the controller-runtime peer, peer/) as a child process, as a pod
// runs it: its progress from its JSON log and /metrics, its peak RSS (VmHWM) and CPU from /proc,
// its requests from the audit log, and the WebServices' Ready from a watch. Then the controller's
// cases: its start over N converged WebServices, a burst of N new ones, and single spec changes,
// event to converged.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { Audit, figures } from './audit';
import { IMAGE_ENV, IMAGE_NODE_FLAGS } from '../../harness/controller-image';
import { WatchLine, WatchStream, createWebServices, webServiceName } from './cluster';
import { PLUGIN, Watched, eachLine, kubectl, percentile, progress, round, run, sleep, until } from './proc';

interface LogEntry {
  msg: string;
  level: string;
  error?: string;
  /** When it came, ms since the start. */
  atMs: number;
}

const isConflict = (e: LogEntry) => e.level === 'error' && /has been modified/.test(e.error ?? '');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let clockTicks: number | undefined;

export class ControllerProcess {
  readonly entries: LogEntry[] = [];
  readonly startedAt = performance.now();
  private readonly child: ChildProcess;
  private stderr = '';
  private readonly exited: Promise<void>;

  private constructor(
    namespace: string,
    private readonly metricsPort: number,
    env: NodeJS.ProcessEnv,
    private readonly peer?: string,
  ) {
    const metrics = `127.0.0.1:${metricsPort}`;
    const args = ['run', '-n', namespace, '--log-format=json', `--metrics-bind-address=${metrics}`];
    // As deploy/Dockerfile starts it: the pinned Node 24 with the image's flags and environment.
    const argv = peer
      ? [peer, '-namespace', namespace, '-workers', `${DEFAULT_WORKERS}`, '-metrics-bind-address', metrics]
      : [process.execPath, ...IMAGE_NODE_FLAGS, PLUGIN, ...args];
    this.child = spawn(argv[0], argv.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...(peer ? {} : IMAGE_ENV), NO_COLOR: '1', ...env },
    });
    eachLine(this.child.stderr!, (line, atMs) => {
      this.stderr = `${this.stderr.slice(-20_000)}${line}\n`;
      try {
        this.entries.push({ ...(JSON.parse(line) as LogEntry), atMs: atMs - this.startedAt });
      } catch {
        // an `error:` line before the logger exists
      }
    });
    this.exited = new Promise((resolve) => this.child.on('close', () => resolve()));
  }

  /** Starts `run` (or the peer's binary) on a namespace (`env` beside the bench's own); waits for its workers. */
  static async start(namespace: string, env: NodeJS.ProcessEnv = {}, timeoutMs?: number, peer?: string) {
    const controller = new ControllerProcess(namespace, await freePort(), env, peer);
    await controller
      .waitForLog(peer ? /^Starting workers/ : /^controller working/, timeoutMs)
      .catch(async (err: Error) => {
        await controller.stop();
        throw err;
      });
    return controller;
  }

  /** The controller, failed once it has exited. */
  get failure(): string | undefined {
    const code = this.child.exitCode ?? this.child.signalCode;
    return code === null ? undefined : `the controller exited ${code}: ${this.stderr.slice(-2000)}`;
  }

  /** Milliseconds since start at which a log line matching `pattern` came. */
  async waitForLog(pattern: RegExp, timeoutMs = 120_000): Promise<number> {
    const found = () => this.entries.find((e) => pattern.test(e.msg));
    return (await until(`controller log "${pattern.source}"`, found, { timeoutMs, watches: [this] })).atMs;
  }

  /**
   * The peer's writes from a stale cache that the API server refused (409): controller-runtime
   * logs them as errors and retries with backoff, as it would in a cluster; counted, not fatal.
   */
  conflicts(): number {
    return this.peer ? this.entries.filter(isConflict).length : 0;
  }

  /** A run that logged errors (but the peer's conflicts) is not a clean figure. */
  mustHaveNoErrors(): void {
    const errors = this.entries.filter((e) => e.level === 'error' && !(this.peer && isConflict(e)));
    if (errors.length > 0) throw new Error(`the controller logged errors: ${JSON.stringify(errors.slice(0, 3))}`);
  }

  /** Peak RSS so far (VmHWM), MiB. */
  peakRssMiB(): number {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${this.child.pid}/status`, 'utf8'));
    if (!match) throw new Error('no VmHWM in /proc/<pid>/status');
    return round(Number(match[1]) / 1024, 1);
  }

  /** CPU (user + system) so far, ms. */
  async cpuMs(): Promise<number> {
    clockTicks ??= Number((await run(['getconf', 'CLK_TCK'], { capture: true })).stdout.trim()) || 100;
    if (this.failure) throw new Error(this.failure);
    const stat = fs.readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Math.round(((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks); // utime, stime
  }

  /** Waits until keys were reconciled `count` times in all and the queue is empty. */
  async waitReconciled(count: number, timeoutMs: number): Promise<number> {
    let seen = '';
    const done = async () => {
      // One scrape a poll: at 10 000 WebServices a scrape is 5.7 MB of text.
      const text = await (await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`)).text();
      const sum = (name: string) =>
        text
          .split('\n')
          .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
          .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
      const [reconciled, depth] = [sum('controller_runtime_reconcile_total'), sum('workqueue_depth')];
      seen = `${reconciled} of ${count} reconciled, queue ${depth}`;
      return reconciled >= count && depth === 0 && performance.now() - this.startedAt;
    };
    return until(() => `every key reconciled (${seen})`, done, { timeoutMs, everyMs: 100, watches: [this] });
  }

  async stop(): Promise<void> {
    if (!this.failure) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Ready for the current generation, from a watch line: name generation observedGeneration ready image. */
export const READY_FIELDS = [
  '.metadata.name',
  '.metadata.generation',
  '.status.observedGeneration',
  '.status.conditions[?(@.type=="Ready")].status',
  '.spec.image',
];

export function isReadyLine(fields: string[]): boolean {
  return fields[1] !== '' && fields[1] === fields[2] && fields[3] === 'True';
}

/** A watch of the WebServices, READY_FIELDS per event. */
export interface ReadyWatch extends Watched {
  stop(): Promise<void>;
}

type Watcher = (namespace: string, onLine: (line: WatchLine) => void) => ReadyWatch;

const kubectlWatch: Watcher = (namespace, onLine) => new WatchStream('webservices', namespace, READY_FIELDS, onLine);

/** The WebServices of a namespace that a watch sees Ready for their generation. */
export class ReadySet {
  private readonly ready = new Set<string>();
  readonly watch: ReadyWatch;

  constructor(namespace: string, watch: Watcher = kubectlWatch) {
    this.watch = watch(namespace, ({ fields }) => {
      if (isReadyLine(fields)) this.ready.add(fields[0]);
      else this.ready.delete(fields[0]);
    });
  }

  async all(n: number, timeoutMs: number, everyMs?: number): Promise<void> {
    await until(`${n} WebServices Ready`, () => this.ready.size >= n, { timeoutMs, everyMs, watches: [this.watch] });
  }
}

/**
 * The controller started over N converged WebServices: until it reconciled every key once (each a
 * no-op from the cache), its requests and peak RSS; then, if asked, a window of steady state.
 */
export async function controllerStartup(audit: Audit | undefined, namespace: string, n: number, steadySeconds: number) {
  progress(`N=${n}: controller start over ${n} converged WebServices`);
  const since = audit?.mark() ?? 0;
  const controller = await ControllerProcess.start(namespace);
  try {
    const syncedMs = Math.round(await controller.waitForLog(/^caches synced/));
    const reconciledMs = Math.round(await controller.waitReconciled(n, 10 * 60_000));
    const count = audit ? await audit.count(since, 'controller') : null;
    const [cpuMs, peakRssMiB] = [await controller.cpuMs(), controller.peakRssMiB()];
    const startup = { n, syncedMs, reconciledMs, ...figures(count), cpuMs, peakRssMiB };
    const steady = steadySeconds > 0 ? await steadyWindow(audit, controller, n, steadySeconds) : null;
    controller.mustHaveNoErrors();
    return { startup, steady };
  } finally {
    await controller.stop();
  }
}

/** The controller's requests, writes and CPU over a window of steady state, after 2 s to settle. */
export async function steadyWindow(
  audit: Audit | undefined,
  controller: ControllerProcess,
  n: number,
  seconds: number,
) {
  progress(`N=${n}: controller at steady state for ${seconds}s`);
  await sleep(2000);
  const cpuBefore = await controller.cpuMs();
  const window = audit?.mark() ?? 0;
  await sleep(seconds * 1000);
  const quiet = audit ? await audit.count(window, 'controller') : null;
  const cpuMs = (await controller.cpuMs()) - cpuBefore;
  return { n, seconds, ...figures(quiet), cpuMs, peakRssMiB: controller.peakRssMiB() };
}

/** Who creates a burst's N WebServices (returning how long it took, ms), and how the bench sees them Ready. */
export interface BurstCreator {
  createdBy: string;
  create: (namespace: string, n: number) => Promise<number>;
  watch: Watcher;
}

const KUBECTL_CREATOR: BurstCreator = {
  createdBy: 'kubectl create, 4 processes of 250',
  create: (namespace, n) => createWebServices(namespace, n),
  watch: kubectlWatch,
};

/** The controller's default `--concurrency`, which every burst runs with. */
export const DEFAULT_WORKERS = 4;

/**
 * A burst: `run` (or the peer's binary) on an empty namespace, then N WebServices created at
 * once; from the first create to the last one Ready for its generation. Then, if asked, single
 * spec changes.
 */
export async function controllerBurst(
  audit: Audit | undefined,
  namespace: string,
  n: number,
  {
    latencySamples = 0,
    creator = KUBECTL_CREATOR,
    peer,
  }: { latencySamples?: number; creator?: BurstCreator; peer?: string } = {},
) {
  const controller = await ControllerProcess.start(namespace, {}, undefined, peer);
  const ready = new ReadySet(namespace, creator.watch);
  try {
    await sleep(1000); // the watch is open before the first create
    progress(`controller: burst of ${n} WebServices`);
    const since = audit?.mark() ?? 0;
    const cpuBefore = await controller.cpuMs();
    const [started, startedAt] = [performance.now(), Date.now()];
    const createMs = await creator.create(namespace, n);
    await ready.all(n, 10 * 60_000);
    const readyMs = Math.round(performance.now() - started);
    // Its Events go out in the background: count (and take its CPU) once it is quiet.
    await controller.waitReconciled(n, 60_000);
    const count = audit ? await audit.countSettled(since, 'controller') : null;
    const cpuMs = (await controller.cpuMs()) - cpuBefore;
    const mutating = count ? count.writes + count.events : 0;
    const burst = {
      n,
      readyMs,
      writesDoneMs: count?.lastWriteAt ? Math.max(0, count.lastWriteAt - startedAt) : null,
      createMs,
      createdBy: creator.createdBy,
      workers: DEFAULT_WORKERS,
      ...figures(count),
      cpuMs,
      cpuPerWriteMs: mutating > 0 ? round(cpuMs / mutating, 3) : null,
      peakRssMiB: controller.peakRssMiB(),
    };
    const latency = latencySamples > 0 ? await specChanges(audit, controller, namespace, n, latencySamples) : null;
    controller.mustHaveNoErrors();
    return { burst, latency, conflicts: controller.conflicts() };
  } finally {
    await ready.watch.stop();
    await controller.stop();
  }
}

/**
 * `samples` changes, one at a time, each to another WebService ((i × 37) mod n: 37 is prime to
 * 1000): `start(i, index)` makes the i-th and gives what reads its latency once the watches saw
 * it through (undefined until then). Their percentiles, and the controller's requests over them.
 */
export async function oneAtATime(
  audit: Audit | undefined,
  n: number,
  samples: number,
  watches: Watched[],
  start: (i: number, index: number) => Promise<() => number | undefined>,
) {
  const since = audit?.mark() ?? 0;
  const latenciesMs: number[] = [];
  for (let i = 0; i < samples; i++) {
    const index = (i * 37) % n;
    const through = await start(i, index);
    const what = `change ${i} (${webServiceName(index)}) to go through`;
    latenciesMs.push(round(await until(what, through, { timeoutMs: 30_000, everyMs: 2, watches }), 1));
  }
  const count = audit ? await audit.count(since, 'controller') : null;
  const [p50Ms, p99Ms, maxMs] = [percentile(latenciesMs, 50), percentile(latenciesMs, 99), Math.max(...latenciesMs)];
  return { samples, n, latenciesMs, p50Ms, p99Ms, maxMs, ...figures(count) };
}

/**
 * One spec change at a time: a new spec.image, until the watches show the WebService Ready for
 * it and its child's data.image changed; from the event that carried the new spec to the later
 * of the two.
 */
async function specChanges(
  audit: Audit | undefined,
  controller: ControllerProcess,
  namespace: string,
  n: number,
  samples: number,
) {
  progress(`controller: ${samples} single spec changes`);
  type Change = { name: string; image: string; seenAt?: number; parentAt?: number; childAt?: number };
  let change: Change | undefined;
  const streams = [
    new WatchStream('webservices', namespace, READY_FIELDS, ({ atMs, fields }) => {
      if (!change || fields[0] !== change.name || fields[4] !== change.image) return;
      change.seenAt ??= atMs;
      if (isReadyLine(fields)) change.parentAt ??= atMs;
    }),
    new WatchStream(
      'configmaps',
      namespace,
      ['.metadata.name', '.data.image'],
      ({ atMs, fields }) => {
        if (change && fields[0] === `${change.name}-desired` && fields[1] === change.image) change.childAt ??= atMs;
      },
      { selector: 'app.kubernetes.io/managed-by=webservice-controller' },
    ),
  ];
  try {
    await sleep(2000); // both watches have listed and are streaming
    const latency = await oneAtATime(audit, n, samples, streams, async (i, index) => {
      const current: Change = { name: webServiceName(index), image: `nginx:latency-${i}` };
      change = current;
      const spec = JSON.stringify({ spec: { image: current.image } });
      await kubectl(['patch', 'webservice', current.name, '-n', namespace, '--type=merge', '-p', spec]);
      return () =>
        current.seenAt !== undefined && current.parentAt !== undefined && current.childAt !== undefined
          ? Math.max(current.parentAt, current.childAt) - current.seenAt
          : undefined;
    });
    return { ...latency, peakRssMiB: controller.peakRssMiB() };
  } finally {
    await Promise.all(streams.map((s) => s.stop()));
  }
}

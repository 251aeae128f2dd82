// The controller's rows: `kubectl-webservice run` as a child process, as a user or a pod
// runs it. Its progress comes from its JSON log and its /metrics; its memory and CPU
// from /proc (VmHWM is the peak RSS of a process that is still running); its requests
// from the audit log; convergence from `kubectl get -w` streams watched by the bench (or,
// beside the write floor, from the floor's own client).
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { Audit, RequestCount } from './audit';
import { WatchLine, WatchStream, createWebServices, until, webServiceName } from './cluster';
import { ControllerBurst, ControllerStartup, ControllerSteady, Latencies } from './results';
import { PLUGIN, kubectl, percentile, processCpuMs, progress, round, sleep } from './proc';

interface LogEntry {
  msg: string;
  level: string;
  [field: string]: unknown;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export class ControllerProcess {
  readonly entries: LogEntry[] = [];
  readonly startedAt = performance.now();
  private readonly child: ChildProcess;
  private stderr = '';
  private pending = '';
  private exitCode: number | null = null;
  private readonly exited: Promise<void>;

  private constructor(
    namespace: string,
    private readonly metricsPort: number,
    extraArgs: string[],
    env: NodeJS.ProcessEnv,
  ) {
    const args = [
      'run',
      '-n',
      namespace,
      '--log-format=json',
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      ...extraArgs,
    ];
    // Started as deploy/Dockerfile starts it: the bench's node (the pinned Node 24), capped young generation.
    this.child = spawn(process.execPath, ['--max-semi-space-size=16', PLUGIN, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    this.child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.stderr = (this.stderr + text).slice(-20_000);
      this.pending += text;
      let newline: number;
      while ((newline = this.pending.indexOf('\n')) >= 0) {
        const line = this.pending.slice(0, newline);
        this.pending = this.pending.slice(newline + 1);
        try {
          this.entries.push(JSON.parse(line) as LogEntry);
        } catch {
          // an `error:` line before the logger exists
        }
      }
    });
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code) => {
        this.exitCode = code ?? -1;
        resolve();
      }),
    );
  }

  /** `env`: beside the bench's own (a KUBECONFIG through a proxy). */
  static async start(
    namespace: string,
    extraArgs: string[] = [],
    env: NodeJS.ProcessEnv = {},
  ): Promise<ControllerProcess> {
    return new ControllerProcess(namespace, await freePort(), extraArgs, env);
  }

  /** Milliseconds since start at which a log line matching `pattern` appeared. */
  async waitForLog(pattern: RegExp, timeoutMs = 120_000): Promise<number> {
    await until(
      `controller log "${pattern.source}"`,
      () => {
        if (this.exitCode !== null)
          throw new Error(`the controller exited ${this.exitCode}: ${this.stderr.slice(-2000)}`);
        return this.entries.some((e) => pattern.test(e.msg));
      },
      timeoutMs,
    );
    return performance.now() - this.startedAt;
  }

  /** Throws if the controller logged an error: a bench run with errors is not a clean figure. */
  mustHaveNoErrors(): void {
    const errors = this.entries.filter((e) => e.level === 'error');
    if (errors.length > 0) throw new Error(`the controller logged errors: ${JSON.stringify(errors.slice(0, 3))}`);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Peak RSS so far (VmHWM), MiB. */
  peakRssMiB(): number {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${this.child.pid}/status`, 'utf8'));
    if (!match) throw new Error('no VmHWM in /proc/<pid>/status');
    return round(Number(match[1]) / 1024, 1);
  }

  /** CPU (user + system) used so far, ms. */
  async cpuMs(): Promise<number> {
    const cpu = await processCpuMs(this.child.pid!);
    if (cpu === null) throw new Error(`the controller exited: ${this.stderr.slice(-2000)}`);
    return cpu;
  }

  /** Sums of every series of each metric, from one scrape of /metrics. */
  async metrics<Name extends string>(...names: Name[]): Promise<Record<Name, number>> {
    const response = await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`);
    const text = await response.text();
    const sums = Object.fromEntries(names.map((name) => [name, 0])) as Record<Name, number>;
    for (const line of text.split('\n')) {
      const name = names.find((n) => line.startsWith(`${n}{`) || line.startsWith(`${n} `));
      if (name) sums[name] += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return sums;
  }

  /** Waits until every key has been reconciled at least `count` times in all and the queue is empty. */
  async waitReconciled(count: number, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // One scrape a poll: at 10 000 WebServices a scrape is 5.7 MB of text the controller writes.
      const { controller_runtime_reconcile_total: reconciled, workqueue_depth: depth } = await this.metrics(
        'controller_runtime_reconcile_total',
        'workqueue_depth',
      );
      if (reconciled >= count && depth === 0) return performance.now() - this.startedAt;
      if (Date.now() > deadline)
        throw new Error(`controller: ${reconciled} of ${count} reconciled, queue ${depth}, after ${timeoutMs / 1000}s`);
      await sleep(100);
    }
  }

  async stop(): Promise<void> {
    if (this.exitCode === null) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * The controller started over N converged WebServices: time to sync and to reconcile
 * every key once (each a no-op from the cache), its requests, its peak RSS; then, if
 * asked, requests and writes over a window of steady state.
 */
export async function controllerStartup(
  audit: Audit | undefined,
  namespace: string,
  n: number,
  steadySeconds: number,
): Promise<{ startup: ControllerStartup; steady: ControllerSteady | null }> {
  progress(`N=${n}: controller start over ${n} converged WebServices`);
  const since = audit?.mark() ?? 0;
  const controller = await ControllerProcess.start(namespace);
  try {
    const syncedMs = await controller.waitForLog(/^caches synced/);
    await controller.waitForLog(/^controller working/);
    const reconciledMs = await controller.waitReconciled(n, 10 * 60_000);
    const count = audit ? await audit.count(since, 'controller') : null;
    const startup: ControllerStartup = {
      n,
      syncedMs: Math.round(syncedMs),
      reconciledMs: Math.round(reconciledMs),
      requests: count?.requests ?? null,
      writes: count?.writes ?? null,
      events: count?.events ?? null,
      cpuMs: await controller.cpuMs(),
      peakRssMiB: controller.peakRssMiB(),
    };
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
): Promise<ControllerSteady> {
  progress(`N=${n}: controller at steady state for ${seconds}s`);
  await sleep(2000);
  const cpuBefore = await controller.cpuMs();
  const window = audit?.mark() ?? 0;
  await sleep(seconds * 1000);
  const quiet = audit ? await audit.count(window, 'controller') : null;
  return {
    n,
    seconds,
    requests: quiet?.requests ?? null,
    reads: quiet?.reads ?? null,
    writes: quiet?.writes ?? null,
    events: quiet?.events ?? null,
    cpuMs: (await controller.cpuMs()) - cpuBefore,
    peakRssMiB: controller.peakRssMiB(),
  };
}

/** Ready for the current generation, from a watch line: name generation observedGeneration ready. */
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
export interface ReadyWatch {
  readonly failure: string | undefined;
  stop(): Promise<void>;
}

/**
 * How the bench takes part in a burst: `create` makes the N WebServices and returns how
 * long that took (ms); `watch` sees them Ready.
 */
export interface BurstCreator {
  createdBy: string;
  create: (namespace: string, n: number) => Promise<number>;
  watch: (namespace: string, onLine: (line: WatchLine) => void) => ReadyWatch;
}

const KUBECTL_CREATOR: BurstCreator = {
  createdBy: 'kubectl create, 4 processes of 250',
  create: (namespace, n) => createWebServices(namespace, n),
  watch: (namespace, onLine) => new WatchStream('webservices', namespace, READY_FIELDS, onLine),
};

/** The controller's default `--concurrency`, which every burst runs with. */
export const DEFAULT_WORKERS = 4;

export interface BurstOptions {
  /** After the burst, that many single spec changes, one after another: event → converged. */
  latencySamples?: number;
  creator?: BurstCreator;
}

/**
 * A burst: the controller runs on an empty namespace, then N WebServices are created at
 * once (by default kubectl create of Lists, several at a time); measured from the first
 * create to the moment the last one is Ready for its generation, as seen on a watch.
 */
export async function controllerBurst(
  audit: Audit | undefined,
  namespace: string,
  n: number,
  { latencySamples = 0, creator = KUBECTL_CREATOR }: BurstOptions = {},
): Promise<{ burst: ControllerBurst; latency: (Latencies & { peakRssMiB: number }) | null }> {
  const controller = await ControllerProcess.start(namespace);
  const streams: ReadyWatch[] = [];
  try {
    await controller.waitForLog(/^controller working/);
    const ready = new Set<string>();
    streams.push(
      creator.watch(namespace, ({ fields }) => {
        if (isReadyLine(fields)) ready.add(fields[0]);
        else ready.delete(fields[0]);
      }),
    );
    await sleep(1000); // the watch is open before the first create

    progress(`controller: burst of ${n} WebServices`);
    const since = audit?.mark() ?? 0;
    const cpuBefore = await controller.cpuMs();
    const started = performance.now();
    const startedAt = Date.now();
    const createMs = await creator.create(namespace, n);
    await until(
      `${n} WebServices Ready`,
      () => {
        if (streams[0].failure) throw new Error(streams[0].failure);
        return ready.size >= n;
      },
      10 * 60_000,
    );
    const readyMs = performance.now() - started;
    // Its Events go out in the background: count (and take its CPU) once it is quiet.
    await controller.waitReconciled(n, 60_000);
    const count = audit ? await audit.countSettled(since, 'controller') : null;
    const cpuMs = (await controller.cpuMs()) - cpuBefore;
    const mutating = count ? count.writes + count.events : 0;
    const burst: ControllerBurst = {
      n,
      readyMs: Math.round(readyMs),
      writesDoneMs: count?.lastWriteAt ? Math.max(0, count.lastWriteAt - startedAt) : null,
      createMs,
      createdBy: creator.createdBy,
      workers: DEFAULT_WORKERS,
      requests: count?.requests ?? null,
      writes: count?.writes ?? null,
      events: count?.events ?? null,
      ...(count ? { writesByKind: count.byKind } : {}),
      cpuMs,
      cpuPerWriteMs: mutating > 0 ? round(cpuMs / mutating, 3) : null,
      peakRssMiB: controller.peakRssMiB(),
    };

    const latency =
      latencySamples > 0 ? await measureLatency(audit, controller, namespace, n, latencySamples, streams) : null;
    controller.mustHaveNoErrors();
    return { burst, latency };
  } finally {
    await Promise.all(streams.map((s) => s.stop()));
    await controller.stop();
  }
}

interface Change {
  name: string;
  image: string;
  /** When the watch showed the new spec. */
  seenAt?: number;
  parentAt?: number;
  childAt?: number;
}

/**
 * One spec change at a time: patch spec.image of one WebService, then wait until the
 * watch shows it Ready with observedGeneration == generation AND its child's data.image
 * updated. Latency is measured on the bench's watches, from the event that carried the
 * new spec to the later of the two converged events.
 */
async function measureLatency(
  audit: Audit | undefined,
  controller: ControllerProcess,
  namespace: string,
  n: number,
  samples: number,
  streams: ReadyWatch[],
): Promise<Latencies & { peakRssMiB: number }> {
  progress(`controller: ${samples} single spec changes`);
  let change: Change | undefined;
  const onParent = ({ atMs, fields }: WatchLine) => {
    if (!change || fields[0] !== change.name || fields[4] !== change.image) return;
    change.seenAt ??= atMs;
    if (isReadyLine(fields)) change.parentAt ??= atMs;
  };
  const onChild = ({ atMs, fields }: WatchLine) => {
    if (change && fields[0] === `${change.name}-desired` && fields[1] === change.image) change.childAt ??= atMs;
  };
  streams.push(new WatchStream('webservices', namespace, READY_FIELDS, onParent));
  streams.push(
    new WatchStream('configmaps', namespace, ['.metadata.name', '.data.image'], onChild, {
      selector: 'app.kubernetes.io/managed-by=webservice-controller',
    }),
  );
  await sleep(2000); // both watches have listed and are streaming

  const since = audit?.mark() ?? 0;
  const latenciesMs: number[] = [];
  for (let i = 0; i < samples; i++) {
    const current: Change = { name: webServiceName((i * 37) % n), image: `nginx:latency-${i}` };
    change = current;
    const patch = kubectl([
      'patch',
      'webservice',
      current.name,
      '-n',
      namespace,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { image: current.image } }),
    ]);
    await until(
      `change ${i} (${current.name}) to converge`,
      () => {
        const failure = streams.map((s) => s.failure).find(Boolean);
        if (failure) throw new Error(failure);
        return current.seenAt !== undefined && current.parentAt !== undefined && current.childAt !== undefined;
      },
      30_000,
      2,
    );
    await patch;
    const convergedAt = Math.max(current.parentAt!, current.childAt!);
    latenciesMs.push(round(convergedAt - current.seenAt!, 1));
  }
  change = undefined;
  const count = audit ? await audit.count(since, 'controller') : null;
  return { ...latencies(n, latenciesMs, count), peakRssMiB: controller.peakRssMiB() };
}

/** Latencies of changes one at a time, with their percentiles and the controller's requests over them. */
export function latencies(n: number, latenciesMs: number[], count: RequestCount | null): Latencies {
  return {
    samples: latenciesMs.length,
    n,
    latenciesMs,
    p50Ms: percentile(latenciesMs, 50),
    p99Ms: percentile(latenciesMs, 99),
    maxMs: Math.max(...latenciesMs),
    requests: count?.requests ?? null,
    writes: count?.writes ?? null,
    events: count?.events ?? null,
    ...(count ? { writesByKind: count.byKind } : {}),
  };
}

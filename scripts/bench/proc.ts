// Running and timing child processes for the bench: the plugin as a user runs it, kubectl,
// and the shell loop. Wall time from the bench's clock; client CPU and peak RSS from the
// plugin's own -v line, or, for other programs, from GNU time when it is installed.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const DIST = __dirname;
export const ROOT = path.resolve(__dirname, '..');
export const PLUGIN = path.join(DIST, 'kubectl-webservice');

const GNU_TIME = '/usr/bin/time';

export interface RunOptions {
  input?: string;
  /** Keep stdout (default: discarded, as a user redirecting to a file would). */
  capture?: boolean;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** Runs a program to completion. Never throws on a non-zero exit: callers decide. */
export function run(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
    // A variable given as undefined is unset, not inherited (spawn would pass "undefined").
    for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
    const child = spawn(argv[0], argv.slice(1), {
      env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', options.capture ? 'pipe' : 'ignore', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        status: code ?? (signal ? 128 : -1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        wallMs: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Like run, but a non-zero exit is an error carrying stderr. */
async function mustRun(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await run(argv, options);
  if (result.status !== 0) {
    throw new Error(`${argv.slice(0, 4).join(' ')}… exited ${result.status}: ${result.stderr.trim().slice(-2000)}`);
  }
  return result;
}

export function kubectl(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return mustRun(['kubectl', ...args], options);
}

/** CPU (user + system) and peak RSS of a finished process tree. */
interface Footprint {
  cpuMs: number | null;
  peakRssMiB: number | null;
}

export interface Measured extends RunResult, Footprint {}

/** What `kubectl-webservice -v` prints last on stderr. */
function pluginFootprint(stderr: string): Footprint & { reads: number; writes: number; connections: number } {
  const match = /requests: (\d+) read, (\d+) write over (\d+) connection\(s\); cpu (\d+) ms; max RSS ([\d.]+) MiB/.exec(
    stderr,
  );
  if (!match) throw new Error(`no -v usage line in the plugin's stderr: ${stderr.slice(-500)}`);
  return {
    reads: Number(match[1]),
    writes: Number(match[2]),
    connections: Number(match[3]),
    cpuMs: Number(match[4]),
    peakRssMiB: Number(match[5]),
  };
}

/**
 * Runs the plugin with -v and reads its footprint from the usage line. `program` is how it
 * is started: the bundle itself (its shebang's node on PATH), [node, bundle] or the SEA.
 */
export async function runPlugin(
  args: string[],
  options: RunOptions = {},
  program: string[] = [PLUGIN],
): Promise<Measured & { connections: number }> {
  const result = await run([...program, ...args, '-v'], options);
  const footprint = pluginFootprint(result.stderr);
  return { ...result, cpuMs: footprint.cpuMs, peakRssMiB: footprint.peakRssMiB, connections: footprint.connections };
}

let gnuTime: boolean | undefined;

/** GNU time reports a process tree's CPU and the largest RSS in it; BSD time and none do not. */
async function hasGnuTime(): Promise<boolean> {
  if (gnuTime === undefined) {
    const version = fs.existsSync(GNU_TIME) ? await run([GNU_TIME, '--version'], { capture: true }) : undefined;
    gnuTime = Boolean(version && `${version.stdout}${version.stderr}`.includes('GNU'));
  }
  return gnuTime;
}

/**
 * Runs any program under GNU time when available: CPU of the whole tree (children
 * included, so a shell loop's kubectl and jq count) and the largest RSS of any process in it.
 */
export async function runMeasured(argv: string[], options: RunOptions = {}): Promise<Measured> {
  if (!(await hasGnuTime())) return { ...(await run(argv, options)), cpuMs: null, peakRssMiB: null };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-time-')), 'time');
  try {
    const result = await run([GNU_TIME, '-f', '%U %S %M', '-o', file, '--', ...argv], options);
    const [user, system, maxKiB] = fs.readFileSync(file, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    return { ...result, cpuMs: Math.round((user + system) * 1000), peakRssMiB: round(maxKiB / 1024, 1) };
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

let clockTicks: number | undefined;

/** CPU (user + system) a running process has used so far, ms; null once it is gone. */
export async function processCpuMs(pid: number): Promise<number | null> {
  clockTicks ??= Number((await run(['getconf', 'CLK_TCK'], { capture: true })).stdout.trim()) || 100;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Math.round(((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks); // utime, stime
}

const CONTROL_PLANE = ['kube-apiserver', 'etcd', 'kube-controller-manager'];

/**
 * CPU used so far by the local control plane (kube-apiserver, etcd, kube-controller-manager),
 * from the pid files scripts/control-plane.sh keeps; null on a cluster it did not start.
 */
export async function controlPlaneCpuMs(): Promise<number | null> {
  if (process.env.USE_EXISTING_CLUSTER === 'true') return null;
  const dir = process.env.WEBSERVICE_CP_DIR || path.join(ROOT, '.cache/control-plane');
  let total = 0;
  for (const name of CONTROL_PLANE) {
    let pid: number;
    try {
      pid = Number(fs.readFileSync(path.join(dir, `${name}.pid`), 'utf8').trim());
    } catch {
      return null;
    }
    const cpu = await processCpuMs(pid);
    if (cpu === null) return null;
    total += cpu;
  }
  return total;
}

/** Every process the local control plane may run, workloads or not. */
const PLANE_COMPONENTS = ['kube-apiserver', 'etcd', 'kube-controller-manager', 'kube-scheduler', 'kwok'];

/**
 * CPU used so far by each process of the local control plane, ms, from its pid file; null
 * for one that is not running (kube-scheduler and kwok run only on the workloads plane).
 */
export async function componentCpuMs(): Promise<Record<string, number | null>> {
  const cpu: Record<string, number | null> = {};
  for (const [name, pid] of Object.entries(componentPids())) cpu[name] = pid === null ? null : await processCpuMs(pid);
  return cpu;
}

/** The pid of each process of the local control plane, from its pid file; null where there is none. */
function componentPids(): Record<string, number | null> {
  const dir = process.env.WEBSERVICE_CP_DIR || path.join(ROOT, '.cache/control-plane');
  const pids: Record<string, number | null> = {};
  for (const name of PLANE_COMPONENTS) {
    let pid: number | null;
    try {
      pid = Number(fs.readFileSync(path.join(dir, `${name}.pid`), 'utf8').trim()) || null;
    } catch {
      pid = null;
    }
    pids[name] = process.env.USE_EXISTING_CLUSTER === 'true' ? null : pid;
  }
  return pids;
}

export interface Memory {
  rssMiB: number;
  /** VmHWM: the peak RSS since the process started. */
  peakRssMiB: number;
}

/** RSS and peak RSS of a running process, from /proc/PID/status; null once it is gone. */
function processMemory(pid: number): Memory | null {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: round(kib('VmRSS') / 1024, 1), peakRssMiB: round(kib('VmHWM') / 1024, 1) };
}

/** Memory of each running process of the local control plane. */
export function componentMemory(): Record<string, Memory> {
  const memory: Record<string, Memory> = {};
  for (const [name, pid] of Object.entries(componentPids())) {
    const m = pid === null ? null : processMemory(pid);
    if (m) memory[name] = m;
  }
  return memory;
}

/** CPU the whole machine has spent so far (every core, idle and iowait excluded), ms. */
export function machineCpuMs(): number {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return Math.round(
    ((user + nice + system + irq + softirq + (Number.isFinite(steal) ? steal : 0)) * 1000) / (clockTicks ?? 100),
  );
}

/** What the control plane, the whole machine and the bench itself spent while `body` ran. */
export interface CpuWindow {
  /** kube-apiserver, etcd and kube-controller-manager (the same two cores). */
  serverCpuMs: number | null;
  machineCpuMs: number;
  benchCpuMs: number;
}

export async function withCpu<T>(body: () => Promise<T>): Promise<{ value: T } & CpuWindow> {
  const server = await controlPlaneCpuMs();
  const machine = machineCpuMs();
  const bench = process.cpuUsage();
  const value = await body();
  const benchUsage = process.cpuUsage(bench);
  const machineAfter = machineCpuMs();
  const serverAfter = await controlPlaneCpuMs();
  return {
    value,
    serverCpuMs: server === null || serverAfter === null ? null : serverAfter - server,
    machineCpuMs: machineAfter - machine,
    benchCpuMs: Math.round((benchUsage.user + benchUsage.system) / 1000),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export function round(value: number, digits = 0): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Progress on stderr, so a redirected stdout keeps only the summary. */
export function progress(text: string): void {
  process.stderr.write(`bench: ${text}\n`);
}

// Running and timing child processes for the bench: the plugin as a user runs it, and kubectl.
// Wall time from the bench's clock; the plugin's CPU and peak RSS from its own -v line.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const DIST = __dirname;
export const ROOT = path.resolve(__dirname, '..');
export const PLUGIN = path.join(DIST, 'kubectl-webservice');

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

/** kubectl, whose non-zero exit is an error carrying its stderr. */
export async function kubectl(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await run(['kubectl', ...args], options);
  if (result.status !== 0)
    throw new Error(
      `kubectl ${args.slice(0, 3).join(' ')}… exited ${result.status}: ${result.stderr.trim().slice(-2000)}`,
    );
  return result;
}

/** A run with its CPU (user + system) and peak RSS, where the program reports them. */
export interface Measured extends RunResult {
  cpuMs: number | null;
  peakRssMiB: number | null;
}

/**
 * Runs the plugin with -v and reads its CPU and peak RSS from the usage line it prints last.
 * `program` starts it: the bundle itself (its shebang's node on PATH), [node, bundle] or the SEA.
 */
export async function runPlugin(args: string[], options: RunOptions = {}, program = [PLUGIN]): Promise<Measured> {
  const result = await run([...program, ...args, '-v'], options);
  const usage = /requests: \d+ read, \d+ write over \d+ connection\(s\); cpu (\d+) ms; max RSS ([\d.]+) MiB/.exec(
    result.stderr,
  );
  if (!usage) throw new Error(`no -v usage line in the plugin's stderr: ${result.stderr.slice(-500)}`);
  return { ...result, cpuMs: Number(usage[1]), peakRssMiB: Number(usage[2]) };
}

/** Runs another program: its wall time only. */
export async function runMeasured(argv: string[], options: RunOptions = {}): Promise<Measured> {
  return { ...(await run(argv, options)), cpuMs: null, peakRssMiB: null };
}

/** Runs `tasks` with at most `limit` of them at once. */
export async function pool(limit: number, tasks: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
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

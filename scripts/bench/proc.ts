// Running and timing child processes for the bench: the plugin as a user runs it, and kubectl.
// Wall time from the bench's clock; the plugin's CPU and peak RSS from its own -v line.
import { spawn } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');
export const PLUGIN = path.join(__dirname, 'kubectl-webservice');

export interface RunOptions {
  input?: string;
  /** Keep stdout (default: discarded, as a user redirecting to a file would). */
  capture?: boolean;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** A run, with its CPU (user + system) and peak RSS where the program reports them. */
export interface Measured {
  status: number;
  stdout: string;
  stderr: string;
  wallMs: number;
  cpuMs: number | null;
  peakRssMiB: number | null;
}

/** Runs a program to completion. Never throws on a non-zero exit: callers decide. */
export function run(argv: string[], options: RunOptions = {}): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', options.capture ? 'pipe' : 'ignore', 'pipe'],
    });
    const [out, err] = [[] as Buffer[], [] as Buffer[]];
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
        wallMs: performance.now() - started,
        cpuMs: null,
        peakRssMiB: null,
      });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** kubectl, whose non-zero exit is an error carrying its stderr. */
export async function kubectl(args: string[], options: RunOptions = {}): Promise<Measured> {
  const result = await run(['kubectl', ...args], options);
  if (result.status !== 0)
    throw new Error(`kubectl ${args.slice(0, 3).join(' ')}… exited ${result.status}: ${result.stderr.slice(-2000)}`);
  return result;
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

/** Calls onLine with each whole line of a child's output as it comes, and the bench's clock then. */
export function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string, atMs: number) => void): void {
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    const atMs = performance.now();
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop()!;
    for (const line of lines) onLine(line, atMs);
  });
}

/** Runs `tasks` with at most `limit` of them at once. */
export async function pool(limit: number, tasks: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}

/** Anything watched that can fail, such as a watch stream. */
export interface Watched {
  readonly failure: string | undefined;
}

/**
 * Polls check() until it gives a value other than undefined or false, and gives that; throws
 * at once when a watch fails, and after the timeout with what it waited for.
 */
export async function until<T>(
  what: string | (() => string),
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs, everyMs = 20, watches = [] }: { timeoutMs: number; everyMs?: number; watches?: Watched[] },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const failure = watches.map((w) => w.failure).find(Boolean);
    if (failure) throw new Error(failure);
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(everyMs);
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

export function round(value: number, digits = 0): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Progress on stderr, so a redirected stdout keeps only the summary. */
export function progress(text: string): void {
  process.stderr.write(`bench: ${text}\n`);
}

// Child processes for the tests: one that runs to its end (run), and one that runs in the
// background while a test acts on the cluster (Background), its output collected as it comes.
// Every test that starts the plugin, kubectl or the controller goes through one of these.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { eventually } from './wait';

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Runs a command to its end, without colour; throws only if it could not be started. */
export function run(command: string, args: string[], options: RunOptions = {}): RunResult {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    input: options.input,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    timeout: options.timeoutMs ?? 120_000,
    // The API server's OpenAPI documents are a few MB.
    maxBuffer: 64 << 20,
  });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface BackgroundOptions {
  env?: NodeJS.ProcessEnv;
  /** Called with each complete line of stdout, as it comes. */
  onStdoutLine?: (line: string) => void;
  /** Called with each complete line of stderr, as it comes. */
  onStderrLine?: (line: string) => void;
}

/** A command running in the background, without colour; what it prints is kept. */
export class Background {
  stdout = '';
  stderr = '';
  exit: Exit | null = null;
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcess;

  constructor(command: string, args: string[], options: BackgroundOptions = {}) {
    this.child = spawn(command, args, {
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onStdout = lines(options.onStdoutLine);
    const onStderr = lines(options.onStderrLine);
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.stdout += text;
      onStdout(text);
    });
    this.child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.stderr += text;
      onStderr(text);
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Sends a signal, unless it has exited already. */
  signal(signal: NodeJS.Signals): void {
    if (!this.exit) this.child.kill(signal);
  }

  /** Waits until stdout matches; fails at once if the process exits first. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
    return eventually(() => {
      if (this.exit) throw new Error(`exited (${JSON.stringify(this.exit)}): ${this.stderr.slice(-2000)}`);
      return pattern.exec(this.stdout);
    }, timeoutMs);
  }

  /** Sends `signal` and waits for the exit; SIGKILL if it has not exited after killAfterMs. */
  async end(signal: NodeJS.Signals, killAfterMs: number): Promise<Exit> {
    if (this.exit) return this.exit;
    this.signal(signal);
    const timer = setTimeout(() => this.signal('SIGKILL'), killAfterMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}

/** Splits a stream's chunks into complete lines for `each` (nothing, without it). */
function lines(each?: (line: string) => void): (text: string) => void {
  if (!each) return () => undefined;
  let pending = '';
  return (text) => {
    pending += text;
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      each(line);
    }
  };
}

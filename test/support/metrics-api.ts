// A Prometheus-compatible query API for the tests, in a process of its own (metrics-api-server.cjs):
// the value it answers is set by the test, and the queries it was asked are read back.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface MetricsApiStub {
  url: string;
  /** The value the next queries get, as Prometheus writes a sample ("0.5", "NaN"). */
  answer(value: string): void;
  queries(): string[];
  stop(): void;
}

export async function startMetricsApi(): Promise<MetricsApiStub> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'metrics-api-'));
  fs.writeFileSync(path.join(dir, 'value'), '0');
  fs.writeFileSync(path.join(dir, 'queries'), '');
  const server: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'metrics-api-server.cjs'), dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    server.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
    server.once('exit', (code) => reject(new Error(`metrics-api-server.cjs exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    answer: (value) => fs.writeFileSync(path.join(dir, 'value'), value),
    queries: () => fs.readFileSync(path.join(dir, 'queries'), 'utf8').split('\n').filter(Boolean),
    stop: () => {
      server.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

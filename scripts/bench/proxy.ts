// The proxy of the tests (harness/watch-proxy.cjs), unperturbed, between one `run` and the API
// server: it counts the controller's reads of Secrets by kind, the bytes of their answers and
// the answers holding a marker, so the bench can show what the controller received, which the
// audit log cannot (it does not tell a metadata-only list from a full one).
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Kubeconfig, type ProxyCounts, proxyUpstream, throughProxy } from '../../harness/proxy-kubeconfig';
import { until } from './cluster';
import { ROOT, kubectl } from './proc';

export class CountingProxy {
  private constructor(
    private readonly child: ChildProcess,
    /** What the proxy printed: its port, then a line of counts every second. */
    private readonly output: { text: string },
    /** A kubeconfig that sends its client through the proxy. */
    readonly kubeconfig: string,
    private readonly dir: string,
  ) {}

  /** Starts the proxy in front of the current kubeconfig's API server, counting `marker`. */
  static async start(marker: string): Promise<CountingProxy> {
    const view = await kubectl(['config', 'view', '--raw', '--minify', '-o', 'json'], { capture: true });
    const config = JSON.parse(view.stdout) as Kubeconfig;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-proxy-'));
    const upstream = proxyUpstream(config, path.join(dir, 'ca.crt'));
    const child = spawn(process.execPath, [path.join(ROOT, 'harness/watch-proxy.cjs'), ...upstream], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, COUNT_MARKER: marker },
    });
    const output = { text: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.text += chunk.toString('utf8')));
    await until(
      'the counting proxy to listen',
      () => {
        if (child.exitCode !== null) throw new Error(`the counting proxy exited ${child.exitCode}`);
        return /^\d+\n/.test(output.text);
      },
      10_000,
    );
    const kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfig, JSON.stringify(throughProxy(config, output.text.split('\n')[0])));
    return new CountingProxy(child, output, kubeconfig, dir);
  }

  /** Stops the proxy; what it counted. */
  async stop(): Promise<ProxyCounts> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('close', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
    const last = this.output.text
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .at(-1);
    if (!last) throw new Error('the counting proxy reported nothing');
    return JSON.parse(last) as ProxyCounts;
  }
}

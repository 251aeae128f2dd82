// The proxy of the tests (harness/watch-proxy.cjs), unperturbed, between one `run` and the API
// server: it counts the controller's reads of Secrets by kind, the bytes of their answers and
// the answers holding a marker, so the bench can show what the controller received, which the
// audit log cannot (it does not tell a metadata-only list from a full one).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Kubeconfig, type ProxyCounts, proxyUpstream, throughProxy } from '../../harness/proxy-kubeconfig';
import { ROOT, Watched, eachLine, kubectl, until } from './proc';

/**
 * Starts the proxy in front of the current kubeconfig's API server, counting `marker`; its
 * kubeconfig (that sends a client through it), and its stop, which gives what it counted.
 */
export async function countingProxy(marker: string): Promise<{ kubeconfig: string; stop(): Promise<ProxyCounts> }> {
  const view = await kubectl(['config', 'view', '--raw', '--minify', '-o', 'json'], { capture: true });
  const config = JSON.parse(view.stdout) as Kubeconfig;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-proxy-'));
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'harness/watch-proxy.cjs'), ...proxyUpstream(config, path.join(dir, 'ca.crt'))],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, COUNT_MARKER: marker },
    },
  );
  // It prints its port, then a line of counts every second.
  const lines: string[] = [];
  eachLine(child.stdout, (line) => lines.push(line));
  const exited = new Promise((resolve) => child.once('close', resolve));
  const proxy: Watched = {
    get failure() {
      return child.exitCode === null ? undefined : `the counting proxy exited ${child.exitCode}`;
    },
  };
  const listening = () => /^\d+$/.test(lines[0] ?? '') && lines[0];
  const port = await until('the counting proxy to listen', listening, { timeoutMs: 10_000, watches: [proxy] });
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, JSON.stringify(throughProxy(config, port)));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
    const last = lines.filter((line) => line.startsWith('{')).at(-1);
    if (!last) throw new Error('the counting proxy reported nothing');
    return JSON.parse(last) as ProxyCounts;
  };
  return { kubeconfig, stop };
}

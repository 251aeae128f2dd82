// Runs `kubectl webservice run` as a child process, the way a user or a pod runs it,
// and reads its JSON log lines.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { PLUGIN, ROOT, eventually, kubectl, tokenKubeconfig } from './cluster';

export interface LogEntry {
  ts: string;
  level: string;
  msg: string;
  [field: string]: unknown;
}

export class ControllerProcess {
  readonly entries: LogEntry[] = [];
  stderr = '';
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;

  /** `wrap`: a command prefix to run the plugin under, e.g. `ip netns exec NAME`. */
  constructor(args: string[], env: NodeJS.ProcessEnv = {}, wrap: string[] = []) {
    const command = [...wrap, PLUGIN, 'run', '--log-format=json', ...args];
    this.child = spawn(command[0], command.slice(1), {
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    this.child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.stderr += text;
      pending += text;
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        try {
          this.entries.push(JSON.parse(line) as LogEntry);
        } catch {
          // not a log entry (e.g. an error: line before the logger exists)
        }
      }
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Waits for a log entry whose message matches, and returns it. */
  async waitForLog(pattern: RegExp, timeoutMs = 30_000, from = 0): Promise<LogEntry> {
    return eventually(() => {
      if (this.exit) throw new Error(`controller exited (${JSON.stringify(this.exit)}): ${this.stderr.slice(-2000)}`);
      return this.entries.slice(from).find((e) => pattern.test(e.msg));
    }, timeoutMs);
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.exit) this.child.kill(signal);
  }

  /** SIGTERM and wait; SIGKILL if it does not stop in time. */
  async stop(timeoutMs = 20_000): Promise<void> {
    if (this.exit) return;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * Installs deploy/'s Namespace, ServiceAccount and RBAC, and returns a kubeconfig that
 * authenticates as that ServiceAccount: the controller runs with exactly what ships.
 */
export function controllerKubeconfig(): string {
  for (const file of ['00-namespace.yaml', '10-rbac.yaml']) {
    kubectl(['apply', '-f', path.join(ROOT, 'deploy', file)]);
  }
  const kubeconfig = tokenKubeconfig('webservice-system', 'webservice-controller');
  if (!fs.existsSync(kubeconfig)) throw new Error('no kubeconfig written');
  return kubeconfig;
}

/**
 * A controller replica as deploy/ runs it, for the leader fence (deploy/15-leader-fence.yaml):
 * a Pod (never scheduled: the test plane has no nodes) whose name is the replica's POD_NAME,
 * and a kubeconfig with the ServiceAccount's token bound to that Pod, so the API server
 * knows which pod is writing. Returns the kubeconfig and the environment to run with.
 */
export function podReplica(podName: string): { kubeconfig: string; env: NodeJS.ProcessEnv } {
  // The Deployment's own pod template, so the pod is what deploy/ would run.
  const deployment = yaml.load(fs.readFileSync(path.join(ROOT, 'deploy', '20-deployment.yaml'), 'utf8')) as {
    spec: { template: { spec: Record<string, unknown> } };
  };
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName, namespace: 'webservice-system' },
    spec: deployment.spec.template.spec,
  };
  kubectl(['apply', '-f', '-'], JSON.stringify(pod));
  const uid = kubectl(['get', 'pod', podName, '-n', 'webservice-system', '-o', 'jsonpath={.metadata.uid}']).trim();
  const kubeconfig = tokenKubeconfig('webservice-system', 'webservice-controller', [
    '--bound-object-kind=Pod',
    `--bound-object-name=${podName}`,
    `--bound-object-uid=${uid}`,
  ]);
  return { kubeconfig, env: { POD_NAME: podName } };
}

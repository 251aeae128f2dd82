// Runs `kubectl webservice run` as a child process, the way a user or a pod runs it,
// and reads its JSON log lines.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import {
  Background,
  PLUGIN,
  ROOT,
  createNamespace,
  deleteNamespace,
  eventually,
  kubectl,
  tokenKubeconfig,
} from './cluster';

/** The username the controller's requests carry in the audit log, with deploy/'s ServiceAccount. */
export const CONTROLLER_USER = 'system:serviceaccount:webservice-system:webservice-controller';

export interface LogEntry {
  ts: string;
  level: string;
  msg: string;
  [field: string]: unknown;
}

export class ControllerProcess extends Background {
  readonly entries: LogEntry[];

  /** `wrap`: a command prefix to run the plugin under, e.g. `ip netns exec NAME`. */
  constructor(args: string[], env: NodeJS.ProcessEnv = {}, wrap: string[] = []) {
    const entries: LogEntry[] = [];
    const command = [...wrap, PLUGIN, 'run', '--log-format=json', ...args];
    super(command[0], command.slice(1), {
      env,
      onStderrLine: (line) => {
        try {
          entries.push(JSON.parse(line) as LogEntry);
        } catch {
          // not a log entry (e.g. an error: line before the logger exists)
        }
      },
    });
    this.entries = entries;
  }

  /** Waits for a log entry whose message matches, and returns it. */
  async waitForLog(pattern: RegExp, timeoutMs = 30_000, from = 0): Promise<LogEntry> {
    return eventually(() => {
      // The entry first: a replica may log it and exit (leader election lost) before a poll.
      const found = this.entries.slice(from).find((e) => pattern.test(e.msg));
      if (found) return found;
      if (this.exit) throw new Error(`controller exited (${JSON.stringify(this.exit)}): ${this.stderr.slice(-2000)}`);
      return undefined;
    }, timeoutMs);
  }

  /** SIGTERM and wait; SIGKILL if it does not stop in time. */
  async stop(timeoutMs = 20_000): Promise<void> {
    await this.end('SIGTERM', timeoutMs);
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

/** A fresh namespace with a controller reconciling it, as deploy/'s ServiceAccount. */
export async function controlledNamespace(
  prefix: string,
  kubeconfig = controllerKubeconfig(),
): Promise<{ ns: string; ctl: ControllerProcess }> {
  const ns = createNamespace(prefix);
  const ctl = new ControllerProcess(['-n', ns, '--kubeconfig', kubeconfig]);
  try {
    await ctl.waitForLog(/controller working/);
  } catch (err) {
    await endControlled(ns, ctl);
    throw err;
  }
  return { ns, ctl };
}

/** Stops the controller (unset when beforeAll failed) and deletes its namespace. */
export async function endControlled(ns: string | undefined, ctl: ControllerProcess | undefined): Promise<void> {
  await ctl?.stop();
  if (ns !== undefined) deleteNamespace(ns);
}

/**
 * A controlled namespace (controlledNamespace) for the enclosing describe: made in beforeAll,
 * ended in afterAll. Returns functions that give the namespace and its controller, from
 * beforeAll on.
 */
export function useControlledNamespace(prefix: string): { ns: () => string; ctl: () => ControllerProcess } {
  let controlled: { ns: string; ctl: ControllerProcess } | undefined;
  beforeAll(async () => {
    controlled = await controlledNamespace(prefix);
  });
  afterAll(() => endControlled(controlled?.ns, controlled?.ctl));
  const made = () => {
    if (!controlled) throw new Error(`useControlledNamespace('${prefix}'): it exists only from beforeAll on`);
    return controlled;
  };
  return { ns: () => made().ns, ctl: () => made().ctl };
}

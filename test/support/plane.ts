// A control plane of a test file's own, beside the one the run shares: for a file that needs
// what the shared plane does not run (pods, in the fault suite), or that must make and remove
// cluster-wide objects other files use at the same time (the Helm chart's install).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './cluster';

const PLANE_ENV = ['KUBECONFIG', 'KUBE_AUDIT_LOG', 'WEBSERVICE_CP_DIR', 'WEBSERVICE_CP_WORKLOADS'] as const;

/**
 * One control-plane.sh command on the plane of WEBSERVICE_CP_DIR; its output. The
 * environment is given on purpose: jest hands a test file a copy of process.env, and a child
 * started without env gets the worker's, where a plane the file started was never set.
 */
export function planeCommand(...args: string[]): string {
  const result = spawnSync('bash', [path.join(ROOT, 'scripts/control-plane.sh'), ...args], {
    encoding: 'utf8',
    env: { ...process.env },
  });
  if (result.status !== 0) throw new Error(`control-plane.sh ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * up() starts a plane (with pods if `workloads`) and points this file's KUBECONFIG and
 * KUBE_AUDIT_LOG at it, so kubectl, the plugin and helm use it; nothing is installed on it.
 * down() stops it and points them back.
 */
export function ownPlane(options: { prefix: string; workloads: boolean }): { up: () => void; down: () => void } {
  const saved = new Map<string, string | undefined>();
  let dir: string | null = null;
  return {
    up() {
      for (const name of PLANE_ENV) saved.set(name, process.env[name]);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `${options.prefix}-`));
      process.env.WEBSERVICE_CP_DIR = dir;
      process.env.WEBSERVICE_CP_WORKLOADS = String(options.workloads);
      planeCommand('up');
      for (const line of planeCommand('vars').split('\n')) {
        const at = line.indexOf('=');
        const name = line.slice(0, at);
        if (name === 'KUBECONFIG' || name === 'KUBE_AUDIT_LOG') process.env[name] = line.slice(at + 1);
      }
    },
    down() {
      if (dir === null) return;
      planeCommand('down');
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      dir = null;
    },
  };
}

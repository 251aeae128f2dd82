// Starts one real control plane for the whole integration run (unless
// USE_EXISTING_CLUSTER=true) and installs the CRD. Workers inherit the environment.
//
// WEBSERVICE_CP_WORKLOADS=true asks for a plane where Deployments really roll out:
// kube-scheduler, KWOK's fake Nodes and the deployment and replicaset controllers
// (WEBSERVICE_CP_NODES and WEBSERVICE_CP_NODE_PODS size the Nodes). It is asked for, not
// the default: on a cold cache it builds two more binaries, and on a small machine three
// more processes share the cores with every test. A suite that needs it either runs with
// the variable set (scripts/test.sh then builds them first) or calls startControlPlane
// with { workloads: true } from its own global setup. Tests read the variable to know.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, PLUGIN, kubectl, run } from './cluster';

export interface PlaneOptions {
  workloads?: boolean;
}

export async function startControlPlane(options: PlaneOptions = {}): Promise<void> {
  if (!fs.existsSync(PLUGIN)) {
    throw new Error(`${PLUGIN} is missing: run the tests with "npm test", which builds it first`);
  }
  const workloads = options.workloads ?? process.env.WEBSERVICE_CP_WORKLOADS === 'true';
  process.env.WEBSERVICE_CP_WORKLOADS = workloads ? 'true' : 'false';
  if (process.env.USE_EXISTING_CLUSTER !== 'true') {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'webservice-test-plane-'));
    process.env.WEBSERVICE_CP_DIR = stateDir;
    execFileSync('bash', [path.join(ROOT, 'scripts/control-plane.sh'), 'up'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const env = execFileSync('bash', [path.join(ROOT, 'scripts/control-plane.sh'), 'env'], { encoding: 'utf8' });
    for (const match of env.matchAll(/^export (KUBECONFIG|KUBE_AUDIT_LOG)=(.*)$/gm)) {
      process.env[match[1]] = match[2].replace(/^'|'$/g, '');
    }
    const binDir = /^export PATH=(.*):"\$PATH"$/m.exec(env)?.[1]?.replace(/^'|'$/g, '');
    if (binDir) process.env.PATH = `${binDir}${path.delimiter}${process.env.PATH}`;
  }
  kubectl(['apply', '-f', path.join(ROOT, 'crds/webservices.apps.labhub.io.yaml')]);
  waitEstablished('webservices.apps.labhub.io');
}

/**
 * kubectl wait for a CRD's Established condition. A CRD read before the API server has given it
 * any condition makes kubectl wait fail at once ("<nil> is of the type <nil>"), rather than
 * wait: until it has some, it is asked again.
 */
function waitEstablished(name: string): void {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = run('kubectl', ['wait', '--for', 'condition=Established', '--timeout=60s', `crd/${name}`]);
    if (result.status === 0) return;
    if (!/accessor error/.test(result.stderr) || Date.now() > deadline) {
      throw new Error(`kubectl wait for crd/${name} failed: ${result.stderr}`);
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
  }
}

export default async function globalSetup(): Promise<void> {
  await startControlPlane();
}

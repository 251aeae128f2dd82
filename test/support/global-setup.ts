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
import { ROOT, PLUGIN, kubectl, waitEstablished } from './cluster';

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

export default async function globalSetup(): Promise<void> {
  await startControlPlane();
}

// What the product relies on, shown on the real API server: CRD validation and
// defaults, the status subresource, garbage collection; the plane's pods (with workloads),
// the faulty images' too; and the bundled plugin runs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  ROOT,
  applyYaml,
  describeWorkloads,
  eventually,
  getJson,
  kubectl,
  patchWebService,
  plugin,
  sleep,
  tryGetJson,
  useNamespace,
  webService,
  PACKAGE_VERSION,
} from '../support/cluster';
import { CRASH_LOOP_IMAGE, NEVER_READY_IMAGE } from '../support/faulty-images';

const ns = useNamespace('foundation');

describe('the WebService CRD on a real apiserver', () => {
  it('is Established and served with the status and scale subresources', () => {
    const crd = getJson(['get', 'crd', 'webservices.apps.labhub.io']);
    expect(crd.status.conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
    expect(crd.spec.versions[0].subresources).toMatchObject({
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    });
  });

  it('rejects a WebService without image, with a clear message', () => {
    const result = spawnSync('kubectl', ['apply', '-n', ns(), '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps.labhub.io/v1',
        kind: 'WebService',
        metadata: { name: 'noimage' },
        spec: {},
      }),
      encoding: 'utf8',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/spec\.image: Required value/);
  });

  it.each([['nginx:1.27; rm -rf /'], ['$(reboot)'], ['nginx 1.27'], ['nginx:1.27\n']])(
    'rejects image %j: no whitespace, control or shell metacharacters',
    (image) => {
      const result = spawnSync('kubectl', ['apply', '-n', ns(), '-f', '-'], {
        input: webService('badimage', { image }),
        encoding: 'utf8',
      });
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(/spec\.image: Invalid value/);
    },
  );

  it('rejects a WebService that depends on itself, naming the field', () => {
    const result = spawnSync('kubectl', ['apply', '-n', ns(), '-f', '-'], {
      input: webService('loop', { image: 'nginx:1.27', dependsOn: ['loop'] }),
      encoding: 'utf8',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/spec\.dependsOn: Invalid value: .*a WebService cannot depend on itself/);
    expect(result.stderr).not.toContain('<nil>');
  });

  it('fills in replicas=1 and tier=dev on a minimal WebService', () => {
    applyYaml(ns(), webService('minimal', { image: 'nginx:1.27' }));
    const ws = getJson(['get', 'webservice', 'minimal', '-n', ns()]);
    expect(ws.spec).toEqual({ image: 'nginx:1.27', replicas: 1, tier: 'dev' });
  });

  it('a status write does not bump generation', () => {
    applyYaml(ns(), webService('statusonly', { image: 'nginx:1.27' }));
    const before = getJson(['get', 'webservice', 'statusonly', '-n', ns()]);
    const status = { replicas: 1, observedGeneration: before.metadata.generation };
    patchWebService(ns(), 'statusonly', { status }, ['--subresource=status']);
    const after = getJson(['get', 'webservice', 'statusonly', '-n', ns()]);
    expect(after.status.replicas).toBe(1);
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.metadata.resourceVersion).not.toBe(before.metadata.resourceVersion);
  });

  it('deleting an owner garbage-collects the ConfigMap it owns', async () => {
    applyYaml(ns(), webService('owner', { image: 'nginx:1.27' }));
    const owner = getJson(['get', 'webservice', 'owner', '-n', ns()]);
    applyYaml(
      ns(),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'owned',
          ownerReferences: [
            { apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name: 'owner', uid: owner.metadata.uid },
          ],
        },
        data: { a: 'b' },
      }),
    );
    kubectl(['delete', 'webservice', 'owner', '-n', ns(), '--wait=false']);
    await eventually(() => tryGetJson(['get', 'configmap', 'owned', '-n', ns()]) === null, 60_000);
  });
});

const controlPlane = process.env.USE_EXISTING_CLUSTER === 'true' ? describe.skip : describe;

controlPlane('scripts/control-plane.sh', () => {
  const script = (command: string) =>
    spawnSync('bash', [path.join(ROOT, 'scripts/control-plane.sh'), command], { encoding: 'utf8' });

  it('a second up reuses the running plane', () => {
    const server = getJson(['config', 'view', '--minify']).clusters[0].cluster.server;
    const again = script('up');
    expect(again.status).toBe(0);
    expect(again.stderr).toContain(`already running (${server}); reusing it`);
  });

  it('env prints the exports a shell evals, status says it runs', () => {
    const env = script('env').stdout;
    expect(env).toContain(`export KUBECONFIG=${process.env.KUBECONFIG}`);
    expect(env).toContain(`export KUBE_AUDIT_LOG=${process.env.KUBE_AUDIT_LOG}`);
    expect(script('status').stdout).toMatch(/^running: https:\/\/127\.0\.0\.1:\d+ /);
  });

  it('serves the Kubernetes version it was built as, with RBAC on', () => {
    const version = JSON.parse(kubectl(['get', '--raw', '/version']));
    const pinned = /K8S_VERSION=(v[\d.]+)/.exec(
      fs.readFileSync(path.join(ROOT, 'scripts/controlplane/versions.env'), 'utf8'),
    )![1];
    expect(version.gitVersion).toBe(pinned);
    expect(kubectl(['api-versions'])).toContain('rbac.authorization.k8s.io/v1');
    const canI = spawnSync(
      'kubectl',
      ['auth', 'can-i', 'create', 'configmaps', '--as=system:serviceaccount:default:nobody'],
      {
        encoding: 'utf8',
      },
    );
    expect(canI.stdout.trim()).toBe('no');
  });
});

describeWorkloads("the plane's pods (KWOK's stages)", () => {
  /** A pod whose container `app` runs the image, beside a sidecar of an ordinary image. */
  const createPod = (name: string, image: string) =>
    applyYaml(
      ns(),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: {
          containers: [
            { name: 'app', image },
            { name: 'sidecar', image: 'busybox:1.36' },
          ],
        },
      }),
    );
  type Status = {
    phase?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; ready: boolean; restartCount: number; state: Record<string, unknown> }[];
  };
  const podStatus = (name: string): Status => getJson(['get', 'pod', name, '-n', ns()]).status;
  const ready = (status: Status) => status.conditions?.find((c) => c.type === 'Ready')?.status;
  const container = (status: Status, name: string) => status.containerStatuses?.find((c) => c.name === name);

  beforeAll(async () => {
    // Admission turns pods away until their namespace has its default ServiceAccount.
    await eventually(() => tryGetJson(['get', 'serviceaccount', 'default', '-n', ns()]));
    createPod('plain', 'nginx:1.27');
    createPod('never-ready', NEVER_READY_IMAGE);
    createPod('crash-loop', CRASH_LOOP_IMAGE);
  });

  it('makes a pod of any other image Running and Ready', async () => {
    await eventually(() => ready(podStatus('plain')) === 'True');
    expect(podStatus('plain').phase).toBe('Running');
  });

  it('runs a pod of the never-ready image, never Ready: its container is not ready, the other is', async () => {
    await eventually(() => podStatus('never-ready').phase === 'Running');
    // KWOK readies a pod at once: a while later, this one would be Ready if it ever were to be.
    await sleep(3_000);
    const status = podStatus('never-ready');
    expect(ready(status)).toBe('False');
    expect(container(status, 'app')).toMatchObject({ ready: false, restartCount: 0, state: { running: {} } });
    expect(container(status, 'sidecar')).toMatchObject({ ready: true, restartCount: 0 });
  });

  it("restarts the crash-loop image's container again and again, the pod never Ready", async () => {
    const restarts = () => container(podStatus('crash-loop'), 'app')?.restartCount ?? 0;
    const seen = await eventually(() => restarts() >= 1 && restarts());
    await eventually(() => restarts() > seen);
    const status = podStatus('crash-loop');
    expect(status.phase).toBe('Running');
    expect(ready(status)).toBe('False');
    expect(container(status, 'app')).toMatchObject({
      ready: false,
      state: { waiting: { reason: 'CrashLoopBackOff' } },
    });
    expect(container(status, 'sidecar')).toMatchObject({ ready: true, restartCount: 0 });
  });

  it('deletes the pods of these images as any other', async () => {
    kubectl(['delete', 'pod', 'never-ready', 'crash-loop', '-n', ns(), '--wait=false']);
    await eventually(() => getJson(['get', 'pods', '-n', ns()]).items.length === 1);
    expect(tryGetJson(['get', 'pod', 'plain', '-n', ns()])).not.toBeNull();
  });
});

describe('the bundled plugin', () => {
  const pathWithPlugin = `${path.join(ROOT, 'dist')}${path.delimiter}${process.env.PATH}`;

  it('answers --help as "kubectl webservice" through kubectl\'s plugin mechanism', () => {
    const result = spawnSync('kubectl', ['webservice', '--help'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: pathWithPlugin },
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('kubectl webservice <command>');
    for (const command of ['observe', 'plan', 'apply', 'status', 'finalize']) {
      expect(result.stdout).toContain(`kubectl webservice ${command}`);
    }
  });

  it('prints its version', () => {
    const result = spawnSync('kubectl', ['webservice', '--version'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: pathWithPlugin },
    });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(PACKAGE_VERSION);
  });

  it('runs as a single file, with no node_modules anywhere near it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lone-plugin-'));
    const lone = path.join(dir, 'kubectl-webservice');
    fs.copyFileSync(path.join(ROOT, 'dist/kubectl-webservice'), lone);
    fs.chmodSync(lone, 0o755);
    const result = spawnSync(lone, ['--help'], { encoding: 'utf8', cwd: dir });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('version --client needs no cluster: no kubeconfig, no warning, exit 0', () => {
    const result = plugin(['version', '--client'], { env: { KUBECONFIG: '', HOME: '/nonexistent-home' } });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Plugin Version: .*\nGit Commit: .*\nNode\.js Version: v.*\nPlatform: .*\n$/);
  });

  it('version: the client part, then a one-line warning and exit 1 when no server can be reached', () => {
    const result = plugin(['version', '-o', 'json'], { env: { KUBECONFIG: '', HOME: '/nonexistent-home' } });
    expect(result.status).toBe(1);
    expect(Object.keys(JSON.parse(result.stdout))).toEqual(['clientVersion']);
    expect(result.stderr).toBe(
      'warning: the server is not reachable: no Kubernetes configuration found: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config\n',
    );
  });

  it('refuses to guess a cluster when there is no kubeconfig', () => {
    const result = plugin(['plan', 'x'], { env: { KUBECONFIG: '', HOME: '/nonexistent-home' } });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'error: no Kubernetes configuration found: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config\n',
    );
  });
});

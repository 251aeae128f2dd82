// Credentials never reach output or logs, -v included: static tokens, and tokens handed
// over by an exec credential plugin, on an unreachable server, on a server that refuses
// them, and on a real server where everything works (apply, and run's logs).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ROOT,
  applyYaml,
  eventually,
  getJson,
  kubectl,
  patchWebService,
  plugin,
  tryGetJson,
  webService,
  useNamespace,
  writeKubeconfig,
} from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';

const ns = useNamespace('secrets');
let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'));
  controllerKubeconfig(); // the shipped ServiceAccount and its RBAC, whose tokens we use
  applyYaml(ns(), webService('guarded', { image: 'nginx:1.27' }));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A real token of the controller's ServiceAccount (deploy/10-rbac.yaml). */
const controllerToken = () =>
  kubectl(['create', 'token', 'webservice-controller', '-n', 'webservice-system', '--duration=1h']).trim();
const realCluster = () => getJson(['config', 'view', '--raw', '--minify']).clusters[0].cluster;

const kubeconfig = (name: string, cluster: unknown, user: unknown) =>
  writeKubeconfig(path.join(scratch, `${name}.kubeconfig`), name, cluster, user, ns());

/** An exec credential plugin that hands over `token` (and exits with `code`). */
function execPlugin(name: string, token: string, code = 0): unknown {
  const script = path.join(scratch, `${name}.sh`);
  const credential = JSON.stringify({
    apiVersion: 'client.authentication.k8s.io/v1',
    kind: 'ExecCredential',
    status: { token },
  });
  // A failing plugin also says something on stderr, with the token in it: that must not leak either.
  const complaint = code === 0 ? '' : `echo 'could not refresh ${token}' >&2\n`;
  fs.writeFileSync(script, `#!/bin/sh\ncat <<'CREDENTIAL'\n${credential}\nCREDENTIAL\n${complaint}exit ${code}\n`, {
    mode: 0o755,
  });
  return { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: script, interactiveMode: 'Never' } };
}

/** The parts of a token worth looking for: the whole, and its tail (a JWT's signature). */
function expectNoTrace(text: string, token: string): void {
  expect(text).not.toContain(token);
  expect(text).not.toContain(token.slice(-24));
}

const RECOGNISABLE = 'kws-secret-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

describe('-v never prints a credential', () => {
  it('a static token, on a server that is not there', () => {
    const config = kubeconfig('unreachable', { server: 'https://127.0.0.1:1' }, { token: RECOGNISABLE });
    const result = plugin(['apply', '--all', '-v', '--kubeconfig', config]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: the connection to the server https:\/\/127\.0\.0\.1:1 was refused/);
    expect(result.stderr).toMatch(/\n\s+at /); // -v did print a stack trace: there was something to leak into
    expectNoTrace(result.stdout + result.stderr, RECOGNISABLE);
  });

  it('a static token the server refuses', () => {
    const config = kubeconfig('refused', realCluster(), { token: RECOGNISABLE });
    const result = plugin(['apply', 'guarded', '-v', '--kubeconfig', config]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: you must be logged in to the server \(Unauthorized\)/);
    expectNoTrace(result.stdout + result.stderr, RECOGNISABLE);
  });

  it('a real token, on a pass that works', () => {
    const token = controllerToken();
    const config = kubeconfig('working', realCluster(), { token });
    const result = plugin(['apply', '--all', '-v', '-o', 'yaml', '--kubeconfig', config]);
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/requests: \d+ read, \d+ write/);
    expectNoTrace(result.stdout + result.stderr, token);
  });

  it('a token from an exec credential plugin, on a pass that works', () => {
    const token = controllerToken();
    const config = kubeconfig('exec-working', realCluster(), execPlugin('good', token));
    const result = plugin(['plan', '--all', '-v', '-o', 'json', '--kubeconfig', config]);
    expect(result.status).toBe(0);
    expectNoTrace(result.stdout + result.stderr, token);
  });

  it('an exec credential plugin whose token is refused', () => {
    const config = kubeconfig('exec-refused', realCluster(), execPlugin('refused', RECOGNISABLE));
    const result = plugin(['plan', 'guarded', '-v', '--kubeconfig', config]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: you must be logged in to the server \(Unauthorized\)/);
    expectNoTrace(result.stdout + result.stderr, RECOGNISABLE);
  });

  it("an oidc auth provider's id-token (read through client-node's lazily loaded JWT decoding), refused", () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const idToken = `${part({ alg: 'RS256' })}.${part({ sub: RECOGNISABLE, exp: Math.floor(Date.now() / 1000) + 3600 })}.${RECOGNISABLE}`;
    const config = kubeconfig('oidc', realCluster(), {
      'auth-provider': { name: 'oidc', config: { 'id-token': idToken, 'client-id': 'kws' } },
    });
    const result = plugin(['plan', 'guarded', '-v', '--kubeconfig', config]);
    expect(result.status).toBe(1);
    // Sent and refused (this apiserver trusts no OIDC issuer), not lost on the way.
    expect(result.stderr).toMatch(/^error: you must be logged in to the server \(Unauthorized\)/);
    expectNoTrace(result.stdout + result.stderr, idToken);
  });

  it('an exec credential plugin that fails after printing a credential, and the credential on stderr', () => {
    const config = kubeconfig('exec-failing', realCluster(), execPlugin('failing', RECOGNISABLE, 3));
    const result = plugin(['plan', 'guarded', '-v', '--kubeconfig', config]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^error: getting credentials from the exec plugin ".*failing\.sh" failed; run it by hand to see why\n/,
    );
    expectNoTrace(result.stdout + result.stderr, RECOGNISABLE);
  });
});

describe("run's logs never carry a credential, -v included", () => {
  let ctl: ControllerProcess | undefined;
  afterAll(async () => ctl?.stop());

  it('with a token from an exec credential plugin, through a create, an update and a delete', async () => {
    const token = controllerToken();
    const config = kubeconfig('exec-run', realCluster(), execPlugin('run', token));
    ctl = new ControllerProcess(['-n', ns(), '--kubeconfig', config, '-v']);
    await ctl.waitForLog(/controller working/);
    const ready = () =>
      tryGetJson(['get', 'webservice', 'guarded', '-n', ns()])?.status?.conditions?.[0]?.status === 'True';
    await eventually(ready);
    patchWebService(ns(), 'guarded', { spec: { image: 'nginx:1.28' } });
    await eventually(
      () => tryGetJson(['get', 'configmap', 'guarded-desired', '-n', ns()])?.data?.image === 'nginx:1.28',
    );
    kubectl(['delete', 'webservice', 'guarded', '-n', ns(), '--wait=false']);
    await eventually(() => tryGetJson(['get', 'webservice', 'guarded', '-n', ns()]) === null);
    await ctl.stop();
    expect(ctl.entries.filter((e) => e.level === 'debug').length).toBeGreaterThan(0); // -v was on
    expect(ctl.entries.filter((e) => e.msg === 'reconciled').length).toBeGreaterThanOrEqual(3);
    expectNoTrace(ctl.stderr, token);
  });
});

const localPlane = process.env.USE_EXISTING_CLUSTER === 'true' ? describe.skip : describe;

localPlane("the scripts read the control plane's settings as data, without eval", () => {
  it('control-plane.sh vars prints plain NAME=value lines', () => {
    const result = spawnSync('bash', [path.join(ROOT, 'scripts/control-plane.sh'), 'vars'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toEqual([
      `KUBECONFIG=${process.env.KUBECONFIG}`,
      `KUBE_AUDIT_LOG=${process.env.KUBE_AUDIT_LOG}`,
      expect.stringMatching(/^KUBECTL_DIR=\/.+/),
      // Where the build keeps the Gateway API's CRDs, for the tests that install them.
      expect.stringMatching(/^GATEWAY_API_CRDS=\/.+/),
    ]);
  });

  it('use_cluster (demo, bench) exports them from those lines', () => {
    const script = path.join(scratch, 'use-cluster.sh');
    fs.writeFileSync(
      script,
      [
        'set -euo pipefail',
        `source ${JSON.stringify(path.join(ROOT, 'scripts/lib/cluster.sh'))}`,
        `use_cluster ${JSON.stringify(ROOT)} >/dev/null 2>&1`,
        'printf "%s\\n" "${KUBECONFIG}" "${KUBE_AUDIT_LOG}" "$(command -v kubectl)"',
      ].join('\n'),
    );
    const result = spawnSync('bash', [script], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const [kubeconfigPath, auditLog, kubectlPath] = result.stdout.trim().split('\n');
    expect(kubeconfigPath).toBe(process.env.KUBECONFIG);
    expect(auditLog).toBe(process.env.KUBE_AUDIT_LOG);
    expect(kubectlPath).toMatch(/\/kubectl$/);
  });
});

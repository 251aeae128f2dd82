// Test helpers that drive the bundled plugin and kubectl as a user would, and read
// the control plane's audit log to count requests. Nothing here mocks the API server.
// Child processes are in process.ts and the audit log in audit.ts; both are exported
// from here too.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { API_VERSION, KIND, RESOURCE } from '../../src/core/model';
import { Background, run, type RunResult } from './process';

export { AuditReader, AuditWindow, MUTATING, describeEvent, fromPlugin, type AuditEvent } from './audit';
export { Background, run, type RunResult } from './process';
export { eventually, sleep } from './wait';

export const ROOT = path.resolve(__dirname, '../..');
export const PLUGIN = path.join(ROOT, 'dist/kubectl-webservice');
/** package.json's version: the one the bundle reports. */
export const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** Runs the bundled plugin the way kubectl would: a child process. */
export function plugin(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): RunResult {
  return run(PLUGIN, args, options);
}

/** The bundled plugin running in the background (status -w, run, an apply to interrupt). */
export function backgroundPlugin(args: string[], env: NodeJS.ProcessEnv = {}): Background {
  return new Background(PLUGIN, args, { env });
}

/** Runs kubectl and throws on failure, with its stderr. */
export function kubectl(args: string[], input?: string): string {
  const result = run('kubectl', args, { input });
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * kubectl wait for CRDs' Established condition. A CRD read before the API server has given it
 * any condition makes kubectl wait fail at once ("<nil> is of the type <nil>"), rather than
 * wait: until it has some, it is asked again.
 */
export function waitEstablished(...names: string[]): void {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = run('kubectl', [
      'wait',
      '--for',
      'condition=Established',
      '--timeout=60s',
      ...names.map((name) => `crd/${name}`),
    ]);
    if (result.status === 0) return;
    if (!/accessor error/.test(result.stderr) || Date.now() > deadline) {
      throw new Error(`kubectl wait for ${names.join(', ')} failed: ${result.stderr}`);
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
  }
}

/** The HPA controller's field manager: it writes a Deployment's replicas by an update of /scale. */
export const AUTOSCALER_MANAGER = 'kube-controller-manager';

/** Writes a Deployment's replicas the way the HPA controller does: an update of its /scale. */
export function scaleAsAutoscaler(namespace: string, name: string, replicas: number): RunResult {
  return run('kubectl', [
    'patch',
    'deployment',
    name,
    '-n',
    namespace,
    '--subresource=scale',
    '--type=merge',
    `--field-manager=${AUTOSCALER_MANAGER}`,
    '-p',
    JSON.stringify({ spec: { replicas } }),
  ]);
}

export function getJson<T = any>(args: string[]): T {
  return JSON.parse(kubectl([...args, '-o', 'json'])) as T;
}

export function tryGetJson<T = any>(args: string[]): T | null {
  const result = run('kubectl', [...args, '-o', 'json']);
  if (result.status !== 0) {
    if (/NotFound|not found/.test(result.stderr)) return null;
    throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

/**
 * describe for tests that need a plane that runs pods (WEBSERVICE_CP_WORKLOADS=true, the
 * default of npm test); elsewhere they are skipped, and the title says why.
 */
export function describeWorkloads(title: string, tests: () => void): void {
  if (process.env.WEBSERVICE_CP_WORKLOADS === 'true') describe(title, tests);
  else
    describe.skip(`${title} (skipped: needs a control plane that runs pods; set WEBSERVICE_CP_WORKLOADS=true)`, tests);
}

/** A fresh namespace for one test file, deleted (without waiting) afterwards. */
export function createNamespace(prefix: string): string {
  const name = `${prefix}-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
  kubectl(['create', 'namespace', name]);
  return name;
}

/** Deletes a test namespace; finalize lets go of the WebServices our finalizer holds. */
export function deleteNamespace(name: string): void {
  run('kubectl', ['delete', 'namespace', name, '--wait=false']);
  run(PLUGIN, ['finalize', '--all', '-n', name, '-o', 'json']);
}

/**
 * A fresh namespace for the enclosing describe (or the whole file, called at the top): made
 * in beforeAll, deleted in afterAll, after `beforeDelete` if given. Returns a function that
 * gives its name, from beforeAll on.
 */
export function useNamespace(
  prefix: string,
  options: { beforeDelete?: () => void | Promise<void> } = {},
): () => string {
  let name: string | undefined;
  beforeAll(() => {
    name = createNamespace(prefix);
  });
  afterAll(async () => {
    if (name === undefined) return;
    const made = name;
    try {
      await options.beforeDelete?.();
    } finally {
      deleteNamespace(made);
    }
  });
  return () => {
    if (name === undefined) throw new Error(`useNamespace('${prefix}'): the namespace exists only from beforeAll on`);
    return name;
  };
}

/** Creates WebServices with one `kubectl create` of a List per 250 (one POST each, no GETs). */
export function createWebServices(
  namespace: string,
  names: string[],
  spec: (name: string) => Record<string, unknown> = () => ({ image: 'nginx:1.27' }),
): void {
  for (let i = 0; i < names.length; i += 250) {
    const items = names.slice(i, i + 250).map((name) => ({
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name, namespace },
      spec: spec(name),
    }));
    kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  }
}

/** `prefix-000`, `prefix-001`, …: count names that sort in the order they were made. */
export const numbered = (prefix: string, count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(from + i).padStart(3, '0')}`);

export function applyYaml(namespace: string, yaml: string): void {
  kubectl(['apply', '-n', namespace, '-f', '-'], yaml);
}

/** `kubectl patch webservice`: a merge patch, or a JSON patch when given a list of operations. */
export function patchWebService(namespace: string, name: string, patch: object, args: string[] = []): string {
  const type = Array.isArray(patch) ? 'json' : 'merge';
  return kubectl([
    'patch',
    'webservice',
    name,
    '-n',
    namespace,
    ...args,
    `--type=${type}`,
    '-p',
    JSON.stringify(patch),
  ]);
}

export function webService(name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ apiVersion: API_VERSION, kind: KIND, metadata: { name, ...extra }, spec });
}

/** A kubeconfig for a new ServiceAccount bound in `namespace` (TokenRequest API token). */
export function serviceAccountKubeconfig(namespace: string, name: string, binding: string[]): string {
  kubectl(['create', 'serviceaccount', name, '-n', namespace]);
  kubectl(['create', 'rolebinding', name, '-n', namespace, ...binding, `--serviceaccount=${namespace}:${name}`]);
  return tokenKubeconfig(namespace, name);
}

/** A kubeconfig that authenticates as an existing ServiceAccount, with a fresh token. */
export function tokenKubeconfig(namespace: string, name: string, tokenArgs: string[] = []): string {
  const token = kubectl(['create', 'token', name, '-n', namespace, '--duration=2h', ...tokenArgs]).trim();
  const cluster = getJson(['config', 'view', '--raw', '--minify']).clusters[0].cluster;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`)), 'config');
  return writeKubeconfig(file, name, cluster, { token }, namespace);
}

/** Writes a kubeconfig whose one context, `name`, is `user` on `cluster` in `namespace`. */
export function writeKubeconfig(
  file: string,
  name: string,
  cluster: unknown,
  user: unknown,
  namespace: string,
): string {
  fs.writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name, user }],
      contexts: [{ name, context: { cluster: 'c', user: name, namespace } }],
      'current-context': name,
    }),
  );
  return file;
}

export const CRD = RESOURCE;
export const CRD_REF = `customresourcedefinition.apiextensions.k8s.io/${CRD}`;

/** Installs the CRD again if a test left it missing or changed, and waits until it serves. */
export function restoreCrd(): void {
  const result = plugin(['install']);
  if (result.status !== 0) throw new Error(`install failed: ${result.stderr}`);
  waitEstablished(CRD);
}

/** The CRD as the apiserver has it. */
export const crd = () => getJson(['get', 'crd', CRD]);

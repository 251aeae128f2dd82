// Test helpers that drive the bundled plugin and kubectl as a user would, and read
// the control plane's audit log to count requests. Nothing here mocks the API server.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const PLUGIN = path.join(ROOT, 'dist/kubectl-webservice');
/** package.json's version: the one the bundle reports. */
export const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], input?: string, env: NodeJS.ProcessEnv = {}): RunResult {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    input,
    env: { ...process.env, NO_COLOR: '1', ...env },
    timeout: 120_000,
  });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the bundled plugin the way kubectl would: a child process. */
export function plugin(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): RunResult {
  return run(PLUGIN, args, options.input, options.env);
}

/** Runs kubectl and throws on failure, with its stderr. */
export function kubectl(args: string[], input?: string): string {
  const result = run('kubectl', args, input);
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
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

export function applyYaml(namespace: string, yaml: string): void {
  kubectl(['apply', '-n', namespace, '-f', '-'], yaml);
}

export function webService(name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ apiVersion: 'apps.labhub.io/v1', kind: 'WebService', metadata: { name, ...extra }, spec });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function eventually<T>(check: () => T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs}ms`);
    await sleep(250);
  }
}

export interface AuditEvent {
  verb: string;
  user: { username: string };
  userAgent?: string;
  stage: string;
  auditID: string;
  requestURI?: string;
  objectRef?: { apiGroup?: string; resource?: string; namespace?: string; name?: string; subresource?: string };
  responseStatus?: { code?: number };
}

export const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * A window on the audit log: call mark() before an action, then events() after it.
 * The log is written by the apiserver asynchronously to our client, so events()
 * first makes a marker request and waits until that request appears.
 */
export class AuditWindow {
  private offset = 0;

  constructor(private readonly namespace: string) {}

  static available(): boolean {
    return Boolean(process.env.KUBE_AUDIT_LOG && fs.existsSync(process.env.KUBE_AUDIT_LOG));
  }

  mark(): void {
    this.offset = fs.statSync(process.env.KUBE_AUDIT_LOG!).size;
  }

  async events(): Promise<AuditEvent[]> {
    // One GET of something that exists, tagged in its query: kubectl makes no follow-up request.
    const marker = `audit-marker-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    const uri = `/api/v1/namespaces/${this.namespace}?${marker}=1`;
    const result = run('kubectl', ['get', '--raw', uri]);
    if (result.status !== 0) throw new Error(`audit marker request failed: ${result.stderr}`);
    const all = await eventually(() => {
      const events = this.read();
      return events.some((e) => e.requestURI?.includes(marker)) ? events : null;
    });
    return all.filter((e) => !e.requestURI?.includes(marker) && e.objectRef?.namespace === this.namespace);
  }

  /** Every event since mark(), in any namespace or none (cluster-scoped requests too). */
  async all(): Promise<AuditEvent[]> {
    await this.events();
    return this.read().filter((e) => !e.requestURI?.includes('audit-marker-'));
  }

  /** Every request the plugin made since mark(), cluster-scoped ones included. */
  async pluginRequests(): Promise<AuditEvent[]> {
    return (await this.all()).filter(fromPlugin);
  }

  async mutating(): Promise<AuditEvent[]> {
    return (await this.events()).filter((e) => MUTATING.has(e.verb));
  }

  private read(): AuditEvent[] {
    const fd = fs.openSync(process.env.KUBE_AUDIT_LOG!, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buffer = Buffer.alloc(size - this.offset);
      fs.readSync(fd, buffer, 0, buffer.length, this.offset);
      return buffer
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as AuditEvent)
        .filter((e) => e.stage === 'ResponseComplete');
    } finally {
      fs.closeSync(fd);
    }
  }
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
  fs.writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name, user: { token } }],
      contexts: [{ name, context: { cluster: 'c', user: name, namespace } }],
      'current-context': name,
    }),
  );
  return file;
}

export const CRD = 'webservices.apps.labhub.io';
export const CRD_REF = `customresourcedefinition.apiextensions.k8s.io/${CRD}`;

/** Installs the CRD again if a test left it missing or changed, and waits until it serves. */
export function restoreCrd(): void {
  const result = plugin(['install']);
  if (result.status !== 0) throw new Error(`install failed: ${result.stderr}`);
  kubectl(['wait', '--for', 'condition=Established', '--timeout=60s', `crd/${CRD}`]);
}

/** The CRD as the apiserver has it. */
export const crd = () => getJson(['get', 'crd', CRD]);

/** An audit event of a request the plugin made. */
export const fromPlugin = (e: Pick<AuditEvent, 'userAgent'>) => e.userAgent?.startsWith('kubectl-webservice/') === true;

/** `verb resource/name`, for messages about audit events. */
export const describeEvent = (e: AuditEvent) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name ?? ''}`;

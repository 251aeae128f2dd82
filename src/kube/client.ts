// The one module that talks to the API server. Everything else sees plain JSON
// objects and the typed errors in ./errors; client-node stays behind this file.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  V1ConfigMap,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { USER_AGENT } from '../version';
import { ConfigMap, GROUP, PLURAL, RESOURCE, VERSION, WebService, WebServiceStatus } from '../core/model';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  KubeError,
  NotFoundError,
  UnreachableError,
  UserError,
} from './errors';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
const DEFAULT_TIMEOUT_MS = 30_000;

export interface ConnectOptions {
  kubeconfig?: string;
  context?: string;
  requestTimeoutMs?: number;
}

export interface Connection {
  kubeConfig: KubeConfig;
  context: string;
  server: string;
  /** The namespace of the current context, or "default". */
  namespace: string;
}

/**
 * Loads credentials the way kubectl does: --kubeconfig, else every file in
 * KUBECONFIG (merged, first current-context wins), else ~/.kube/config, else
 * in-cluster. Unlike client-node's loadFromDefault it never falls back to
 * localhost:8080: no configuration is an error.
 */
export function loadConnection(options: ConnectOptions): Connection {
  const kc = new KubeConfig();
  const explicit = options.kubeconfig;
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new UserError(`stat ${explicit}: no such file or directory`);
    loadFile(kc, explicit);
  } else if (process.env.KUBECONFIG) {
    const files = process.env.KUBECONFIG.split(path.delimiter).filter((f) => f && fs.existsSync(f));
    if (files.length === 0) {
      throw new UserError(`none of the files in KUBECONFIG exist (${process.env.KUBECONFIG})`);
    }
    loadFile(kc, files[0]);
    for (const file of files.slice(1)) {
      const next = new KubeConfig();
      loadFile(next, file);
      kc.mergeConfig(next, true);
    }
  } else if (fs.existsSync(path.join(os.homedir(), '.kube', 'config'))) {
    loadFile(kc, path.join(os.homedir(), '.kube', 'config'));
  } else if (process.env.KUBERNETES_SERVICE_HOST && fs.existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc.loadFromCluster();
  } else {
    throw new UserError(
      'no Kubernetes configuration found: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config',
    );
  }

  if (options.context) {
    if (!kc.getContextObject(options.context)) {
      throw new UserError(`context "${options.context}" does not exist in the kubeconfig`);
    }
    kc.setCurrentContext(options.context);
  }
  const context = kc.getCurrentContext();
  const cluster = kc.getCurrentCluster();
  if (!context || !cluster) {
    throw new UserError('the kubeconfig has no current context: pass --context or run "kubectl config use-context"');
  }
  const namespace = kc.getContextObject(context)?.namespace || 'default';
  return { kubeConfig: kc, context, server: cluster.server, namespace };
}

function loadFile(kc: KubeConfig, file: string): void {
  try {
    kc.loadFromFile(file);
  } catch (err) {
    throw new UserError(`cannot load kubeconfig ${file}: ${(err as Error).message}`);
  }
}

/** Counts requests by verb; `apply -v` prints it, and it shows a converged pass writes nothing. */
export interface RequestCounter {
  reads: number;
  writes: number;
}

export class KubeClient {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly timeoutMs: number;
  readonly requests: RequestCounter = { reads: 0, writes: 0 };

  constructor(
    readonly connection: Connection,
    options: ConnectOptions = {},
  ) {
    this.core = connection.kubeConfig.makeApiClient(CoreV1Api);
    this.custom = connection.kubeConfig.makeApiClient(CustomObjectsApi);
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  static connect(options: ConnectOptions): KubeClient {
    return new KubeClient(loadConnection(options), options);
  }

  getWebService(namespace: string, name: string): Promise<WebService> {
    return this.read(`${RESOURCE} "${name}"`, () =>
      this.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL, name }, identify()),
    );
  }

  /** All WebServices in a namespace, or in every namespace when namespace is null. */
  async listWebServices(namespace: string | null): Promise<WebService[]> {
    const list = await this.read<{ items: WebService[] }>(RESOURCE, () =>
      namespace === null
        ? this.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }, identify())
        : this.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL }, identify()),
    );
    return list.items ?? [];
  }

  async listConfigMaps(namespace: string | null): Promise<ConfigMap[]> {
    const list = await this.read('configmaps', () =>
      namespace === null
        ? this.core.listConfigMapForAllNamespaces({}, identify())
        : this.core.listNamespacedConfigMap({ namespace }, identify()),
    );
    return list.items.map(plainConfigMap);
  }

  async createConfigMap(namespace: string, object: ConfigMap): Promise<ConfigMap> {
    const created = await this.write(`configmaps "${object.metadata.name}"`, () =>
      this.core.createNamespacedConfigMap({ namespace, body: object as V1ConfigMap }, identify()),
    );
    return plainConfigMap(created);
  }

  async patchConfigMap(namespace: string, name: string, patch: object): Promise<ConfigMap> {
    const patched = await this.write(`configmaps "${name}"`, () =>
      this.core.patchNamespacedConfigMap({ namespace, name, body: patch }, mergePatch()),
    );
    return plainConfigMap(patched);
  }

  /** Deletes with a uid precondition, so a same-named replacement is never hit. Not found is fine. */
  async deleteConfigMap(namespace: string, name: string, uid?: string): Promise<boolean> {
    try {
      await this.write(`configmaps "${name}"`, () =>
        this.core.deleteNamespacedConfigMap(
          { namespace, name, body: uid ? { preconditions: { uid } } : {} },
          identify(),
        ),
      );
      return true;
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }

  patchWebService(namespace: string, name: string, patch: object): Promise<WebService> {
    return this.write(`${RESOURCE} "${name}"`, () =>
      this.custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: patch },
        mergePatch(),
      ),
    );
  }

  patchWebServiceStatus(namespace: string, name: string, patch: { status: WebServiceStatus }): Promise<WebService> {
    return this.write(`${RESOURCE} "${name}"`, () =>
      this.custom.patchNamespacedCustomObjectStatus(
        { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: patch },
        mergePatch(),
      ),
    );
  }

  private read<T>(what: string, call: () => Promise<T>): Promise<T> {
    this.requests.reads++;
    return this.run(what, call);
  }

  private write<T>(what: string, call: () => Promise<T>): Promise<T> {
    this.requests.writes++;
    return this.run(what, call);
  }

  private async run<T>(what: string, call: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new UnreachableError(`${this.connection.server}: no answer within ${this.timeoutMs / 1000}s`, true)),
        this.timeoutMs,
      );
      timer.unref();
    });
    try {
      return await Promise.race([call(), timeout]);
    } catch (err) {
      throw mapError(err, what, this.connection.server);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Every request names the plugin, as kubectl does, so audit logs can tell who wrote. */
function identify() {
  return setHeaderOptions('User-Agent', USER_AGENT);
}

function mergePatch() {
  return setHeaderOptions('Content-Type', PatchStrategy.MergePatch, identify());
}

/** client-node turns core objects into classes with Date fields; we hand out plain JSON. */
function plainConfigMap(cm: V1ConfigMap): ConfigMap {
  return JSON.parse(JSON.stringify(cm)) as ConfigMap;
}

interface StatusBody {
  message?: string;
  reason?: string;
  details?: { causes?: { message?: string; field?: string }[] };
}

function mapError(err: unknown, what: string, server: string): Error {
  if (err instanceof KubeError || err instanceof UserError) return err;
  if (err instanceof ApiException) {
    const body = parseBody(err.body);
    const message = body.message || `${what}: HTTP ${err.code}`;
    switch (err.code) {
      case 404:
        return new NotFoundError(body.message || `${what} not found`);
      case 409:
        return new ConflictError(message, body.reason === 'AlreadyExists');
      case 401:
        return new ForbiddenError(body.message || `the server has asked for the client to provide credentials (${what})`, 401);
      case 403:
        return new ForbiddenError(message);
      case 400:
      case 422:
        return new InvalidError(message, err.code);
      default:
        return new KubeError('Server', message, err.code);
    }
  }
  const code = (err as { code?: string })?.code;
  const detail = (err as Error)?.message ?? String(err);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === 'ECONNRESET' || code === 'ETIMEDOUT') {
    return new UnreachableError(`the connection to the server ${server} was refused or failed (${code}): is the cluster running?`);
  }
  if ((err as Error)?.name === 'FetchError') return new UnreachableError(`cannot reach ${server}: ${detail}`);
  return err instanceof Error ? err : new Error(detail);
}

function parseBody(body: unknown): StatusBody {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return { message: body.trim() || undefined };
    }
  }
  return (body as StatusBody) ?? {};
}

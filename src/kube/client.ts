// The one module that talks to the API server. Everything else sees plain JSON
// objects and the typed errors in ./errors; client-node stays behind this file.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { ResourceType, resourceName } from '../core/kinds';
import type { ObjectMeta } from '../core/model';
import { UserError, ignoreNotFound, orNull } from './errors';
import { Request, Transport, WatchEvent, WatchOptions } from './transport';
import { abortOn } from './abort-signal';
import { dryRun } from './dry-run';
import type { ApiRequest, Interceptor, Send } from './send';
import { resourcePath, whatOf } from './object-location';
import type {
  AccessReview,
  ApplyRequest,
  DeleteRequest,
  ListRequest,
  ResourceClient,
  WatchRequest,
  WriteOptions,
  CheckApi,
  DryRun,
  InstallApi,
  LeaseApi,
  ListOptions,
  ObjectList,
  ResourceAttributes,
  ServerVersion,
} from './api';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
const DEFAULT_TIMEOUT_MS = 30_000;

export interface ConnectOptions {
  kubeconfig?: string;
  context?: string;
  requestTimeoutMs?: number;
  /** client: refuse every write; server: send every write with dryRun=All. */
  dryRun?: DryRun;
  /** kubectl's --server: the API server to talk to, instead of the context's cluster's. */
  server?: string;
  /** kubectl's --token: a bearer token, instead of the context's user's credentials. */
  token?: string;
  /** kubectl's --as and --as-group: act as this user, in these groups (impersonation). */
  asUser?: string;
  asGroups?: string[];
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
function loadConnection(options: ConnectOptions): Connection {
  const kc = new KubeConfig();
  const explicit = options.kubeconfig;
  if (explicit) {
    if (!existsSync(explicit)) throw new UserError(`stat ${explicit}: no such file or directory`);
    loadFile(kc, explicit);
  } else if (process.env.KUBECONFIG) {
    const files = process.env.KUBECONFIG.split(delimiter).filter((f) => f && existsSync(f));
    if (files.length === 0) {
      throw new UserError(`none of the files in KUBECONFIG exist (${process.env.KUBECONFIG})`);
    }
    loadFile(kc, files[0]);
    for (const file of files.slice(1)) {
      const next = new KubeConfig();
      loadFile(next, file);
      kc.mergeConfig(next, true);
    }
  } else if (existsSync(join(homedir(), '.kube', 'config'))) {
    loadFile(kc, join(homedir(), '.kube', 'config'));
  } else if (process.env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN)) {
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
  overrideCredentials(kc, options);
  if (options.asGroups?.length && !options.asUser) {
    throw new UserError('--as-group needs --as: a group is impersonated along with a user');
  }
  return { kubeConfig: kc, context, server: options.server ?? cluster.server, namespace };
}

/** --server, --token and --as, which override the context's cluster and user as in kubectl. */
function overrideCredentials(kc: KubeConfig, options: ConnectOptions): void {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (options.server !== undefined && cluster) {
    if (!/^https?:\/\//.test(options.server)) {
      throw new UserError(`--server must be a URL such as https://host:6443, got "${options.server}"`);
    }
    kc.clusters = kc.clusters.map((c) => (c === cluster ? { ...c, server: options.server! } : c));
  }
  if ((options.token !== undefined || options.asUser !== undefined) && user) {
    const changed = {
      ...user,
      // A token given on the command line is the only credential sent, as with kubectl.
      ...(options.token !== undefined
        ? { token: options.token, exec: undefined, authProvider: undefined, username: undefined, password: undefined }
        : {}),
      ...(options.asUser !== undefined ? { impersonateUser: options.asUser } : {}),
    };
    kc.users = kc.users.map((u) => (u === user ? changed : u));
  }
}

function loadFile(kc: KubeConfig, file: string): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(
      `cannot read kubeconfig ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  // client-node reads an empty file as "undefined": say what is actually wrong.
  if (text.trim() === '') throw new UserError(`cannot load kubeconfig ${file}: the file is empty`);
  try {
    kc.loadFromFile(file);
  } catch (err) {
    // The YAML parser appends an excerpt of the file on further lines; the first line says it.
    throw new UserError(`cannot load kubeconfig ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Counts requests by verb; `-v` prints it, and it shows a converged pass writes nothing. */
export interface RequestCounter {
  reads: number;
  writes: number;
}

const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
/** A watch's events as PartialObjectMetadata: the objects' metadata, never their data. */
const METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
const MERGE_PATCH = 'application/merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';
export class KubeClient implements ResourceClient, InstallApi, CheckApi, LeaseApi {
  readonly requests: RequestCounter = { reads: 0, writes: 0 };
  readonly transport: Transport;
  /** Fixed for the client's life, so no write can slip out before a command sets it. */
  readonly dryRun: DryRun;
  /** How this client's requests go out: the transport, through the interceptors added (intercept). */
  private send: Send;
  /** Set on a client made by withSignal: a wait between its requests ends when it aborts. */
  readonly signal?: AbortSignal;
  /** apiServed's answers by resource, for this client's life (shared with its withSignal copies). */
  private readonly served = new Map<string, Promise<boolean>>();

  constructor(
    readonly connection: Connection,
    options: ConnectOptions = {},
  ) {
    this.transport = new Transport(
      connection.kubeConfig,
      connection.server,
      options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      options.asGroups,
    );
    this.dryRun = options.dryRun ?? 'none';
    this.send = <T>(req: ApiRequest): Promise<T> => {
      if (req.verb === 'read') this.requests.reads++;
      else this.requests.writes++;
      return this.transport.request<T>(req);
    };
  }

  /** A client of the configured cluster; a dry run's writes go through its interceptor (dry-run.ts). */
  static connect(options: ConnectOptions): KubeClient {
    const client = new KubeClient(loadConnection(options), options);
    return client.dryRun === 'none' ? client : client.intercept(dryRun(client.dryRun));
  }

  /**
   * This client with interceptor around every request it sends (a write guard, a signal): a
   * copy made once, which shares everything else (transport, counters) with this client.
   */
  intercept(interceptor: Interceptor): KubeClient {
    const copy = Object.create(this) as KubeClient;
    copy.send = interceptor(this.send);
    return copy;
  }

  close(): void {
    this.transport.close();
  }

  /**
   * This client, with every read and write sent through the copy aborted once signal
   * aborts, and refused unsent after it: a reconcile past its deadline writes nothing more.
   * The copy shares everything else (transport, write guard, counters) with this client.
   */
  withSignal(signal: AbortSignal): KubeClient {
    return Object.assign(this.intercept(abortOn(signal)), { signal });
  }

  // --- the generic verbs, over any type of the registry --------------------------------

  async get<T extends object>(type: ResourceType, namespace: string | null, name: string): Promise<T> {
    const object = await this.send<T>({
      verb: 'read',
      resource: type.resource,
      method: 'GET',
      path: resourcePath(type, namespace, name),
      what: whatOf(type, name),
    });
    return stamp(type, object);
  }

  async list<T extends object>(
    type: ResourceType,
    namespace: string | null,
    options: ListRequest = {},
  ): Promise<ObjectList<T>> {
    const { metadataOnly, ...query } = options;
    // Without the items' managedFields: nothing reads them, and they are half the bytes.
    const list = await this.send<{ items?: T[]; metadata?: { resourceVersion?: string } }>({
      verb: 'read',
      resource: type.resource,
      method: 'GET',
      path: resourcePath(type, namespace),
      query,
      ...(metadataOnly ? { accept: METADATA_LIST } : {}),
      what: resourceName(type),
      dropManagedFields: true,
    });
    const items = list.items ?? [];
    if (!metadataOnly) for (const item of items) stamp(type, item);
    return { items, resourceVersion: list.metadata?.resourceVersion ?? '' };
  }

  watch<T extends object>(
    type: ResourceType,
    namespace: string | null,
    request: WatchRequest,
    onEvent: (event: WatchEvent<T>) => void,
    options: WatchOptions,
  ): Promise<void> {
    const { resourceVersion, timeoutSeconds, metadataOnly, ...listOptions } = request;
    // Like a LIST's items, a watch event's object may carry no kind: the core needs it.
    const stamped = metadataOnly
      ? onEvent
      : (event: WatchEvent<T>) => {
          if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED')
            stamp(type, event.object);
          onEvent(event);
        };
    return this.openWatch(
      resourcePath(type, namespace),
      resourceName(type),
      resourceVersion,
      timeoutSeconds,
      listOptions,
      stamped,
      options,
      metadataOnly ? METADATA : undefined,
    );
  }

  async create<T extends { metadata: { name?: string } }>(
    type: ResourceType,
    namespace: string | null,
    object: T,
    options: WriteOptions = {},
  ): Promise<T> {
    const created = await this.send<T>({
      verb: 'create',
      resource: type.resource,
      method: 'POST',
      path: resourcePath(type, namespace),
      query: writeQuery(options),
      body: withTypeMeta(type, object),
      what: object.metadata.name === undefined ? resourceName(type) : whatOf(type, object.metadata.name),
      dropManagedFields: !options.keepManagedFields,
    });
    return stamp(type, created);
  }

  async patch<T extends object>(
    type: ResourceType,
    namespace: string | null,
    name: string,
    patch: object,
    options: WriteOptions = {},
  ): Promise<T> {
    const patched = await this.send<T>({
      verb: 'patch',
      resource: type.resource,
      method: 'PATCH',
      path: resourcePath(type, namespace, name),
      query: writeQuery(options),
      body: patch,
      contentType: MERGE_PATCH,
      what: whatOf(type, name),
      dropManagedFields: !options.keepManagedFields,
    });
    return stamp(type, patched);
  }

  async patchStatus<T extends object>(
    type: ResourceType,
    namespace: string | null,
    name: string,
    patch: object,
  ): Promise<T> {
    const patched = await this.send<T>({
      verb: 'patch',
      resource: `${type.resource}/status`,
      dropManagedFields: true,
      method: 'PATCH',
      path: resourcePath(type, namespace, name, 'status'),
      body: patch,
      contentType: MERGE_PATCH,
      what: whatOf(type, name),
    });
    return stamp(type, patched);
  }

  async apply<T extends { metadata: ObjectMeta }>(
    type: ResourceType,
    namespace: string | null,
    object: T,
    options: ApplyRequest,
  ): Promise<T> {
    const applied = await this.send<T>({
      verb: 'patch',
      resource: type.resource,
      method: 'PATCH',
      path: resourcePath(type, namespace, object.metadata.name),
      query: { ...writeQuery(options), force: options.force || undefined },
      body: withTypeMeta(type, object),
      contentType: APPLY_PATCH,
      what: whatOf(type, object.metadata.name),
      dropManagedFields: !options.keepManagedFields,
    });
    return stamp(type, applied);
  }

  async update<T extends { metadata: ObjectMeta }>(
    type: ResourceType,
    namespace: string | null,
    object: T,
  ): Promise<T> {
    const updated = await this.send<T>({
      verb: 'update',
      resource: type.resource,
      dropManagedFields: true,
      method: 'PUT',
      path: resourcePath(type, namespace, object.metadata.name),
      body: withTypeMeta(type, object),
      what: whatOf(type, object.metadata.name),
    });
    return stamp(type, updated);
  }

  delete(type: ResourceType, namespace: string | null, name: string, options: DeleteRequest = {}): Promise<boolean> {
    const deleted = this.send({
      verb: 'delete',
      resource: type.resource,
      dropManagedFields: true,
      method: 'DELETE',
      path: resourcePath(type, namespace, name),
      body: {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        propagationPolicy: options.propagationPolicy ?? 'Background',
        ...(options.uid ? { preconditions: { uid: options.uid } } : {}),
        ...(options.dryRun ? { dryRun: ['All'] } : {}),
      },
      what: whatOf(type, name),
    });
    return ignoreNotFound(
      deleted.then(() => true),
      false,
    );
  }

  /** The API server's version (GET /version, which every client may read). */
  serverVersion(): Promise<ServerVersion> {
    return this.send({
      verb: 'read',
      resource: 'version',
      method: 'GET',
      path: '/version',
      what: 'the server version',
    });
  }

  /** The resources a group/version serves (discovery, readable by every user), or null if it is not served. */
  async servedResources(groupVersion: string): Promise<string[] | null> {
    const list = await orNull(
      this.send<{ resources?: { name: string }[] }>({
        verb: 'read',
        resource: 'discovery',
        method: 'GET',
        path: `/apis/${groupVersion}`,
        what: `the API ${groupVersion}`,
      }),
    );
    return list === null ? null : (list.resources ?? []).map((r) => r.name);
  }

  /**
   * Whether the cluster serves a kind's resource: one GET of its group-version's discovery
   * document (a 404, or a document without the resource: not served). Asked once for this
   * client's life; fresh asks again (a controller waiting for a CRD to be installed).
   */
  apiServed(type: ResourceType, options: { fresh?: boolean } = {}): Promise<boolean> {
    const key = resourceName(type);
    const known = this.served.get(key);
    if (known && !options.fresh) return known;
    const asked = this.servedResources(type.apiVersion).then(
      (resources) => resources?.includes(type.resource) ?? false,
    );
    this.served.set(key, asked);
    // A failed probe (not a 404) says nothing: the next call asks again.
    asked.catch(() => this.served.delete(key));
    return asked;
  }

  /**
   * Asks the authorizer whether the current user may do something (SelfSubjectAccessReview).
   * A POST, but it stores nothing: counted as a read.
   */
  async reviewAccess(attributes: ResourceAttributes): Promise<AccessReview> {
    const review = await this.send<{ status?: AccessReview }>({
      verb: 'read',
      resource: 'selfsubjectaccessreviews',
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: attributes },
      },
      what: 'selfsubjectaccessreviews.authorization.k8s.io',
    });
    return { allowed: false, ...review.status };
  }

  /** Resolves once no write is waiting for its answer, or after timeoutMs at the latest. */
  writesSettled(timeoutMs: number): Promise<void> {
    return this.transport.gatedSettled(timeoutMs);
  }

  private openWatch<T>(
    path: string,
    what: string,
    resourceVersion: string,
    timeoutSeconds: number,
    listOptions: ListOptions,
    onEvent: (event: WatchEvent<T>) => void,
    options: WatchOptions,
    accept?: string,
  ): Promise<void> {
    this.requests.reads++;
    // A streaming list starts from the cache's current state: no resourceVersion to start from.
    const from = options.sendInitialEvents
      ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }
      : { resourceVersion };
    return this.transport.watch<T>(
      {
        method: 'GET',
        path,
        query: { ...listOptions, watch: true, ...from, allowWatchBookmarks: true, timeoutSeconds },
        ...(accept ? { accept } : {}),
        what,
        // Nothing that watches reads them (the cache drops them too).
        dropManagedFields: true,
      },
      onEvent,
      options,
    );
  }
}

/** The object as the server answers it: with its apiVersion and kind (set in place: it is the client's own copy). */
function stamp<T>(type: ResourceType, object: T): T {
  const typed = object as { apiVersion?: string; kind?: string };
  typed.apiVersion = type.apiVersion;
  typed.kind = type.kind;
  return object;
}

/** An object to send, with its apiVersion and kind when it lacks them (the server needs them). */
function withTypeMeta<T extends object>(type: ResourceType, object: T): T {
  const typed = object as { apiVersion?: string; kind?: string };
  return typed.apiVersion === type.apiVersion && typed.kind === type.kind
    ? object
    : { ...object, apiVersion: type.apiVersion, kind: type.kind };
}

/** A write's query: its field manager, and dryRun=All for a server dry run of this write alone. */
function writeQuery(options: WriteOptions): Request['query'] {
  if (options.fieldManager === undefined && !options.dryRun) return undefined;
  return { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined };
}

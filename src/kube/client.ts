// The one module that talks to the API server. Everything else sees plain JSON
// objects and the typed errors in ./errors; client-node stays behind this file.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { ResourceType, resourceName } from '../core/kinds';
import { Child, MANAGED_BY_VALUE, ObjectMeta } from '../core/model';
import { ManagedFieldsEntry, MovedEntry, takeOverEntries } from '../core/moved';
import { CONVERSION_ATTEMPTS, CONVERSION_BACKOFF } from '../core/retry';
import { ConflictError, UserError, ignoreNotFound, orNull } from './errors';
import { retryOnConflict } from './retry';
import { Request, Transport, WatchEvent, WatchOptions } from './transport';
import { abortOn } from './abort-signal';
import { dryRun } from './dry-run';
import type { ApiRequest, Interceptor, Send } from './send';
import { resourcePath } from './object-location';
import type {
  AccessReview,
  ApplyRequest,
  DeleteRequest,
  ListRequest,
  ResourceClient,
  WatchRequest,
  WriteOptions,
  ApplyPrecondition,
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
    text = fs.readFileSync(file, 'utf8');
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
/** The field manager of the children we apply, from `apply` and `run` alike: one owner of their fields. */
const CHILD_FIELD_MANAGER = MANAGED_BY_VALUE;
/**
 * The field manager of a handover: fields we hand to another controller (a Deployment's
 * replicas, to its autoscaler) are applied by it just before our apply stops setting them.
 * The other controller's first update of a field takes it whole, and then this manager owns
 * nothing and leaves managedFields.
 */
const HANDOVER_FIELD_MANAGER = `${MANAGED_BY_VALUE}-handover`;

/**
 * The object's managedFields, with our manager's Update entry made an Apply entry. Fields
 * handed over (a create's handover, as fieldsV1) go from that entry to an Apply entry of the
 * handover's manager: the server then keeps them when our apply leaves them out.
 */
function asApplied(
  object: { metadata: { managedFields?: ManagedFieldsEntry[] } },
  handedOver: FieldSet = {},
): ManagedFieldsEntry[] {
  return (object.metadata.managedFields ?? []).flatMap((entry) => {
    if (entry.manager !== CHILD_FIELD_MANAGER || entry.operation !== 'Update') return [entry];
    const ours = structuredClone((entry.fieldsV1 ?? {}) as FieldSet);
    const moved = takeFields(ours, handedOver);
    const applied = { ...entry, operation: 'Apply', fieldsV1: ours };
    // None left to move: another manager (the autoscaler) has taken them already.
    if (moved === null) return [applied];
    return [applied, { ...entry, manager: HANDOVER_FIELD_MANAGER, operation: 'Apply', fieldsV1: moved }];
  });
}

/** A set of fields as managedFields' fieldsV1 has it: {"f:spec": {"f:replicas": {}}}. */
type FieldSet = { [field: string]: FieldSet };

/** The fields an object sets, as a FieldSet: each member of a plain object, down to the leaves. */
function fieldSetOf(value: Record<string, unknown>): FieldSet {
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [
      `f:${key}`,
      typeof member === 'object' && member !== null && !Array.isArray(member)
        ? fieldSetOf(member as Record<string, unknown>)
        : {},
    ]),
  );
}

/** Takes the fields `wanted` names out of `from`; what it took, or null when none of them is there. */
function takeFields(from: FieldSet, wanted: FieldSet): FieldSet | null {
  const taken: FieldSet = {};
  for (const [key, below] of Object.entries(wanted)) {
    if (!Object.hasOwn(from, key)) continue;
    if (Object.keys(below).length === 0) {
      taken[key] = from[key];
      delete from[key];
      continue;
    }
    const inner = takeFields(from[key], below);
    if (inner === null) continue;
    taken[key] = inner;
    if (Object.keys(from[key]).length === 0) delete from[key];
  }
  return Object.keys(taken).length > 0 ? taken : null;
}

function withoutManagedFields<T extends { metadata: object }>(object: T): T {
  const { managedFields: _dropped, ...metadata } = object.metadata as { managedFields?: unknown };
  return { ...object, metadata };
}

export class KubeClient implements ResourceClient, InstallApi, CheckApi, LeaseApi {
  readonly requests: RequestCounter = { reads: 0, writes: 0 };
  readonly transport: Transport;
  /** Fixed for the client's life, so no write can slip out before a command sets it. */
  readonly dryRun: DryRun;
  /** How this client's requests go out: the transport, through the interceptors added (intercept). */
  private send: Send;
  /** Set on a client made by withSignal: a wait between its requests ends when it aborts. */
  private signal?: AbortSignal;
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
    const copy = this.intercept(abortOn(signal));
    copy.signal = signal;
    return copy;
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
    const list = await this.readList<T>({
      verb: 'read',
      resource: type.resource,
      method: 'GET',
      path: resourcePath(type, namespace),
      query,
      ...(metadataOnly ? { accept: METADATA_LIST } : {}),
      what: resourceName(type),
    });
    if (!metadataOnly) for (const item of list.items) stamp(type, item);
    return list;
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

  /**
   * Server-side apply of a whole child as the controller's field manager, forced: the fields
   * it sets are ours, the server drops those we stopped setting and keeps everyone else's.
   * With a uid (and resourceVersion), the child we read and nothing else: a successor of the
   * same name, or a change since, is refused (409). Without, the child must not exist yet.
   */
  applyChild(row: ResourceType, namespace: string, object: Child, precondition: ApplyPrecondition): Promise<Child> {
    if (precondition.uid === undefined) return this.createApplied(row, namespace, object, precondition.handedOver);
    const metadata = { ...object.metadata, uid: precondition.uid, resourceVersion: precondition.resourceVersion };
    // A handover at the live values only shares them (no conflict, so force takes nothing);
    // one that raises a count to the autoscaler's minimum takes the field from our own manager.
    const fieldManager = precondition.handover ? HANDOVER_FIELD_MANAGER : CHILD_FIELD_MANAGER;
    return this.apply(row, namespace, { ...object, metadata }, { fieldManager, force: true });
  }

  /**
   * Makes entries of the child's keyed lists ours (core/moved.ts): its managedFields, read now,
   * with those entries' fields moved to our Apply entry, written back with the resourceVersion
   * the decision read (409 if the child changed since). Nothing is written when no other
   * manager holds them. The apply that follows, which does not set them, removes them.
   */
  async takeOverChild(
    row: ResourceType,
    namespace: string,
    name: string,
    entries: MovedEntry[],
    precondition: ApplyPrecondition,
  ): Promise<void> {
    const current = await this.get<Child & { metadata: { managedFields?: ManagedFieldsEntry[] } }>(
      row,
      namespace,
      name,
    );
    if (precondition.uid !== undefined && current.metadata.uid !== precondition.uid)
      throw new ConflictError(`${whatOf(row, name)} is not the object that was read (uid ${precondition.uid})`);
    const managedFields = takeOverEntries(
      current.metadata.managedFields ?? [],
      entries.map((entry) => entry.steps),
      CHILD_FIELD_MANAGER,
      row.apiVersion,
    );
    if (!managedFields) return;
    await this.patch(row, namespace, name, {
      metadata: { resourceVersion: precondition.resourceVersion ?? current.metadata.resourceVersion, managedFields },
    });
  }

  /**
   * An apply that must create. Server-side apply has no "create only": on an object that
   * appeared meanwhile (someone else's, which the label-selected cache cannot see) it would
   * take it over. So a POST, which is refused with AlreadyExists, and then its fields are made
   * ours as an apply's would be (our manager's Update entry becomes an Apply entry, as kubectl's
   * client-side-apply upgrade does): without that, a field set at creation would stay forever,
   * however the spec changes later. Fields handed over at creation go to the handover's manager.
   */
  private async createApplied(
    row: ResourceType,
    namespace: string,
    object: Child,
    handedOver?: { spec: Record<string, unknown> },
  ): Promise<Child> {
    const handedFields = handedOver ? fieldSetOf({ spec: handedOver.spec }) : {};
    const { name } = object.metadata;
    type WithManagedFields = Child & { metadata: { managedFields?: ManagedFieldsEntry[] } };
    const created = await this.create<WithManagedFields>(row, namespace, object, {
      fieldManager: CHILD_FIELD_MANAGER,
      keepManagedFields: true,
    });
    // A server dry run stored nothing to convert.
    if (this.dryRun === 'server') return withoutManagedFields(created);
    // Its controller may change it at once (a Deployment's revision annotation, its status):
    // then read it again a moment later and convert what it holds now.
    const wait = { policy: CONVERSION_BACKOFF, signal: this.signal };
    return retryOnConflict(
      async (attempt) => {
        const current = attempt === 1 ? created : await this.get<WithManagedFields>(row, namespace, name);
        return this.patch<Child>(row, namespace, name, {
          metadata: {
            resourceVersion: current.metadata.resourceVersion,
            managedFields: asApplied(current, handedFields),
          },
        });
      },
      CONVERSION_ATTEMPTS,
      wait,
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

  /** A LIST, without the items' managedFields: nothing reads them, and they are half the bytes. */
  private async readList<T>(req: ApiRequest): Promise<ObjectList<T>> {
    const list = await this.send<{ items?: T[]; metadata?: { resourceVersion?: string } }>({
      ...req,
      dropManagedFields: true,
    });
    return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? '' };
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
  return { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined };
}

/** How kubectl names one object in messages: configmaps "checkout-desired", deployments.apps "checkout". */
function whatOf(type: ResourceType, name: string): string {
  return `${resourceName(type)} "${name}"`;
}

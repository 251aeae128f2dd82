// The one fake of the API server for unit tests: every interface of src/kube/api.ts (what
// gather, the engine, the watch cache, install and check ask for) served from one in-memory
// tracker (tracker.ts), every request recorded. Writes are answered the server's way: a uid
// and resourceVersion on create, AlreadyExists, NotFound and Conflict where the server says
// them, finalizers holding a deletion. It records who wrote (an entry in managedFields for each
// field manager and operation) but not which fields: a test that needs them seeds them. Its
// watches stay open until aborted, and hear nothing by themselves: a test sends their events
// through `watchers`.
import { CHILD_KINDS, ResourceType, resourceName } from '../../src/core/kinds';
import {
  API_VERSION,
  Child,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  ObjectMeta,
  PLURAL,
  WebService,
  kindOf,
} from '../../src/core/model';
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
} from '../../src/kube/api';
import type { ManagedFieldsEntry } from '../../src/core/moved';
import { ForbiddenError, NotFoundError } from '../../src/kube/errors';
import { KubeObject } from '../../src/kube/object-location';
import type { WatchEvent, WatchOptions } from '../../src/kube/transport';
import { ObjectTracker, StoredObject } from './tracker';

export interface FakeRequest {
  verb: 'get' | 'list' | 'watch' | 'create' | 'patch' | 'apply' | 'delete' | 'update' | 'review';
  /** The REST resource: webservices, configmaps, deployments… (webservices/status for the status). */
  resource: string;
  namespace: string | null;
  name?: string;
  /** A list's or watch's options; a write's body or precondition. */
  detail?: unknown;
  /** The field manager a write names. */
  fieldManager?: string;
}

type Handler = (event: WatchEvent<never>) => void;

const WEBSERVICE = 'WebService';
const CRD = 'CustomResourceDefinition';

export interface FakeApiOptions {
  webServices?: WebService[];
  children?: Child[];
  /** Objects of other kinds (ReplicaSets, pods, Events, the config pods read...), each with its kind. */
  others?: { kind: string; metadata: ObjectMeta }[];
  /** Objects of any kind, as another fake's tracker holds them: the same cluster behind another client. */
  objects?: StoredObject[];
  /** Kinds whose every read is refused with 403, as for a user without that permission. */
  forbidden?: string[];
  /** Resources whose API is not served (an optional kind's CRD not installed). */
  absent?: string[];
  dryRun?: DryRun;
  /** What GET /version answers. */
  version?: ServerVersion;
  /** What the authorizer refuses, as check names it: `create configmaps`, `patch webservices.apps.labhub.io/status`. */
  denied?: string[];
}

export class FakeApi implements ResourceClient, InstallApi, CheckApi, LeaseApi {
  readonly dryRun: DryRun;
  readonly connection = { server: 'https://fake.invalid:6443' };
  readonly requests: FakeRequest[] = [];
  /** Every object the fake server holds. */
  readonly tracker = new ObjectTracker();
  /** The open watches' event handlers, by resource. */
  readonly watchers: Record<string, (event: WatchEvent<unknown>) => void> = {};
  private readonly forbidden: Set<string>;
  /** Resources (httproutes…) whose API the fake does not serve: discovery says so, and any request gets a 404. */
  private readonly absent: Set<string>;
  private readonly denied: Set<string>;
  private readonly version: ServerVersion;
  /** Ends each open watch (the server closing it), by resource. */
  private readonly watchEnds: Partial<Record<string, () => void>> = {};
  /** Holds the answers to LISTs of WebServices until released. */
  private held: Promise<void> = Promise.resolve();
  /**
   * Runs before each write is answered, once it is recorded: a test makes the server change
   * something meanwhile (`changeChild`), or refuses the write by throwing (a 409, say).
   */
  beforeWrite?: (request: FakeRequest) => void;

  constructor(options: FakeApiOptions = {}) {
    this.tracker.seed([
      ...(options.webServices ?? []).map((ws) => ({ apiVersion: API_VERSION, ...ws, kind: WEBSERVICE })),
      ...(options.children ?? []).map((child) => ({ ...child, kind: kindOf(child) })),
      ...(options.others ?? []),
      ...(options.objects ?? []),
    ]);
    this.forbidden = new Set(options.forbidden ?? []);
    this.absent = new Set(options.absent ?? []);
    this.denied = new Set(options.denied ?? []);
    this.dryRun = options.dryRun ?? 'none';
    this.version = options.version ?? { major: '1', minor: '31', gitVersion: 'v1.31.0' };
  }

  /** Discovery: whether the fake serves a kind's resource (it remembers nothing between calls). */
  apiServed(type: ResourceType): Promise<boolean> {
    this.record({ verb: 'get', resource: 'discovery', namespace: null, name: type.apiVersion });
    return Promise.resolve(!this.absent.has(type.resource));
  }

  /** Starts serving a resource, as when its CRD is installed. */
  install(resource: string): void {
    this.absent.delete(resource);
  }

  /**
   * Stops serving a kind's resource, as when its CRD is deleted: its objects are deleted (the
   * open watch hears of ours), then the watch ends and every request gets a 404.
   */
  uninstall(type: { kind: string; resource: string }): void {
    for (const object of this.tracker.list(type.kind, null)) {
      this.tracker.remove(type.kind, object.metadata.namespace, object.metadata.name);
      // The watch selects ours by label: it hears of ours only.
      if (isLabelled(object) && type.resource in this.watchers)
        this.watchers[type.resource]({ type: 'DELETED', object });
    }
    this.absent.add(type.resource);
    this.watchEnds[type.resource]?.();
  }

  /** The fake holds no request open, so a signal has nothing to cut off (a test may override this). */
  withSignal(_signal?: AbortSignal): FakeApi {
    return this;
  }

  /** `verb resource` of each request, in order: `get configmaps`, `list deployments metadata`. */
  get calls(): string[] {
    return this.requests.map((r) => `${r.verb} ${r.resource}`);
  }

  /** The writes only. */
  get writes(): FakeRequest[] {
    return this.requests.filter((r) => !READS.includes(r.verb));
  }

  /** LISTs of WebServices wait until the returned function is called. */
  holdWebServiceLists(): () => void {
    let release: () => void = () => undefined;
    this.held = new Promise((resolve) => (release = resolve));
    return release;
  }

  // --- the generic verbs, over any type ----------------------------------------------

  get<T extends object>(type: ResourceType, namespace: string | null, name: string): Promise<T> {
    return this.answer({ verb: 'get', resource: type.resource, namespace: scopeOf(type, namespace), name }, () => {
      const found = this.tracker.get<T>(type.kind, keyNamespace(type, namespace), name);
      if (!found) throw new NotFoundError(`${whatOf(type, name)} not found`);
      return stampedAs(type, found);
    });
  }

  async list<T extends object>(
    type: ResourceType,
    namespace: string | null,
    options: ListRequest = {},
  ): Promise<ObjectList<T>> {
    const { metadataOnly, ...listOptions } = options;
    const resource = metadataOnly ? `${type.resource} metadata` : type.resource;
    const request: FakeRequest = { verb: 'list', resource, namespace: scopeOf(type, namespace), detail: listOptions };
    this.record(request);
    if (type.kind === WEBSERVICE) await this.held;
    const list = this.listOf<T & StoredObject>(type.kind, keyNamespace(type, namespace) ?? null, listOptions);
    // As the client's: without the items' managedFields.
    const items = list.items.map((item) =>
      withoutManagedFields(metadataOnly ? { metadata: item.metadata } : stampedAs(type, item)),
    );
    return { ...list, items: items as T[] };
  }

  watch<T extends object>(
    type: ResourceType,
    namespace: string | null,
    request: WatchRequest,
    onEvent: (event: WatchEvent<T>) => void,
    options: WatchOptions,
  ): Promise<void> {
    const { resourceVersion: _from, timeoutSeconds: _timeout, metadataOnly, ...listOptions } = request;
    const resource = metadataOnly ? `${type.resource} metadata` : type.resource;
    return this.openWatch(resource, namespace, listOptions, onEvent, options);
  }

  create<T extends { metadata: { name?: string } }>(
    type: ResourceType,
    namespace: string | null,
    object: T,
    options: WriteOptions = {},
  ): Promise<T> {
    const { name } = object.metadata;
    const request: FakeRequest = {
      verb: 'create',
      resource: type.resource,
      namespace: scopeOf(type, namespace),
      name,
      ...managedBy(options),
    };
    return this.answer(request, () => {
      const { generateName } = object.metadata as { generateName?: string };
      // The server names an object created by generateName.
      const named = {
        ...object,
        metadata: { ...object.metadata, name: name ?? `${generateName}${this.tracker.resourceVersion}` },
      };
      const stored = writtenBy(storedAs(type, namespace, named), null, options.fieldManager, 'Update');
      const created = this.tracker.create(stored, whatOf(type, stored.metadata.name), this.dry(options));
      return answered(created, options) as unknown as T;
    });
  }

  /** A merge patch; a resourceVersion in it is a precondition, and the status is the status subresource's to change. */
  patch<T extends object>(
    type: ResourceType,
    namespace: string | null,
    name: string,
    patch: object,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.patched(type.resource, type, namespace, name, patch, options, (current, patched) => ({
      ...patched,
      status: current.status,
    }));
  }

  /** The status subresource: only the status changes, whatever else the patch says. */
  patchStatus<T extends object>(type: ResourceType, namespace: string | null, name: string, patch: object): Promise<T> {
    return this.patched(`${type.resource}/status`, type, namespace, name, patch, {}, (current, patched) => ({
      ...current,
      status: patched.status,
    }));
  }

  /**
   * Server-side apply of the whole object, forced: created when missing, else its fields
   * replace the stored ones, under the uid and resourceVersion its metadata carries. What the
   * server owns (a status) stays. A CRD is Established at once, and its resource served.
   */
  apply<T extends { metadata: ObjectMeta }>(
    type: ResourceType,
    namespace: string | null,
    object: T,
    options: ApplyRequest,
  ): Promise<T> {
    const { name, uid, resourceVersion } = object.metadata;
    const request: FakeRequest = {
      verb: 'apply',
      resource: type.resource,
      namespace: scopeOf(type, namespace),
      name,
      // Its options, and the preconditions its metadata carries.
      ...managedBy(options),
      detail: {
        ...options,
        ...(uid === undefined ? {} : { uid }),
        ...(resourceVersion === undefined ? {} : { resourceVersion }),
      },
    };
    return this.answer(request, () => {
      const what = whatOf(type, name);
      const dry = this.dry(options);
      const live = this.tracker.get(type.kind, keyNamespace(type, namespace), name);
      const applied = writtenBy(storedAs(type, namespace, object), live, options.fieldManager, 'Apply');
      if (type.kind === CRD) applied.status = { conditions: ESTABLISHED };
      // The server owns a status: an apply of the object leaves it be.
      if (live?.status !== undefined) applied.status = live.status;
      const stored = live
        ? this.tracker.update(applied, what, { uid, resourceVersion }, dry)
        : this.tracker.create(applied, what, dry);
      if (type.kind === CRD && !dry.dryRun) this.install(crdResource(applied as KubeObject));
      return answered(stored, options) as unknown as T;
    });
  }

  /** A PUT: the resourceVersion it carries must be the stored one. */
  update<T extends { metadata: ObjectMeta }>(type: ResourceType, namespace: string | null, object: T): Promise<T> {
    const { name, resourceVersion } = object.metadata;
    return this.answer({ verb: 'update', resource: type.resource, namespace: scopeOf(type, namespace), name }, () => {
      const live = this.tracker.get(type.kind, keyNamespace(type, namespace), name);
      const stored = writtenBy(storedAs(type, namespace, object), live, undefined, 'Update');
      return answered(this.tracker.update(stored, whatOf(type, name), { resourceVersion }, this.dry())) as unknown as T;
    });
  }

  /** Deletes with a uid precondition; a CRD takes its resource and every object of its kind with it. */
  delete(type: ResourceType, namespace: string | null, name: string, options: DeleteRequest = {}): Promise<boolean> {
    const scope = keyNamespace(type, namespace);
    const request: FakeRequest = {
      verb: 'delete',
      resource: type.resource,
      namespace: scopeOf(type, namespace),
      name,
      detail: options,
    };
    return this.answer(request, () => {
      const dry = this.dry(options);
      const live = this.tracker.get<KubeObject>(type.kind, scope, name);
      const deleted = this.tracker.delete(type.kind, scope, name, whatOf(type, name), { uid: options.uid }, dry);
      if (deleted && live && type.kind === CRD && !dry.dryRun) {
        const names = (live.spec as { names: { kind: string } }).names;
        this.uninstall({ kind: names.kind, resource: crdResource(live) });
      }
      return deleted;
    });
  }

  // --- the cluster, the caller, the Lease -----------------------------------------

  serverVersion(): Promise<ServerVersion> {
    return this.answer({ verb: 'get', resource: 'version', namespace: null }, () => this.version);
  }

  /** The resources of the kind table and of WebServices that the fake serves in a group/version. */
  servedResources(groupVersion: string): Promise<string[] | null> {
    return this.answer({ verb: 'get', resource: 'discovery', namespace: null, name: groupVersion }, () => {
      const known = [{ apiVersion: API_VERSION, resource: PLURAL }, ...CHILD_KINDS];
      const served = known
        .filter((type) => type.apiVersion === groupVersion && !this.absent.has(type.resource))
        .map((type) => type.resource);
      return served.length > 0 ? served : null;
    });
  }

  /** Allowed, unless the fake was told to deny it (`denied`). */
  reviewAccess(attributes: ResourceAttributes): Promise<AccessReview> {
    const { verb, group, resource, subresource, namespace } = attributes;
    const named = `${verb} ${group ? `${resource}.${group}` : resource}${subresource ? `/${subresource}` : ''}`;
    return this.answer({ verb: 'review', resource: 'selfsubjectaccessreviews', namespace: namespace ?? null }, () =>
      this.denied.has(named) ? { allowed: false, reason: 'denied by the fake' } : { allowed: true },
    );
  }

  // --- what others do to the cluster meanwhile -------------------------------------

  /** Changes (or with null removes) an object of another kind, as its owner would: no watch event. */
  changeOther(
    kind: string,
    namespace: string,
    name: string,
    change: ((object: Record<string, any>) => void) | null,
  ): void {
    if (change === null) {
      if (!this.tracker.remove(kind, namespace, name)) throw new Error(`no ${kind} ${namespace}/${name} to change`);
    } else this.tracker.change(kind, namespace, name, change);
  }

  /** Changes a stored WebService, as a user's edit would (no watch event: a test sends one if it needs it). */
  changeWebService(namespace: string, name: string, change: (ws: WebService) => void): void {
    this.tracker.change(WEBSERVICE, namespace, name, change as unknown as (object: StoredObject) => void);
  }

  /** Changes a stored child, as its own controller would (a Deployment's status, say). */
  changeChild(kind: string, namespace: string, name: string, change: (child: Child) => void): void {
    this.tracker.change(kind, namespace, name, change);
  }

  /** Removes a stored child unseen, as its owner would: the label-selected watches get no event. */
  removeChild(kind: string, namespace: string, name: string): void {
    if (!this.tracker.remove(kind, namespace, name)) throw new Error(`no ${kind} ${namespace}/${name} to remove`);
  }

  /** Whether a child of this kind and name is stored. */
  hasChild(kind: string, namespace: string, name: string): boolean {
    return this.tracker.get(kind, namespace, name) !== null;
  }

  // --- the server's side of a request ---------------------------------------------

  /** Records the request, then answers it the server's way: 404 for a resource not served, 403 for a kind refused. */
  private async answer<T>(request: FakeRequest, serve: () => T, record = true): Promise<T> {
    if (record) this.record(request);
    return serve();
  }

  private record(request: FakeRequest): void {
    this.requests.push(request);
    const resource = request.resource.split(' ')[0];
    if (this.absent.has(resource.split('/')[0]))
      throw new NotFoundError(`the server could not find the requested resource (${resource})`);
    if (READS.includes(request.verb) && this.forbiddenResource(resource)) {
      throw new ForbiddenError(
        `${resource}${request.name ? ` "${request.name}"` : ''} is forbidden: the fake refuses it`,
      );
    }
    if (!READS.includes(request.verb)) this.beforeWrite?.(request);
  }

  private forbiddenResource(resource: string): boolean {
    return [...this.forbidden].some((kind) => resourceOfKind(kind) === resource);
  }

  /** A server dry run (the client's, or this write's alone): answered, not stored. */
  private dry(options: { dryRun?: boolean } = {}): { dryRun: boolean } {
    return { dryRun: this.dryRun === 'server' || options.dryRun === true };
  }

  private listOf<T>(kind: string, namespace: string | null, options: ListOptions): ObjectList<T> {
    return {
      items: this.tracker.list<T>(kind, namespace, options.labelSelector),
      resourceVersion: this.tracker.resourceVersion,
    };
  }

  /** A merge patch of an object, of which keep says what stays. */
  private patched<T>(
    resource: string,
    type: ResourceType,
    namespace: string | null,
    name: string,
    patch: object,
    options: WriteOptions,
    keep: (current: StoredObject, patched: StoredObject) => StoredObject,
  ): Promise<T> {
    const scope = keyNamespace(type, namespace);
    const request: FakeRequest = {
      verb: 'patch',
      resource,
      namespace: scopeOf(type, namespace),
      name,
      detail: patch,
      ...managedBy(options),
    };
    return this.answer(request, () => {
      const what = whatOf(type, name);
      const current = this.tracker.get(type.kind, scope, name);
      if (!current) throw new NotFoundError(`${what} not found`);
      // managedFields the patch sets are taken as they are, as the server does.
      const setsManagers = (patch as { metadata?: { managedFields?: unknown } }).metadata?.managedFields !== undefined;
      const patched = keep(current, mergePatch(current, patch) as StoredObject);
      const stored = writtenBy(
        storedAs(type, namespace, patched),
        current,
        setsManagers ? undefined : options.fieldManager,
        'Update',
      );
      return answered(this.tracker.update(stored, what, preconditionOf(patch), this.dry(options)), options) as T;
    });
  }

  private openWatch(
    resource: string,
    namespace: string | null,
    listOptions: ListOptions,
    onEvent: Handler,
    options: WatchOptions,
  ): Promise<void> {
    this.record({ verb: 'watch', resource, namespace, detail: listOptions });
    this.watchers[resource] = onEvent as (event: WatchEvent<unknown>) => void;
    return new Promise<void>((resolve) => {
      this.watchEnds[resource] = resolve;
      if (options.signal?.aborted) resolve();
      options.signal?.addEventListener('abort', () => resolve());
    });
  }
}

const READS: FakeRequest['verb'][] = ['get', 'list', 'watch', 'review'];

const ESTABLISHED = [
  { type: 'NamesAccepted', status: 'True' },
  { type: 'Established', status: 'True' },
];

/** The resource a kind is served as, for `forbidden`: a kind of the table, else its lower-case plural. */
function resourceOfKind(kind: string): string {
  if (kind === WEBSERVICE) return PLURAL;
  return CHILD_KINDS.find((row) => row.kind === kind)?.resource ?? `${kind.toLowerCase()}s`;
}

/** The resource a CRD serves: spec.names.plural. */
function crdResource(object: KubeObject): string {
  return (object.spec as { names: { plural: string } }).names.plural;
}

/**
 * The object as a write by manager leaves it: the live object's managedFields (unless it sets
 * its own), with an entry for manager and operation. The fake keeps no field sets.
 */
function writtenBy(
  object: StoredObject,
  live: StoredObject | null,
  manager: string | undefined,
  operation: 'Update' | 'Apply',
): StoredObject {
  const managersOf = (o: StoredObject | null) =>
    (o?.metadata as { managedFields?: ManagedFieldsEntry[] } | undefined)?.managedFields;
  const entries = structuredClone(managersOf(object) ?? managersOf(live) ?? []);
  if (manager !== undefined && !entries.some((entry) => entry.manager === manager && entry.operation === operation))
    entries.push({ manager, operation, apiVersion: object.apiVersion, fieldsType: 'FieldsV1', fieldsV1: {} });
  return { ...object, metadata: { ...object.metadata, ...(entries.length > 0 ? { managedFields: entries } : {}) } };
}

/** A request's record of the field manager its options name. */
function managedBy(options: WriteOptions): Pick<FakeRequest, 'fieldManager'> {
  return options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager };
}

/** A write's answer, as the client gives it: without managedFields unless asked to keep them. */
function answered<T extends StoredObject>(object: T, options: WriteOptions = {}): T {
  return options.keepManagedFields ? object : withoutManagedFields(object);
}

function withoutManagedFields<T extends { metadata: object }>(object: T): T {
  const { managedFields: _dropped, ...metadata } = object.metadata as { managedFields?: unknown };
  return { ...object, metadata };
}

/** A request's namespace: null for a cluster-scoped type. */
function scopeOf(type: ResourceType, namespace: string | null): string | null {
  return type.namespaced === false ? null : namespace;
}

/** The namespace the tracker keeps an object of the type under. */
function keyNamespace(type: ResourceType, namespace: string | null): string | undefined {
  return type.namespaced === false ? undefined : (namespace ?? undefined);
}

/** An object as the server keeps it: with its apiVersion, kind and namespace. */
function storedAs(type: ResourceType, namespace: string | null, object: { metadata: ObjectMeta }): StoredObject {
  const stored: StoredObject = { ...structuredClone(object), apiVersion: type.apiVersion, kind: type.kind };
  const scope = keyNamespace(type, namespace);
  stored.metadata = { ...stored.metadata, ...(scope === undefined ? {} : { namespace: scope }) };
  return stored;
}

/** An object as the client answers it: with its apiVersion and kind. */
function stampedAs<T>(type: ResourceType, object: T): T {
  return { ...object, apiVersion: type.apiVersion, kind: type.kind };
}

/** How the server names an object in its messages: deployments.apps "web". */
function whatOf(type: ResourceType, name: string): string {
  return `${resourceName(type)} "${name}"`;
}

/** A merge patch's resourceVersion is a precondition; the server does not store it as sent. */
function preconditionOf(patch: object): { resourceVersion?: string } {
  const resourceVersion = (patch as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
  return resourceVersion === undefined ? {} : { resourceVersion };
}

function isLabelled(object: { metadata: ObjectMeta }): boolean {
  return object.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE;
}

/** RFC 7386: null removes a key, an object merges, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

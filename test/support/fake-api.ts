// The one fake of the API server for unit tests: KubeApi (what gather, the engine and the
// watch cache ask for) served from objects in memory, every request recorded. Its watches
// stay open until aborted, and a test sends their events through `watchers`.
import { ResourceType, kindRow } from '../../src/core/kinds';
import {
  Child,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  OWNED_SELECTOR,
  ObjectMeta,
  WebService,
  kindOf,
} from '../../src/core/model';
import type { ApplyPrecondition, DryRun, KubeApi, KubeEvent, ListOptions, ObjectList } from '../../src/kube/api';
import { ForbiddenError, NotFoundError } from '../../src/kube/errors';
import type { WatchEvent, WatchOptions } from '../../src/kube/transport';

export interface FakeRequest {
  verb: 'get' | 'list' | 'watch' | 'create' | 'patch' | 'apply' | 'delete';
  /** The REST resource: webservices, configmaps, deployments… (webservices/status for the status). */
  resource: string;
  namespace: string | null;
  name?: string;
  /** A list's or watch's options; a write's body or precondition. */
  detail?: unknown;
}

type Handler = (event: WatchEvent<never>) => void;

export class FakeApi implements KubeApi {
  readonly dryRun: DryRun;
  readonly requests: FakeRequest[] = [];
  /** The open watches' event handlers, by resource. */
  readonly watchers: Record<string, (event: WatchEvent<unknown>) => void> = {};
  private readonly webServices: WebService[];
  private readonly children: Child[];
  /** Objects of other kinds (ReplicaSets, pods, Events...), for listObjects: each with its kind. */
  private readonly others: { kind: string; metadata: ObjectMeta }[];
  /** Kinds whose LIST is refused with 403, as for a user without that permission. */
  private readonly forbidden: Set<string>;
  /** Resources (httproutes…) whose API the fake does not serve: discovery says so, and any request gets a 404. */
  private readonly absent: Set<string>;
  /** Ends each open watch (the server closing it), by resource. */
  private readonly watchEnds: Partial<Record<string, () => void>> = {};
  /** Holds the answers to LISTs of WebServices until released. */
  private held: Promise<void> = Promise.resolve();
  /**
   * Runs before each write is answered, once it is recorded: a test makes the server change
   * something meanwhile (`changeChild`), or refuses the write by throwing (a 409, say).
   */
  beforeWrite?: (request: FakeRequest) => void;

  constructor(
    options: {
      webServices?: WebService[];
      children?: Child[];
      others?: { kind: string; metadata: ObjectMeta }[];
      forbidden?: string[];
      /** Resources whose API is not served (an optional kind's CRD not installed). */
      absent?: string[];
      dryRun?: DryRun;
    } = {},
  ) {
    this.webServices = structuredClone(options.webServices ?? []);
    this.children = structuredClone(options.children ?? []);
    this.others = structuredClone(options.others ?? []);
    this.forbidden = new Set(options.forbidden ?? []);
    this.absent = new Set(options.absent ?? []);
    this.dryRun = options.dryRun ?? 'none';
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
   * Stops serving a child kind's resource, as when its CRD is deleted: its objects are deleted
   * (the open watch hears of ours), then the watch ends and every request gets a 404.
   */
  uninstall(row: ResourceType): void {
    for (const child of this.children.filter((c) => kindOf(c) === row.kind)) {
      this.children.splice(this.children.indexOf(child), 1);
      // The watch selects ours by label: it hears of ours only.
      if (isLabelled(child) && row.resource in this.watchers)
        this.watchers[row.resource]({ type: 'DELETED', object: structuredClone(child) });
    }
    this.absent.add(row.resource);
    this.watchEnds[row.resource]?.();
  }

  /** The fake answers at once: there is nothing for a signal to cut off. */
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
    return this.requests.filter((r) => !['get', 'list', 'watch'].includes(r.verb));
  }

  /** LISTs of WebServices wait until the returned function is called. */
  holdWebServiceLists(): () => void {
    let release: () => void = () => undefined;
    this.held = new Promise((resolve) => (release = resolve));
    return release;
  }

  getWebService(namespace: string, name: string): Promise<WebService> {
    this.record({ verb: 'get', resource: 'webservices', namespace, name });
    const found = this.webServices.find((ws) => ws.metadata.name === name && inNamespace(ws, namespace));
    return found
      ? Promise.resolve(structuredClone(found))
      : Promise.reject(new NotFoundError(`webservices.apps.labhub.io "${name}" not found`));
  }

  async listWebServices(namespace: string | null, options: ListOptions = {}): Promise<ObjectList<WebService>> {
    this.record({ verb: 'list', resource: 'webservices', namespace, detail: options });
    await this.held;
    return list(this.webServices.filter((ws) => inNamespace(ws, namespace)));
  }

  watchWebServices(
    namespace: string | null,
    _resourceVersion: string,
    _timeoutSeconds: number,
    onEvent: (event: WatchEvent<WebService>) => void,
    options: WatchOptions,
  ): Promise<void> {
    return this.watch('webservices', namespace, {}, onEvent, options);
  }

  patchWebService(namespace: string, name: string, patch: object): Promise<WebService> {
    return this.patchParent('webservices', namespace, name, patch);
  }

  patchWebServiceStatus(namespace: string, name: string, patch: object): Promise<WebService> {
    return this.patchParent('webservices/status', namespace, name, patch);
  }

  getChild(row: ResourceType, namespace: string, name: string): Promise<Child | null> {
    this.record({ verb: 'get', resource: row.resource, namespace, name });
    const found = this.ofKind(row, namespace).find((c) => c.metadata.name === name);
    return Promise.resolve(found ? structuredClone(found) : null);
  }

  listChildren(row: ResourceType, namespace: string | null, options: ListOptions = {}): Promise<ObjectList<Child>> {
    this.record({ verb: 'list', resource: row.resource, namespace, detail: options });
    const items = this.ofKind(row, namespace).filter((c) => options.labelSelector !== OWNED_SELECTOR || isLabelled(c));
    return Promise.resolve(list(items));
  }

  listChildMetadata(
    row: ResourceType,
    namespace: string | null,
    options: ListOptions = {},
  ): Promise<ObjectList<{ metadata: Child['metadata'] }>> {
    this.record({ verb: 'list', resource: `${row.resource} metadata`, namespace, detail: options });
    const others = this.others.filter((o) => o.kind === row.kind && inNamespace(o, namespace));
    const objects = [...this.ofKind(row, namespace), ...others];
    return Promise.resolve(list(objects.map((c) => ({ metadata: c.metadata }))));
  }

  watchChildren(
    row: ResourceType,
    namespace: string | null,
    _resourceVersion: string,
    _timeoutSeconds: number,
    listOptions: ListOptions,
    onEvent: (event: WatchEvent<Child>) => void,
    options: WatchOptions,
  ): Promise<void> {
    return this.watch(row.resource, namespace, listOptions, onEvent, options);
  }

  listObjects<T extends { metadata: ObjectMeta }>(
    type: ResourceType,
    namespace: string | null,
    options: ListOptions = {},
  ): Promise<ObjectList<T & { apiVersion: string; kind: string }>> {
    this.record({ verb: 'list', resource: type.resource, namespace, detail: options });
    if (this.forbidden.has(type.kind)) {
      return Promise.reject(new ForbiddenError(`${type.resource} is forbidden: the fake refuses it`));
    }
    const items = this.others.filter(
      (o) => o.kind === type.kind && inNamespace(o, namespace) && matchesSelector(o, options.labelSelector),
    );
    return Promise.resolve(list(items.map((o) => ({ ...o, apiVersion: type.apiVersion })) as never));
  }

  getResource<T>(type: ResourceType, namespace: string, name: string): Promise<T | null> {
    this.record({ verb: 'get', resource: type.resource, namespace, name });
    if (this.forbidden.has(type.kind)) {
      return Promise.reject(new ForbiddenError(`${type.resource} "${name}" is forbidden: the fake refuses it`));
    }
    const found = this.others.find(
      (o) => o.kind === type.kind && o.metadata.name === name && inNamespace(o, namespace),
    );
    return Promise.resolve(found ? (structuredClone(found) as T) : null);
  }

  createResource<T extends { metadata: ObjectMeta }>(type: ResourceType, namespace: string, object: T): Promise<T> {
    this.record({ verb: 'create', resource: type.resource, namespace, name: object.metadata.name });
    const stored = {
      ...structuredClone(object),
      kind: type.kind,
      metadata: { ...object.metadata, namespace, resourceVersion: String(this.requests.length) },
    };
    this.others.push(stored);
    return Promise.resolve(structuredClone(stored) as T);
  }

  watchMetadata(
    type: ResourceType,
    namespace: string | null,
    _resourceVersion: string,
    _timeoutSeconds: number,
    onEvent: (event: WatchEvent<{ metadata: ObjectMeta }>) => void,
    options: WatchOptions,
  ): Promise<void> {
    return this.watch(`${type.resource} metadata`, namespace, {}, onEvent, options);
  }

  /** Changes (or with null removes) an object of another kind, as its owner would: no watch event. */
  changeOther(
    kind: string,
    namespace: string,
    name: string,
    change: ((object: Record<string, any>) => void) | null,
  ): void {
    const at = this.others.findIndex((o) => o.kind === kind && o.metadata.name === name && inNamespace(o, namespace));
    if (at < 0) throw new Error(`no ${kind} ${namespace}/${name} to change`);
    if (change === null) this.others.splice(at, 1);
    else change(this.others[at]);
  }

  createChild(row: ResourceType, namespace: string, object: Child): Promise<Child> {
    this.record({ verb: 'create', resource: row.resource, namespace, name: object.metadata.name });
    return Promise.resolve(this.store(row, namespace, object));
  }

  patchChild(row: ResourceType, namespace: string, name: string, patch: object): Promise<Child> {
    this.record({ verb: 'patch', resource: row.resource, namespace, name, detail: patch });
    const current = this.ofKind(row, namespace).find((c) => c.metadata.name === name);
    return Promise.resolve(this.store(row, namespace, mergePatch(current ?? { metadata: { name } }, patch) as Child));
  }

  applyChild(row: ResourceType, namespace: string, object: Child, precondition: ApplyPrecondition): Promise<Child> {
    this.record({ verb: 'apply', resource: row.resource, namespace, name: object.metadata.name, detail: precondition });
    return Promise.resolve(this.store(row, namespace, object));
  }

  takeOverChild(...[row, namespace, name, entries, precondition]: Parameters<KubeApi['takeOverChild']>): Promise<void> {
    this.record({ verb: 'patch', resource: row.resource, namespace, name, detail: { entries, precondition } });
    return Promise.resolve();
  }

  deleteChild(row: ResourceType, namespace: string, name: string, uid?: string): Promise<boolean> {
    this.record({ verb: 'delete', resource: row.resource, namespace, name, detail: uid });
    const at = this.children.findIndex(
      (c) => kindOf(c) === row.kind && c.metadata.name === name && inNamespace(c, namespace),
    );
    if (at >= 0) this.children.splice(at, 1);
    return Promise.resolve(at >= 0);
  }

  createEvent(event: KubeEvent): Promise<KubeEvent> {
    this.record({ verb: 'create', resource: 'events', namespace: null, detail: event });
    return Promise.resolve(event);
  }

  /** Changes a stored WebService, as a user's edit would (no watch event: a test sends one if it needs it). */
  changeWebService(namespace: string, name: string, change: (ws: WebService) => void): void {
    const ws = this.webServices.find((w) => w.metadata.name === name && (w.metadata.namespace ?? '') === namespace);
    if (!ws) throw new Error(`no WebService ${namespace}/${name} to change`);
    change(ws);
  }

  /** Changes a stored child, as its own controller would (a Deployment's status, say). */
  changeChild(kind: string, namespace: string, name: string, change: (child: Child) => void): void {
    const child = this.children.find(
      (c) => kindOf(c) === kind && c.metadata.name === name && inNamespace(c, namespace),
    );
    if (!child) throw new Error(`no ${kind} ${namespace}/${name} to change`);
    change(child);
  }

  /** Removes a stored child unseen, as its owner would: the label-selected watches get no event. */
  removeChild(kind: string, namespace: string, name: string): void {
    const at = this.children.findIndex(
      (c) => kindOf(c) === kind && c.metadata.name === name && inNamespace(c, namespace),
    );
    if (at < 0) throw new Error(`no ${kind} ${namespace}/${name} to remove`);
    this.children.splice(at, 1);
  }

  /** Whether a child of this kind and name is stored. */
  hasChild(kind: string, namespace: string, name: string): boolean {
    return this.children.some((c) => kindOf(c) === kind && c.metadata.name === name && inNamespace(c, namespace));
  }

  private record(request: FakeRequest): void {
    this.requests.push(request);
    const resource = request.resource.split(' ')[0];
    if (this.absent.has(resource))
      throw new NotFoundError(`the server could not find the requested resource (${resource})`);
    if (!['get', 'list', 'watch'].includes(request.verb)) this.beforeWrite?.(request);
  }

  private ofKind(row: ResourceType, namespace: string | null): Child[] {
    return this.children.filter((c) => kindOf(c) === row.kind && inNamespace(c, namespace));
  }

  /** Keeps a written child, as the server would answer it: with its kind and a new resourceVersion. */
  private store(row: ResourceType, namespace: string, object: Child): Child {
    const stored = {
      ...structuredClone(object),
      apiVersion: row.apiVersion,
      kind: row.kind,
      metadata: { ...object.metadata, namespace, resourceVersion: String(this.requests.length) },
    } as Child;
    const at = this.children.findIndex(
      (c) => kindRow(kindOf(c)) === row && c.metadata.name === object.metadata.name && inNamespace(c, namespace),
    );
    if (at >= 0) this.children[at] = stored;
    else this.children.push(stored);
    return structuredClone(stored);
  }

  private patchParent(resource: string, namespace: string, name: string, patch: object): Promise<WebService> {
    this.record({ verb: 'patch', resource, namespace, name, detail: patch });
    const at = this.webServices.findIndex((ws) => ws.metadata.name === name && inNamespace(ws, namespace));
    if (at < 0) return Promise.reject(new NotFoundError(`webservices.apps.labhub.io "${name}" not found`));
    this.webServices[at] = mergePatch(this.webServices[at], patch) as WebService;
    return Promise.resolve(structuredClone(this.webServices[at]));
  }

  private watch(
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

function list<T>(items: T[]): ObjectList<T> {
  return { items: structuredClone(items), resourceVersion: '1' };
}

function inNamespace(object: { metadata: { namespace?: string } }, namespace: string | null): boolean {
  return namespace === null || (object.metadata.namespace ?? namespace) === namespace;
}

/** Equality (`k=v`) and existence (`k`) terms, comma-separated: what the reads under test send. */
function matchesSelector(object: { metadata: ObjectMeta }, selector: string | undefined): boolean {
  const labels = object.metadata.labels ?? {};
  return (selector ?? '')
    .split(',')
    .filter(Boolean)
    .every((term) => {
      const [key, value] = term.split('=');
      return term.includes('=') ? labels[key] === value : key in labels;
    });
}

function isLabelled(child: Child): boolean {
  return child.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE;
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

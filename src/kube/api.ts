// The API the program asks of the server, declared: the verbs each part of it uses and the
// shapes they speak. KubeClient implements every interface here (the compiler proves it), and
// so does the unit tests' in-memory server (test/support/fake-api.ts): whatever takes one of
// them runs against either.
import type { ResourceType } from '../core/kinds';
import type { ConfigMap, ObjectMeta } from '../core/model';
import type { KubeObject } from './object-location';
import type { WatchEvent, WatchOptions } from './transport';

/** none: write; client: send no write at all; server: send every write with dryRun=All. */
export type DryRun = 'none' | 'client' | 'server';

/** A LIST's items with the collection's resourceVersion, where a watch can start. */
export interface ObjectList<T> {
  items: T[];
  resourceVersion: string;
}

/** Metadata only (PartialObjectMetadata): names, labels and owners without the data. */
export interface ObjectMetadata {
  metadata: ConfigMap['metadata'];
}

export interface Lease {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  /** Optional in the API: a Lease written by another tool may have none. */
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** An events.k8s.io/v1 Event, as the controller and apply report them. */
export interface KubeEvent {
  metadata: { generateName?: string; name?: string; namespace: string };
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note: string;
  type: 'Normal' | 'Warning';
  regarding: {
    apiVersion: string;
    kind: string;
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
  };
}

export interface CustomResourceDefinition extends KubeObject {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** GET /version, as the API server answers it. */
export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
}

/** What a SelfSubjectAccessReview asks: may I do verb on group/resource(/subresource) in namespace? */
export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** Absent or "": every namespace. */
  namespace?: string;
  name?: string;
}

export interface AccessReview {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export interface ApplyOptions {
  /** Server-side dry run: the API server validates and admits, and persists nothing. */
  dryRun?: boolean;
  /** Take over fields another manager set (the objects install applies are ours by name). */
  force?: boolean;
}

export interface DeleteOptions {
  /** Deletes only the object with this uid, never a same-named successor. */
  uid?: string;
  dryRun?: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** At most this many items (a probe that a resource is served needs one). */
  limit?: number;
}

/**
 * What an apply of a child must find. A uid (and resourceVersion): the child we read, not a
 * successor of the same name, unchanged since. None: no object at all.
 */
export interface ApplyPrecondition {
  uid?: string;
  resourceVersion?: string;
  /** A handover (core/applied.ts): by the handover's field manager. */
  handover?: boolean;
  /** A create's handover (core/applied.ts): these fields of the object go to the handover's field manager. */
  handedOver?: { spec: Record<string, unknown> };
}

/** A LIST's options, and whether to ask for the items' metadata only (PartialObjectMetadata). */
export interface ListRequest extends ListOptions {
  /** Names, labels and owners without the data: bytes per object, not per value. */
  metadataOnly?: boolean;
}

/** Where a watch starts and how long the server keeps it open, with a LIST's options. */
export interface WatchRequest extends ListRequest {
  resourceVersion: string;
  timeoutSeconds: number;
}

/** Options of a write: the server records fieldManager as the writer of the fields it sets. */
export interface WriteOptions {
  fieldManager?: string;
  /** This write alone as a server-side dry run: admitted, validated, and not persisted. */
  dryRun?: boolean;
  /** Keep the answer's managedFields (a write's answer comes without them: nothing reads them). */
  keepManagedFields?: boolean;
}

/** A server-side apply's options: its field manager is required, force takes fields from others. */
export interface ApplyRequest extends WriteOptions {
  fieldManager: string;
  force?: boolean;
}

/** A delete's options; a delete goes in the background unless told otherwise. */
export interface DeleteRequest extends DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

/**
 * The generic verbs, over any type of the registry (the kind table, core/resource-types.ts),
 * as controller-runtime's client.Client: each one request. The objects they answer carry their
 * apiVersion and kind (a LIST's items and a watch's objects do not, from the server), except
 * metadata only. namespace is ignored for a cluster-scoped type; null reads every namespace.
 */
export interface ResourceClient {
  /** The object; NotFoundError when there is none. */
  get<T extends object>(type: ResourceType, namespace: string | null, name: string): Promise<T>;
  list<T extends object>(type: ResourceType, namespace: string | null, options?: ListRequest): Promise<ObjectList<T>>;
  /** Streams changes from resourceVersion (with bookmarks) until the server ends the stream. */
  watch<T extends object>(
    type: ResourceType,
    namespace: string | null,
    request: WatchRequest,
    onEvent: (event: WatchEvent<T>) => void,
    options: WatchOptions,
  ): Promise<void>;
  /** A POST: refused with AlreadyExists when the name is taken. */
  create<T extends { metadata: { name?: string } }>(
    type: ResourceType,
    namespace: string | null,
    object: T,
    options?: WriteOptions,
  ): Promise<T>;
  /** A JSON merge patch: only the fields it names change; a resourceVersion in it is a precondition. */
  patch<T extends object>(
    type: ResourceType,
    namespace: string | null,
    name: string,
    patch: object,
    options?: WriteOptions,
  ): Promise<T>;
  /** A JSON merge patch of the status subresource. */
  patchStatus<T extends object>(type: ResourceType, namespace: string | null, name: string, patch: object): Promise<T>;
  /** Server-side apply of the whole object; a uid and resourceVersion in its metadata are preconditions. */
  apply<T extends { metadata: ObjectMeta }>(
    type: ResourceType,
    namespace: string | null,
    object: T,
    options: ApplyRequest,
  ): Promise<T>;
  /** A PUT of the whole object, carrying the resourceVersion read: refused (409) if it changed since. */
  update<T extends { metadata: ObjectMeta }>(type: ResourceType, namespace: string | null, object: T): Promise<T>;
  /** Deletes (only the object of this uid, when given); false when it was already gone. */
  delete(type: ResourceType, namespace: string | null, name: string, options?: DeleteRequest): Promise<boolean>;
}

/**
 * What reading and reconciling WebServices asks of the API server: the WebServices, and their
 * children through the kind table. gather, the engine, the watch cache and the controller take
 * this.
 */
export interface KubeApi extends ResourceClient {
  /** Fixed for the client's life, so no write can slip out before a command sets it. */
  readonly dryRun: DryRun;
  /** This API with every request cut off once signal aborts (a reconcile past its deadline). */
  withSignal(signal: AbortSignal): KubeApi;
  /** The signal of withSignal, if any: a wait between requests (a retry's backoff) ends with it too. */
  readonly signal?: AbortSignal;
  /** Whether the cluster serves a kind's resource (discovery); fresh asks again. */
  apiServed(type: ResourceType, options?: { fresh?: boolean }): Promise<boolean>;
}

/** What install and uninstall ask: the objects they ship, and the WebServices and children left. */
export type InstallApi = KubeApi;

/** What the cluster says of itself and of the caller: its address and version, discovery, authorization. */
interface ClusterApi {
  readonly connection: { readonly server: string };
  serverVersion(): Promise<ServerVersion>;
  /** The resources a group/version serves, or null when it is not served. */
  servedResources(groupVersion: string): Promise<string[] | null>;
  /** A SelfSubjectAccessReview: may the caller do this? */
  reviewAccess(attributes: ResourceAttributes): Promise<AccessReview>;
}

/** What the leader election's Lease needs: a PUT carries the resourceVersion read, so two candidates never both win. */
export type LeaseApi = Pick<ResourceClient, 'get' | 'create' | 'update'>;

/** What `check` reads: the cluster, the installed objects, the Lease, and the WebServices as apply --all does. */
export type CheckApi = KubeApi & ClusterApi;

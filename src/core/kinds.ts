// The kinds of child a WebService may own, as data (metacontroller's composite is the model).
// Observe, decide, the engine, the watch cache, check, finalize, -f and the access reviews all
// read this table, and the RBAC and leader fence rules of the children are generated from it
// (npm run rbac:generate): another kind of child is another row and its desired-object builder.
// Pure: plain data and functions of the spec.
import {
  ChildCondition,
  Health,
  HealthContext,
  LiveObject,
  autoscalerCondition,
  configMapHealth,
  deploymentHealth,
  horizontalPodAutoscalerHealth,
  networkPolicyHealth,
  podDisruptionBudgetHealth,
  serviceHealth,
} from './health';
import {
  desiredHttpRoute,
  desiredIngress,
  httpRouteCondition,
  httpRouteHealth,
  ingressCondition,
  ingressHealth,
} from './expose';
import { Child, ConfigKind, ConfigMap, ObjectMeta, ROLE_LABEL, WebService, childName, kindOf } from './model';
import type { DesiredState, Observation } from './observation';
import {
  REVISION_ROLE,
  REVISION_SET,
  SNAPSHOT_ROLE,
  SetMember,
  configSnapshotHealth,
  revisionHealth,
  revisionSet,
  snapshotSet,
} from './revision';
import { CANARY_DEPLOYMENT_ID, CANARY_REVISION_ANNOTATION, TRACK_LABEL, Track, trackName } from './canary-requests';
import {
  DesiredObject,
  WORKLOAD_ANNOTATION,
  desiredData,
  desiredDeployment,
  desiredHorizontalPodAutoscaler,
  desiredNetworkPolicy,
  desiredPodDisruptionBudget,
  desiredService,
  replicasAt,
  replicasHandover,
  rollingUpdateTakeover,
  workloadWanted,
} from './workload';

/** How a kind's children are written. */
type WriteStyle =
  /**
   * Created whole, then JSON merge patches of the keys we own (merged.ts): others' keys stay.
   * The lab's ConfigMap: its decision JSON (a create of the object, a patch of what differs) is the lab's contract.
   */
  | 'merge'
  /** Server-side apply of the whole desired object: the server drops what we stopped setting, keeps others'. */
  | 'apply'
  /** Created whole and kept (a revision); a merge patch renumbers one. */
  | 'create'
  /** Created by the shell as a copy of a Secret's or ConfigMap's content, which it checks is still what was decided on. */
  | 'copy';

/** Where a kind lives in the API: what a generic read needs. */
export interface ResourceType {
  kind: string;
  apiVersion: string;
  /** The API group ('' for the core group), for RBAC and access reviews. */
  group: string;
  /** The REST resource (plural). */
  resource: string;
  /** False for a cluster-scoped kind (a CRD, a ClusterRole); unset: it lives in a namespace. */
  namespaced?: false;
}

/** What every row says: where its kind lives, how its children are written, how healthy one is. */
interface RowBase extends ResourceType {
  write: WriteStyle;
  /**
   * Why the controller may read and write this kind, a sentence or two: the comment on its rule
   * in the RBAC that npm run rbac:generate writes from this table.
   */
  purpose: string;
  /**
   * Served only where its API is installed (a CRD such as the Gateway API's): discovery says
   * whether it is, and where it is not, no child of the kind is read or written, and a
   * WebService that asks for one says so in the kind's condition. Unset: always served.
   */
  optional?: true;
  /** How healthy a child of this kind is, from its status (and what lies under it). */
  health(live: LiveObject, context: HealthContext): Health;
  /**
   * A condition of the WebService's own that this kind's child sets, while the spec asks for
   * one: its type, and its value from the live child. A kind without it adds no condition.
   */
  condition?: { type: string; of(live: LiveObject): ChildCondition };
}

/** A desired child of a `merge` row: what it sets is ours, key by key. */
export type MergeObject = ConfigMap & { apiVersion: string; kind: string };

/** A row of one child per WebService, on a name of its own. */
export interface ChildKindRow extends RowBase {
  /** The row's name in an observation's children, where another row has its kind (rowId); unset: its kind. */
  id?: string;
  /** The child's name for a WebService of this name. */
  nameFor(parentName: string): string;
  /** Whether a WebService's spec asks for this child. */
  wanted(parent: WebService): boolean;
  /**
   * The desired object, for the kinds written by server-side apply: our metadata (name,
   * labels, ownerReference) goes in, the whole object comes out; null when the spec does not
   * ask for it.
   */
  build?(metadata: ObjectMeta, parent: { name: string; desired: DesiredState }): DesiredObject | null;
  /**
   * For a `merge` row (always wanted): the desired object, from our metadata (name, labels,
   * ownerReference). Each key it sets in data and labels is ours, and so is the ownerReference.
   */
  mergeObject?(metadata: ObjectMeta, parent: { name: string; desired: DesiredState }): MergeObject;
  /** For a `merge` row: the annotations it owns, set where the desired object has them, else removed. */
  mergeAnnotations?: readonly string[];
  /**
   * An object to apply just before the desired one, when an apply of the desired one alone
   * cannot remove a field the live object holds (a server default no field manager owns);
   * null when it alone will do.
   */
  applyFirst?(want: DesiredObject, live: Child): DesiredObject | null;
  /**
   * Fields of the live child that our apply is about to stop setting and another controller
   * takes over: them alone, at their live values, for an apply by a field manager of their
   * own just before ours, so the server keeps them; null when nothing is to be handed over.
   * Without a live child: the fields a new one is created with for the other controller,
   * owned by that field manager from the start.
   */
  handover?(live: Child | null, parent: { name: string; desired: DesiredState }): DesiredObject | null;
  /**
   * While something holds the live child (a canary holds the stable Deployment on its revision):
   * the fields to write instead of the desired object, alone, by the handover's field manager;
   * null when nothing holds it.
   */
  held?(live: Child, parent: { name: string; desired: DesiredState }): DesiredObject | null;
}

const sameName = (parentName: string) => parentName;

export const CONFIG_MAP: ChildKindRow = {
  kind: 'ConfigMap',
  apiVersion: 'v1',
  group: '',
  resource: 'configmaps',
  write: 'merge',
  purpose: "The lab's ConfigMap, <name>-desired, which holds the decision.",
  nameFor: childName,
  wanted: () => true,
  mergeObject: (metadata, parent) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    // The marker tells readers that look by label (apply --all) to look for workload children too.
    metadata: parent.desired.workload ? { ...metadata, annotations: { [WORKLOAD_ANNOTATION]: 'true' } } : metadata,
    data: desiredData(parent.desired),
  }),
  mergeAnnotations: [WORKLOAD_ANNOTATION],
  health: configMapHealth,
};

export const DEPLOYMENT: ChildKindRow = {
  kind: 'Deployment',
  apiVersion: 'apps/v1',
  group: 'apps',
  resource: 'deployments',
  write: 'apply',
  purpose: "spec.workload's Deployment.",
  nameFor: sameName,
  wanted: (parent) => parent.spec.workload !== undefined,
  build: (metadata, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    if (!want) return null;
    // With a rollout, the stable pods carry the track label, and the Deployment names their revision.
    const { rollout, revision } = parent.desired;
    if (rollout && revision) metadata.annotations = { ...metadata.annotations, [CANARY_REVISION_ANNOTATION]: revision };
    const desired = desiredDeployment(metadata, rollout ? { ...want, track: 'stable' } : want);
    // Promoting, the stable pods roll to the canary's revision at the canary's full count.
    if (parent.desired.canary) (desired.spec as { replicas?: number }).replicas = parent.desired.canary.stableReplicas;
    return desired;
  },
  applyFirst: rollingUpdateTakeover,
  health: deploymentHealth,
  handover: (live, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    return want && replicasHandover(live, want);
  },
  // A canary holds the stable pods on their revision: only their count follows its weight.
  held: (live, parent) => {
    const canary = parent.desired.canary;
    if (!canary?.holdStable) return null;
    return replicasAt({ name: live.metadata.name, namespace: live.metadata.namespace }, canary.stableReplicas);
  },
};

/** spec.rollout's canary: the new revision's pods beside the stable ones, while a canary runs. */
const CANARY_DEPLOYMENT: ChildKindRow = {
  id: CANARY_DEPLOYMENT_ID,
  kind: 'Deployment',
  apiVersion: 'apps/v1',
  group: 'apps',
  resource: 'deployments',
  write: 'apply',
  purpose: "spec.rollout's canary Deployment.",
  nameFor: (parentName) => trackName(parentName, 'canary'),
  wanted: (parent) => parent.spec.rollout !== undefined && parent.spec.workload !== undefined,
  build: (metadata, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    const canary = parent.desired.canary;
    if (!want || !canary) return null;
    const selector = { ...want.selector, [TRACK_LABEL]: 'canary' };
    metadata.annotations = { ...metadata.annotations, [CANARY_REVISION_ANNOTATION]: canary.status.revision };
    return desiredDeployment(metadata, { ...want, selector, replicas: canary.canaryReplicas });
  },
  health: deploymentHealth,
};

/** With spec.rollout and a port, a Service of the stable pods and one of the canary's: a route splits between them. */
function trackedService(id: string, track: Track): ChildKindRow {
  return {
    id,
    kind: 'Service',
    apiVersion: 'v1',
    group: '',
    resource: 'services',
    write: 'apply',
    purpose: `spec.rollout's Service of the ${track} pods.`,
    nameFor: (parentName) => trackName(parentName, track),
    wanted: (parent) => parent.spec.rollout !== undefined && parent.spec.workload?.port !== undefined,
    build: (metadata, parent) => {
      const want = workloadWanted(parent.name, parent.desired);
      if (!want || !parent.desired.rollout) return null;
      return desiredService(metadata, { ...want, selector: { ...want.selector, [TRACK_LABEL]: track } });
    },
    health: serviceHealth,
  };
}

const SERVICE: ChildKindRow = {
  kind: 'Service',
  apiVersion: 'v1',
  group: '',
  resource: 'services',
  write: 'apply',
  purpose: "spec.workload.port's Service.",
  nameFor: sameName,
  wanted: (parent) => parent.spec.workload?.port !== undefined,
  build: (metadata, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    return want && desiredService(metadata, want);
  },
  health: serviceHealth,
};

export const POD_DISRUPTION_BUDGET: ChildKindRow = {
  kind: 'PodDisruptionBudget',
  apiVersion: 'policy/v1',
  group: 'policy',
  resource: 'poddisruptionbudgets',
  write: 'apply',
  purpose: "spec.workload.disruption's budget.",
  nameFor: sameName,
  wanted: (parent) => parent.spec.workload?.disruption !== undefined,
  build: (metadata, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    return want && desiredPodDisruptionBudget(metadata, want);
  },
  health: podDisruptionBudgetHealth,
};

export const NETWORK_POLICY: ChildKindRow = {
  kind: 'NetworkPolicy',
  apiVersion: 'networking.k8s.io/v1',
  group: 'networking.k8s.io',
  resource: 'networkpolicies',
  write: 'apply',
  purpose: "spec.workload.networkPolicy's NetworkPolicy.",
  nameFor: sameName,
  wanted: (parent) => parent.spec.workload?.networkPolicy !== undefined,
  build: (metadata, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    return want && desiredNetworkPolicy(metadata, want);
  },
  health: networkPolicyHealth,
};

/** The WebService's condition that says whether its autoscaler can scale. */
const AUTOSCALING_CONDITION = 'Autoscaling';

const HORIZONTAL_POD_AUTOSCALER: ChildKindRow = {
  kind: 'HorizontalPodAutoscaler',
  apiVersion: 'autoscaling/v2',
  group: 'autoscaling',
  resource: 'horizontalpodautoscalers',
  write: 'apply',
  purpose: "spec.workload.autoscaling's autoscaler.",
  nameFor: sameName,
  wanted: (parent) => parent.spec.workload?.autoscaling !== undefined,
  build: (metadata, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    return want && desiredHorizontalPodAutoscaler(metadata, want);
  },
  health: horizontalPodAutoscalerHealth,
  condition: { type: AUTOSCALING_CONDITION, of: autoscalerCondition },
};

/** The WebService's condition that says whether anything in the cluster took its endpoint up. */
const EXPOSED_CONDITION = 'Exposed';

/** spec.expose without a gateway: an Ingress (its API is served everywhere). */
const INGRESS: ChildKindRow = {
  kind: 'Ingress',
  apiVersion: 'networking.k8s.io/v1',
  group: 'networking.k8s.io',
  resource: 'ingresses',
  write: 'apply',
  purpose: "spec.expose's Ingress.",
  nameFor: sameName,
  wanted: (parent) =>
    parent.spec.expose !== undefined &&
    parent.spec.expose.gateway === undefined &&
    parent.spec.workload?.port !== undefined,
  build: desiredIngress,
  health: ingressHealth,
  condition: { type: EXPOSED_CONDITION, of: ingressCondition },
};

/** spec.expose with a gateway: an HTTPRoute, where the Gateway API's CRDs are installed. */
const HTTP_ROUTE: ChildKindRow = {
  kind: 'HTTPRoute',
  apiVersion: 'gateway.networking.k8s.io/v1',
  group: 'gateway.networking.k8s.io',
  resource: 'httproutes',
  write: 'apply',
  purpose: "spec.expose.gateway's route.",
  optional: true,
  nameFor: sameName,
  wanted: (parent) => parent.spec.expose?.gateway !== undefined && parent.spec.workload?.port !== undefined,
  build: desiredHttpRoute,
  health: httpRouteHealth,
  condition: { type: EXPOSED_CONDITION, of: httpRouteCondition },
};

/**
 * A row of several children per WebService, each named after its content (revisions, config
 * snapshots): they carry the row's role label, and the row builds the set the WebService wants.
 */
export interface ChildSetRow extends RowBase {
  /** The row's name in an observation's childSets. */
  id: string;
  /** The role label's value on its children: rows of one kind tell theirs apart by it. */
  role: string;
  /** Whether a WebService may want any: readers look for them then (and wherever some exist). */
  mayWant(parent: WebService): boolean;
  /** The children the WebService wants now, from what it asks for and what exists. */
  desiredSet(obs: Observation): SetMember[];
  /** What of a child the watch cache keeps: the core reads no more of it. Unset: all of it. */
  cached?(child: Child): Child;
  /**
   * Watched with the config the pods read (metadata only, once some WebService reads config),
   * not by a watch of its own: a controller whose pods read no Secret needs no access to any.
   */
  watchedAsConfig?: true;
}

const hasWorkload = (parent: WebService) => parent.spec.workload !== undefined;

/** Immutable copies of the ConfigMaps the pods read, one per content: a revision's pods keep theirs. */
const CONFIG_SNAPSHOT: ChildSetRow = {
  id: 'ConfigSnapshot',
  kind: 'ConfigMap',
  apiVersion: 'v1',
  group: '',
  resource: 'configmaps',
  role: SNAPSHOT_ROLE,
  write: 'copy',
  purpose: "A revision's copy of each ConfigMap its pods read, deleted with the revision.",
  mayWant: hasWorkload,
  desiredSet: (obs) => snapshotSet(obs, 'ConfigMap'),
  health: configSnapshotHealth,
  cached: withoutData,
};

/** With snapshotSecrets: the same for the Secrets the pods read. */
const SECRET_SNAPSHOT: ChildSetRow = {
  id: 'SecretSnapshot',
  kind: 'Secret',
  apiVersion: 'v1',
  group: '',
  resource: 'secrets',
  role: SNAPSHOT_ROLE,
  write: 'copy',
  purpose: "With snapshotSecrets, a revision's copy of each Secret its pods read, deleted with the revision.",
  mayWant: (parent) => parent.spec.workload?.snapshotSecrets === true,
  desiredSet: (obs) => snapshotSet(obs, 'Secret'),
  health: configSnapshotHealth,
  cached: withoutData,
  watchedAsConfig: true,
};

/** Every change that rolls the pods is a numbered revision (as StatefulSets keep theirs). */
export const REVISION: ChildSetRow = {
  id: REVISION_SET,
  kind: 'ControllerRevision',
  apiVersion: 'apps/v1',
  group: 'apps',
  resource: 'controllerrevisions',
  role: REVISION_ROLE,
  write: 'create',
  purpose: 'Every change that rolls the pods is a revision, kept as a ControllerRevision.',
  mayWant: hasWorkload,
  desiredSet: revisionSet,
  health: revisionHealth,
  cached: (child) => {
    const { data, ...rest } = child as Child & { data?: { workload?: unknown } };
    if (!data || typeof data !== 'object') return child;
    const { workload: _dropped, ...summary } = data;
    return { ...rest, data: summary };
  },
};

/** A copy without its values: the core needs a snapshot's name and labels, never what it holds. */
function withoutData(child: Child): Child {
  const { data: _data, binaryData: _binary, ...rest } = child as Child & { data?: unknown; binaryData?: unknown };
  return rest;
}

/** A kind of the config the pods read: not a child, but read for the pods, and what that needs. */
export interface ConfigReadKind extends ResourceType {
  kind: ConfigKind;
  /** The verbs reading it needs (and making the namespace's config key, a Secret). */
  verbs: string[];
  /** Why, as a row's purpose says it. */
  purpose: string;
}

/**
 * The Secrets and ConfigMaps the pods read (env, envFrom, files): their content rolls the pods,
 * so `run` watches their metadata and reads the data the pods read, to digest it, with a key of
 * the namespace that a writer makes. What RBAC grants and check reviews where pods read config.
 */
export const CONFIG_READ_KINDS: readonly ConfigReadKind[] = [
  {
    kind: 'Secret',
    apiVersion: 'v1',
    group: '',
    resource: 'secrets',
    verbs: ['get', 'list', 'watch', 'create'],
    purpose:
      'The Secrets the pods read (env, envFrom, files): their metadata is watched, and the data of ' +
      "those the pods read (only those) is read to digest it; create: each namespace's config key. " +
      'RBAC cannot grant metadata alone: the rule allows more reads than the controller makes.',
  },
  {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    group: '',
    resource: 'configmaps',
    verbs: ['get', 'list', 'watch'],
    purpose:
      'The ConfigMaps the pods read (env, envFrom, files): their metadata is watched, and the data ' +
      'of those the pods read is read to digest it.',
  },
];

/**
 * A running canary's pods: not children (their ReplicaSet owns them), but read, by the canary's
 * label, for their containers' restarts (canary.ts aborts past spec.rollout.canary.maxRestarts).
 */
export const CANARY_PODS: ResourceType & { verbs: string[]; purpose: string } = {
  kind: 'Pod',
  apiVersion: 'v1',
  group: '',
  resource: 'pods',
  verbs: ['list'],
  purpose: "A running canary's pods, listed by its label for their containers' restarts.",
};

/** A row of the kind table, of either shape. */
export type KindRow = ChildKindRow | ChildSetRow;

/** The rows of one child per WebService, in the order they are read, written and listed (the ConfigMap first). */
export const NAMED_KINDS: readonly ChildKindRow[] = [
  CONFIG_MAP,
  DEPLOYMENT,
  SERVICE,
  POD_DISRUPTION_BUDGET,
  HORIZONTAL_POD_AUTOSCALER,
  NETWORK_POLICY,
  INGRESS,
  HTTP_ROUTE,
  // After the route: an abort sends the traffic back before the canary is scaled down.
  trackedService('StableService', 'stable'),
  trackedService('CanaryService', 'canary'),
  CANARY_DEPLOYMENT,
];

/** The rows of several children per WebService: made before the Deployment that reads them. */
export const SET_KINDS: readonly ChildSetRow[] = [CONFIG_SNAPSHOT, SECRET_SNAPSHOT, REVISION];

/** Every row of the table: the lab's ConfigMap, the config snapshots and revisions, then the workload. */
export const CHILD_KINDS: readonly KindRow[] = [CONFIG_MAP, ...SET_KINDS, ...NAMED_KINDS.slice(1)];

/** Each kind once, for what is per kind (a watch, a LIST, an RBAC rule): rows of one kind share it. */
export const WATCHED_KINDS: readonly KindRow[] = onePerKind(CHILD_KINDS);

/** The kinds the watch cache watches, by our label: each kind once, but those watched with the config. */
export const CACHED_KINDS: readonly KindRow[] = WATCHED_KINDS.filter((row) => !(isSetRow(row) && row.watchedAsConfig));

/** The set rows whose children the config watch finds (kinds.ts' watchedAsConfig). */
export const CONFIG_WATCHED_SETS: readonly ChildSetRow[] = SET_KINDS.filter((row) => row.watchedAsConfig);

/** The kinds served only where their API is installed: discovery is asked about these. */
export const OPTIONAL_KINDS: readonly ChildKindRow[] = NAMED_KINDS.filter((row) => row.optional === true);

/** The kinds written by server-side apply: a WebService's workload. */
export const APPLIED_KINDS: readonly ChildKindRow[] = NAMED_KINDS.filter((row) => row.write === 'apply');

/** The first row of each kind: for what is per kind (a LIST, an access review), where rows share a kind. */
export function onePerKind<R extends ResourceType>(rows: readonly R[]): R[] {
  return rows.filter((row, i) => rows.findIndex((other) => other.kind === row.kind) === i);
}

/** The row of a kind for a request's path (rows of one kind share it), or undefined for a kind no WebService owns. */
export function kindRow(kind: string | undefined): KindRow | undefined {
  return CHILD_KINDS.find((row) => row.kind === kind);
}

/** The set row a child belongs to: its kind's, told apart by the role label; undefined for a named row's child. */
export function setRowOf(child: Child): ChildSetRow | undefined {
  const kind = kindOf(child);
  const role = child.metadata.labels?.[ROLE_LABEL];
  return SET_KINDS.find((row) => row.kind === kind && row.role === role);
}

/** The verbs a row's children need: all of them, but a copy is never read whole nor patched. */
export function rowVerbs(row: KindRow): string[] {
  return row.write === 'copy'
    ? ['list', 'watch', 'create', 'delete']
    : ['get', 'list', 'watch', 'create', 'patch', 'delete'];
}

/** A child as the watch cache keeps it: what the core reads of it (its set row's cached column). */
export function cachedForm(child: Child): Child {
  return setRowOf(child)?.cached?.(child) ?? child;
}

/** A named row's key in an observation's children: its id, else its kind. */
export function rowId(row: ChildKindRow): string {
  return row.id ?? row.kind;
}

/** Whether a row has several children per WebService. */
export function isSetRow(row: KindRow): row is ChildSetRow {
  return 'desiredSet' in row;
}

/** kubectl's name for a kind's resource: configmaps, deployments.apps. */
export function resourceName(row: ResourceType): string {
  return row.group ? `${row.resource}.${row.group}` : row.resource;
}

/** How a decision and a message name one child: deployment/checkout. */
export function childTarget(row: { kind: string }, name: string): string {
  return `${row.kind.toLowerCase()}/${name}`;
}

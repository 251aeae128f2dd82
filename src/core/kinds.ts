// The kinds of child a WebService may own, as data (metacontroller's composite is the model).
// Observe, decide, the engine, the watch cache, check, finalize, -f and the access reviews all
// read this table: another kind of child is another row and its desired-object builder.
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
import type { Child, ObjectMeta, WebService } from './model';
import type { DesiredState } from './observe';
import {
  DesiredObject,
  desiredDeployment,
  desiredHorizontalPodAutoscaler,
  desiredPodDisruptionBudget,
  desiredService,
  replicasHandover,
  rollingUpdateTakeover,
  workloadWanted,
} from './workload';

/** How a kind's children are written. */
type WriteStyle =
  /** The lab's ConfigMap: JSON merge patches of the keys we own (its decision JSON is the lab's contract). */
  | 'merge'
  /** Server-side apply of the whole desired object: the server drops what we stopped setting, keeps others'. */
  | 'apply';

/** Where a kind lives in the API: what a generic read needs. */
export interface ResourceType {
  kind: string;
  apiVersion: string;
  /** The API group ('' for the core group), for RBAC and access reviews. */
  group: string;
  /** The REST resource (plural). */
  resource: string;
}

export interface ChildKindRow extends ResourceType {
  write: WriteStyle;
  /**
   * Served only where its API is installed (a CRD such as the Gateway API's): discovery says
   * whether it is, and where it is not, no child of the kind is read or written, and a
   * WebService that asks for one says so in the kind's condition. Unset: always served.
   */
  optional?: true;
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
   * An object to apply just before the desired one, when an apply of the desired one alone
   * cannot remove a field the live object holds (a server default no field manager owns);
   * null when it alone will do.
   */
  applyFirst?(want: DesiredObject, live: Child): DesiredObject | null;
  /** How healthy a child of this kind is, from its status (and what lies under it). */
  health(live: LiveObject, context: HealthContext): Health;
  /**
   * Fields of the live child that our apply is about to stop setting and another controller
   * takes over: them alone, at their live values, for an apply by a field manager of their
   * own just before ours, so the server keeps them; null when nothing is to be handed over.
   */
  handover?(live: Child, parent: { name: string; desired: DesiredState }): DesiredObject | null;
  /**
   * A condition of the WebService's own that this kind's child sets, while the spec asks for
   * one: its type, and its value from the live child. A kind without it adds no condition.
   */
  condition?: { type: string; of(live: LiveObject): ChildCondition };
}

/** The suffix of the lab's ConfigMap: `<name>-desired`. */
export const CONFIG_MAP_SUFFIX = '-desired';

const sameName = (parentName: string) => parentName;

export const CONFIG_MAP: ChildKindRow = {
  kind: 'ConfigMap',
  apiVersion: 'v1',
  group: '',
  resource: 'configmaps',
  write: 'merge',
  nameFor: (parentName) => `${parentName}${CONFIG_MAP_SUFFIX}`,
  wanted: () => true,
  health: configMapHealth,
};

export const DEPLOYMENT: ChildKindRow = {
  kind: 'Deployment',
  apiVersion: 'apps/v1',
  group: 'apps',
  resource: 'deployments',
  write: 'apply',
  nameFor: sameName,
  wanted: (parent) => parent.spec.workload !== undefined,
  build: (metadata, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    return want && desiredDeployment(metadata, want);
  },
  applyFirst: rollingUpdateTakeover,
  health: deploymentHealth,
  handover: (live, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    return want && replicasHandover(live, want);
  },
};

const SERVICE: ChildKindRow = {
  kind: 'Service',
  apiVersion: 'v1',
  group: '',
  resource: 'services',
  write: 'apply',
  nameFor: sameName,
  wanted: (parent) => parent.spec.workload?.port !== undefined,
  build: (metadata, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    return want && desiredService(metadata, want);
  },
  health: serviceHealth,
};

const POD_DISRUPTION_BUDGET: ChildKindRow = {
  kind: 'PodDisruptionBudget',
  apiVersion: 'policy/v1',
  group: 'policy',
  resource: 'poddisruptionbudgets',
  write: 'apply',
  nameFor: sameName,
  wanted: (parent) => parent.spec.workload?.disruption !== undefined,
  build: (metadata, parent) => {
    const want = workloadWanted(parent.name, parent.desired);
    return want && desiredPodDisruptionBudget(metadata, want);
  },
  health: podDisruptionBudgetHealth,
};

/** The WebService's condition that says whether its autoscaler can scale. */
const AUTOSCALING_CONDITION = 'Autoscaling';

const HORIZONTAL_POD_AUTOSCALER: ChildKindRow = {
  kind: 'HorizontalPodAutoscaler',
  apiVersion: 'autoscaling/v2',
  group: 'autoscaling',
  resource: 'horizontalpodautoscalers',
  write: 'apply',
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
  optional: true,
  nameFor: sameName,
  wanted: (parent) => parent.spec.expose?.gateway !== undefined && parent.spec.workload?.port !== undefined,
  build: desiredHttpRoute,
  health: httpRouteHealth,
  condition: { type: EXPOSED_CONDITION, of: httpRouteCondition },
};

/** Every kind of child, in the order they are read, written and listed (the ConfigMap first). */
export const CHILD_KINDS: readonly ChildKindRow[] = [
  CONFIG_MAP,
  DEPLOYMENT,
  SERVICE,
  POD_DISRUPTION_BUDGET,
  HORIZONTAL_POD_AUTOSCALER,
  INGRESS,
  HTTP_ROUTE,
];

/** The kinds served only where their API is installed: discovery is asked about these. */
export const OPTIONAL_KINDS: readonly ChildKindRow[] = CHILD_KINDS.filter((row) => row.optional === true);

/** The kinds written by server-side apply: a WebService's workload. */
export const APPLIED_KINDS: readonly ChildKindRow[] = CHILD_KINDS.filter((row) => row.write === 'apply');

/** The row of a kind, or undefined for a kind no WebService owns. */
export function kindRow(kind: string | undefined): ChildKindRow | undefined {
  return CHILD_KINDS.find((row) => row.kind === kind);
}

/** kubectl's name for a kind's resource: configmaps, deployments.apps. */
export function resourceName(row: ResourceType): string {
  return row.group ? `${row.resource}.${row.group}` : row.resource;
}

/** How a decision and a message name one child: deployment/checkout. */
export function childTarget(row: ChildKindRow, name: string): string {
  return `${row.kind.toLowerCase()}/${name}`;
}

// describe's tree of what a WebService owns, kubectl-tree's way: each child of the kind table,
// and under it what the cluster made of it (a Deployment's ReplicaSets and their pods, a
// Service's EndpointSlices), each with its state in a word. Pure: the objects come in as data.
import type { ChildVerdict } from './decide';
import { CHILD_KINDS, ChildKindRow, DEPLOYMENT, ResourceType, childTarget } from './kinds';
import { Deployment, ObjectMeta, OwnerReference, WebService, kindOf } from './model';
import type { Observation } from './observe';
import { rolloutOf } from './workload';

/** A node's state in one word, which the printer colours. */
export type NodeState =
  | 'Ready'
  | 'Progressing'
  | 'Pending'
  | 'OutOfDate'
  | 'Missing'
  | 'Conflict'
  | 'Unwanted'
  | 'Failed'
  | 'Completed'
  | 'ScaledDown'
  | 'Terminating'
  | 'Unknown';

export interface TreeNode {
  kind: string;
  name: string;
  /** Absent for a child that does not exist. */
  uid?: string;
  state: NodeState;
  /** The facts behind the state, in a few words: "2/2 ready", "Running, 1/1 ready, 0 restarts". */
  info: string;
  /** Why it is not Ready, in the words of whoever said so (the API server, a controller, decide). */
  message?: string;
  creationTimestamp?: string;
  /** A pod's phase, its ready containers and their restarts. */
  pod?: { phase: string; ready: string; restarts: number };
  /** An EndpointSlice's or a Service's endpoints: how many are ready, of how many, and where. */
  endpoints?: { ready: number; total: number; addresses: string[] };
  children: TreeNode[];
}

/** Any object describe reads: metadata, and whatever spec and status its kind has. */
export interface LiveObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
}

/** What the cluster made of the children, by kind (absent: not read, e.g. forbidden). */
export type RelatedObjects = Partial<Record<string, LiveObject[]>>;

const REPLICA_SET: ResourceType = {
  kind: 'ReplicaSet',
  apiVersion: 'apps/v1',
  group: 'apps',
  resource: 'replicasets',
};
const POD: ResourceType = { kind: 'Pod', apiVersion: 'v1', group: '', resource: 'pods' };
const ENDPOINT_SLICE: ResourceType = {
  kind: 'EndpointSlice',
  apiVersion: 'discovery.k8s.io/v1',
  group: 'discovery.k8s.io',
  resource: 'endpointslices',
};

/** The label that ties an EndpointSlice to its Service. */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/**
 * What lies under a node of a kind: a table, like the kind table. `linked` says whether an
 * object belongs under a given parent; `selector` narrows the LIST to one WebService's
 * objects, `scopeSelector` to every WebService's in a scope (undefined: all of that kind).
 */
export interface DescendantRow {
  type: ResourceType;
  parentKind: string;
  linked(parent: LiveObject, object: LiveObject): boolean;
  selector(webServiceName: string, podSelector: string): string;
  scopeSelector?: string;
}

const ownedBy = (parent: LiveObject, object: LiveObject) =>
  parent.metadata.uid !== undefined &&
  (object.metadata.ownerReferences ?? []).some((ref: OwnerReference) => ref.uid === parent.metadata.uid);

/** Our pods and ReplicaSets carry app.kubernetes.io/name=webservice (see pod.ts). */
const OUR_PODS = 'app.kubernetes.io/name=webservice';

export const DESCENDANT_KINDS: readonly DescendantRow[] = [
  {
    type: REPLICA_SET,
    parentKind: DEPLOYMENT.kind,
    linked: ownedBy,
    selector: (_name, podSelector) => podSelector,
    scopeSelector: OUR_PODS,
  },
  {
    type: POD,
    parentKind: REPLICA_SET.kind,
    linked: ownedBy,
    selector: (_name, podSelector) => podSelector,
    scopeSelector: OUR_PODS,
  },
  {
    type: ENDPOINT_SLICE,
    parentKind: 'Service',
    linked: (service, slice) =>
      slice.metadata.labels?.[SERVICE_NAME_LABEL] === service.metadata.name &&
      slice.metadata.namespace === service.metadata.namespace,
    selector: (name) => `${SERVICE_NAME_LABEL}=${name}`,
    scopeSelector: SERVICE_NAME_LABEL,
  },
];

/** The descendant kinds reached from these kinds of child, through the table, in its order. */
export function descendantsOf(childKinds: string[]): DescendantRow[] {
  const reached = new Set(childKinds);
  const rows: DescendantRow[] = [];
  for (const row of DESCENDANT_KINDS) {
    if (!reached.has(row.parentKind)) continue;
    rows.push(row);
    reached.add(row.type.kind);
  }
  return rows;
}

type Health = Pick<TreeNode, 'state' | 'info' | 'message' | 'pod' | 'endpoints'>;

/**
 * The tree under a WebService: one node per child the kind table has (in its order) that is
 * wanted or present, with its verdict from decide and its health from its status.
 */
export function buildTree(
  parent: WebService,
  observation: Observation,
  verdicts: ChildVerdict[],
  children: LiveObject[],
  related: RelatedObjects,
): TreeNode {
  const nodes: TreeNode[] = [];
  for (const row of CHILD_KINDS) {
    const name = row.nameFor(observation.name);
    const verdict = verdicts.find((v) => v.target === childTarget(row, name));
    const live = children.find((c) => kindOf(c) === row.kind && c.metadata.name === name) ?? null;
    if (!verdict && !live) continue;
    nodes.push(childNode(row, name, verdict, live, observation, related));
  }
  return {
    kind: parent.kind ?? 'WebService',
    name: parent.metadata.name,
    uid: parent.metadata.uid,
    ...parentHealth(parent),
    creationTimestamp: parent.metadata.creationTimestamp,
    children: nodes,
  };
}

function parentHealth(parent: WebService): Health {
  if (parent.metadata.deletionTimestamp) return { state: 'Terminating', info: 'being deleted' };
  const conditions = parent.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const stalled = conditions.find((c) => c.type === 'Stalled' && c.status === 'True');
  const info = parent.status?.ready !== undefined ? `${parent.status.ready} ready` : '';
  if (!ready) return { state: 'Unknown', info: 'no status yet' };
  if (ready.status === 'True') return { state: 'Ready', info };
  return { state: stalled ? 'Failed' : 'Progressing', info, message: `${ready.reason}: ${ready.message}` };
}

function childNode(
  row: ChildKindRow,
  name: string,
  verdict: ChildVerdict | undefined,
  live: LiveObject | null,
  observation: Observation,
  related: RelatedObjects,
): TreeNode {
  const base = { kind: row.kind, name, uid: live?.metadata.uid, creationTimestamp: live?.metadata.creationTimestamp };
  if (!live || verdict?.state === 'missing') {
    return { ...base, state: 'Missing', info: 'does not exist yet', children: [] };
  }
  if (verdict?.state === 'conflict') {
    return { ...base, state: 'Conflict', info: 'not ours: left alone', message: verdict.reason, children: [] };
  }
  const children = descendantNodes(live, related);
  if (verdict?.state === 'unwanted') {
    return { ...base, state: 'Unwanted', info: 'the spec no longer asks for it; a pass deletes it', children };
  }
  const health = childHealth(row, live, observation, children);
  // Failing beats out of date: why it fails is what to fix first.
  if (verdict?.state === 'differs' && health.state !== 'Failed') {
    return { ...base, ...health, state: 'OutOfDate', message: verdict.reason, children };
  }
  return { ...base, ...health, children };
}

function childHealth(row: ChildKindRow, live: LiveObject, observation: Observation, children: TreeNode[]): Health {
  switch (row.kind) {
    case 'ConfigMap':
      return configMapHealth(live);
    case DEPLOYMENT.kind:
      return deploymentHealth(live, observation.desired.replicas);
    case 'Service':
      return serviceHealth(live, children);
    default:
      // A kind with no health of its own: it exists and matches the spec.
      return { state: 'Ready', info: 'matches the spec' };
  }
}

function configMapHealth(live: LiveObject): Health {
  const data = (live.data ?? {}) as Record<string, string>;
  const info = Object.entries(data)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
  return { state: 'Ready', info: info || 'no data' };
}

interface StatusCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const conditionsOf = (object: LiveObject): StatusCondition[] =>
  Array.isArray(object.status?.conditions) ? (object.status.conditions as StatusCondition[]) : [];

const failureOf = (object: LiveObject): StatusCondition | undefined =>
  conditionsOf(object).find((c) => c.type === 'ReplicaFailure' && c.status === 'True');

const said = (c: StatusCondition) => `${c.type} ${c.reason ?? ''}: ${c.message ?? ''}`.replace(' :', ':');

function deploymentHealth(live: LiveObject, desired: number): Health {
  const deployment = live as unknown as Deployment;
  const rollout = rolloutOf(deployment, desired, false);
  const status = deployment.status ?? {};
  const info =
    `${rollout.ready}/${desired} ready, ${status.updatedReplicas ?? 0} up to date, ` +
    `${status.availableReplicas ?? 0} available`;
  if (rollout.complete) return { state: 'Ready', info };
  const failure = failureOf(live);
  if (failure) return { state: 'Failed', info, message: said(failure) };
  if (rollout.stalled) {
    const progressing = conditionsOf(live).find((c) => c.type === 'Progressing');
    return { state: 'Failed', info, message: progressing ? said(progressing) : 'its progress deadline was exceeded' };
  }
  return { state: 'Progressing', info };
}

function serviceHealth(live: LiveObject, children: TreeNode[]): Health {
  const spec = live.spec ?? {};
  const ports = ((spec.ports as { port?: number }[] | undefined) ?? []).map((p) => p.port).join(',');
  const where = `${textOr(spec.type, 'ClusterIP')} ${textOr(spec.clusterIP, '')}`.trim();
  const slices = children.filter((c) => c.endpoints);
  const ready = slices.reduce((sum, c) => sum + (c.endpoints?.ready ?? 0), 0);
  const total = slices.reduce((sum, c) => sum + (c.endpoints?.total ?? 0), 0);
  const addresses = slices.flatMap((c) => c.endpoints?.addresses ?? []);
  const info = `${where}${ports ? ` port ${ports}` : ''}; ${ready} ready endpoint${ready === 1 ? '' : 's'}`;
  return { state: ready > 0 ? 'Ready' : 'Progressing', info, endpoints: { ready, total, addresses } };
}

/** The nodes under an object, through the descendant table, each sorted by name. */
function descendantNodes(object: LiveObject, related: RelatedObjects): TreeNode[] {
  const nodes: TreeNode[] = [];
  for (const row of DESCENDANT_KINDS) {
    if (row.parentKind !== (object.kind ?? '')) continue;
    const linked = (related[row.type.kind] ?? [])
      .filter((candidate) => row.linked(object, candidate))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    for (const child of linked) {
      const children = descendantNodes(child, related);
      nodes.push({
        kind: row.type.kind,
        name: child.metadata.name,
        uid: child.metadata.uid,
        ...descendantHealth(row.type.kind, child),
        creationTimestamp: child.metadata.creationTimestamp,
        children,
      });
    }
  }
  return nodes;
}

function descendantHealth(kind: string, object: LiveObject): Health {
  switch (kind) {
    case REPLICA_SET.kind:
      return replicaSetHealth(object);
    case POD.kind:
      return podHealth(object);
    case ENDPOINT_SLICE.kind:
      return endpointSliceHealth(object);
    default:
      return { state: 'Unknown', info: '' };
  }
}

function replicaSetHealth(object: LiveObject): Health {
  const desired = Number(object.spec?.replicas ?? 0);
  const status = object.status ?? {};
  const ready = Number(status.readyReplicas ?? 0);
  const current = Number(status.replicas ?? 0);
  const revision = object.metadata.annotations?.['deployment.kubernetes.io/revision'];
  const info = `${revision ? `revision ${revision}, ` : ''}${ready}/${desired} ready`;
  const failure = failureOf(object);
  if (failure) return { state: 'Failed', info, message: said(failure) };
  if (desired === 0 && current === 0) return { state: 'ScaledDown', info };
  return { state: ready === desired && current === desired ? 'Ready' : 'Progressing', info };
}

interface ContainerStatus {
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string; message?: string }; terminated?: { reason?: string; message?: string } };
}

/** Waiting reasons that need someone to act: a pod in one is failing, not starting. */
const FAILING_WAIT_REASONS = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

function podHealth(object: LiveObject): Health {
  const status = object.status ?? {};
  const phase = textOr(status.phase, 'Unknown');
  const containers = (object.spec?.containers as unknown[] | undefined)?.length ?? 0;
  const statuses = (status.containerStatuses as ContainerStatus[] | undefined) ?? [];
  const readyCount = statuses.filter((s) => s.ready === true).length;
  const restarts = statuses.reduce((sum, s) => sum + (s.restartCount ?? 0), 0);
  const pod = { phase, ready: `${readyCount}/${containers}`, restarts };
  const info = `${phase}, ${pod.ready} ready, ${restarts} restart${restarts === 1 ? '' : 's'}`;
  const base = { info, pod };
  if (object.metadata.deletionTimestamp) return { ...base, state: 'Terminating' };
  if (phase === 'Failed') return { ...base, state: 'Failed', message: podMessage(status) };
  if (phase === 'Succeeded') return { ...base, state: 'Completed' };
  const waiting = statuses.map((s) => s.state?.waiting).find((w) => w?.reason && FAILING_WAIT_REASONS.has(w.reason));
  if (waiting) return { ...base, state: 'Failed', message: `${waiting.reason}: ${waiting.message ?? ''}`.trim() };
  const conditions = conditionsOf(object);
  if (conditions.some((c) => c.type === 'Ready' && c.status === 'True')) return { ...base, state: 'Ready' };
  if (phase === 'Pending') {
    const unscheduled = conditions.find((c) => c.type === 'PodScheduled' && c.status === 'False');
    return { ...base, state: 'Pending', ...(unscheduled ? { message: said(unscheduled) } : {}) };
  }
  return { ...base, state: 'Progressing' };
}

function podMessage(status: Record<string, unknown>): string {
  return [status.reason, status.message].filter((part) => typeof part === 'string' && part !== '').join(': ');
}

interface Endpoint {
  addresses?: string[];
  conditions?: { ready?: boolean };
}

function endpointSliceHealth(object: LiveObject): Health {
  const endpoints = (object.endpoints as Endpoint[] | undefined) ?? [];
  const ports = ((object.ports as { port?: number }[] | undefined) ?? []).map((p) => p.port).filter(Boolean);
  // An endpoint whose ready condition is unset counts as ready (the API's own rule).
  const ready = endpoints.filter((e) => e.conditions?.ready !== false);
  const addresses = ready.flatMap((e) => e.addresses ?? []).map((a) => (ports.length > 0 ? `${a}:${ports[0]}` : a));
  const shown = addresses.slice(0, MAX_ADDRESSES).join(', ') + (addresses.length > MAX_ADDRESSES ? ', …' : '');
  const info = `${ready.length}/${endpoints.length} ready${shown ? `: ${shown}` : ''}`;
  return {
    state: ready.length > 0 ? 'Ready' : 'Progressing',
    info,
    endpoints: { ready: ready.length, total: endpoints.length, addresses },
  };
}

/** Addresses listed on a line before it says "…". */
const MAX_ADDRESSES = 3;

/** A string field of a loosely typed object, or the fallback. */
function textOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/** Every object in a tree that exists, for matching Events to it. */
export function treeObjects(root: TreeNode): ObjectRef[] {
  const self = root.state === 'Missing' ? [] : [{ kind: root.kind, name: root.name, uid: root.uid }];
  return [...self, ...root.children.flatMap(treeObjects)];
}

export interface ObjectRef {
  kind: string;
  name: string;
  uid?: string;
}

// describe's tree of what a WebService owns, kubectl-tree's way: each child of the kind table,
// and under it what the cluster made of it (a Deployment's ReplicaSets and their pods, a
// Service's EndpointSlices), each with its state in a word. Pure: the objects come in as data.
import type { ChildVerdict } from './decide';
import { Health, LiveObject, endpointSliceHealth, podHealth, replicaSetHealth } from './health';
import { CHILD_KINDS, ChildKindRow, DEPLOYMENT, ResourceType, childTarget, isSetRow, resourceName } from './kinds';
import { INSTANCE_LABEL, OwnerReference, WebService, kindOf } from './model';
import type { Observation } from './observation';
import { podsWanted } from './workload';

export type { LiveObject, NodeState } from './health';

export interface TreeNode extends Health {
  kind: string;
  name: string;
  /** Absent for a child that does not exist. */
  uid?: string;
  creationTimestamp?: string;
  children: TreeNode[];
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
  health(object: LiveObject): Health;
}

const ownedBy = (parent: LiveObject, object: LiveObject) =>
  parent.metadata.uid !== undefined &&
  (object.metadata.ownerReferences ?? []).some((ref: OwnerReference) => ref.uid === parent.metadata.uid);

/**
 * Our pods and ReplicaSets carry app.kubernetes.io/instance, old and new alike (labels.ts); which
 * of them are ours, their ownerReferences say.
 */
const OUR_PODS = INSTANCE_LABEL;

export const DESCENDANT_KINDS: readonly DescendantRow[] = [
  {
    type: REPLICA_SET,
    parentKind: DEPLOYMENT.kind,
    linked: ownedBy,
    selector: (_name, podSelector) => podSelector,
    scopeSelector: OUR_PODS,
    health: replicaSetHealth,
  },
  {
    type: POD,
    parentKind: REPLICA_SET.kind,
    linked: ownedBy,
    selector: (_name, podSelector) => podSelector,
    scopeSelector: OUR_PODS,
    health: podHealth,
  },
  {
    type: ENDPOINT_SLICE,
    parentKind: 'Service',
    linked: (service, slice) =>
      slice.metadata.labels?.[SERVICE_NAME_LABEL] === service.metadata.name &&
      slice.metadata.namespace === service.metadata.namespace,
    selector: (name) => `${SERVICE_NAME_LABEL}=${name}`,
    scopeSelector: SERVICE_NAME_LABEL,
    health: endpointSliceHealth,
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
    // Revisions and config snapshots are history, which `history` lists: the tree is what runs.
    if (isSetRow(row)) continue;
    const name = row.nameFor(observation.name);
    const verdict = verdicts.find((v) => v.target === childTarget(row, name));
    const live = children.find((c) => kindOf(c) === row.kind && c.metadata.name === name) ?? null;
    if (observation.absentKinds?.includes(row.kind)) {
      // Its API is not served: nothing to show, unless the spec asks for one.
      if (row.wanted(parent)) nodes.push(absentNode(row, name));
      continue;
    }
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

/** A child the spec asks for whose kind's API the cluster does not serve. */
function absentNode(row: ChildKindRow, name: string): TreeNode {
  return {
    kind: row.kind,
    name,
    state: 'Missing',
    info: 'its API is not installed',
    message: `the cluster does not serve ${resourceName(row)} (${row.apiVersion})`,
    children: [],
  };
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
  const deployment = observation.children[DEPLOYMENT.kind]?.object ?? null;
  const desiredReplicas = podsWanted(observation.desired, deployment);
  const health = row.health(live, { desiredReplicas, descendants: children });
  // Failing beats out of date: why it fails is what to fix first.
  if (verdict?.state === 'differs' && health.state !== 'Failed') {
    return { ...base, ...health, state: 'OutOfDate', message: verdict.reason, children };
  }
  return { ...base, ...health, children };
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
        ...row.health(child),
        creationTimestamp: child.metadata.creationTimestamp,
        children,
      });
    }
  }
  return nodes;
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

// The index of WebServices and their children, so each WebService's sync input is found
// by key instead of by scanning every ConfigMap and WebService: a pass stays linear in
// the number of objects. Pure: the shells (a command's pass, the controller's cache) hand
// the objects in.
import { CONFIG_MAP, NAMED_KINDS } from './kinds';
import { Child, OwnerReference, SyncInput, WebService, kindOf } from './model';
import { controllerOf } from './ownership';

export interface ObjectIndex {
  /** Children by childKey: ConfigMaps by namespace/name, the workload kinds prefixed with their kind. */
  childrenByKey: Map<string, Child>;
  /** Children by the uid of their controller ownerReference to a WebService. */
  childrenByOwner: Map<string, Child[]>;
  /** WebServices by namespace/name: set and deleted with setParent and removeParent. */
  parentsByKey: Map<string, WebService>;
  /** A WebService's key -> the keys of the WebServices whose dependsOn names it. */
  dependentsByKey: Map<string, Set<string>>;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export function keyOf(obj: { metadata: { namespace?: string; name: string } }): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name);
}

/** A child's index key: a Deployment and a Service may share a name, and a ConfigMap's. */
export function childKey(kind: string, namespace: string | undefined, name: string): string {
  const key = objectKey(namespace, name);
  return kind === CONFIG_MAP.kind ? key : `${kind}:${key}`;
}

export function childKeyOf(child: Child): string {
  return childKey(kindOf(child), child.metadata.namespace, child.metadata.name);
}

/** The key of the WebService that controls a child, if one does (it lives in the child's namespace). */
export function controllerKeyOf(child: {
  metadata: { namespace?: string; ownerReferences?: OwnerReference[] };
}): string | undefined {
  const owner = controllerOf(child);
  return owner && objectKey(child.metadata.namespace, owner.name);
}

export function emptyIndex(): ObjectIndex {
  return { childrenByKey: new Map(), childrenByOwner: new Map(), parentsByKey: new Map(), dependentsByKey: new Map() };
}

export function indexObjects(parents: WebService[], children: Child[]): ObjectIndex {
  const index = emptyIndex();
  for (const parent of parents) setParent(index, parent);
  for (const child of children) addChild(index, child);
  return index;
}

/** Adds or replaces a WebService, and files it as a dependent of what its dependsOn names. */
export function setParent(index: ObjectIndex, parent: WebService): void {
  const key = keyOf(parent);
  const previous = index.parentsByKey.get(key);
  if (previous) forgetDependencies(index, key, previous);
  index.parentsByKey.set(key, parent);
  for (const dependency of dependencyKeys(parent)) {
    const dependents = index.dependentsByKey.get(dependency);
    if (dependents) dependents.add(key);
    else index.dependentsByKey.set(dependency, new Set([key]));
  }
}

/** Forgets a WebService; those that depend on it stay its dependents, as their dependsOn still names it. */
export function removeParent(index: ObjectIndex, parent: WebService): void {
  const key = keyOf(parent);
  const stored = index.parentsByKey.get(key);
  if (!stored) return;
  index.parentsByKey.delete(key);
  forgetDependencies(index, key, stored);
}

/** The keys of the indexed WebServices whose dependsOn names key (whether key is indexed or not). */
export function dependentsOf(index: ObjectIndex, key: string): ReadonlySet<string> {
  return index.dependentsByKey.get(key) ?? NONE;
}

const NONE: ReadonlySet<string> = new Set();

function forgetDependencies(index: ObjectIndex, key: string, parent: WebService): void {
  for (const dependency of dependencyKeys(parent)) {
    const dependents = index.dependentsByKey.get(dependency);
    dependents?.delete(key);
    if (dependents?.size === 0) index.dependentsByKey.delete(dependency);
  }
}

function dependencyKeys(parent: WebService): string[] {
  return (parent.spec.dependsOn ?? []).map((name) => objectKey(parent.metadata.namespace, name));
}

export function addChild(index: ObjectIndex, child: Child): void {
  const key = childKeyOf(child);
  const previous = index.childrenByKey.get(key);
  if (previous) removeChild(index, previous);
  index.childrenByKey.set(key, child);
  const owner = controllerOf(child)?.uid;
  if (owner) {
    const owned = index.childrenByOwner.get(owner);
    if (owned) owned.push(child);
    else index.childrenByOwner.set(owner, [child]);
  }
}

export function removeChild(index: ObjectIndex, child: Child): void {
  const key = childKeyOf(child);
  const stored = index.childrenByKey.get(key);
  if (!stored) return;
  index.childrenByKey.delete(key);
  const owner = controllerOf(stored)?.uid;
  if (!owner) return;
  const rest = (index.childrenByOwner.get(owner) ?? []).filter((c) => childKeyOf(c) !== key);
  if (rest.length > 0) index.childrenByOwner.set(owner, rest);
  else index.childrenByOwner.delete(owner);
}

/**
 * What one reconcile needs, looked up by key: the children on the names the kind table gives
 * the parent, the children it controls, and the WebServices it reaches through dependsOn (its direct
 * dependencies first), so the core can see a dependency cycle of any length. A pass
 * costs each WebService what it reaches: linear for shallow graphs, more for long chains.
 */
export function syncInputFor(parent: WebService, index: ObjectIndex): SyncInput {
  const namespace = parent.metadata.namespace;
  const { name } = parent.metadata;
  const children: Child[] = [];
  const named = NAMED_KINDS.map((row) =>
    index.childrenByKey.get(childKey(row.kind, namespace, row.nameFor(name))),
  ).filter((c): c is Child => c !== undefined);
  children.push(...named);
  for (const owned of index.childrenByOwner.get(parent.metadata.uid ?? '') ?? []) {
    if (!named.includes(owned) && (owned.metadata.namespace ?? namespace) === namespace) children.push(owned);
  }
  return { parent, children, related: reachableDependencies(parent, index) };
}

/** Breadth-first through dependsOn; one being deleted is handed in but not followed (it leads nowhere). */
function reachableDependencies(parent: WebService, index: ObjectIndex): WebService[] {
  const namespace = parent.metadata.namespace;
  const seen = new Set<string>([parent.metadata.name]);
  const pending = [...(parent.spec.dependsOn ?? [])];
  const related: WebService[] = [];
  for (let head = 0; head < pending.length; head++) {
    const name = pending[head];
    if (seen.has(name)) continue;
    seen.add(name);
    const dependency = index.parentsByKey.get(objectKey(namespace, name));
    if (!dependency) continue;
    related.push(dependency);
    if (!dependency.metadata.deletionTimestamp) pending.push(...(dependency.spec.dependsOn ?? []));
  }
  return related;
}

export function syncInputs(parents: WebService[], children: Child[]): SyncInput[] {
  const index = indexObjects(parents, children);
  return parents.map((parent) => syncInputFor(parent, index));
}

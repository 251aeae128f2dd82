// The children written by JSON merge patch (the kind table's `merge` rows: the lab's ConfigMap).
// Created whole; after that, each key the desired object sets in data and labels, each of the
// row's annotations and our ownerReference is compared with the live child, and one merge patch,
// conditional on the resourceVersion read, sets those that differ. Anything else on the child is
// someone else's and stays. Pure.
import { ChildKindRow, MergeObject, childTarget } from './kinds';
import type { ConfigMap, ObjectMeta, OwnerReference } from './model';
import type { DesiredState, LiveChildFacts } from './observation';
import { conflictReason, describeRef, desiredLabels, desiredOwnerReference, sameOwnerReference } from './ownership';

export interface FieldChange {
  /** The child it is on; absent on a merge row's change (the lab's records have none). */
  child?: string;
  field: string;
  from: string | null;
  to: string | null;
}

/** A JSON merge patch that names only fields we own; resourceVersion makes it conditional. */
export interface MergePatch {
  metadata: {
    resourceVersion?: string;
    labels?: Record<string, string>;
    /** null removes a key (a row's annotation the desired object no longer has). */
    annotations?: Record<string, string | null>;
    ownerReferences?: OwnerReference[];
  };
  data?: Record<string, string>;
}

type MergeOp =
  | { op: 'createChild'; kind: string; object: MergeObject }
  | { op: 'patchChild'; kind: string; name: string; patch: MergePatch };

export interface MergedVerdict {
  target: string;
  state: 'missing' | 'differs' | 'matches' | 'conflict';
  reason: string;
  changes: FieldChange[];
  ops: MergeOp[];
}

interface MergedParent {
  name: string;
  namespace: string;
  uid: string;
  desired: DesiredState;
}

/** A child of a `merge` row (always wanted): a create, a patch, nothing; or someone else's. */
export function mergedVerdict(row: ChildKindRow, parent: MergedParent, have: LiveChildFacts | null): MergedVerdict {
  const name = row.nameFor(parent.name);
  const target = childTarget(row, name);
  const metadata: ObjectMeta = {
    name,
    namespace: parent.namespace,
    labels: desiredLabels(parent.name),
    ownerReferences: [desiredOwnerReference(parent)],
  };
  if (!row.mergeObject) throw new Error(`the ${row.kind} row is written by merge patches but builds no object`);
  const want = row.mergeObject(metadata, { name: parent.name, desired: parent.desired });
  if (!have) {
    const ops: MergeOp[] = [{ op: 'createChild', kind: row.kind, object: want }];
    return { target, state: 'missing', reason: `${target} does not exist yet`, changes: [], ops };
  }
  if (!have.controlledByParent || !have.managedByUs) {
    return { target, state: 'conflict', reason: conflictReason(parent, target, have), changes: [], ops: [] };
  }
  const changes = mergeChanges(row, want, have, parent.uid);
  if (changes.length === 0) return { target, state: 'matches', reason: `${target} matches the spec`, changes, ops: [] };
  return {
    target,
    state: 'differs',
    reason: `${target} differs from the spec: ${changes.map((c) => c.field).join(', ')}`,
    changes,
    ops: [{ op: 'patchChild', kind: row.kind, name: have.name, patch: mergePatch(want, have, changes, parent.uid) }],
  };
}

/** Differences in the fields we own; anything else on the child is someone else's. */
function mergeChanges(row: ChildKindRow, want: MergeObject, have: LiveChildFacts, parentUid: string): FieldChange[] {
  const live = have.object as ConfigMap;
  const changes: FieldChange[] = [];
  const compare = (prefix: string, wanted: Record<string, string | null>, had: Record<string, string>) => {
    for (const [key, to] of Object.entries(wanted)) {
      const from = Object.hasOwn(had, key) ? had[key] : null;
      if (from !== to) changes.push({ field: `${prefix}.${key}`, from, to });
    }
  };
  compare('data', want.data ?? {}, live.data ?? {});
  compare('metadata.labels', want.metadata.labels ?? {}, have.labels);
  // A row's annotation (the workload marker, for readers that look by label) stays until the
  // desired object drops it; deletions go before this patch.
  const annotations: Record<string, string | null> = {};
  for (const key of row.mergeAnnotations ?? []) annotations[key] = want.metadata.annotations?.[key] ?? null;
  compare('metadata.annotations', annotations, live.metadata.annotations ?? {});
  const ours = have.ownerReferences.find((ref) => ref.uid === parentUid);
  const wanted = want.metadata.ownerReferences?.[0];
  if (wanted && (!ours || !sameOwnerReference(ours, wanted))) {
    changes.push({ field: 'metadata.ownerReferences', from: ours ? describeRef(ours) : null, to: describeRef(wanted) });
  }
  return changes;
}

function mergePatch(want: MergeObject, have: LiveChildFacts, changes: FieldChange[], parentUid: string): MergePatch {
  const patch: MergePatch = { metadata: { resourceVersion: have.resourceVersion } };
  const keyOf = (field: string, prefix: string) => field.slice(prefix.length);
  for (const { field, to } of changes) {
    if (field.startsWith('data.')) {
      patch.data = { ...patch.data, [keyOf(field, 'data.')]: to as string };
    } else if (field.startsWith('metadata.labels.')) {
      patch.metadata.labels = { ...patch.metadata.labels, [keyOf(field, 'metadata.labels.')]: to as string };
    } else if (field.startsWith('metadata.annotations.')) {
      patch.metadata.annotations = { ...patch.metadata.annotations, [keyOf(field, 'metadata.annotations.')]: to };
    } else if (field === 'metadata.ownerReferences') {
      // A merge patch replaces the whole list, so keep every reference that is not ours;
      // the resourceVersion precondition makes that safe against a concurrent edit.
      const others = have.ownerReferences.filter((ref) => ref.uid !== parentUid);
      patch.metadata.ownerReferences = [...others, ...(want.metadata.ownerReferences ?? [])];
    }
  }
  return patch;
}

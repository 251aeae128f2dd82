// The children written by server-side apply (the kind table's `apply` rows), through one path
// for every kind: build the desired object, compare it with the live one as the server stores
// it, and apply it whole when they differ. Pure.
//
// Server-side apply keeps everyone else's fields and removes the ones we stopped setting.
// The comparison (compare.ts) sees our fields' values; what we stopped setting it cannot see,
// so every applied object carries the hash of the whole desired object in an annotation:
// a spec that changes in any way changes the hash, and a converged child sends nothing.
import { CONFIG_DIGEST_ANNOTATION, describeConfigChange } from './config';
import { StoredDifference, storedDifferences } from './compare';
import { stableJson } from './equal';
import { ChildKindRow, childTarget } from './kinds';
import { ObjectMeta, fnv1a32 } from './model';
import { MovedEntry, movedEntries } from './moved';
import type { DesiredState, LiveChildFacts } from './observation';
import { appLabels } from './labels';
import { conflictReason, desiredOwnerReference } from './ownership';
import type { DesiredObject } from './workload';

/** On every applied child: the hash of the desired object it was last applied from. */
export const APPLIED_HASH_ANNOTATION = 'webservice.labhub.io/applied-hash';
/**
 * On an object that is not ours: `webservice.labhub.io/adopt: <WebService name>` lets that
 * WebService take it over (a team moving an existing Deployment under a WebService).
 * Without it, an object on a child's name is a conflict, and is never touched.
 */
const ADOPT_ANNOTATION = 'webservice.labhub.io/adopt';

export interface AppliedParent {
  name: string;
  namespace: string;
  uid: string;
  labels: Record<string, string>;
  desired: DesiredState;
  /** The last pass was refused (Ready says ReconcileError): whatever stands where ours should be must give way. */
  refused?: boolean;
}

/** What the apply carries: the object, and what it must find (the child we read, or nothing). */
export interface ApplyOp {
  op: 'applyChild';
  kind: string;
  name: string;
  object: DesiredObject;
  /** The live child's uid and resourceVersion: the apply is refused if it changed; absent, it must not exist. */
  uid?: string;
  resourceVersion?: string;
  /**
   * A handover (the kind table's handover column): applied by the handover's field manager,
   * so that fields our next apply stops setting keep their values.
   */
  handover?: true;
  /**
   * On a create: the fields of `object` that are another controller's from the start (the
   * handover column's, for no live child). They are created with it, and owned by the
   * handover's field manager rather than ours, as a handover before our apply leaves them.
   */
  handedOver?: DesiredObject;
}

/**
 * Entries of a child's keyed lists that are ours with their keys changed by hand (moved.ts):
 * made ours in its managedFields, so that the apply after it removes them.
 */
export interface TakeOverOp {
  op: 'takeOverChild';
  kind: string;
  name: string;
  entries: MovedEntry[];
  uid: string;
  resourceVersion?: string;
}

export interface DeleteOp {
  op: 'deleteChild';
  kind: string;
  name: string;
  uid?: string;
}

export interface AppliedVerdict {
  target: string;
  state: 'missing' | 'differs' | 'unwanted' | 'matches' | 'conflict';
  reason: string;
  differences: StoredDifference[];
  ops: (TakeOverOp | ApplyOp | DeleteOp)[];
}

/** The desired object of one kind for this parent, with its hash; null when the spec does not ask for it. */
function desiredObject(row: ChildKindRow, parent: AppliedParent): DesiredObject | null {
  const name = row.nameFor(parent.name);
  const metadata: ObjectMeta = {
    name,
    namespace: parent.namespace,
    labels: { ...parent.labels, ...appLabels(parent.name) },
    ownerReferences: [desiredOwnerReference(parent)],
  };
  const object = row.build?.(metadata, { name: parent.name, desired: parent.desired }) ?? null;
  if (!object) return null;
  object.metadata.annotations = {
    ...object.metadata.annotations,
    [APPLIED_HASH_ANNOTATION]: fnv1a32(stableJson(object)),
  };
  return object;
}

/** A child of an `apply` kind: nothing to do, an apply, a delete; or someone else's. Null: none of our business. */
export function appliedVerdict(
  row: ChildKindRow,
  parent: AppliedParent,
  have: LiveChildFacts | null,
): AppliedVerdict | null {
  const name = row.nameFor(parent.name);
  const target = childTarget(row, name);
  const want = desiredObject(row, parent);
  const ours = have !== null && have.controlledByParent && have.managedByUs;
  if (!want) {
    if (!have || !ours) return null;
    return {
      target,
      state: 'unwanted',
      reason: `${target} is no longer wanted by the spec; deleting it`,
      differences: [],
      ops: [{ op: 'deleteChild', kind: row.kind, name, uid: have.uid }],
    };
  }
  if (!have) {
    const handedOver = row.handover?.(null, { name: parent.name, desired: parent.desired }) ?? null;
    // The hash stays the desired object's: what we apply from then on, without those fields.
    const op: ApplyOp = handedOver
      ? { op: 'applyChild', kind: row.kind, name, object: withSpecOf(want, handedOver), handedOver }
      : { op: 'applyChild', kind: row.kind, name, object: want };
    return { target, state: 'missing', reason: `${target} does not exist yet`, differences: [], ops: [op] };
  }
  const adopting = !ours && adoptable(parent, have);
  if (!ours && !adopting) {
    return { target, state: 'conflict', reason: conflictReason(parent, target, have), differences: [], ops: [] };
  }
  const held = ours ? (row.held?.(have.object, { name: parent.name, desired: parent.desired }) ?? null) : null;
  if (held) return heldVerdict(row, target, held, have);
  const differences = storedDifferences(want, have.object);
  if (differences.length === 0)
    return { target, state: 'matches', reason: `${target} matches the spec`, differences, ops: [] };
  const moved =
    !adopting && mayHaveMoved(want, have, parent) ? movedEntries(want, have.object as { spec?: unknown }) : [];
  const what = adopting
    ? `adopting it (annotation ${ADOPT_ANNOTATION}=${parent.name})`
    : `differs from the spec: ${differences.map(describeDifference).join(', ')}` +
      (moved.length > 0
        ? `; ${moved.map((entry) => entry.path).join(', ')} ${moved.length === 1 ? 'stands where ours was' : 'stand where ours were'} (a key changed by hand): removing ${moved.length === 1 ? 'it' : 'them'}`
        : '');
  const handover = row.handover?.(have.object, { name: parent.name, desired: parent.desired }) ?? null;
  const first = row.applyFirst?.(want, have.object) ?? null;
  // The first write is made on the child we read; the ones after it follow on the same object
  // (its uid), whose resourceVersion the first has just moved on.
  type Step = Omit<TakeOverOp, 'uid' | 'resourceVersion'> | Omit<ApplyOp, 'uid' | 'resourceVersion'>;
  const steps: Step[] = [
    ...(moved.length > 0 ? [{ op: 'takeOverChild' as const, kind: row.kind, name, entries: moved }] : []),
    ...(handover
      ? [{ op: 'applyChild' as const, kind: row.kind, name, object: handover, handover: true as const }]
      : []),
    ...(first ? [{ op: 'applyChild' as const, kind: row.kind, name, object: first }] : []),
    { op: 'applyChild', kind: row.kind, name, object: want },
  ];
  const ops = steps.map(
    (step, at): TakeOverOp | ApplyOp =>
      (at === 0 ? { ...step, uid: have.uid, resourceVersion: have.resourceVersion } : { ...step, uid: have.uid }) as
        TakeOverOp | ApplyOp,
  );
  return { target, state: 'differs', reason: `${target} ${what}`, differences, ops };
}

/** A held child: only the held fields are written, by the handover's field manager, where they differ. */
function heldVerdict(row: ChildKindRow, target: string, held: DesiredObject, have: LiveChildFacts): AppliedVerdict {
  const differences = storedDifferences(held, have.object);
  if (differences.length === 0)
    return { target, state: 'matches', reason: `${target} is held as it is`, differences, ops: [] };
  const name = have.name;
  return {
    target,
    state: 'differs',
    reason: `${target} is held on its revision; ${differences.map((d) => d.path).join(', ')} differs`,
    differences,
    ops: [
      {
        op: 'applyChild',
        kind: row.kind,
        name,
        object: held,
        handover: true,
        uid: have.uid,
        resourceVersion: have.resourceVersion,
      },
    ],
  };
}

/** The object with the other's spec fields set in its spec. */
function withSpecOf(object: DesiredObject, other: DesiredObject): DesiredObject {
  return { ...object, spec: { ...object.spec, ...other.spec } };
}

/**
 * Whether an entry of ours missing from a keyed list can only have been moved (or removed) by
 * hand, not be new: the live child was applied from this very spec (its applied hash), or the
 * last pass was refused, so what stands in ours' place must go whatever it is.
 */
function mayHaveMoved(want: DesiredObject, have: LiveChildFacts, parent: AppliedParent): boolean {
  const applied = have.object.metadata.annotations?.[APPLIED_HASH_ANNOTATION];
  return parent.refused === true || applied === want.metadata.annotations?.[APPLIED_HASH_ANNOTATION];
}

/** A difference's path; for the pods' config digest, also what changed in the config, by name. */
function describeDifference(difference: StoredDifference): string {
  if (!difference.path.endsWith(CONFIG_DIGEST_ANNOTATION)) return difference.path;
  return `${difference.path} (${describeConfigChange(difference.want, difference.have)})`;
}

/** Someone asked for this WebService to take the object over, and no other controller holds it. */
function adoptable(parent: AppliedParent, have: LiveChildFacts): boolean {
  const annotations = have.object.metadata.annotations ?? {};
  const otherController = have.ownerReferences.some((ref) => ref.controller === true && ref.uid !== parent.uid);
  return annotations[ADOPT_ANNOTATION] === parent.name && !otherController;
}

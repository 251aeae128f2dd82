// decide: observation in, decision out. Pure and deterministic: no I/O, no clock.
// A decision is a record (action, reason, target) plus the exact writes (ops) that
// carry it out, so plan can print it, apply can execute it and tests can diff it.
import {
  API_VERSION,
  ConfigMap,
  DEFAULT_REQUEUE_AFTER_SECONDS,
  FINALIZER,
  INSTANCE_LABEL,
  KIND,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  NAME_LABEL,
  OwnerReference,
  childName,
  instanceLabelValue,
} from './model';
import { describeCycle } from './cycle';
import { ChildFacts, DesiredState, Observation } from './observe';

export type Action = 'create' | 'update' | 'noop' | 'requeue' | 'conflict' | 'finalize';

export const ACTIONS: readonly Action[] = ['create', 'update', 'noop', 'requeue', 'conflict', 'finalize'];

export interface FieldChange {
  field: string;
  from: string | null;
  to: string | null;
}

export type Op =
  | { op: 'createChild'; object: ConfigMap }
  | { op: 'patchChild'; name: string; patch: ChildPatch }
  | { op: 'deleteChild'; name: string; uid?: string }
  | { op: 'removeFinalizer'; finalizers: string[]; resourceVersion?: string };

/** A JSON merge patch that names only fields we own; resourceVersion makes it conditional. */
export interface ChildPatch {
  metadata: { resourceVersion?: string; labels?: Record<string, string>; ownerReferences?: OwnerReference[] };
  data?: Record<string, string>;
}

export interface Decision {
  namespace: string;
  name: string;
  action: Action;
  reason: string;
  target: string;
  is_error: boolean;
  /** When to look again; absent on a requeue that only a spec change can resolve (a cycle). */
  after_seconds?: number;
  /** A dependency cycle through this CR: names from it back to it. */
  cycle?: string[];
  changes?: FieldChange[];
  ops: Op[];
}

export interface DecideOptions {
  requeueAfterSeconds?: number;
}

export function decide(obs: Observation, options: DecideOptions = {}): Decision {
  const childTarget = `configmap/${childName(obs.name)}`;
  if (obs.deleting) return decideDeletion(obs);

  // Before waiting on dependencies: in a cycle they will never be Ready, so no timer helps.
  // Only a change to a member's dependsOn resolves it, and that change is an event.
  if (obs.dependencyCycle) {
    return record(obs, {
      action: 'requeue',
      reason: `dependency cycle: ${describeCycle(obs.dependencyCycle)}; change the dependsOn of one of them to break it`,
      target: `webservice/${obs.dependencyCycle[1]}`,
      cycle: obs.dependencyCycle,
    });
  }

  const waitingOn = obs.dependencies.filter((d) => d.state !== 'Ready');
  if (waitingOn.length > 0) {
    return record(obs, {
      action: 'requeue',
      reason: `waiting for dependencies: ${waitingOn.map((d) => d.message).join('; ')}`,
      target: `webservice/${waitingOn[0].name}`,
      after_seconds: requeueAfter(options),
    });
  }

  // No finalizer is added: the child carries a controller ownerReference, so the garbage
  // collector removes it, and a deletion never waits for a reconcile that may never come.
  // One that a user put there (the lab's ephemeral) is honoured by decideDeletion.
  if (!obs.child) {
    return record(obs, {
      action: 'create',
      reason: `${childTarget} does not exist yet`,
      target: childTarget,
      ops: [{ op: 'createChild', object: desiredChild(obs) }],
    });
  }

  if (!obs.child.controlledByParent || !obs.child.managedByUs) {
    return record(obs, {
      action: 'conflict',
      reason: conflictReason(obs, obs.child),
      target: childTarget,
      is_error: true,
    });
  }

  const changes = childChanges(obs, obs.child);
  if (changes.length > 0) {
    return record(obs, {
      action: 'update',
      reason: `${childTarget} differs from the spec: ${changes.map((c) => c.field).join(', ')}`,
      target: childTarget,
      changes,
      ops: [{ op: 'patchChild', name: obs.child.name, patch: childPatch(obs, obs.child, changes) }],
    });
  }

  return record(obs, { action: 'noop', reason: `${childTarget} matches the spec`, target: childTarget });
}

type DecisionFields = Pick<Decision, 'action' | 'reason' | 'target'> & Partial<Decision>;

/** Builds the record with a stable key order: what, why, about what; then the details. */
function record(obs: Observation, fields: DecisionFields): Decision {
  const decision: Decision = {
    action: fields.action,
    reason: fields.reason,
    target: fields.target,
    namespace: obs.namespace,
    name: obs.name,
    is_error: fields.is_error ?? false,
    ops: [],
  };
  if (fields.after_seconds !== undefined) decision.after_seconds = fields.after_seconds;
  if (fields.cycle) decision.cycle = fields.cycle;
  if (fields.changes) decision.changes = fields.changes;
  decision.ops = fields.ops ?? [];
  return decision;
}

function decideDeletion(obs: Observation): Decision {
  if (!hasOurFinalizer(obs)) {
    return record(obs, {
      action: 'noop',
      reason: `being deleted and finalizer ${FINALIZER} is already gone; nothing to clean up`,
      target: `webservice/${obs.name}`,
    });
  }
  const deletes = obs.ownedChildren.map((c) => ({ op: 'deleteChild' as const, name: c.name, uid: c.uid }));
  const what = deletes.length > 0 ? `delete ${deletes.map((d) => `configmap/${d.name}`).join(', ')}, then ` : '';
  return record(obs, {
    action: 'finalize',
    reason: `being deleted: ${what}remove finalizer ${FINALIZER}`,
    target: `webservice/${obs.name}`,
    ops: [
      ...deletes,
      {
        op: 'removeFinalizer',
        finalizers: obs.finalizers.filter((f) => f !== FINALIZER),
        resourceVersion: obs.resourceVersion,
      },
    ],
  });
}

function requeueAfter(options: DecideOptions): number {
  const seconds = options.requeueAfterSeconds ?? DEFAULT_REQUEUE_AFTER_SECONDS;
  return Math.max(1, Math.round(seconds));
}

function hasOurFinalizer(obs: Observation): boolean {
  return obs.finalizers.includes(FINALIZER);
}

function conflictReason(obs: Observation, child: ChildFacts): string {
  const missing: string[] = [];
  if (!child.controlledByParent)
    missing.push(`no controller ownerReference to webservice/${obs.name} (uid ${obs.uid})`);
  if (!child.managedByUs) missing.push(`no label ${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`);
  return `configmap/${child.name} exists but is not ours (${missing.join(', ')}); it is left untouched`;
}

export function desiredData(desired: DesiredState): Record<string, string> {
  return { image: desired.image, replicas: String(desired.replicas), tier: desired.tier };
}

export function desiredLabels(parentName: string): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
    [NAME_LABEL]: 'webservice',
    [INSTANCE_LABEL]: instanceLabelValue(parentName),
  };
}

export function desiredOwnerReference(obs: Pick<Observation, 'name' | 'uid'>): OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: obs.name,
    uid: obs.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function desiredChild(obs: Observation): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: childName(obs.name),
      namespace: obs.namespace,
      labels: desiredLabels(obs.name),
      ownerReferences: [desiredOwnerReference(obs)],
    },
    data: desiredData(obs.desired),
  };
}

/** Differences in the fields we own; anything else on the child is someone else's. */
function childChanges(obs: Observation, child: ChildFacts): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [key, want] of Object.entries(desiredData(obs.desired))) {
    const have = Object.hasOwn(child.data, key) ? child.data[key] : null;
    if (have !== want) changes.push({ field: `data.${key}`, from: have, to: want });
  }
  for (const [key, want] of Object.entries(desiredLabels(obs.name))) {
    const have = Object.hasOwn(child.labels, key) ? child.labels[key] : null;
    if (have !== want) changes.push({ field: `metadata.labels.${key}`, from: have, to: want });
  }
  const have = child.ownerReferences.find((ref) => ref.uid === obs.uid);
  const want = desiredOwnerReference(obs);
  if (!have || !sameOwnerReference(have, want)) {
    changes.push({ field: 'metadata.ownerReferences', from: have ? describeRef(have) : null, to: describeRef(want) });
  }
  return changes;
}

function sameOwnerReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    (a.controller ?? false) === (b.controller ?? false) &&
    (a.blockOwnerDeletion ?? false) === (b.blockOwnerDeletion ?? false)
  );
}

function describeRef(ref: OwnerReference): string {
  return `${ref.kind}/${ref.name} uid=${ref.uid} controller=${ref.controller ?? false} blockOwnerDeletion=${ref.blockOwnerDeletion ?? false}`;
}

function childPatch(obs: Observation, child: ChildFacts, changes: FieldChange[]): ChildPatch {
  const patch: ChildPatch = { metadata: { resourceVersion: child.resourceVersion } };
  const data = desiredData(obs.desired);
  const labels = desiredLabels(obs.name);
  for (const change of changes) {
    if (change.field.startsWith('data.')) {
      const key = change.field.slice('data.'.length);
      patch.data = { ...patch.data, [key]: data[key] };
    } else if (change.field.startsWith('metadata.labels.')) {
      const key = change.field.slice('metadata.labels.'.length);
      patch.metadata.labels = { ...patch.metadata.labels, [key]: labels[key] };
    } else if (change.field === 'metadata.ownerReferences') {
      // A merge patch replaces the whole list, so keep every reference that is not ours;
      // the resourceVersion precondition makes that safe against a concurrent edit.
      const others = child.ownerReferences.filter((ref) => ref.uid !== obs.uid);
      patch.metadata.ownerReferences = [...others, desiredOwnerReference(obs)];
    }
  }
  return patch;
}

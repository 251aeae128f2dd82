// decide: observation in, decision out. Pure and deterministic: no I/O, no clock.
// A decision is a record (action, reason, target) plus the exact writes (ops) that
// carry it out, so plan can print it, apply can execute it and tests can diff it.
import {
  CHILD_KINDS,
  CONFIG_MAP,
  ChildKindRow,
  ChildSetRow,
  DEPLOYMENT,
  KindRow,
  MergeObject,
  SET_KINDS,
  childTarget,
  isSetRow,
  kindRow,
  rowId,
} from './kinds';
import { canaryPlan, completedPlan } from './canary';
import { CONFIG_PINS_ANNOTATION, configTarget, formatPins } from './config';
import { DEFAULT_REQUEUE_AFTER_SECONDS, FINALIZER, READY } from './model';
import { CopySource, SetObject, revisionPlan } from './revision';
import { describeCycle } from './cycle';
import type { CanaryPlan, Observation } from './observation';
import { AppliedParent, ApplyOp, DeleteOp, TakeOverOp, appliedVerdict } from './applied';
import { FieldChange, MergePatch, mergedVerdict } from './merged';
import { Warning, probePortWarnings } from './probes';
import { ROLLOUT_POLL_SECONDS, rolloutOf } from './rollout';
import { podsWanted } from './workload';

export type Action = 'create' | 'update' | 'noop' | 'requeue' | 'conflict' | 'finalize';

export const ACTIONS: readonly Action[] = ['create', 'update', 'noop', 'requeue', 'conflict', 'finalize'];

/**
 * The writes of a decision, each on a child of its kind (a row of the kind table): the lab's
 * ConfigMap is created and merge-patched; the workload's children are applied whole
 * (applyChild); a revision is created whole and renumbered by a merge patch; a config snapshot
 * is copied from its source; any of them is deleted by kind.
 */
export type Op =
  | { op: 'createChild'; kind: string; object: MergeObject | SetObject }
  | { op: 'patchChild'; kind: string; name: string; patch: MergePatch | SetPatch }
  | CopyOp
  | TakeOverOp
  | ApplyOp
  | DeleteOp
  | { op: 'removeFinalizer'; finalizers: string[]; resourceVersion?: string }
  | ReleasePinsOp;

/**
 * A config snapshot: the object (without values) created with the source's content, which the
 * shell reads and checks still has the keyed digest decided on (else the decision is stale: 409).
 */
interface CopyOp {
  op: 'copyChild';
  kind: string;
  name: string;
  object: SetObject;
  from: CopySource;
}

/** The WebService's config pins rewritten without those released (null: none left). */
interface ReleasePinsOp {
  op: 'releasePins';
  pins: string | null;
  resourceVersion?: string;
}

/** A merge patch of a set row's child; resourceVersion makes it conditional. */
interface SetPatch {
  metadata: { resourceVersion?: string; annotations?: Record<string, string> };
  [field: string]: unknown;
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
  /** Only when there are any: what the server takes but will likely not work as meant. */
  warnings?: Warning[];
  /** Only while a canary runs: where it stands after this pass (status.rollout). */
  rollout?: CanaryPlan['status'];
  ops: Op[];
}

export interface DecideOptions {
  requeueAfterSeconds?: number;
  /** The time of the pass (RFC 3339): a canary's pause counts to it. Unset: the Unix epoch, where no pause ends. */
  at?: string;
}

export function decide(obs: Observation, options: DecideOptions = {}): Decision {
  const configMapTarget = childTarget(CONFIG_MAP, CONFIG_MAP.nameFor(obs.name));
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

  // No finalizer is added: the children carry a controller ownerReference, so the garbage
  // collector removes them, and a deletion never waits for a reconcile that may never come.
  // One that a user put there (the lab's ephemeral) is honoured by decideDeletion.
  obs = weighed(obs, options.at ?? EPOCH);
  const { canary } = obs.desired;
  const verdicts = childVerdicts(obs);
  // A child that is not ours stops the whole decision, as the ConfigMap's always did: nothing
  // is written, to it or to the other children, until its owner sorts it out.
  const conflicts = verdicts.filter((v) => v.state === 'conflict');
  if (conflicts.length > 0) {
    return record(obs, {
      action: 'conflict',
      reason: conflicts.map((v) => v.reason).join('; '),
      target: conflicts[0].target,
      is_error: true,
    });
  }

  const rollout = { ...rolloutPoll(obs, verdicts), ...(canary ? { rollout: canary.status } : {}) };
  if (canary?.after !== undefined)
    rollout.after_seconds = Math.min(rollout.after_seconds ?? canary.after, canary.after);
  const acting = verdicts.filter((v) => v.ops.length > 0);
  if (acting.length > 0) {
    const changes = acting.flatMap((v) => v.changes);
    const ops = inWriteOrder(acting).flatMap((v) => v.ops);
    return record(obs, {
      action: acting.every((v) => v.state === 'missing') ? 'create' : 'update',
      reason: acting.map((v) => v.reason).join('; '),
      target: (acting.find((v) => !v.bookkeeping) ?? acting[0]).target,
      ...(changes.length > 0 ? { changes } : {}),
      ...rollout,
      ...warningsOf(obs, ops),
      ops,
    });
  }

  const targets = verdicts.map((v) => v.target);
  return record(obs, {
    action: 'noop',
    reason: `${targets.join(', ')} ${targets.length === 1 ? 'matches' : 'match'} the spec`,
    target: configMapTarget,
    ...rollout,
    ...warningsOf(obs, []),
  });
}

const EPOCH = new Date(0).toISOString();

/**
 * The observation as decide weighs it at a time: with a rollout, the revision the spec makes
 * (which the Deployment names) and the canary that runs, if one does. describe's tree reads it too.
 */
export function weighed(obs: Observation, at: string): Observation {
  const revision = obs.desired.rollout ? revisionPlan(obs)?.name : undefined;
  const named = revision ? { ...obs, desired: { ...obs.desired, revision } } : obs;
  const canary = canaryOf(named, at);
  return canary ? { ...named, desired: { ...named.desired, canary } } : named;
}

/**
 * The canary at this pass; once promoting has rolled the stable Deployment to the canary's
 * revision (it matches the spec and has rolled out), completed: the traffic goes back to the
 * WebService's Service before the canary is scaled down.
 */
function canaryOf(obs: Observation, at: string): CanaryPlan | null {
  const plan = canaryPlan(obs, at);
  if (!plan || plan.holdStable || plan.status.phase !== 'Promoting') return plan;
  const held = { ...obs, desired: { ...obs.desired, canary: plan } };
  const stable = namedVerdict(DEPLOYMENT, appliedParent(held), held);
  const live = obs.children[DEPLOYMENT.kind]?.object ?? null;
  const rolledOut = stable.every((v) => v.ops.length === 0) && rolloutOf(live, plan.stableReplicas, false).complete;
  return rolledOut ? completedPlan(plan) : plan;
}

/** The spec's warnings; new only where these ops write the Deployment that brings them. */
function warningsOf(obs: Observation, ops: Op[]): Pick<Partial<Decision>, 'warnings'> {
  if (!obs.desired.workload) return {};
  const live = obs.children[DEPLOYMENT.kind]?.object ?? null;
  const writes = writesDeployment(ops, obs.name);
  const warnings = probePortWarnings(obs.desired.workload, live).map(({ new: brought, ...warning }) =>
    writes && brought ? { ...warning, new: brought } : warning,
  );
  return warnings.length > 0 ? { warnings } : {};
}

/**
 * Deletions first (the ConfigMap's workload marker goes only once the workload has; an
 * autoscaler goes before the replica count is taken back from it), but for a child that another
 * replaces, one of a kind that shares its condition (an HTTPRoute for an Ingress: Exposed): the
 * new one is written first, so that traffic never finds neither. Then writes in the table's
 * order: config snapshots and the revision before the Deployment whose pods read them. Last,
 * what the new pods no longer need: old revisions and snapshots, released pins.
 */
function inWriteOrder(verdicts: ChildVerdict[]): ChildVerdict[] {
  const acting = verdicts.filter((v) => !v.last);
  const kindOf = (v: ChildVerdict) => kindRow((v.ops[0] as { kind?: string } | undefined)?.kind);
  const conditionOf = (v: ChildVerdict) => kindOf(v)?.condition?.type;
  const writes = acting.filter((v) => v.state !== 'unwanted');
  const written = new Set(writes.map(conditionOf).filter((type): type is string => type !== undefined));
  const replaced = (v: ChildVerdict) => {
    const type = conditionOf(v);
    return v.state === 'unwanted' && type !== undefined && written.has(type);
  };
  const deletions = acting.filter((v) => v.state === 'unwanted' && !replaced(v));
  return [...deletions, ...writes, ...acting.filter(replaced), ...verdicts.filter((v) => v.last)];
}

/** What one child needs: nothing, a create, a patch, a delete; or it is someone else's. */
export interface ChildVerdict {
  target: string;
  state: 'missing' | 'differs' | 'unwanted' | 'matches' | 'conflict';
  reason: string;
  changes: FieldChange[];
  ops: Op[];
  /** Written after every other child: history the new pods no longer need. */
  last?: true;
  /** A revision, a snapshot or a pin: it records a change, so it names the decision only alone. */
  bookkeeping?: true;
}

/** The verdict on each child the kind table has, as decide weighs them (describe shows them too). */
export function childVerdicts(obs: Observation): ChildVerdict[] {
  const parent = appliedParent(obs);
  const verdictsOf = (row: KindRow) => (isSetRow(row) ? setVerdicts(row, obs) : namedVerdict(row, parent, obs));
  // The rollback's pins are the history's: after the set rows, before the workload that reads them.
  const history = CHILD_KINDS.indexOf(SET_KINDS[SET_KINDS.length - 1]) + 1;
  const pins = pinsVerdict(obs);
  return [
    ...CHILD_KINDS.slice(0, history).flatMap(verdictsOf),
    ...(pins ? [pins] : []),
    ...CHILD_KINDS.slice(history).flatMap(verdictsOf),
  ];
}

function appliedParent(obs: Observation): AppliedParent {
  return {
    name: obs.name,
    namespace: obs.namespace,
    uid: obs.uid,
    labels: obs.labels ?? {},
    desired: obs.desired,
    refused: obs.status.conditions?.find((c) => c.type === READY)?.reason === 'ReconcileError',
  };
}

/** A named row's child, written as its row says: merge-patched or applied. */
function namedVerdict(row: ChildKindRow, parent: AppliedParent, obs: Observation): ChildVerdict[] {
  // Where its API is not served there is nothing to read or write: the kind's condition says so.
  if (obs.absentKinds?.includes(row.kind)) return [];
  const have = obs.children[rowId(row)] ?? null;
  if (row.write === 'merge') return [mergedVerdict(row, parent, have)];
  const verdict = appliedVerdict(row, parent, have);
  if (!verdict) return [];
  const changes = verdict.differences.map((d) => ({
    child: verdict.target,
    field: d.path,
    from: describeValue(d.have),
    to: describeValue(d.want),
  }));
  return [{ target: verdict.target, state: verdict.state, reason: verdict.reason, changes, ops: verdict.ops }];
}

/**
 * A set row's children (revisions, config snapshots): each it wants and lacks is made, each it
 * changes is patched, each of ours it no longer wants is deleted, last.
 */
function setVerdicts(row: ChildSetRow, obs: Observation): ChildVerdict[] {
  const live = obs.childSets?.[row.id] ?? [];
  if (!obs.desired.workload && live.length === 0) return [];
  const members = row.desiredSet(obs);
  const verdicts: ChildVerdict[] = [];
  for (const member of members) {
    const have = live.find((facts) => facts.name === member.name);
    const target = childTarget(row, member.name);
    if ('create' in member && !have) {
      const { create: object, copy } = member;
      const op: Op = copy
        ? { op: 'copyChild', kind: row.kind, name: member.name, object, from: copy }
        : { op: 'createChild', kind: row.kind, object };
      verdicts.push({ target, state: 'missing', reason: member.reason, changes: [], ops: [op], bookkeeping: true });
    } else if ('patch' in member && have) {
      const metadata = { ...(member.patch.metadata as object), resourceVersion: have.resourceVersion };
      const patch: SetPatch = { ...member.patch, metadata };
      verdicts.push({
        target,
        state: 'differs',
        reason: member.reason,
        changes: member.changes.map((change) => ({ child: target, ...change })),
        ops: [{ op: 'patchChild', kind: row.kind, name: member.name, patch }],
        bookkeeping: true,
      });
    }
  }
  for (const have of live) {
    if (members.some((member) => member.name === have.name)) continue;
    const target = childTarget(row, have.name);
    verdicts.push({
      target,
      state: 'unwanted',
      reason: `${target} is no longer kept; deleting it`,
      changes: [],
      ops: [{ op: 'deleteChild', kind: row.kind, name: have.name, uid: have.uid }],
      last: true,
      bookkeeping: true,
    });
  }
  return verdicts;
}

/** A rollback's pins that no longer hold leave the WebService's annotation, after the rest is written. */
function pinsVerdict(obs: Observation): ChildVerdict | null {
  const released = obs.releasedPins ?? [];
  if (released.length === 0) return null;
  const held = obs.pins ?? [];
  const what = released.map(configTarget).join(', ');
  return {
    target: `webservice/${obs.name}`,
    state: 'differs',
    reason: `the rollback's pin on ${what} is released: it changed since, or is no longer read`,
    changes: [
      {
        field: `metadata.annotations.${CONFIG_PINS_ANNOTATION}`,
        from: formatPins([...held, ...released]),
        to: held.length > 0 ? formatPins(held) : null,
      },
    ],
    ops: [{ op: 'releasePins', pins: held.length > 0 ? formatPins(held) : null, resourceVersion: obs.resourceVersion }],
    last: true,
    bookkeeping: true,
  };
}

/** A value in a change record: JSON, cut short past a screen's width. */
function describeValue(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_VALUE_TEXT ? `${text.slice(0, MAX_VALUE_TEXT - 1)}…` : text;
}

const MAX_VALUE_TEXT = 200;

/**
 * While a wanted Deployment has not rolled out, apply --wait looks again soon; the
 * controller needs no timer (the Deployment's status changes are watch events).
 */
function rolloutPoll(obs: Observation, verdicts: ChildVerdict[]): Pick<Partial<Decision>, 'after_seconds'> {
  if (!obs.desired.workload) return {};
  const live = obs.children[DEPLOYMENT.kind]?.object ?? null;
  // While a canary runs, the stable pods are as many as it leaves them (its own timer is after).
  const { canary } = obs.desired;
  const wanted = canary && canary.status.phase !== 'Completed' ? canary.stableReplicas : podsWanted(obs.desired, live);
  const writes = writesDeployment(
    verdicts.flatMap((v) => v.ops),
    obs.name,
  );
  const rollout = rolloutOf(live, wanted, writes);
  return rollout.complete ? {} : { after_seconds: ROLLOUT_POLL_SECONDS };
}

/** Whether these ops apply the WebService's Deployment (not a canary's): its status is then about the spec before them. */
export function writesDeployment(ops: Op[], name: string): boolean {
  return ops.some(
    (op) => op.op === 'applyChild' && op.kind === DEPLOYMENT.kind && op.name === DEPLOYMENT.nameFor(name),
  );
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
  if (fields.warnings) decision.warnings = fields.warnings;
  if (fields.rollout) decision.rollout = fields.rollout;
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
  const deletes: Op[] = obs.ownedChildren.map((c) => ({ op: 'deleteChild', kind: c.kind, name: c.name, uid: c.uid }));
  const names = obs.ownedChildren.map((c) => childTarget(c, c.name));
  const what = names.length > 0 ? `delete ${names.join(', ')}, then ` : '';
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

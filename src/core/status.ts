// The status computation: observation + decision + outcome + now -> status. Pure.
import { exposedUrl } from './expose';
import { CANARY_DEPLOYMENT_ID } from './canary-requests';
import { ConfigReference, configTarget } from './config';
import { Decision, Op, writesDeployment } from './decide';
import { jsonEqual } from './equal';
import { ChildKindRow, DEPLOYMENT, NAMED_KINDS, childTarget, resourceName, rowId } from './kinds';
import { Condition, ConditionStatus, Deployment, READY, WebServiceStatus, childName } from './model';
import type { LiveObject } from './health';
import type { Observation } from './observation';
import { podSelectorString } from './labels';
import { revisionPlan } from './revision';
import { rolloutOf, rolloutProgress } from './rollout';
import { podsWanted } from './workload';

/** kstatus: True while a change is being rolled out. */
const RECONCILING = 'Reconciling';
/** kstatus: True when progress has stopped and needs someone to look. */
const STALLED = 'Stalled';

/** Ready's and Stalled's reason while the Deployment's pods cannot be created (ReplicaFailure). */
export const FAILED_CREATE = 'FailedCreate';

/** Ready's and Stalled's reason while a Secret or ConfigMap that the pods must read does not exist. */
export const CONFIG_NOT_FOUND = 'ConfigNotFound';

function missingConfigMessage(missing: ConfigReference[]): string {
  return missing
    .map((reference) => `${configTarget(reference)} not found; the pods read it (${reference.readBy.join(', ')})`)
    .join('; ');
}

/** What happened to the decision: only planned (nothing written), carried out, or failed. */
export type Outcome = { kind: 'planned' } | { kind: 'applied' } | { kind: 'failed'; message: string };

export interface ReadyCondition {
  status: ConditionStatus;
  reason: string;
  message: string;
}

export interface StatusResult {
  /** The status to hold; null while the CR is being finalized (nothing to report). */
  status: WebServiceStatus | null;
  /** True when `status` differs from what the CR carries now, so a write is due. */
  changed: boolean;
  /** Fields the status had and no longer has (a workload removed): the patch sends them as null. */
  cleared?: (keyof WebServiceStatus)[];
}

/** Status fields only a WebService with a workload has. */
const WORKLOAD_FIELDS = ['selector', 'ready', 'currentRevision', 'updateRevision', 'url'] as const;

/**
 * `earlier`: the ops that attempts of the same reconcile carried out before a 409 cut them
 * short; a Deployment written by one has its rollout ahead of it, as if this decision wrote it.
 */
export function computeStatus(
  obs: Observation,
  decision: Decision,
  outcome: Outcome,
  now: string,
  earlier: Op[] = [],
): StatusResult {
  if (decision.action === 'finalize' || obs.deleting) return { status: null, changed: false };
  if (obs.desired.workload) return workloadStatus(obs, decision, outcome, now, earlier);
  const cleared = WORKLOAD_FIELDS.filter((key) => obs.status[key] !== undefined);
  if (cleared.length > 0 || hasKstatus(obs.status.conditions)) {
    // The workload was removed: what only it had goes (the conditions list is replaced whole).
    const result = plainStatus({ ...obs, status: withoutWorkload(obs.status) }, decision, outcome, now);
    const next = result.status;
    return { status: next, changed: !jsonEqual(next, obs.status), ...(cleared.length > 0 ? { cleared } : {}) };
  }
  return plainStatus(obs, decision, outcome, now);
}

function hasKstatus(conditions: Condition[] | undefined): boolean {
  return (conditions ?? []).some((c) => c.type === RECONCILING || c.type === STALLED);
}

function withoutWorkload(status: WebServiceStatus): WebServiceStatus {
  const rest: WebServiceStatus = { ...status };
  for (const key of WORKLOAD_FIELDS) delete rest[key];
  const childTypes = new Set(CONDITION_KINDS.map((row) => row.condition?.type));
  if (rest.conditions) {
    rest.conditions = rest.conditions.filter(
      (c) => c.type !== RECONCILING && c.type !== STALLED && !childTypes.has(c.type),
    );
  }
  return rest;
}

/** The kinds whose child gives the WebService a condition of its own (the kind table's condition column). */
const CONDITION_KINDS = NAMED_KINDS.filter((row) => row.condition !== undefined);
const CONDITION_TYPES = new Set(CONDITION_KINDS.map((row) => row.condition?.type));

/**
 * The conditions the children give: for each kind with a condition column, its value from
 * our live child while the spec asks for one (Unknown while there is none; False where the
 * kind's API is not served), and none once the spec stops asking. Kinds may share a type (an
 * Ingress or an HTTPRoute says Exposed): the one the spec asks for sets it. They say what a
 * child reports and never hold Ready back.
 */
function childConditions(obs: Observation, conditions: Condition[], now: string): Condition[] {
  const wanted = CONDITION_KINDS.filter((row) => wants(row, obs));
  const types = new Set(wanted.map((row) => row.condition?.type));
  let next = conditions.filter((c) => types.has(c.type) || !CONDITION_TYPES.has(c.type));
  for (const row of wanted) {
    const type = row.condition?.type ?? '';
    const live = obs.children[rowId(row)];
    const target = childTarget(row, row.nameFor(obs.name));
    const value = obs.absentKinds?.includes(row.kind)
      ? {
          status: 'False' as const,
          reason: API_NOT_INSTALLED,
          message: `${target} cannot be made: the cluster does not serve ${resourceName(row)} (${row.apiVersion}); install its API`,
        }
      : live && live.controlledByParent && live.managedByUs
        ? (row.condition?.of(live.object as unknown as LiveObject) ?? null)
        : { status: 'Unknown' as const, reason: 'ChildMissing', message: `${target} does not exist yet` };
    if (value) next = setCondition(next, { type, ...value, observedGeneration: obs.generation }, now);
  }
  return next;
}

/** A kind's condition where the cluster does not serve the kind's API. */
export const API_NOT_INSTALLED = 'APINotInstalled';

/** Whether the spec asks for a child of this kind: its builder makes one. */
function wants(row: ChildKindRow, obs: Observation): boolean {
  const metadata = { name: row.nameFor(obs.name), namespace: obs.namespace };
  return (row.build?.(metadata, { name: obs.name, desired: obs.desired }) ?? null) !== null;
}

/**
 * With a workload, Ready also needs the rollout done: the Deployment has seen its spec and
 * every pod is new, available and ready. status.replicas is the ready count (what /scale
 * reports), status.ready says ready/desired, and kstatus' Reconciling and Stalled say why not.
 */
/**
 * A pass that writes a new spec to a stalled Deployment cannot know yet whether that ends the
 * stall: only its controller can say, on a later pass. Until then the stall stands, so that a
 * scale-down that leaves the deadline exceeded for a while makes no second stall Event.
 */
function stallStands(obs: Observation, specChanged: boolean): boolean {
  const before = obs.status.conditions?.find((c) => c.type === STALLED);
  return specChanged && before?.status === 'True' && before.reason === 'ProgressDeadlineExceeded';
}

function workloadStatus(
  obs: Observation,
  decision: Decision,
  outcome: Outcome,
  now: string,
  earlier: Op[],
): StatusResult {
  const base = standingError(obs, decision, outcome) ?? readyCondition(decision, outcome);
  const live = obs.children[DEPLOYMENT.kind];
  const deployment = live && live.controlledByParent && live.managedByUs ? (live.object as Deployment) : null;
  const specChanged = writesDeployment([...earlier, ...decision.ops], obs.name);
  const canary = decision.rollout;
  const canaryRuns = canary !== undefined && canary.phase !== 'Completed';
  // While a canary runs, the stable pods are as many as it leaves them; the counts are of both.
  const stableWanted = canaryRuns ? (canary.stableReplicas ?? 0) : podsWanted(obs.desired, deployment);
  const rollout = rolloutOf(deployment, stableWanted, specChanged);
  const canaryReady = canaryRuns ? readyPods(obs.children[CANARY_DEPLOYMENT_ID]?.object) : 0;
  const counts = `${rollout.ready + canaryReady}/${rollout.desired + (canaryRuns ? (canary.canaryReplicas ?? 0) : 0)}`;
  const progress = `deployment/${obs.name}: ${rolloutProgress(rollout)}`;
  let ready: ReadyCondition = base;
  let reconciling: ReadyCondition = { status: 'False', reason: base.reason, message: base.message };
  let stalled: ReadyCondition = { status: 'False', reason: base.reason, message: base.message };
  if (base.status === 'True') {
    if (obs.missingConfig) {
      // The pods cannot start without it (kubelet: CreateContainerConfigError): someone must make it.
      const message = missingConfigMessage(obs.missingConfig);
      ready = { status: 'False', reason: CONFIG_NOT_FOUND, message };
      stalled = { status: 'True', reason: CONFIG_NOT_FOUND, message };
      reconciling = { status: 'False', reason: CONFIG_NOT_FOUND, message };
    } else if (canaryRuns) {
      ({ ready, reconciling, stalled } = canaryConditions(canary, progress));
    } else if (rollout.complete) {
      // The lab's ConfigMap matching is an internal detail here: the pods are what count.
      ready = { ...base, message: progress };
      reconciling = stalled = { status: 'False', reason: 'RolloutComplete', message: ready.message };
    } else if (rollout.failure !== undefined) {
      // The ReplicaSet cannot make pods: nothing will change until someone fixes the cause.
      const message = `${progress}; pods cannot be created: ${rollout.failure}`;
      ready = { status: 'False', reason: FAILED_CREATE, message };
      stalled = { status: 'True', reason: FAILED_CREATE, message };
      reconciling = { status: 'False', reason: FAILED_CREATE, message };
    } else if (rollout.stalled || stallStands(obs, specChanged)) {
      const message = `${progress}; its progress deadline was exceeded`;
      ready = { status: 'False', reason: 'ProgressDeadlineExceeded', message };
      stalled = { status: 'True', reason: 'ProgressDeadlineExceeded', message };
      reconciling = { status: 'False', reason: 'ProgressDeadlineExceeded', message };
    } else {
      const message = progress;
      ready = { status: 'False', reason: 'RolloutInProgress', message };
      reconciling = { status: 'True', reason: 'RolloutInProgress', message };
      stalled = { status: 'False', reason: 'RolloutInProgress', message };
    }
  } else if (base.reason === 'ReconcileError' || base.reason === 'ChildConflict') {
    stalled = { ...base, status: 'True' };
  } else {
    reconciling = { ...base, status: 'True' };
  }
  let conditions = obs.status.conditions ?? [];
  for (const [type, condition] of [
    [READY, ready],
    [RECONCILING, reconciling],
    [STALLED, stalled],
  ] as const) {
    conditions = setCondition(conditions, { type, ...condition, observedGeneration: obs.generation }, now);
  }
  conditions = childConditions(obs, conditions, now);
  const url = exposedUrl(obs.desired);
  const next: WebServiceStatus = {
    ...obs.status,
    observedGeneration: obs.generation,
    replicas: rollout.ready + canaryReady,
    selector: podSelectorString(obs.name, obs.desired),
    ready: counts,
    ...revisions(obs, outcome, rollout.complete && !canaryRuns),
    ...(canary ? { rollout: canary } : {}),
    ...(url !== undefined ? { url } : {}),
    conditions,
  };
  // What only a canary, or an exposure, has goes with it.
  const gone = { rollout: !canary, url: url === undefined };
  const cleared = (['rollout', 'url'] as const).filter((key) => gone[key] && next[key] !== undefined);
  for (const key of cleared) delete next[key];
  if (cleared.length > 0) return { status: next, changed: true, cleared: [...cleared] };
  return { status: next, changed: !jsonEqual(next, obs.status) };
}

/** A Deployment's ready pods, by its status. */
function readyPods(deployment: Deployment | undefined): number {
  return deployment?.status?.readyReplicas ?? 0;
}

/** Ready's reason while a canary aborted: all traffic is on stable, and someone must look. */
export const CANARY_ABORTED = 'CanaryAborted';
/** Ready's reasons while a canary runs: Canary and its phase. */
export const CANARY_RUNNING_REASONS = ['CanaryProgressing', 'CanaryPaused', 'CanaryPromoting'] as const;

/** The kstatus conditions while a canary runs: in progress, or aborted (stalled until the spec changes). */
function canaryConditions(
  canary: NonNullable<Decision['rollout']>,
  progress: string,
): { ready: ReadyCondition; reconciling: ReadyCondition; stalled: ReadyCondition } {
  const where = `canary ${canary.revision} at step ${canary.step}, ${canary.weight}% of the traffic`;
  const message = `${where}${canary.message ? `: ${canary.message}` : ''}; ${progress}`;
  if (canary.phase === 'Aborted') {
    const aborted = { status: 'False' as const, reason: CANARY_ABORTED, message };
    return { ready: aborted, reconciling: aborted, stalled: { ...aborted, status: 'True' } };
  }
  const reason = CANARY_RUNNING_REASONS.find((r) => r === `Canary${canary.phase}`) ?? 'CanaryProgressing';
  return {
    ready: { status: 'False', reason, message },
    reconciling: { status: 'True', reason, message },
    stalled: { status: 'False', reason, message },
  };
}

/**
 * Which revision the pods are rolled out to, and which one they all run: the one rolled out to
 * once its rollout completes; until then the one before, as the status last said. A pass that
 * failed claims no revision it may not have made.
 */
function revisions(
  obs: Observation,
  outcome: Outcome,
  complete: boolean,
): Pick<WebServiceStatus, 'currentRevision' | 'updateRevision'> {
  const plan = revisionPlan(obs);
  const { currentRevision, updateRevision } = obs.status;
  const before = {
    ...(currentRevision !== undefined ? { currentRevision } : {}),
    ...(updateRevision !== undefined ? { updateRevision } : {}),
  };
  if (!plan || (outcome.kind === 'failed' && plan.state !== 'current')) return before;
  if (complete) return { currentRevision: plan.number, updateRevision: plan.number };
  // A revision made the newest again keeps what it ran under its new number.
  const running =
    plan.state === 'renumbered' && currentRevision === plan.renumberedFrom ? plan.number : currentRevision;
  return { ...(running !== undefined ? { currentRevision: running } : {}), updateRevision: plan.number };
}

function plainStatus(obs: Observation, decision: Decision, outcome: Outcome, now: string): StatusResult {
  const ready = readyCondition(decision, outcome);
  const conditions = setCondition(
    obs.status.conditions ?? [],
    { type: READY, ...ready, observedGeneration: obs.generation },
    now,
  );
  const next: WebServiceStatus = {
    ...obs.status,
    observedGeneration: obs.generation,
    replicas: obs.desired.replicas,
    conditions,
  };
  return { status: next, changed: !jsonEqual(next, obs.status) };
}

function readyCondition(decision: Decision, outcome: Outcome): ReadyCondition {
  if (outcome.kind === 'failed') {
    return { status: 'False', reason: 'ReconcileError', message: outcome.message };
  }
  switch (decision.action) {
    case 'requeue':
      return {
        status: 'False',
        reason: decision.cycle ? 'DependencyCycle' : 'DependencyNotReady',
        message: decision.reason,
      };
    case 'conflict':
      return { status: 'False', reason: 'ChildConflict', message: decision.reason };
    case 'create':
    case 'update':
      if (outcome.kind === 'planned' && touchesChild(decision)) {
        const reason = decision.action === 'create' ? 'ChildMissing' : 'ChildOutOfDate';
        return { status: 'False', reason, message: decision.reason };
      }
      return reconciled(decision);
    default:
      return reconciled(decision);
  }
}

function reconciled(decision: Decision): ReadyCondition {
  return { status: 'True', reason: 'Reconciled', message: `configmap/${childName(decision.name)} matches the spec` };
}

/** Whether the decision makes or changes a child: until it is carried out, the children do not match the spec. */
function touchesChild(decision: Decision): boolean {
  return decision.ops.some((op) => op.op === 'createChild' || op.op === 'patchChild' || op.op === 'applyChild');
}

/**
 * The stored ReconcileError, while the writes it failed on are still to be made and nothing
 * has tried them since: a status computed without writing (`status`, describe) cannot know
 * whether they would succeed now, so the last attempt's error stands. Otherwise it would say
 * a rollout is under way for a Deployment the API server refuses, and the next pass would put
 * the error back: a write and an Event each, on every look. Only with a workload: the lab's
 * status keeps its contract.
 */
function standingError(obs: Observation, decision: Decision, outcome: Outcome): ReadyCondition | null {
  if (outcome.kind !== 'planned' || decision.ops.length === 0) return null;
  if (decision.action !== 'create' && decision.action !== 'update') return null;
  const stored = readyOf(obs.status);
  if (stored?.reason !== 'ReconcileError' || stored.observedGeneration !== obs.generation) return null;
  return { status: stored.status, reason: stored.reason, message: stored.message };
}

/**
 * Like apimachinery's meta.SetStatusCondition: lastTransitionTime moves only when the
 * condition is new or its status flips; reason, message and observedGeneration update in place.
 */
export function setCondition(
  conditions: Condition[],
  next: Omit<Condition, 'lastTransitionTime'>,
  now: string,
): Condition[] {
  const existing = conditions.find((c) => c.type === next.type);
  const lastTransitionTime = existing && existing.status === next.status ? existing.lastTransitionTime : now;
  const updated: Condition = {
    type: next.type,
    status: next.status,
    observedGeneration: next.observedGeneration,
    lastTransitionTime,
    reason: next.reason,
    message: next.message,
  };
  if (!existing) return [...conditions, updated];
  return conditions.map((c) => (c.type === next.type ? updated : c));
}

/** A merge patch for the status subresource; resourceVersion makes it conditional. */
export interface StatusPatch {
  metadata: { resourceVersion?: string };
  /** A field set to null is removed (merge patch). */
  status: WebServiceStatus | Record<string, unknown>;
}

/**
 * The merge patch for the status subresource, or null when nothing differs. It carries the
 * resourceVersion the status was computed from: a status computed from a WebService that has
 * changed since (a new spec, a finalizer) is refused with 409, never written over it.
 */
export function statusPatch(result: StatusResult, resourceVersion: string | undefined): StatusPatch | null {
  if (!result.changed || !result.status) return null;
  if (!result.cleared) return { metadata: { resourceVersion }, status: result.status };
  const status: Record<string, unknown> = { ...result.status };
  for (const key of result.cleared) status[key] = null;
  return { metadata: { resourceVersion }, status };
}

export function readyOf(status: WebServiceStatus | undefined): Condition | undefined {
  return status?.conditions?.find((c) => c.type === READY);
}

/** Converged: the generation is observed and Ready is True for it. */
export function isConverged(generation: number, status: WebServiceStatus | null | undefined): boolean {
  const ready = readyOf(status ?? undefined);
  return (
    status?.observedGeneration === generation &&
    ready?.status === 'True' &&
    (ready.observedGeneration === undefined || ready.observedGeneration === generation)
  );
}

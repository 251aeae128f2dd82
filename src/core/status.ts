// The status computation: observation + decision + outcome + now -> status. Pure.
import { Decision } from './decide';
import { jsonEqual } from './equal';
import { Condition, ConditionStatus, READY, WebServiceStatus, childName } from './model';
import { Observation } from './observe';

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
}

export function computeStatus(obs: Observation, decision: Decision, outcome: Outcome, now: string): StatusResult {
  if (decision.action === 'finalize' || obs.deleting) return { status: null, changed: false };
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

export function readyCondition(decision: Decision, outcome: Outcome): ReadyCondition {
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

function touchesChild(decision: Decision): boolean {
  return decision.ops.some((op) => op.op === 'createChild' || op.op === 'patchChild');
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
  status: WebServiceStatus;
}

/**
 * The merge patch for the status subresource, or null when nothing differs. It carries the
 * resourceVersion the status was computed from: a status computed from a WebService that has
 * changed since (a new spec, a finalizer) is refused with 409, never written over it.
 */
export function statusPatch(result: StatusResult, resourceVersion: string | undefined): StatusPatch | null {
  return result.changed && result.status ? { metadata: { resourceVersion }, status: result.status } : null;
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

// Where a Deployment's rollout stands, from its status, and how far it is in a few words: the
// Deployment's health, decide's requeue, the status and check read it. Pure.
import type { Deployment } from './model';

/**
 * A Deployment's progressDeadlineSeconds when its spec leaves it out: the default of
 * Kubernetes' apps/v1 (k8s.io/api apps/v1 DeploymentSpec). Unset in our spec means this.
 */
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
/** How soon `apply --wait` looks at a rollout again. */
export const ROLLOUT_POLL_SECONDS = 5;

function listOf<T>(value: T[] | undefined): T[] {
  return Array.isArray(value) ? value : [];
}

/** Where a Deployment's rollout stands, from its status. */
export interface Rollout {
  desired: number;
  ready: number;
  /**
   * The Deployment controller has not seen its current spec yet (this pass writes it, or it
   * has yet to catch up): its counts are of the spec before, whatever they say.
   */
  unobserved?: true;
  /** Its pods of the current spec, while pods of an older one are still there. */
  updated?: number;
  /** The Deployment controller has seen the current spec, and every pod is new, available and ready. */
  complete: boolean;
  /** Its Progressing condition says ProgressDeadlineExceeded. */
  stalled: boolean;
  /**
   * Why its pods cannot be made, in the API server's words: the Deployment's ReplicaFailure
   * condition, which carries the message its ReplicaSet got when it created a pod (a quota,
   * Pod Security admission, a missing service account).
   */
  failure?: string;
}

/** specChanged: this pass writes the Deployment's spec, so its status is about the old one. */
export function rolloutOf(deployment: Deployment | null, desired: number, specChanged: boolean): Rollout {
  const status = deployment?.status ?? {};
  const ready = status.readyReplicas ?? 0;
  if (!deployment) return { desired, ready, complete: false, stalled: false };
  if (specChanged) return { desired, ready, unobserved: true, complete: false, stalled: false };
  const observed = (status.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0);
  const complete =
    observed &&
    (status.updatedReplicas ?? 0) === desired &&
    (status.availableReplicas ?? 0) === desired &&
    ready === desired &&
    (status.replicas ?? 0) === desired;
  const stalled =
    !complete &&
    listOf(status.conditions).some((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded');
  const replicaFailure = complete
    ? undefined
    : listOf(status.conditions).find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  const updated = status.updatedReplicas ?? 0;
  return {
    desired,
    ready,
    ...(observed ? {} : { unobserved: true as const }),
    ...(observed && (status.replicas ?? 0) > updated ? { updated } : {}),
    complete,
    stalled,
    ...(replicaFailure ? { failure: replicaFailure.message || replicaFailure.reason || 'ReplicaFailure' } : {}),
  };
}

/**
 * How far a rollout is, in a few words that count no old pod as rolled out: `2/3 ready`;
 * while pods of an older spec are still there, `1/3 updated, 3 ready`; while its controller
 * has not seen the new spec, only how many are ready.
 */
export function rolloutProgress(rollout: Rollout): string {
  if (rollout.unobserved) return `the new spec is not observed yet; ${rollout.ready} ready`;
  if (rollout.updated !== undefined) return `${rollout.updated}/${rollout.desired} updated, ${rollout.ready} ready`;
  return `${rollout.ready}/${rollout.desired} ready`;
}

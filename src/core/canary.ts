// A canary (spec.rollout.canary): where it stands at one pass, from the spec, the status it
// recorded, the live Deployments and the time of the pass. The new revision runs in a second
// Deployment, <name>-canary, while the stable Deployment is held on its revision (only its
// replica count changes); each step moves the traffic to the canary once its pods are ready, or
// pauses; after the last, the stable Deployment rolls to the new revision while the canary takes
// all the traffic, and then the canary goes. The state lives in status.rollout, so a pass after a
// restart resumes at the same step, and a pause counts from its recorded start. Pure: the time
// is the pass's, given.
import { CANARY_DEPLOYMENT_ID, CANARY_REVISION_ANNOTATION, FULL_PROMOTION, TRACK_LABEL } from './canary-requests';
import type { CanaryCheckResult, CanaryStep, Deployment, RolloutSpec, RolloutStatus, WebService } from './model';
import type { CanaryPlan, Observation } from './observation';
import { REVISION_SET, revisionPlan } from './revision';
import { rolloutOf, rolloutProgress } from './rollout';
import { totalReplicas } from './workload';

/** How long a step waits for the canary's pods when the spec does not say. */
const DEFAULT_READY_DEADLINE_SECONDS = 600;
/** How many restarts of the canary's containers, in any one pod, abort it when the spec does not say. */
const DEFAULT_MAX_RESTARTS = 3;
/** How soon a pass looks again while the canary's pods come up (their status changes are events too). */
const POLL_SECONDS = 5;

type State = CanaryPlan['status'];

/** The canary at this pass; null when none runs (no rollout, nothing new, or it completed). */
export function canaryPlan(obs: Observation, at: string): CanaryPlan | null {
  const canary = obs.desired.rollout?.canary;
  const plan = revisionPlan(obs);
  if (!canary || !plan || !obs.desired.workload) return null;
  const prev = recorded(obs.status.rollout);
  if (prev?.phase === 'Completed' && prev.revision === plan.name) return null;
  const ongoing = prev !== null && prev.phase !== 'Completed';
  const stable = ongoing ? prev.stableRevision : runningRevision(obs);
  if (!stable || stable === plan.name) return null;
  let state: State;
  if (prev && prev.revision === plan.name) {
    state = { ...prev };
  } else {
    // A change while the stable pods roll to the last canary's revision rolls on as without a
    // canary: those pods are no longer one revision to hold.
    if (prev?.phase === 'Promoting') return null;
    // The stable pods must be told apart from the canary's: they carry the track label, which a
    // spec with a rollout gives them (the first rollout after one is set rolls them to it), and
    // their Deployment says it was last written for the stable revision.
    const live = deploymentOf(obs, 'Deployment');
    const labelled = live?.spec?.template?.metadata?.labels?.[TRACK_LABEL] === 'stable';
    if (!labelled || live.metadata.annotations?.[CANARY_REVISION_ANNOTATION] !== stable) return null;
    state = {
      revision: plan.name,
      stableRevision: stable,
      step: 0,
      stepStartedAt: at,
      weight: 0,
      phase: 'Progressing',
    };
  }
  return step(obs, state, canary, at);
}

/** The plan once the stable pods run the canary's revision: all traffic back on the WebService's Service. */
export function completedPlan(plan: CanaryPlan): CanaryPlan {
  return {
    status: {
      ...plan.status,
      phase: 'Completed',
      weight: 100,
      message: 'the stable pods run the new revision',
      canaryReplicas: 0,
    },
    holdStable: false,
    stableReplicas: plan.stableReplicas,
    canaryReplicas: 0,
    split: false,
  };
}

/** One transition at most per pass: each is recorded in status before the next is taken. */
function step(obs: Observation, state: State, canary: RolloutSpec['canary'], at: string): CanaryPlan {
  const { steps } = canary;
  const deadline = canary.readyDeadlineSeconds ?? DEFAULT_READY_DEADLINE_SECONDS;
  const total = totalReplicas(obs.desired);
  const count = (weight: number) => Math.ceil((weight * total) / 100);
  const live = deploymentOf(obs, CANARY_DEPLOYMENT_ID);
  const current = live?.metadata.annotations?.[CANARY_REVISION_ANNOTATION] === state.revision ? live : undefined;
  const rollout = (want: number) => rolloutOf(current ?? null, want, current?.spec?.replicas !== want);
  const requests = obs.rolloutRequests ?? {};
  const plan = (s: State, canaryReplicas: number, after?: number): CanaryPlan => {
    const promoting = s.phase === 'Promoting' && s.weight === 100;
    // At least one stable pod below 100% (none of none: a WebService scaled to 0 stays so).
    const stableReplicas =
      s.phase === 'Aborted' || promoting
        ? total
        : s.weight < 100
          ? Math.min(total, Math.max(1, total - count(s.weight)))
          : 0;
    return {
      status: { ...s, stableReplicas, canaryReplicas },
      holdStable: s.phase !== 'Completed' && !promoting,
      stableReplicas,
      canaryReplicas,
      split: true,
      ...(after !== undefined ? { after } : {}),
    };
  };
  const advance = (to: number, weight = state.weight): CanaryPlan => {
    const phase = to >= steps.length ? 'Promoting' : steps[to].pause ? 'Paused' : 'Progressing';
    const next: State = { ...state, step: to, stepStartedAt: at, phase, weight };
    delete next.message;
    delete next.pauseEndsAt;
    return plan(next, canaryCountAt(next, steps, count), 1);
  };
  /**
   * Past a pause that ended by itself, or into the promotion: once traffic has reached the
   * canary, its check (if any) must pass first. A step taken by hand (promote) is the person's call.
   */
  const checked = (to: number, weight = state.weight): CanaryPlan => {
    const verdict = checkVerdict(canary.check, obs.canaryCheck);
    if (verdict.failed) return abort(verdict.message);
    if (verdict.waiting)
      return plan({ ...state, message: verdict.message }, canaryCountAt(state, steps, count), POLL_SECONDS);
    return advance(to, weight);
  };
  const abort = (message: string): CanaryPlan => plan({ ...state, phase: 'Aborted', weight: 0, message }, 0);

  if (state.phase === 'Aborted') return plan(state, 0);
  // Once promoting has let the stable pods roll to the new revision, there is nothing to abort
  // to: the way back is a rollback, a new revision.
  if (state.phase === 'Promoting' && state.weight === 100) return plan(state, count(100));
  if (requests.abort === state.revision) return abort('aborted by kubectl webservice abort');
  const failure = current ? rolloutOf(current, current.spec?.replicas ?? 0, false).failure : undefined;
  if (failure) return abort(`the canary's pods cannot be made: ${failure}`);
  const maxRestarts = canary.maxRestarts ?? DEFAULT_MAX_RESTARTS;
  if ((obs.canaryRestarts ?? 0) > maxRestarts) {
    return abort(`a pod of the canary restarted ${obs.canaryRestarts} times (more than ${maxRestarts})`);
  }
  const promoted = requests.promote === `${state.revision}/${state.step}`;
  if (requests.promote === `${state.revision}/${FULL_PROMOTION}` && state.step < steps.length) {
    return advance(steps.length);
  }
  const elapsed = (Date.parse(at) - Date.parse(state.stepStartedAt)) / 1000;
  const target = canaryCountAt(state, steps, count);
  const given = steps[state.step] as CanaryStep | undefined;
  if (given?.pause) {
    const duration = given.pause.duration === undefined ? undefined : durationSeconds(given.pause.duration);
    if (promoted) return advance(state.step + 1);
    if (duration !== undefined && elapsed >= duration) return checked(state.step + 1);
    if (duration === undefined) {
      return plan({ ...state, phase: 'Paused', message: 'paused until kubectl webservice promote' }, target);
    }
    const pauseEndsAt = new Date(Date.parse(state.stepStartedAt) + duration * 1000).toISOString();
    const message = `paused for ${given.pause.duration}`;
    return plan({ ...state, phase: 'Paused', message, pauseEndsAt }, target, Math.ceil(duration - elapsed));
  }
  // A weight step, or the promotion: the canary's pods first, then the traffic.
  const weight = given?.weight ?? 100;
  const progress = rollout(target);
  if (progress.complete) {
    if (given)
      return state.step + 1 >= steps.length ? checked(state.step + 1, weight) : advance(state.step + 1, weight);
    return plan({ ...state, weight: 100, message: 'the stable pods roll to the new revision' }, target, 1);
  }
  if (promoted && given) return advance(state.step + 1);
  if (elapsed >= deadline) {
    return abort(`the canary's pods were not ready within ${deadline}s: ${rolloutProgress(progress)}`);
  }
  const message = `waiting for the canary's pods before sending it ${weight}%: ${rolloutProgress(progress)}`;
  return plan({ ...state, message }, target, Math.max(1, Math.min(POLL_SECONDS, Math.ceil(deadline - elapsed))));
}

/**
 * The canary's pods at a state: as many as its step's weight asks (a pause keeps the weight in
 * effect); promoting, all of them.
 */
function canaryCountAt(state: State, steps: CanaryStep[], count: (weight: number) => number): number {
  const given = steps[state.step] as CanaryStep | undefined;
  if (!given) return count(100);
  return count(given.weight ?? state.weight);
}

/** A Deployment child of the observation, by its row's id. */
function deploymentOf(obs: Observation, id: string): Deployment | undefined {
  const facts = obs.children[id];
  return facts ? facts.object : undefined;
}

type CheckVerdict = { failed?: true; waiting?: true; message: string };

/** Whether the check lets the canary on: passed (or none), failed (abort), or no result yet (wait). */
function checkVerdict(check: RolloutSpec['canary']['check'], result: CanaryCheckResult | undefined): CheckVerdict {
  if (!check) return { message: '' };
  // Not asked at this pass (checkDue judged from a record that was behind): the next pass asks.
  if (!result) return { waiting: true, message: 'the check is evaluated at the next pass' };
  if ('error' in result) return { waiting: true, message: `the check could not be evaluated: ${result.error}` };
  const { value } = result;
  const bounds = [
    ...(check.min !== undefined ? [`min ${check.min}`] : []),
    ...(check.max !== undefined ? [`max ${check.max}`] : []),
  ].join(', ');
  const outside =
    Number.isNaN(value) ||
    (check.min !== undefined && value < check.min) ||
    (check.max !== undefined && value > check.max);
  return outside
    ? { failed: true, message: `the check failed: ${check.query} gave ${value} (${bounds})` }
    : { message: '' };
}

/**
 * Whether a pass at `at` may weigh the canary's check, judged from what status.rollout recorded:
 * at a timed pause that has ended, or at the last step when it is a weight (into the promotion).
 * Only then does the engine send the query, so that a canary in the middle of a step, paused
 * until promote or promoting asks the metrics API nothing. Where the record is behind (a new
 * revision starts at step 0), canaryPlan may want a result this did not ask for: it then waits
 * one pass (checkVerdict).
 */
export function checkDue(parent: WebService, at: string): boolean {
  const canary = parent.spec.rollout?.canary;
  const state = recorded(parent.status?.rollout);
  if (!canary?.check || !state || state.phase === 'Aborted' || state.phase === 'Completed') return false;
  const given = canary.steps[state.step] as CanaryStep | undefined;
  if (!given) return false;
  if (!given.pause) return state.step === canary.steps.length - 1;
  const { duration } = given.pause;
  if (duration === undefined) return false;
  return Date.parse(at) - Date.parse(state.stepStartedAt) >= durationSeconds(duration) * 1000;
}

/** The revision every pod runs (status.currentRevision), by name. */
function runningRevision(obs: Observation): string | undefined {
  const running = obs.status.currentRevision;
  if (running === undefined) return undefined;
  return (obs.childSets?.[REVISION_SET] ?? []).find(
    (facts) => (facts.object as unknown as { revision?: number }).revision === running,
  )?.name;
}

const PHASES = new Set(['Progressing', 'Paused', 'Promoting', 'Completed', 'Aborted']);

/** status.rollout as recorded, or null where it has another shape (never trust an object's content). */
function recorded(status: RolloutStatus | undefined): State | null {
  if (!status) return null;
  const { revision, stableRevision, step, stepStartedAt, weight, phase } = status;
  const valid =
    typeof revision === 'string' &&
    typeof stableRevision === 'string' &&
    Number.isInteger(step) &&
    typeof stepStartedAt === 'string' &&
    !Number.isNaN(Date.parse(stepStartedAt)) &&
    Number.isInteger(weight) &&
    typeof phase === 'string' &&
    PHASES.has(phase);
  return valid ? (status as State) : null;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** A pause's duration as the CRD admits it (5m, 1h30m, 45s), in seconds. */
function durationSeconds(text: string): number {
  return [...text.matchAll(/(\d+)([smh])/g)].reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_SECONDS[unit], 0);
}

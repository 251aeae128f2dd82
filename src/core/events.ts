// Which Kubernetes Events a reconcile reports. Pure: the decision, what happened to it
// and the Ready condition before and after go in; event records come out.
// The rules keep steady state silent: a noop reports nothing, and a condition that
// persists (waiting on a dependency, a conflict, an error) is reported once, when it
// starts, i.e. when the Ready reason changes.
import { Decision, writesDeployment } from './decide';
import { REVISION } from './kinds';
import { Condition, kindOf } from './model';
import { CHANGE_CAUSE_ANNOTATION } from './revision';
import { CANARY_ABORTED, FAILED_CREATE, Outcome, ReadyCondition } from './status';

export const REPORTING_CONTROLLER = 'webservice-controller';

export interface EventRecord {
  type: 'Normal' | 'Warning';
  /** CamelCase, like every Kubernetes reason. */
  reason: string;
  /** What was done (events.k8s.io `action`). */
  action: string;
  note: string;
}

/** Kubernetes refuses notes over 1 kB. */
const MAX_NOTE = 1024;

export function eventsFor(
  decision: Decision,
  outcome: Outcome,
  before: Condition | undefined,
  after: ReadyCondition | undefined,
  cleaned: string[] = [],
): EventRecord[] {
  if (outcome.kind === 'planned') return [];
  if (outcome.kind === 'failed') {
    // A revision made before the write that failed is made all the same: it says so once.
    const starts = after?.reason === 'ReconcileError' && before?.reason !== 'ReconcileError';
    return [
      ...revisionEvents(decision),
      ...(starts ? [record('Warning', 'ReconcileError', 'Reconcile', outcome.message)] : []),
    ];
  }
  return [
    ...actionEvents(decision, cleaned),
    ...revisionEvents(decision),
    ...warningEvents(decision),
    ...transitionEvents(decision, before, after),
  ];
}

/**
 * One RevisionCreated per revision a decision made, or made the newest again (a rollback): its
 * number and what changed, by name only.
 */
function revisionEvents(decision: Decision): EventRecord[] {
  return decision.ops.flatMap((op) => {
    if ((op.op !== 'createChild' && op.op !== 'patchChild') || op.kind !== REVISION.kind) return [];
    const revision = op.op === 'createChild' ? op.object : op.patch;
    const number = (revision as { revision?: number }).revision;
    const cause = revision.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION];
    return [record('Normal', 'RevisionCreated', 'Create', `revision ${number}${cause ? `: ${cause}` : ''}`)];
  });
}

/**
 * A warning about the spec, once: with the write of the Deployment that brings it. A noop, or a
 * write while it stays, has none to send.
 */
function warningEvents(decision: Decision): EventRecord[] {
  if (!writesDeployment(decision.ops, decision.name)) return [];
  return (decision.warnings ?? [])
    .filter((warning) => warning.new)
    .map((warning) => record('Warning', warning.reason, 'Check', warning.message));
}

/**
 * The Events of a change of the Ready reason: a wait, a conflict, or a rollout that starts,
 * stalls or completes. They belong to the status write that makes the change, whoever sends
 * it (apply, run, or status): the next pass finds the reason already there and says nothing.
 */
export function transitionEvents(
  decision: Decision,
  before: Condition | undefined,
  after: ReadyCondition | undefined,
): EventRecord[] {
  const startsNow = (reason: string) => after?.reason === reason && before?.reason !== reason;
  return [...waitEvents(decision, startsNow), ...rolloutEvents(before, after, startsNow)];
}

/**
 * A rollout is reported when it starts, when it stalls and when it completes: each once,
 * since each is a change of the Ready reason. Without a workload these reasons never occur.
 */
function rolloutEvents(
  before: Condition | undefined,
  after: ReadyCondition | undefined,
  startsNow: (reason: string) => boolean,
): EventRecord[] {
  if (!after) return [];
  if (startsNow('RolloutInProgress')) return [record('Normal', 'RolloutStarted', 'Rollout', after.message)];
  if (startsNow(CANARY_ABORTED)) return [record('Warning', CANARY_ABORTED, 'Abort', after.message)];
  if (startsNow('ProgressDeadlineExceeded') || startsNow(FAILED_CREATE))
    return [record('Warning', 'RolloutStalled', 'Rollout', after.message)];
  const wasRolling =
    before?.reason === 'RolloutInProgress' ||
    before?.reason === 'ProgressDeadlineExceeded' ||
    before?.reason === FAILED_CREATE;
  if (wasRolling && after.status === 'True') return [record('Normal', 'RolloutComplete', 'Rollout', after.message)];
  return [];
}

/**
 * One Created Event for a reconcile whose attempts a 409 cut short: each attempt's Created
 * names what it made, and they are folded into the first, in order.
 */
export function foldCreated(events: EventRecord[]): EventRecord[] {
  const created = events.filter((event) => event.reason === 'Created');
  if (created.length < 2) return events;
  const names = created.map((event) => event.note.replace(/^created /, '')).join(', ');
  const first = events.indexOf(created[0]);
  return events.flatMap((event, index) =>
    index === first
      ? [record(event.type, event.reason, event.action, `created ${names}`)]
      : event.reason === 'Created'
        ? []
        : [event],
  );
}

/** What was done: Created, Updated, Finalized. */
function actionEvents(decision: Decision, cleaned: string[]): EventRecord[] {
  switch (decision.action) {
    case 'create': {
      // With a workload, one decision creates several children: name each.
      const created = decision.ops.flatMap((op) =>
        op.op === 'createChild' || op.op === 'applyChild' || op.op === 'copyChild'
          ? [`${kindOf(op.object).toLowerCase()}/${op.object.metadata.name}`]
          : [],
      );
      return [
        record('Normal', 'Created', 'Create', `created ${created.length > 1 ? created.join(', ') : decision.target}`),
      ];
    }
    case 'update':
      return [record('Normal', 'Updated', 'Update', decision.reason)];
    case 'finalize': {
      const what = cleaned.length > 0 ? `deleted ${cleaned.join(', ')}; ` : '';
      return [record('Normal', 'Finalized', 'Finalize', `${what}removed finalizer`)];
    }
    default:
      return [];
  }
}

/** Once, when it starts: waiting on a dependency or a cycle, a conflict. */
function waitEvents(decision: Decision, startsNow: (reason: string) => boolean): EventRecord[] {
  switch (decision.action) {
    case 'requeue':
      if (decision.cycle) {
        return startsNow('DependencyCycle') ? [record('Warning', 'DependencyCycle', 'Wait', decision.reason)] : [];
      }
      return startsNow('DependencyNotReady')
        ? [
            record(
              'Normal',
              'DependencyNotReady',
              'Requeue',
              `${decision.reason}; looking again in ${decision.after_seconds}s`,
            ),
          ]
        : [];
    case 'conflict':
      return startsNow('ChildConflict') ? [record('Warning', 'ChildConflict', 'Refuse', decision.reason)] : [];
    default:
      return [];
  }
}

function record(type: EventRecord['type'], reason: string, action: string, note: string): EventRecord {
  return { type, reason, action, note: note.length > MAX_NOTE ? `${note.slice(0, MAX_NOTE - 1)}…` : note };
}

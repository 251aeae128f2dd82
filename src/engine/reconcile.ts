// The imperative shell around the core: observe -> decide -> act -> status, for one CR.
// Every command and reconcile.sh reach the core's decide and computeStatus through here
// or through the same core functions; no decision is made in this file.
import { Decision, DecideOptions, Op, decide } from '../core/decide';
import { EventRecord, REPORTING_CONTROLLER, eventsFor, foldCreated } from '../core/events';
import { KindRow, kindRow } from '../core/kinds';
import { CONFIG_PINS_ANNOTATION } from '../core/config';
import { API_VERSION, Child, ConfigKind, KIND, MANAGED_BY_VALUE, SyncInput, WebService, kindOf } from '../core/model';
import type { Observation } from '../core/observation';
import { observe } from '../core/observe';
import {
  CONFIG_NOT_FOUND,
  CANARY_ABORTED,
  CANARY_RUNNING_REASONS,
  FAILED_CREATE,
  Outcome,
  StatusResult,
  computeStatus,
  isConverged,
  readyOf,
  statusPatch,
} from '../core/status';
import { ReportItem } from '../core/report';
import { MAX_ATTEMPTS } from '../core/retry';
import { ConflictError, NotLeaderError, orNull } from '../kube/errors';
import type { KubeApi, KubeEvent } from '../kube/api';
import { ChildWriter, applyChild, takeOverChild } from '../kube/child-writes';
import { withFieldOwner } from '../kube/field-owner';
import { ConfigReader } from './config';
import { gatherOne } from './gather';
import { EVENTS_V1, WEBSERVICE_TYPE } from '../core/resource-types';

/**
 * The field manager of the children we apply (and of the handover's, its name with -handover),
 * from `apply` and `run` alike: one owner of their fields. The other writes name none.
 */
const CHILD_FIELD_OWNER = MANAGED_BY_VALUE;

/** Ready's reasons that no waiting ends: someone must act (apply --wait stops, exit 1). */
const STALLED_REASONS = new Set(['ProgressDeadlineExceeded', FAILED_CREATE, CONFIG_NOT_FOUND, CANARY_ABORTED]);
/** Ready's reasons while a rollout is on its way (a canary's steps too): no failure, the row says what it waits for. */
const ROLLING_REASONS = new Set(['RolloutInProgress', ...CANARY_RUNNING_REASONS]);

export interface ReconcileOptions extends DecideOptions {
  now: () => string;
  /** Reads what a config snapshot copies (the controller's, whose keys it keeps); unset: one of the reconcile's own. */
  configReader?: ConfigReader;
  /** Who reports the Events (events.k8s.io reportingInstance); no Events without it. */
  reportingInstance?: string;
  /**
   * Takes the Events to send them in the background (the controller's recorder); without
   * it, they are sent before reconcile returns and a failure is its eventError.
   */
  recordEvents?: (events: KubeEvent[]) => void;
}

/** The objects as the API server returned them after our writes: newer than what we read. */
interface Written {
  parent?: WebService;
  children: Child[];
}

export interface ReconcileResult {
  /** What the final decision was made from (fresh from the API after a 409). */
  input: SyncInput;
  observation: Observation;
  decision: Decision;
  status: StatusResult;
  statusWritten: boolean;
  /** Children deleted (kind/name): by a finalize, or once the spec no longer wants them. */
  cleaned: string[];
  written: Written;
  events: EventRecord[];
  /** Recording an Event failed; the reconcile itself did not. */
  eventError?: Error;
  error?: Error;
  converged: boolean;
}

export async function reconcile(
  client: KubeApi,
  input: SyncInput,
  options: ReconcileOptions,
): Promise<ReconcileResult> {
  let current = input;
  const reader = options.configReader ?? new ConfigReader(client);
  // What attempts before a 409 on the status did: it stands, whatever the next attempt decides.
  const earlier: Earlier = { cleaned: [], children: [], events: [], ops: [] };
  for (let attempt = 1; ; attempt++) {
    const observation = observe(current);
    const decision = decide(observation, { ...options, at: options.now() });
    // The client's dry run decides: client sends nothing, server sends every write as a dry run.
    if (client.dryRun === 'client') return { input: current, ...planned(observation, decision, options) };
    /** After a failed write: a fresh read to decide again from (a 409), or the error to report. */
    const retry = async (err: unknown): Promise<SyncInput | Error> => {
      if (!(err instanceof ConflictError) || attempt >= MAX_ATTEMPTS) return err as Error;
      // e.g. the CR was deleted meanwhile: that is reported as this CR's failure
      // The check's result is not the object's: it carries over to the fresh read.
      const { canaryCheck } = input;
      return gatherOne(client, observation.namespace, observation.name, { makeConfigKey: true }).then(
        (fresh) => (canaryCheck ? { ...fresh, canaryCheck } : fresh),
        (again: Error) => again,
      );
    };

    const applied: Applied = { cleaned: [], written: { children: [] }, done: [] };
    let outcome: Outcome = { kind: 'applied' };
    try {
      await carryOut(client, decision, applied, reader);
    } catch (err) {
      // Another replica leads: it reconciles this CR, so this one writes no status or Event about it.
      if (err instanceof NotLeaderError) throw err;
      const fresh = await retry(err);
      if (!(fresh instanceof Error)) {
        // What this attempt did before the 409 stays done, and is reported with the rest.
        if (applied.done.length > 0) keep(earlier, { ...decision, ops: applied.done }, outcome, applied);
        current = fresh;
        continue;
      }
      outcome = { kind: 'failed', message: fresh.message };
    }

    const status = computeStatus(observation, decision, outcome, options.now(), earlier.ops);
    // Our own finalizer removal moved the resourceVersion; any other change since the read did not come from us.
    const patch = statusPatch(status, applied.written.parent?.metadata.resourceVersion ?? observation.resourceVersion);
    let statusWritten = false;
    let statusError: Error | undefined;
    if (patch) {
      try {
        applied.written.parent = await client.patchStatus<WebService>(
          WEBSERVICE_TYPE,
          observation.namespace,
          observation.name,
          patch,
        );
        statusWritten = true;
      } catch (err) {
        if (err instanceof NotLeaderError) throw err;
        // A 409: the WebService changed after it was read (a new spec, say), so this status is
        // stale. Decide again from a fresh read; what this attempt did stays done and reported.
        const fresh = await retry(err);
        if (!(fresh instanceof Error)) {
          keep(earlier, decision, outcome, applied);
          current = fresh;
          continue;
        }
        statusError = fresh;
      }
    }
    const result = finish(observation, decision, outcome, status, statusWritten, statusError, applied, earlier);
    const eventError = await recordEvents(client, observation, result.events, options);
    return { input: current, ...result, eventError };
  }
}

/** Deletions, writes and the Events of actions carried out by attempts that a 409 cut short. */
interface Earlier {
  cleaned: string[];
  children: Child[];
  events: EventRecord[];
  /** Their ops that were carried out: a Deployment they wrote has its rollout ahead of it. */
  ops: Op[];
}

function keep(earlier: Earlier, decision: Decision, outcome: Outcome, applied: Applied): void {
  earlier.cleaned.push(...applied.cleaned);
  earlier.children.splice(0, earlier.children.length, ...withoutDeleted(earlier.children, applied.done));
  earlier.children.push(...applied.written.children);
  earlier.ops.push(...applied.done);
  // Without a Ready condition before and after, eventsFor reports only what was done (Created,
  // Updated, Finalized, a warning its writes brought); a change of readiness is the final attempt's to report.
  earlier.events.push(...eventsFor(decision, outcome, undefined, undefined, applied.cleaned));
}

function planned(
  observation: Observation,
  decision: Decision,
  options: ReconcileOptions,
): Omit<ReconcileResult, 'input'> {
  const status = computeStatus(observation, decision, { kind: 'planned' }, options.now());
  return {
    observation,
    decision,
    status,
    statusWritten: false,
    cleaned: [],
    written: { children: [] },
    events: [],
    converged: isConverged(observation.generation, status.status),
  };
}

function finish(
  observation: Observation,
  decision: Decision,
  outcome: Outcome,
  status: StatusResult,
  statusWritten: boolean,
  statusError: Error | undefined,
  applied: Applied,
  earlier: Earlier,
): Omit<ReconcileResult, 'input' | 'eventError'> {
  const error = outcome.kind === 'failed' ? new Error(outcome.message) : statusError;
  const cleaned = [...earlier.cleaned, ...applied.cleaned];
  const written: Written = {
    parent: applied.written.parent,
    children: [...withoutDeleted(earlier.children, applied.done), ...applied.written.children],
  };
  // One Created for all the children this reconcile made, over however many attempts.
  const events = foldCreated([
    ...earlier.events,
    ...eventsFor(
      // A failed decision reports only what its ops that were carried out did.
      outcome.kind === 'failed' ? { ...decision, ops: applied.done } : decision,
      outcome,
      readyOf(observation.status),
      readyOf(status.status ?? undefined),
      applied.cleaned,
    ),
  ]);
  const converged = !error && isConverged(observation.generation, status.status);
  return { observation, decision, status, statusWritten, cleaned, written, events, error, converged };
}

/** Records events on the WebService; a failure here is reported, never fatal. */
export async function recordEvents(
  client: KubeApi,
  observation: Observation,
  events: EventRecord[],
  options: ReconcileOptions,
): Promise<Error | undefined> {
  // An Event says what happened; in a dry run nothing did.
  if (!options.reportingInstance || client.dryRun !== 'none' || events.length === 0) return undefined;
  const bodies = events.map((event) => eventBody(observation, event, options.reportingInstance!, options.now()));
  if (options.recordEvents) {
    options.recordEvents(bodies);
    return undefined;
  }
  try {
    for (const body of bodies) await client.create(EVENTS_V1, body.metadata.namespace, body);
    return undefined;
  } catch (err) {
    return err as Error;
  }
}

function eventBody(observation: Observation, event: EventRecord, reportingInstance: string, now: string): KubeEvent {
  return {
    metadata: { name: eventName(observation.name, now), namespace: observation.namespace },
    eventTime: microTimeOf(now),
    reportingController: REPORTING_CONTROLLER,
    reportingInstance,
    action: event.action,
    reason: event.reason,
    note: event.note,
    type: event.type,
    regarding: {
      apiVersion: API_VERSION,
      kind: KIND,
      name: observation.name,
      namespace: observation.namespace,
      uid: observation.uid,
    },
  };
}

/** Events this process has named: a reconcile sends several in one millisecond. */
let eventsNamed = 0;

/**
 * Like client-go's recorder: the object's name, a dot, a hex timestamp; then this process's
 * count of Events, so that no two of its own share a name, and a little randomness for those
 * of another process (apply beside run) in the same millisecond.
 */
function eventName(objectName: string, now: string): string {
  const hex4 = (value: number) => (value % 0x10000).toString(16).padStart(4, '0');
  const suffix = `${Date.parse(now).toString(16)}${hex4(eventsNamed++)}${hex4(Math.floor(Math.random() * 0x10000))}`;
  return `${objectName.slice(0, 253 - suffix.length - 1)}.${suffix}`;
}

/** events.k8s.io wants MicroTime: six fractional digits. */
function microTimeOf(iso: string): string {
  return iso.replace(
    /(\.\d+)?Z$/,
    (_, fraction: string | undefined) => `${(fraction ?? '.').padEnd(7, '0').slice(0, 7)}Z`,
  );
}

export interface Applied {
  /** ConfigMaps a finalize deleted. */
  cleaned: string[];
  written: Written;
  /** The ops carried out, in order: all of them unless one failed. */
  done: Op[];
}

/**
 * Executes a decision's ops in order, recording into `applied` what it deleted, the objects it
 * wrote and the ops done: when an op fails, what the ops before it did is still there.
 */
export async function carryOut(
  client: KubeApi,
  decision: Decision,
  applied: Applied = { cleaned: [], written: { children: [] }, done: [] },
  reader: ConfigReader = new ConfigReader(client),
): Promise<Applied> {
  const children = withFieldOwner(client, CHILD_FIELD_OWNER);
  for (const op of decision.ops) {
    await execute(client, children, decision, op, applied, reader);
    applied.done.push(op);
  }
  return applied;
}

async function execute(
  client: KubeApi,
  children: ChildWriter,
  decision: Decision,
  op: Op,
  applied: Applied,
  reader: ConfigReader,
): Promise<void> {
  const { namespace, name } = decision;
  switch (op.op) {
    case 'removeFinalizer': {
      const patched = client.patch<WebService>(WEBSERVICE_TYPE, namespace, name, {
        metadata: { resourceVersion: op.resourceVersion, finalizers: op.finalizers },
      });
      // The object is already gone once its last finalizer is off: nothing left to do.
      const parent = await orNull(patched);
      if (parent) applied.written.parent = parent;
      return;
    }
    case 'releasePins': {
      const patch = {
        metadata: { resourceVersion: op.resourceVersion, annotations: { [CONFIG_PINS_ANNOTATION]: op.pins } },
      };
      applied.written.parent = await client.patch<WebService>(WEBSERVICE_TYPE, namespace, name, patch);
      return;
    }
    case 'createChild':
      applied.written.children.push(await client.create<Child>(rowOf(op.kind), namespace, op.object));
      return;
    case 'patchChild':
      applied.written.children.push(await client.patch<Child>(rowOf(op.kind), namespace, op.name, op.patch));
      return;
    case 'copyChild': {
      // The source's content as decided on, or a 409 that makes the reconcile read and decide again.
      const content = await reader.snapshotContent(client, namespace, op.kind as ConfigKind, op.from);
      const object = { ...op.object, ...content } as unknown as Child;
      applied.written.children.push(await client.create<Child>(rowOf(op.kind), namespace, object));
      return;
    }
    case 'takeOverChild':
      // Nothing to record: the apply after it writes the child.
      await takeOverChild(children, rowOf(op.kind), namespace, op.name, op.entries, {
        uid: op.uid,
        resourceVersion: op.resourceVersion,
      });
      return;
    case 'applyChild':
      applied.written.children.push(
        await applyChild(children, rowOf(op.kind), namespace, op.object, {
          uid: op.uid,
          resourceVersion: op.resourceVersion,
          ...(op.handover ? { handover: true } : {}),
          ...(op.handedOver ? { handedOver: op.handedOver } : {}),
        }),
      );
      return;
    case 'deleteChild': {
      const row = rowOf(op.kind);
      const deleted = await client.delete(row, namespace, op.name, { uid: op.uid });
      if (deleted) applied.cleaned.push(`${row.kind.toLowerCase()}/${op.name}`);
      return;
    }
  }
}

/**
 * The children an earlier attempt wrote, less those a later attempt's ops deleted (the spec
 * changed between them): a child made and then deleted is not what the reconcile leaves, and
 * the controller folds what it reports written into its cache, where it would stay for good.
 */
function withoutDeleted(children: Child[], done: Op[]): Child[] {
  const deleted = new Set(done.flatMap((op) => (op.op === 'deleteChild' ? [`${rowOf(op.kind).kind}/${op.name}`] : [])));
  return deleted.size === 0 ? children : children.filter((c) => !deleted.has(`${kindOf(c)}/${c.metadata.name}`));
}

/** An op's kind's row. A decision from a file is checked against the table before it gets here. */
function rowOf(kind: string): KindRow {
  const row = kindRow(kind);
  if (!row) throw new Error(`no WebService owns a ${kind}: not in the kind table`);
  return row;
}

export function reportItem(result: ReconcileResult): ReportItem {
  const { decision } = result;
  const item: ReportItem = {
    name: decision.name,
    namespace: decision.namespace,
    action: decision.action,
    reason: decision.reason,
    target: decision.target,
    converged: result.converged,
  };
  if (decision.after_seconds !== undefined) item.after_seconds = decision.after_seconds;
  if (result.error) item.error = result.error.message;
  const ready = result.error ? undefined : readyOf(result.status.status ?? undefined);
  if (ready && ROLLING_REASONS.has(ready.reason)) item.waiting_for = ready.message;
  if (ready && STALLED_REASONS.has(ready.reason)) item.stalled = ready.message;
  if (decision.warnings) item.warnings = decision.warnings.map((warning) => warning.message);
  return item;
}

/** Runs fn over items with at most `limit` in flight, keeping the input order in the result. */
export async function mapBounded<T, R>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const done = new Array<boolean>(items.length).fill(false);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    // Once aborted, no item is started; those in flight finish.
    while (next < items.length && !signal?.aborted) {
      const index = next++;
      results[index] = await fn(items[index]);
      done[index] = true;
    }
  });
  await Promise.all(workers);
  return signal?.aborted ? results.filter((_, i) => done[i]) : results;
}

// kubectl webservice status: compute status from a fresh observation; write it
// through the status subresource only when it differs. With -w, keep watching.
import type { CommandModule } from 'yargs';
import { decide } from '../core/decide';
import { SyncInput, WebServiceStatus, WebService } from '../core/model';
import { keyOf, objectKey } from '../core/object-index';
import { observe } from '../core/observe';
import { checkName, checkNamespace } from '../core/validate';
import { computeStatus, readyOf, statusPatch } from '../core/status';
import { Context } from '../cli/context';
import { gatherOne } from '../engine/gather';
import { recordEvents } from '../engine/reconcile';
import { transitionEvents } from '../core/events';
import { UserError } from '../kube/errors';
import { retryOnConflict } from '../kube/retry';
import { withContext } from '../cli/handler';
import { DryRunArgs, dryRunOption, dryRunSuffix } from '../cli/dry-run';
import { Cell, age } from '../print/output';
import {
  RequeueArgs,
  TargetArgs,
  gatherTarget,
  nowIso,
  printResults,
  reportingInstance,
  requeueOption,
  targetOptions,
} from './shared';
import { WEBSERVICE_TYPE } from '../core/resource-types';

interface Args extends TargetArgs, RequeueArgs, DryRunArgs {
  watch?: boolean;
  computed?: boolean;
}

interface StatusRow {
  namespace: string;
  name: string;
  generation: number;
  creationTimestamp?: string;
  /** What the status was computed from; a write is conditional on it. */
  resourceVersion?: string;
  status: WebServiceStatus | null;
  /** The computed status differs from the stored one. */
  changed: boolean;
  written: boolean;
  /** -w only: the WebService is gone. */
  deleted?: boolean;
}

/**
 * The REASON column's width from the first line of status -w: Ready's longest reason (the
 * Deployment's own ProgressDeadlineExceeded), so that no later reason of ours moves the
 * columns after it.
 */
const REASON_WIDTH = 'ProgressDeadlineExceeded'.length;

/** A silent watch is restarted after this long (the API server sends bookmarks about every minute). */
const WATCH_IDLE_TIMEOUT_MS = 3 * 60_000;

export const statusCommand: CommandModule<object, Args> = {
  command: 'status [names..]',
  describe:
    'Compute the status of WebServices; where the stored one differs, write it (through /status) and say so; --dry-run writes nothing',
  builder: (yargs) =>
    dryRunOption(requeueOption(targetOptions(yargs, 'report on')))
      .option('watch', {
        alias: 'w',
        type: 'boolean',
        describe:
          'Print the table of stored statuses, then a line each time one changes, until interrupted; writes nothing',
      })
      .option('computed', {
        type: 'boolean',
        describe:
          'With -w: show the status a pass would write (computed from the spec and the children), not the stored one',
      })
      .example('$0 status checkout', 'READY, REASON, GENERATION, OBSERVED, REPLICAS, AGE')
      .example('$0 status checkout --dry-run -o json', 'the status that would be written, and whether it changed')
      .example('$0 status -w -n shop', 'watch the WebServices of a namespace converge, like kubectl get -w')
      .example('$0 status --all -w --computed', 'watch what a pass would write, as children change'),
  handler: withContext<Args>(async (ctx, args) => {
    if (args.watch) return watchStatus(ctx, args);
    if (args.computed)
      throw new UserError('--computed goes with -w; status --dry-run prints the status it would write');
    const now = nowIso(ctx);
    const rows: StatusRow[] = [];
    for (const input of await gatherTarget(ctx, args)) {
      rows.push(
        ctx.dryRun === 'client'
          ? plannedStatus(input, args['requeue-after'], now).row
          : await writeStatus(ctx, input, args['requeue-after'], now),
      );
    }
    await printResults(ctx, rows, Boolean(args.name), (items) =>
      ctx.out.table(
        statusHeaders(ctx),
        items.map((row) => statusCells(ctx, row)),
      ),
    );
    // status writes when the stored status is out of date (the lab's contract): say so, on
    // stderr, so that a reader of `status` is never surprised and -o json stays clean.
    const written = rows.filter((row) => row.written);
    const suffix = dryRunSuffix(ctx.dryRun);
    for (const row of written) ctx.out.progress(`status of webservice ${row.namespace}/${row.name} written${suffix}`);
    return 0;
  }),
};

/**
 * Writes the status when it differs, over the WebService it was computed from. If that
 * WebService changed meanwhile (409), the status is computed again from a fresh read.
 */
async function writeStatus(
  ctx: Context,
  input: SyncInput,
  requeueAfterSeconds: number,
  now: () => string,
): Promise<StatusRow> {
  let computed = plannedStatus(input, requeueAfterSeconds, now);
  return retryOnConflict(async (attempt) => {
    if (attempt > 1) {
      const { namespace, name } = computed.row;
      computed = plannedStatus(await gatherOne(await ctx.client(), namespace, name), requeueAfterSeconds, now);
    }
    const { row, patch, observation, decision } = computed;
    if (!patch) return row;
    const client = await ctx.client();
    await client.patchStatus<WebService>(WEBSERVICE_TYPE, row.namespace, row.name, patch);
    // The Event of a transition goes with the write that makes it (a rollout that stalls,
    // say): a later pass finds the new reason already stored and would say nothing.
    const events = transitionEvents(decision, readyOf(observation.status), readyOf(row.status ?? undefined));
    const eventError = await recordEvents(client, observation, events, { now, reportingInstance: reportingInstance() });
    if (eventError) ctx.out.progress(`warning: Events were not recorded: ${eventError.message}`);
    return { ...row, written: true };
  });
}

/** The one way status is computed, for status and status -w alike: observe, decide, and the core's computeStatus. */
function plannedStatus(input: SyncInput, requeueAfterSeconds: number, now: () => string) {
  const observation = observe(input);
  const decision = decide(observation, { requeueAfterSeconds, at: now() });
  const result = computeStatus(observation, decision, { kind: 'planned' }, now());
  const row: StatusRow = {
    namespace: observation.namespace,
    name: observation.name,
    generation: observation.generation,
    creationTimestamp: input.parent.metadata.creationTimestamp,
    resourceVersion: input.parent.metadata.resourceVersion,
    status: result.status,
    changed: result.changed,
    written: false,
  };
  return { row, patch: statusPatch(result, input.parent.metadata.resourceVersion), observation, decision };
}

/**
 * The status as the WebService carries it: what the last pass wrote, or nothing yet. While
 * it is being deleted, null (Deleting), as the computed status is.
 */
function storedStatus(input: SyncInput): StatusRow {
  const { metadata } = input.parent;
  return {
    namespace: metadata.namespace ?? '',
    name: metadata.name,
    generation: metadata.generation ?? 0,
    creationTimestamp: metadata.creationTimestamp,
    resourceVersion: metadata.resourceVersion,
    status: metadata.deletionTimestamp ? null : (input.parent.status ?? {}),
    changed: false,
    written: false,
  };
}

/**
 * Like kubectl get -w: the table, then a line for each WebService whose row changed, from
 * watch events, until SIGINT or SIGTERM (exit 0). Reads only: it never writes status. It
 * shows the stored status, so that no line claims an observation nobody made; --computed
 * shows what a pass would write instead.
 */
async function watchStatus(ctx: Context, args: Args): Promise<number> {
  if (args.many) throw new UserError('status -w watches one NAME, or the namespace');
  if (args.selector !== undefined) throw new UserError('status -w watches one NAME, or --all without a selector');
  const now = nowIso(ctx);
  // Like kubectl get -w: without a NAME, every WebService in the namespace (-A: in all).
  const inputs = await gatherTarget(ctx, args.name ? args : { ...args, all: true });
  const { out } = ctx;
  const machine = out.machine;
  const table = out.tableStream(statusHeaders(ctx), { ready: 'Deleting'.length, reason: REASON_WIDTH });
  const rowOf = (input: SyncInput) =>
    args.computed ? plannedStatus(input, args['requeue-after'], now).row : storedStatus(input);
  const shown = new Map<string, string>();
  /** Prints the rows that differ from what their WebService's last line showed. */
  const show = (rows: StatusRow[]) => {
    const fresh = rows.filter((row) => {
      const key = objectKey(row.namespace, row.name);
      const seen = visibleState(ctx, row);
      if (shown.get(key) === seen) return false;
      shown.set(key, seen);
      return true;
    });
    if (machine) fresh.forEach((row) => out.data(row));
    else table.rows(fresh.map((row) => statusCells(ctx, row)));
  };
  if (inputs.length === 0 && !machine) await printResults(ctx, [], false, () => undefined);
  show(inputs.map(rowOf));

  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.once('error', stop); // e.g. `| head`: the reader went away
  const { watchSyncInputs } = await import('../watch/sync-inputs');
  const { warnOncePerCause } = await import('../watch/warnings');
  const namespace = args.name ? checkNamespace(await ctx.namespace()) : await ctx.scopeNamespace();
  await watchSyncInputs(await ctx.client(), {
    namespace,
    only: args.name ? objectKey(namespace ?? '', checkName(args.name)) : undefined,
    known: {
      webServices: new Map(inputs.map((input) => [keyOf(input.parent), input.parent.metadata.resourceVersion ?? ''])),
      configMaps: new Map(
        inputs.flatMap((input) => input.children).map((child) => [keyOf(child), child.metadata.resourceVersion ?? '']),
      ),
    },
    idleTimeoutMs: WATCH_IDLE_TIMEOUT_MS,
    signal: abort.signal,
    // With -v, every line; otherwise each error once while it lasts, not once per retry.
    log: ctx.args.verbose
      ? (_level, message, fields) =>
          out.progress(`warning: ${message}${typeof fields?.error === 'string' ? `: ${fields.error}` : ''}`)
      : warnOncePerCause((text) => out.progress(text)),
    changed: (input) => show([rowOf(input)]),
    deleted: (key) => {
      if (!shown.has(key)) return;
      const [ns, name] = key.split('/');
      show([{ namespace: ns, name, generation: 0, status: null, changed: false, written: false, deleted: true }]);
    },
  });
  process.removeListener('SIGINT', stop);
  process.removeListener('SIGTERM', stop);
  return 0;
}

/**
 * What a line shows, but its age: a new line only when a column changes. With -o json, the
 * status' fields and its Ready condition.
 */
function visibleState(ctx: Context, row: StatusRow): string {
  if (ctx.out.machine) {
    // Not the times: a computed condition that is new gets `now` on each computation.
    const ready = readyOf(row.status ?? undefined);
    const { conditions: _, ...fields } = row.status ?? {};
    return JSON.stringify([row.deleted, row.generation, fields, ready?.status, ready?.reason, ready?.message]);
  }
  const headers = statusHeaders(ctx);
  return JSON.stringify(statusCells(ctx, row).flatMap((cell, i) => (headers[i] === 'age' ? [] : [cell.text])));
}

function statusHeaders(ctx: Context): string[] {
  const headers = ['namespace', 'name', 'ready', 'reason', 'generation', 'observed', 'replicas', 'age'];
  if (ctx.out.format === 'wide') headers.push('revision', 'canary', 'written', 'message');
  return headers;
}

/** The revision the pods run, and the one they are rolled out to when it is another: `3`, `3→4`. */
function revisionText(status: StatusRow['status']): string {
  const current = status?.currentRevision;
  const update = status?.updateRevision;
  if (update === undefined) return current === undefined ? '-' : String(current);
  return current === update ? String(current) : `${current ?? '-'}→${update}`;
}

/** Where a canary stands, in a few words: `Paused step 2 25% 28s left`; '-' without one. */
function canaryText(status: StatusRow['status'], now: Date): string {
  const rollout = status?.rollout;
  if (rollout?.phase === undefined) return '-';
  const words = [rollout.phase, `step ${(rollout.step ?? 0) + 1}`, `${rollout.weight ?? 0}%`];
  if (rollout.pauseEndsAt) {
    words.push(`${Math.max(0, Math.ceil((Date.parse(rollout.pauseEndsAt) - now.getTime()) / 1000))}s left`);
  }
  return words.join(' ');
}

function statusCells(ctx: Context, row: StatusRow): Cell[] {
  const { out } = ctx;
  const ready = readyOf(row.status ?? undefined);
  // Nothing stored yet: '-', as for the other columns; a status without Ready is Unknown.
  const readyText = row.deleted
    ? 'Deleted'
    : row.status
      ? (ready?.status ?? (Object.keys(row.status).length === 0 ? '-' : 'Unknown'))
      : 'Deleting';
  const cells = [
    { text: row.namespace },
    { text: row.name },
    { text: readyText, style: readyText === 'True' ? out.color.green : out.color.yellow },
    { text: ready?.reason ?? '-' },
    { text: row.deleted ? '-' : String(row.generation) },
    { text: String(row.status?.observedGeneration ?? '-') },
    { text: String(row.status?.replicas ?? '-') },
    { text: row.deleted ? '-' : age(row.creationTimestamp, ctx.now()) },
  ];
  if (out.format === 'wide') {
    cells.push(
      { text: revisionText(row.status) },
      { text: canaryText(row.status, ctx.now()) },
      { text: String(row.written) },
      { text: ready?.message ?? '' },
    );
  }
  return cells;
}

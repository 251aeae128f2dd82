// kubectl webservice apply: observe -> decide -> act -> status, per WebService.
import type { CommandModule } from 'yargs';
import { backoffSeconds, retryAfterSeconds } from '../core/backoff';
import { Decision, decide } from '../core/decide';
import { firstDifference, jsonEqual } from '../core/equal';
import { observe } from '../core/observe';
import { EXIT_CONVERGED, EXIT_FAILED, EXIT_PENDING, Report, buildReport, exitCodeOf, isSettled } from '../core/report';
import { parseDecision } from '../core/validate';
import { Context, requireTarget } from '../cli/context';
import { isKubeObject, readDocuments } from '../cli/input';
import { withContext } from '../cli/handler';
import { gatherOne } from '../engine/gather';
import { ReconcileResult, carryOut, mapBounded, reconcile, reportItem } from '../engine/reconcile';
import { sleep } from '../kube/retry';
import { KubeError, UserError } from '../kube/errors';
import { parseWait } from '../cli/duration';
import { DryRunArgs, dryRunOption } from '../cli/dry-run';
import { printDecisions } from './decisions';
import {
  CHILDREN_EPILOGUE,
  RequeueArgs,
  TargetArgs,
  gatherTarget,
  nowIso,
  printResults,
  reportingInstance,
  requeueOption,
  targetOptions,
} from './shared';

interface Args extends TargetArgs, RequeueArgs, DryRunArgs {
  filename?: string;
  wait?: string;
  concurrency: number;
}

const DEFAULT_WAIT = '5m';

export const applyCommand: CommandModule<object, Args> = {
  command: 'apply [names..]',
  describe: 'Reconcile WebServices: create, update or delete their children, finalize deletions, write status',
  builder: (yargs) =>
    dryRunOption(requeueOption(targetOptions(yargs, 'apply')))
      .epilogue(CHILDREN_EPILOGUE)
      .option('filename', {
        alias: 'f',
        type: 'string',
        describe:
          'Carry out a decision saved by "plan -o json" (refused if the cluster changed since); no status write',
      })
      .option('wait', {
        type: 'string',
        describe: `Repeat passes until converged, for at most a duration (90s, 5m; bare --wait or =true: ${DEFAULT_WAIT})`,
      })
      .option('concurrency', { type: 'number', default: 4, describe: 'WebServices reconciled at once with --all' })
      .example('$0 apply checkout -n crd-lab', 'reconcile one WebService')
      .example('$0 apply --all -n crd-lab -o json', 'one pass over a namespace, with a report')
      .example('$0 apply --all --wait=2m', 'repeat until every WebService is Ready')
      .example('$0 apply --all --dry-run=server', 'every write checked by the API server, nothing persisted'),
  handler: withContext<Args>(async (ctx, args) => {
    if (!Number.isInteger(args.concurrency) || args.concurrency < 1) {
      throw new UserError(`--concurrency must be a whole number >= 1, got ${args.concurrency}`);
    }
    if (args.filename) return applySavedDecisions(ctx, args.filename);
    requireTarget(args);
    const timeoutMs = parseWait(args.wait, 'no', DEFAULT_WAIT);
    // Ctrl-C (or SIGTERM) as run takes it: no new WebService is started, those in flight
    // finish their writes and status, and the summary says what was done. A second one quits.
    const interrupt = new AbortController();
    const onSignal = () => {
      if (interrupt.signal.aborted) process.exit(EXIT_INTERRUPTED);
      interrupt.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let passes: Passes;
    try {
      passes = await reconcileUntilDone(ctx, args, timeoutMs, interrupt.signal);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    const { results } = passes;
    const report = buildReport(results.map(reportItem));
    // Cut short, the pass did not cover its scope: it cannot say the scope converged.
    if (passes.ending === 'interrupted') report.converged = false;
    await printApply(ctx, args, results, report);
    if (passes.ending === 'interrupted') {
      ctx.out.progress('interrupted: the WebServices above were reconciled, each to the end; no other was touched');
      return EXIT_INTERRUPTED;
    }
    if (ctx.dryRun === 'client') return 0;
    if (passes.ending === 'timed out') {
      const pending = report.items.filter((item) => !isSettled(item)).map((item) => item.name);
      ctx.out.error(`timed out after ${timeoutMs / 1000}s waiting for ${pending.join(', ')}`);
      // Like kubectl wait: a timeout is never a success, even while a rollout is only slow.
      const code = exitCodeOf(report);
      return code === EXIT_CONVERGED ? EXIT_PENDING : code;
    }
    return exitCodeOf(report);
  }),
};

/** A shell's status for a process ended by SIGINT, 128 + 2. */
const EXIT_INTERRUPTED = 130;

/** apply's passes: what they did, and how they ended. */
interface Passes {
  /** Per WebService, what was done over all passes (see mergePasses). */
  results: ReconcileResult[];
  ending: 'done' | 'timed out' | 'interrupted';
}

async function pass(ctx: Context, args: Args, signal: AbortSignal): Promise<ReconcileResult[]> {
  // apply writes: where a namespace has no config key yet, it makes one (engine/config.ts).
  const inputs = await gatherTarget(ctx, args, { makeConfigKey: true });
  const options = {
    requeueAfterSeconds: args['requeue-after'],
    now: nowIso(ctx),
    reportingInstance: reportingInstance(),
  };
  const progress = ctx.out.counter(ctx.dryRun === 'client' ? 'planned' : 'reconciled', inputs.length);
  try {
    return await mapBounded(
      inputs,
      args.concurrency,
      async (input) => {
        const result = await reconcile(await ctx.client(), input, options);
        progress.tick();
        return result;
      },
      signal,
    );
  } finally {
    progress.done();
  }
}

/**
 * One pass, or with --wait, passes until converged or timed out. A requeue comes back
 * after its after_seconds; an error or conflict after exponential backoff with jitter.
 */
async function reconcileUntilDone(ctx: Context, args: Args, timeoutMs: number, signal: AbortSignal): Promise<Passes> {
  const deadline = Date.now() + timeoutMs;
  const failures = new Map<string, number>();
  let outages = 0;
  let earlier: ReconcileResult[] = [];
  for (let round = 1; ; round++) {
    let latest: ReconcileResult[];
    try {
      latest = await pass(ctx, args, signal);
      outages = 0;
    } catch (err) {
      // With --wait, an API server that is away for a moment (a restart, a failover) is
      // waited out like any other failure: back off and look again until the deadline.
      if (timeoutMs === 0 || !isOutage(err)) throw err;
      const waitMs = Math.min(backoffSeconds(++outages, Math.random()) * 1000, deadline - Date.now());
      if (waitMs <= 0) throw err;
      if (process.stderr.isTTY) {
        ctx.out.progress(`pass ${round}: ${(err as Error).message}; trying again in ${Math.ceil(waitMs / 1000)}s`);
      }
      await sleep(waitMs, signal);
      if (signal.aborted) return { results: earlier, ending: 'interrupted' };
      continue;
    }
    const results = mergePasses(earlier, latest, !signal.aborted);
    earlier = results;
    if (signal.aborted) return { results, ending: 'interrupted' };
    // A dry run changes nothing, so a second pass would find the same.
    if (timeoutMs === 0 || ctx.dryRun !== 'none') return { results, ending: 'done' };
    const pending = results.map(reportItem).filter((item) => !isSettled(item));
    const delays = pending
      .map((item) => {
        const key = `${item.namespace}/${item.name}`;
        const failed = item.action !== 'requeue' || item.error !== undefined;
        const count = failed ? (failures.get(key) ?? 0) + 1 : 0;
        if (failed) failures.set(key, count);
        return retryAfterSeconds(item, count, Math.random());
      })
      .filter((seconds): seconds is number => seconds !== null);
    // Nothing left that time can fix (what remains is a dependency cycle): stop waiting.
    if (pending.length === 0 || delays.length === 0) return { results, ending: 'done' };
    const waitMs = Math.min(Math.min(...delays) * 1000, deadline - Date.now());
    if (waitMs <= 0) return { results, ending: 'timed out' };
    if (process.stderr.isTTY) {
      const names = pending.map((item) => `${item.name} (${item.error ? 'error' : item.action})`).join(', ');
      ctx.out.progress(`pass ${round}: waiting ${Math.ceil(waitMs / 1000)}s for ${names}`);
    }
    await sleep(waitMs, signal);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Ctrl-C aborts it during the sleep
    if (signal.aborted) return { results, ending: 'interrupted' };
  }
}

/**
 * What --wait reports: for each WebService, what apply did to it over all passes. The first
 * pass that wrote a child gives the decision, with the writes of later passes folded into its
 * ops (a pass that only finds it unchanged, or only writes status while a rollout goes on,
 * does not hide the create of the pass before); without such a pass, the last pass that did
 * something. The latest pass has the word on whether it converged or failed, and on when to
 * look again. Order: the latest pass's.
 */
function mergePasses(earlier: ReconcileResult[], latest: ReconcileResult[], complete: boolean): ReconcileResult[] {
  const key = (r: ReconcileResult) => `${r.decision.namespace}/${r.decision.name}`;
  const before = new Map(earlier.map((r) => [key(r), r]));
  const merged = latest.map((r) => fold(before.get(key(r)), r));
  if (complete) return merged;
  // A pass cut short by Ctrl-C: what earlier passes reported of the rest still stands.
  const seen = new Set(latest.map(key));
  return [...merged, ...earlier.filter((r) => !seen.has(key(r)))];
}

function fold(before: ReconcileResult | undefined, r: ReconcileResult): ReconcileResult {
  if (!before) return r;
  const latestWord = { converged: r.converged, error: r.error, status: r.status };
  if (before.decision.ops.length === 0)
    return didSomething(r) || !didSomething(before) ? r : { ...before, ...latestWord };
  const { after_seconds: _, ...decision } = before.decision;
  return {
    ...before,
    ...latestWord,
    decision: {
      ...decision,
      ...(r.decision.after_seconds !== undefined ? { after_seconds: r.decision.after_seconds } : {}),
      ops: [...before.decision.ops, ...r.decision.ops],
    },
    statusWritten: before.statusWritten || r.statusWritten,
    cleaned: [...before.cleaned, ...r.cleaned],
  };
}

function didSomething(r: ReconcileResult): boolean {
  return r.decision.ops.length > 0 || r.statusWritten || r.cleaned.length > 0;
}

/**
 * The API server could not be reached, or asked us to come back (429, e.g. "storage is
 * (re)initializing" right after a restart, or 5xx): worth waiting out, unlike a 403 or a 404.
 */
function isOutage(err: unknown): boolean {
  if (!(err instanceof KubeError)) return false;
  if (err.kind === 'Unreachable' || err.kind === 'Timeout') return true;
  const code = err.httpStatus ?? 0;
  return err.kind === 'Server' && (code === 429 || code >= 500);
}

async function printApply(ctx: Context, args: Args, results: ReconcileResult[], report: Report): Promise<void> {
  const { out } = ctx;
  for (const r of results) {
    if (r.error) out.error(`webservice ${r.decision.namespace}/${r.decision.name}: ${r.error.message}`);
  }
  const eventError = results.find((r) => r.eventError)?.eventError;
  if (eventError) out.progress(`warning: Events were not recorded: ${eventError.message}`);
  if (ctx.dryRun === 'client') {
    await printResults(
      ctx,
      results.map((r) => r.decision),
      Boolean(args.name),
      (decisions) =>
        printDecisions(
          ctx,
          decisions.map((decision) => ({ decision })),
        ),
    );
    return;
  }
  const server = ctx.dryRun === 'server';
  if (out.machine) {
    const data = args.name ? singleResult(results[0]) : report;
    out.data(server ? { ...data, dryRun: 'server' } : data);
    return;
  }
  await printResults(ctx, results, Boolean(args.name), (items) =>
    printDecisions(
      ctx,
      items.map((r) => ({
        decision: r.decision,
        result: `${describeResult(r)}${server ? ' (server dry run)' : ''}`,
        failed: Boolean(r.error) || reportItem(r).stalled !== undefined,
      })),
    ),
  );
  if (args.all) {
    const counts = Object.entries(report.summary)
      .filter(([, n]) => n > 0)
      .map(([action, n]) => `${n} ${action}`)
      .join(', ');
    out.line(`\n${counts || 'nothing in scope'}; converged: ${report.converged}`);
  }
}

function singleResult(r: ReconcileResult) {
  return {
    decision: r.decision,
    result: {
      statusWritten: r.statusWritten,
      cleaned: r.cleaned,
      converged: r.converged,
      ...(r.error ? { error: r.error.message } : {}),
    },
  };
}

function describeResult(r: ReconcileResult): string {
  if (r.error) return `error: ${r.error.message}`;
  const parts: string[] = [];
  switch (r.decision.action) {
    case 'create':
      parts.push('created');
      break;
    case 'update':
      parts.push('patched');
      break;
    case 'noop':
      parts.push('unchanged');
      break;
    case 'requeue':
      parts.push(
        r.decision.after_seconds === undefined
          ? 'waiting for a spec change'
          : `requeue in ${r.decision.after_seconds}s`,
      );
      break;
    case 'conflict':
      parts.push('left untouched');
      break;
    case 'finalize':
      parts.push(r.cleaned.length > 0 ? `cleaned ${r.cleaned.join(',')}` : 'finalizer removed');
      break;
  }
  if (r.statusWritten) parts.push('status written');
  // The row says what the exit code says: still rolling out (exit 0), or stalled (exit 1).
  const { waiting_for, stalled } = reportItem(r);
  if (waiting_for !== undefined) parts.push(`waiting for the rollout: ${waiting_for}`);
  if (stalled !== undefined) parts.push(`rollout stalled: ${stalled}`);
  return parts.join(', ');
}

/**
 * Carries out saved decisions (one, or a list as plan --all prints it, in JSON or YAML) only
 * if planning now gives the very same decision for every one of them; otherwise nothing.
 */
async function applySavedDecisions(ctx: Context, file: string): Promise<number> {
  const documents = readDocuments(file);
  if (documents.some(isKubeObject)) {
    throw new UserError(
      `${file} holds Kubernetes objects: apply -f carries out decisions saved by "plan -o json|yaml"; ` +
        'create WebServices with kubectl apply -f',
    );
  }
  const saved = documents.map(parseDecision);
  const fresh: Decision[] = [];
  for (const decision of saved) {
    const input = await gatherOne(await ctx.client(), decision.namespace, decision.name, { makeConfigKey: true });
    const now = decide(observe(input), {
      requeueAfterSeconds: decision.after_seconds,
      at: new Date().toISOString(),
    });
    if (!jsonEqual(stripUndefined(now), decision)) {
      throw new UserError(
        `the decision in ${file} for webservice/${decision.name} is stale: it was "${decision.action}" ` +
          `(${decision.reason}), planning now gives "${now.action}" (${now.reason}); ${whatChanged(decision, now)}` +
          'nothing was carried out, run plan again',
      );
    }
    fresh.push(now);
  }
  const done = {
    none: 'carried out',
    client: 'would be carried out (dry run)',
    server: 'carried out (server dry run)',
  };
  const results = [];
  for (const decision of fresh) {
    // A client dry run stops here: the saved decision is still what planning gives now.
    const { cleaned } = ctx.dryRun === 'client' ? { cleaned: [] } : await carryOut(await ctx.client(), decision);
    results.push({ decision, result: { cleaned, statusWritten: false } });
  }
  if (ctx.out.machine) ctx.out.data(results.length === 1 ? results[0] : { items: results });
  else {
    printDecisions(
      ctx,
      fresh.map((decision) => ({ decision, result: decision.ops.length > 0 ? done[ctx.dryRun] : 'nothing to do' })),
    );
  }
  if (fresh.some((d) => d.action === 'conflict')) return EXIT_FAILED;
  return fresh.some((d) => d.action === 'requeue') ? EXIT_PENDING : EXIT_CONVERGED;
}

function stripUndefined(decision: Decision): Decision {
  return JSON.parse(JSON.stringify(decision)) as Decision;
}

/** The first field where a saved decision and today's differ, for the stale message. */
function whatChanged(saved: Decision, now: Decision): string {
  const difference = firstDifference(saved, stripUndefined(now));
  if (!difference || difference.path === 'action' || difference.path === 'reason') return '';
  const show = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value));
  return `${difference.path} was ${show(difference.was)}, is now ${show(difference.is)}; `;
}

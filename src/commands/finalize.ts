// kubectl webservice finalize: the last reconcile of a WebService being deleted.
// Deletes the children it owns, then removes only our finalizer.
import type { CommandModule } from 'yargs';
import { FINALIZER } from '../core/model';
import { childTarget } from '../core/kinds';
import { observe } from '../core/observe';
import { Context } from '../cli/context';
import { withContext } from '../cli/handler';
import { reconcile } from '../engine/reconcile';
import { UserError } from '../kube/errors';
import { DryRunArgs, dryRunOption, dryRunSuffix } from '../cli/dry-run';
import { TargetArgs, gatherTarget, nowIso, printResults, reportingInstance, targetOptions } from './shared';

interface FinalizeRow {
  namespace: string;
  name: string;
  cleaned: string[];
  finalizerRemoved: boolean;
  error?: string;
}

interface Args extends TargetArgs, DryRunArgs {}

export const finalizeCommand: CommandModule<object, Args> = {
  command: 'finalize [names..]',
  describe: 'Clean up after a WebService that is being deleted: delete its children, then remove our finalizer',
  builder: (yargs) =>
    dryRunOption(targetOptions(yargs, 'finalize'))
      .example('kubectl delete webservice ephemeral --wait=false && $0 finalize ephemeral', 'finish a deletion')
      .example('$0 finalize --all -o json', 'finalize every WebService that is being deleted'),
  handler: withContext<Args>(async (ctx, args) => {
    // Finalizing deletes children: the config the pods read is not its concern.
    const inputs = await gatherTarget(ctx, args, { readConfig: false });
    const terminating = inputs.filter((input) => observe(input).deleting);
    if (args.name && terminating.length === 0) {
      throw new UserError(
        `webservice "${args.name}" is not being deleted; finalize only finishes a deletion ` +
          `(kubectl delete webservice ${args.name} --wait=false), so nothing was touched`,
      );
    }
    const rows: FinalizeRow[] = [];
    const progress = ctx.out.counter(ctx.dryRun === 'client' ? 'planned' : 'finalized', terminating.length);
    for (const input of terminating) {
      const result = await reconcile(await ctx.client(), input, {
        now: nowIso(ctx),
        reportingInstance: reportingInstance(),
      });
      progress.tick();
      // A client dry run deletes nothing: what it would delete are the decision's deleteChild ops.
      const cleaned =
        ctx.dryRun === 'client'
          ? result.decision.ops.flatMap((op) => (op.op === 'deleteChild' ? [childTarget(op, op.name)] : []))
          : result.cleaned;
      rows.push({
        namespace: result.decision.namespace,
        name: result.decision.name,
        cleaned,
        finalizerRemoved: result.decision.action === 'finalize' && !result.error,
        ...(result.error ? { error: result.error.message } : {}),
      });
    }
    progress.done();
    for (const row of rows) {
      if (row.error) ctx.out.error(`webservice ${row.namespace}/${row.name}: ${row.error}`);
    }
    await printResults(
      ctx,
      rows,
      Boolean(args.name),
      (items) => finalizeTable(ctx, items),
      'No WebServices are being deleted.',
    );
    return rows.some((r) => r.error) ? 1 : 0;
  }),
};

function finalizeTable(ctx: Context, rows: FinalizeRow[]): void {
  const { out } = ctx;
  out.table(
    ['namespace', 'name', 'cleaned', 'finalizer'],
    rows.map((row) => [
      { text: row.namespace },
      { text: row.name },
      { text: row.cleaned.join(',') || '<none>' },
      row.error
        ? { text: `error: ${row.error}`, style: out.color.red }
        : {
            text: `${row.finalizerRemoved ? `removed ${FINALIZER}` : 'already gone'}${dryRunSuffix(ctx.dryRun)}`,
            style: out.color.magenta,
          },
    ]),
  );
}

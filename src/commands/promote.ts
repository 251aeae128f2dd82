// kubectl webservice promote and abort: a request to the canary that runs, written on the
// WebService as an annotation that names the canary's revision (and its step), so that it is
// carried out once, by the next pass (run's, or apply's), and never by a later canary. What
// that pass would then write is shown, as rollback shows it.
import type { CommandModule } from 'yargs';
import { DryRunArgs, dryRunOption } from '../cli/dry-run';
import { Context } from '../cli/context';
import { withContext } from '../cli/handler';
import { ABORT_ANNOTATION, FULL_PROMOTION, PROMOTE_ANNOTATION } from '../core/canary-requests';
import { decide } from '../core/decide';
import { WebService } from '../core/model';
import { observe } from '../core/observe';
import { gatherOne } from '../engine/gather';
import { UserError } from '../kube/errors';
import { printDecisions } from './decisions';
import { TargetArgs, singleTarget } from './shared';
import { WEBSERVICE_TYPE } from '../core/resource-types';

interface PromoteArgs extends TargetArgs, DryRunArgs {
  full?: boolean;
}

type Request = { annotation: string; value: (revision: string, step: number) => string; what: string };

export const promoteCommand: CommandModule<object, PromoteArgs> = {
  command: 'promote <names..>',
  describe:
    "Take a WebService's canary past its current step (a pause, or a wait for its pods); --full: past every step",
  builder: (yargs) =>
    dryRunOption(
      yargs
        .positional('names', { type: 'string', array: true, describe: 'The WebService (NAME or webservice/NAME)' })
        .option('full', { type: 'boolean', describe: 'Skip every step left: the new revision takes all the traffic' }),
    )
      .example('$0 promote web', 'end the pause the canary waits in')
      .example('$0 promote web --full --dry-run=client', 'what skipping the rest of the steps would write'),
  handler: withContext<PromoteArgs>(async (ctx, args) =>
    request(ctx, args, 'promote', {
      annotation: PROMOTE_ANNOTATION,
      value: (revision, step) => `${revision}/${args.full ? FULL_PROMOTION : step}`,
      what: args.full ? 'promoted fully' : 'promoted',
    }),
  ),
};

export const abortCommand: CommandModule<object, TargetArgs & DryRunArgs> = {
  command: 'abort <names..>',
  describe: "Abort a WebService's canary: all traffic back to the stable pods, the canary scaled down",
  builder: (yargs) =>
    dryRunOption(
      yargs.positional('names', { type: 'string', array: true, describe: 'The WebService (NAME or webservice/NAME)' }),
    ).example('$0 abort web', 'send all traffic back to the stable pods'),
  handler: withContext<TargetArgs & DryRunArgs>(async (ctx, args) =>
    request(ctx, args, 'abort', { annotation: ABORT_ANNOTATION, value: (revision) => revision, what: 'aborted' }),
  ),
};

async function request(ctx: Context, args: TargetArgs & DryRunArgs, verb: string, req: Request): Promise<void> {
  const { namespace, name } = await singleTarget(ctx, args, verb);
  const client = await ctx.client();
  const input = await gatherOne(client, namespace, name, { metrics: ctx.metricsApi });
  const { parent } = input;
  const rollout = parent.status?.rollout;
  const { revision, step, phase } = rollout ?? {};
  if (revision === undefined || step === undefined || phase === 'Completed' || phase === 'Aborted') {
    throw new UserError(`webservice/${name} has no canary running to ${verb}`);
  }
  if (phase === 'Promoting' && rollout?.weight === 100) {
    throw new UserError(
      `webservice/${name}'s canary is past its steps: its stable pods roll to the new revision; to go back, kubectl webservice rollback ${name}`,
    );
  }
  const value = req.value(revision, step);
  const patch = { metadata: { annotations: { [req.annotation]: value } } };
  const requested: WebService = {
    ...parent,
    metadata: { ...parent.metadata, annotations: { ...parent.metadata.annotations, [req.annotation]: value } },
  };
  // What the pass after it would write.
  const next = decide(observe({ ...input, parent: requested }), { at: new Date().toISOString() });
  const unchanged = parent.metadata.annotations?.[req.annotation] === value;
  if (!unchanged && ctx.dryRun !== 'client') await client.patch<WebService>(WEBSERVICE_TYPE, namespace, name, patch);
  // Written: persisted, which no dry run is.
  const written = !unchanged && ctx.dryRun === 'none';
  const result = { name, namespace, annotation: req.annotation, value, written, next, dryRun: ctx.dryRun };
  if (ctx.out.machine) {
    ctx.out.data(result);
    return;
  }
  const suffix = ctx.dryRun === 'none' ? '' : ` (${ctx.dryRun} dry run)`;
  ctx.out.line(
    unchanged
      ? `webservice.apps.labhub.io/${name} unchanged: ${req.what} already (${req.annotation}=${value})`
      : `webservice.apps.labhub.io/${name} ${req.what}${suffix}: ${req.annotation}=${value}`,
  );
  if (next.action !== 'noop') printDecisions(ctx, [{ decision: next }]);
}

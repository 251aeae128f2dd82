// kubectl webservice rollback: makes the pods those of an earlier revision (by default the one
// before the pods' current one): its image, its pod spec and its config. The spec stays the
// source of truth, so the rollback writes it: revision N's image, tier and pod fields, with
// replicas, autoscaling and exposure as they are; and the config whose source changed since is
// pinned to the revision's snapshots until the source changes again. The pass that follows
// makes revision N the newest, under a new number.
import type { CommandModule } from 'yargs';
import { DryRunArgs, dryRunOption } from '../cli/dry-run';
import { withContext } from '../cli/handler';
import { configTarget } from '../core/config';
import { decide } from '../core/decide';
import { planRollback, rollbackTarget, rolledBackSpec } from '../core/history';
import { SET_KINDS, setRowOf } from '../core/kinds';
import { WebService } from '../core/model';
import { observe } from '../core/observe';
import { isOurs } from '../core/ownership';
import { ConfigReader } from '../engine/config';
import { UserError } from '../kube/errors';
import { gatherOne } from '../engine/gather';
import { printDecisions } from './decisions';
import { ourRevisions } from './history';
import { TargetArgs, singleTarget } from './shared';
import { WEBSERVICE_TYPE } from '../core/resource-types';

interface Args extends TargetArgs, DryRunArgs {
  'to-revision'?: number;
}

export const rollbackCommand: CommandModule<object, Args> = {
  command: 'rollback <names..>',
  describe:
    "Make a WebService's pods those of an earlier revision: its image, pod spec and config (replicas, autoscaling and exposure stay)",
  builder: (yargs) =>
    dryRunOption(
      yargs
        .positional('names', { type: 'string', array: true, describe: 'The WebService (NAME or webservice/NAME)' })
        .option('to-revision', {
          type: 'number',
          describe: 'The revision to roll back to (kubectl webservice history lists them); default: the one before',
        }),
    )
      .example('$0 rollback web', 'back to the revision before the one the pods run')
      .example('$0 rollback web --to-revision 3 --dry-run=client', 'what going back to revision 3 would write'),
  handler: withContext<Args>(async (ctx, args) => {
    const { namespace, name } = await singleTarget(ctx, args, 'rollback');
    const to = args['to-revision'];
    if (to !== undefined && (!Number.isInteger(to) || to < 1)) {
      throw new UserError(`--to-revision must be a revision number (1 or more), not ${String(to)}`);
    }
    const client = await ctx.client();
    const input = await gatherOne(client, namespace, name, { readConfig: false });
    const { parent } = input;
    const target = rollbackTarget(parent, ourRevisions(parent, input.children), to);
    const spec = rolledBackSpec(parent, target.data);
    // The sources as they are now: where one changed since the revision, its snapshot is pinned.
    const reader = new ConfigReader(client, { makeKey: true });
    const sources = (await reader.statesFor({ ...parent, spec })) ?? [];
    const snapshots = input.children
      .filter((child) => SET_KINDS.includes(setRowOf(child)!) && isOurs(child, parent.metadata.uid ?? ''))
      .map((child) => child.metadata.name);
    const plan = planRollback(parent, target, sources, snapshots);
    // What the pass after it would write: plan's decision on the WebService as rolled back.
    const rolledBack: WebService = { ...parent, metadata: withPins(parent, plan.patch), spec };
    const next = decide(observe({ ...input, parent: rolledBack, config: sources }), { at: new Date().toISOString() });
    const written = plan.changes.length > 0 && ctx.dryRun !== 'client';
    if (written) await client.patch<WebService>(WEBSERVICE_TYPE, namespace, name, plan.patch);
    const result = {
      name,
      namespace,
      toRevision: plan.to,
      image: plan.image,
      changes: plan.changes,
      pinned: plan.pins.map(configTarget),
      notRestored: plan.notRestored,
      next,
      dryRun: ctx.dryRun,
    };
    if (ctx.out.machine) {
      ctx.out.data(result);
      return;
    }
    const suffix = ctx.dryRun === 'none' ? '' : ` (${ctx.dryRun} dry run)`;
    if (plan.changes.length === 0) {
      ctx.out.line(`webservice.apps.labhub.io/${name} skipped rollback: the spec is revision ${plan.to}'s already`);
    } else {
      ctx.out.line(`webservice.apps.labhub.io/${name} rolled back to revision ${plan.to}${suffix}`);
      for (const change of plan.changes)
        ctx.out.line(`  ${change.field}: ${change.from ?? '(none)'} → ${change.to ?? '(none)'}`);
    }
    for (const warning of plan.notRestored) ctx.out.progress(`warning: ${warning}`);
    if (next.action !== 'noop') printDecisions(ctx, [{ decision: next }]);
  }),
};

/** The WebService's metadata with the pins the rollback's patch sets. */
function withPins(parent: WebService, patch: Record<string, unknown>): WebService['metadata'] {
  const annotations = (patch.metadata as { annotations?: Record<string, string | null> }).annotations;
  if (!annotations) return parent.metadata;
  const merged: Record<string, string> = { ...parent.metadata.annotations };
  for (const [key, value] of Object.entries(annotations)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return { ...parent.metadata, annotations: merged };
}

// kubectl webservice status: compute status from a fresh observation; write it
// through the status subresource only when it differs.
import type { CommandModule } from 'yargs';
import { decide } from '../core/decide';
import { WebServiceStatus } from '../core/model';
import { observe } from '../core/observe';
import { computeStatus, readyOf, statusPatch } from '../core/status';
import { Context } from '../cli/context';
import { withContext } from '../cli/run';
import { age } from '../print/output';
import {
  RequeueArgs,
  TargetArgs,
  checkRequeueAfter,
  gatherTarget,
  nowIso,
  printResults,
  requeueOption,
  targetOptions,
} from './shared';

interface Args extends TargetArgs, RequeueArgs {
  'dry-run'?: boolean;
}

export interface StatusRow {
  namespace: string;
  name: string;
  generation: number;
  creationTimestamp?: string;
  status: WebServiceStatus | null;
  /** The computed status differs from the stored one. */
  changed: boolean;
  written: boolean;
}

export const statusCommand: CommandModule<object, Args> = {
  command: 'status [name]',
  describe: 'Compute the status of WebServices and write it through the status subresource when it differs',
  builder: (yargs) =>
    requeueOption(targetOptions(yargs, 'report on'))
      .option('dry-run', { type: 'boolean', describe: 'Compute and print the status, write nothing' })
      .example('$0 status checkout', 'READY, REASON, GENERATION, OBSERVED, REPLICAS, AGE')
      .example('$0 status checkout --dry-run -o json', 'the status that would be written, and whether it changed'),
  handler: withContext<Args>(async (ctx, args) => {
    checkRequeueAfter(args['requeue-after']);
    const now = nowIso(ctx);
    const rows: StatusRow[] = [];
    for (const input of await gatherTarget(ctx, args)) {
      const observation = observe(input);
      const decision = decide(observation, { requeueAfterSeconds: args['requeue-after'] });
      const result = computeStatus(observation, decision, { kind: 'planned' }, now());
      const patch = statusPatch(result);
      if (patch && !args['dry-run']) {
        await ctx.client().patchWebServiceStatus(observation.namespace, observation.name, patch);
      }
      rows.push({
        namespace: observation.namespace,
        name: observation.name,
        generation: observation.generation,
        creationTimestamp: input.parent.metadata.creationTimestamp,
        status: result.status,
        changed: result.changed,
        written: Boolean(patch) && !args['dry-run'],
      });
    }
    printResults(ctx, rows, Boolean(args.name), (items) => statusTable(ctx, items));
  }),
};

function statusTable(ctx: Context, rows: StatusRow[]): void {
  const { out } = ctx;
  const now = ctx.now();
  const headers = ['namespace', 'name', 'ready', 'reason', 'generation', 'observed', 'replicas', 'age'];
  if (out.format === 'wide') headers.push('written', 'message');
  out.table(
    headers,
    rows.map((row) => {
      const ready = readyOf(row.status ?? undefined);
      const readyText = row.status ? (ready?.status ?? 'Unknown') : 'Deleting';
      const cells = [
        { text: row.namespace },
        { text: row.name },
        { text: readyText, style: readyText === 'True' ? out.color.green : out.color.yellow },
        { text: ready?.reason ?? '-' },
        { text: String(row.generation) },
        { text: String(row.status?.observedGeneration ?? '-') },
        { text: String(row.status?.replicas ?? '-') },
        { text: age(row.creationTimestamp, now) },
      ];
      if (out.format === 'wide') cells.push({ text: String(row.written) }, { text: ready?.message ?? '' });
      return cells;
    }),
  );
}

// Pieces every command shares: the NAME/--all positional and how a scope is read.
import type { Argv } from 'yargs';
import { SyncInput } from '../core/model';
import { gatherAll, gatherOne } from '../engine/gather';
import { Context, requireTarget } from '../cli/context';
import { UserError } from '../kube/errors';

export interface TargetArgs {
  name?: string;
  all?: boolean;
}

export function targetOptions<T>(yargs: Argv<T>, verb: string): Argv<T & TargetArgs> {
  return yargs
    .positional('name', { type: 'string', describe: `Name of the WebService to ${verb}` })
    .option('all', {
      type: 'boolean',
      describe: `${verb[0].toUpperCase()}${verb.slice(1)} every WebService in the namespace (or with -A, in all)`,
    }) as Argv<T & TargetArgs>;
}

/** The sync inputs for NAME or --all: one GET for a name, two LISTs for --all. */
export async function gatherTarget(ctx: Context, args: TargetArgs): Promise<SyncInput[]> {
  requireTarget(args.name, args.all);
  if (args.name) {
    if (ctx.args['all-namespaces']) throw new UserError('a WebService cannot be retrieved by name across all namespaces');
    return [await gatherOne(ctx.client(), ctx.namespace(), args.name)];
  }
  return gatherAll(ctx.client(), ctx.scopeNamespace());
}

export function nowIso(ctx: Context): () => string {
  return () => ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

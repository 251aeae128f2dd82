// Pieces every command shares: NAME/--all, --requeue-after, reading a scope, printing results.
import * as os from 'node:os';
import type { Argv } from 'yargs';
import { DEFAULT_REQUEUE_AFTER_SECONDS, SyncInput } from '../core/model';
import { checkName, checkNamespace } from '../core/validate';
import { gatherAll, gatherOne } from '../engine/gather';
import { Context, requireTarget } from '../cli/context';
import { UserError } from '../kube/errors';
import { parseWholeSeconds } from '../cli/duration';

export interface TargetArgs {
  name?: string;
  all?: boolean;
}

export function targetOptions<T>(yargs: Argv<T>, verb: string): Argv<T & TargetArgs> {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: yargs' chained types do not narrow to this
  return yargs.positional('name', { type: 'string', describe: `Name of the WebService to ${verb}` }).option('all', {
    type: 'boolean',
    describe: `${verb[0].toUpperCase()}${verb.slice(1)} every WebService in the namespace (or with -A, in all)`,
  }) as Argv<T & TargetArgs>;
}

export interface RequeueArgs {
  'requeue-after': number;
}

export function requeueOption<T>(yargs: Argv<T>) {
  return yargs.option('requeue-after', {
    type: 'string',
    default: String(DEFAULT_REQUEUE_AFTER_SECONDS),
    // Seconds from here on, whether given as 10 or as 10s.
    coerce: (value: string) => parseWholeSeconds(value, '--requeue-after'),
    describe: 'How long to wait before looking again at a WebService whose dependencies are not ready (10, 10s, 1m)',
  });
}

/** The sync inputs for NAME or --all: one GET for a name, two LISTs for --all. */
export async function gatherTarget(ctx: Context, args: TargetArgs): Promise<SyncInput[]> {
  requireTarget(args.name, args.all);
  if (args.name) {
    if (ctx.args['all-namespaces'])
      throw new UserError('a WebService cannot be retrieved by name across all namespaces');
    return [await gatherOne(ctx.client(), checkNamespace(ctx.namespace()), checkName(args.name))];
  }
  const namespace = ctx.scopeNamespace();
  return gatherAll(ctx.client(), namespace === null ? null : checkNamespace(namespace));
}

/**
 * Prints a command's results the kubectl way: -o json|yaml gives one object for NAME
 * and {items} for --all; otherwise a table, or a note on stderr when there is nothing.
 */
export function printResults<T>(
  ctx: Context,
  items: T[],
  single: boolean,
  table: (items: T[]) => void,
  empty?: string,
): void {
  if (ctx.out.format === 'json' || ctx.out.format === 'yaml') {
    ctx.out.data(single ? items[0] : { items });
  } else if (items.length === 0) {
    ctx.out.progress(
      empty ?? `No WebServices found${ctx.args['all-namespaces'] ? '' : ` in ${ctx.namespace()} namespace`}.`,
    );
  } else {
    table(items);
  }
}

/** Events from a terminal say which machine's plugin reported them. */
export function reportingInstance(): string {
  return `kubectl-webservice-${os.hostname()}`.slice(0, 128);
}

export function nowIso(ctx: Context): () => string {
  return () =>
    ctx
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
}

// Pieces every command shares: NAME/--all, --requeue-after, reading a scope, printing results.
import { hostname } from 'node:os';
import type { Argv } from 'yargs';
import { Decision, decide } from '../core/decide';
import { NAMED_KINDS, SET_KINDS, WATCHED_KINDS } from '../core/kinds';
import { DEFAULT_REQUEUE_AFTER_SECONDS, GROUP, KIND, SyncInput, WebService } from '../core/model';
import { keyOf } from '../core/object-index';
import type { Observation } from '../core/observation';
import { observe } from '../core/observe';
import { isSyncInput, parseObservation, parseSyncInput } from '../core/validate';
import { groupObjects, isKubeObject, readDocuments } from '../cli/input';
import { checkName, checkNamespace } from '../core/validate';
import { GatherOptions, gatherAll, gatherOne } from '../engine/gather';
import { Context, requireTarget } from '../cli/context';
import type { TargetArgs } from '../cli/target';
import { parseWholeSeconds } from '../cli/duration';
import { UserError } from '../kube/errors';
import { WEBSERVICE_TYPE } from '../core/resource-types';

export type { TargetArgs };

export function targetOptions<T>(yargs: Argv<T>, verb: string): Argv<T & TargetArgs> {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: yargs' chained types do not narrow to this
  return yargs
    .positional('names', {
      type: 'string',
      array: true,
      describe: `Names of the WebServices to ${verb} (NAME or webservice/NAME)`,
    })
    .option('selector', {
      alias: 'l',
      type: 'string',
      describe: 'Only the WebServices with these labels (e.g. -l tier=prod,team!=search); implies --all',
    })
    .option('all', {
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

/** What a pass would do now: the core's decision, the one way plan and describe make it. */
export function decisionFor(observation: Observation, args: RequeueArgs): Decision {
  return decide(observation, { requeueAfterSeconds: args['requeue-after'], at: new Date().toISOString() });
}

/** The sync inputs for NAME or --all: one GET for a name, two LISTs for --all. */
export async function gatherTarget(
  ctx: Context,
  args: TargetArgs,
  gatherOptions: GatherOptions = {},
): Promise<SyncInput[]> {
  requireTarget(args);
  const options = { metrics: ctx.metricsApi, ...gatherOptions };
  const names = args.many ?? (args.name ? [args.name] : []);
  if (names.length > 0) {
    const namespace = checkNamespace(await ctx.namespace());
    names.forEach((name) => checkName(name));
    const inputs: SyncInput[] = [];
    // One after another, in the order given, like kubectl get a b c.
    for (const name of names) inputs.push(await gatherOne(await ctx.client(), namespace, name, options));
    return inputs;
  }
  const scope = await ctx.scopeNamespace();
  const namespace = scope === null ? null : checkNamespace(scope);
  const inputs = await gatherAll(await ctx.client(), namespace, options);
  if (args.selector === undefined) return inputs;
  // The API server matches the selector; every WebService is still read, as dependencies.
  const selected = await (
    await ctx.client()
  ).list<WebService>(WEBSERVICE_TYPE, namespace, { labelSelector: args.selector });
  const keys = new Set(selected.items.map(keyOf));
  return inputs.filter((input) => keys.has(keyOf(input.parent)));
}

/**
 * Prints a command's results the kubectl way: -o json|yaml gives one object for NAME
 * and {items} for --all; otherwise a table, or a note on stderr when there is nothing.
 */
export async function printResults<T>(
  ctx: Context,
  items: T[],
  single: boolean,
  table: (items: T[]) => void,
  empty?: string,
): Promise<void> {
  if (ctx.out.format === 'name') {
    // kubectl's -o name: kind.group/name, one a line, for xargs and scripts.
    for (const item of items) ctx.out.line(`${KIND.toLowerCase()}.${GROUP}/${nameOf(item)}`);
  } else if (ctx.out.machine) {
    ctx.out.data(single ? items[0] : { items });
  } else if (items.length === 0) {
    ctx.out.progress(
      empty ?? `No WebServices found${ctx.args['all-namespaces'] ? '' : ` in ${await ctx.namespace()} namespace`}.`,
    );
  } else {
    table(items);
  }
}

/** Events from a terminal say which machine's plugin reported them. */
export function reportingInstance(): string {
  return `kubectl-webservice-${hostname()}`.slice(0, 128);
}

export function nowIso(ctx: Context): () => string {
  return () =>
    ctx
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
}

/** The WebService a result is about: every command's rows carry its name, or its decision's. */
function nameOf(item: unknown): string {
  const row = item as { name?: string; decision?: { name?: string } };
  return row.name ?? row.decision?.name ?? '';
}

/** Kinds -f accepts beside WebServices: the children a WebService can have (the kind table). */
const CHILD_KIND_NAMES = WATCHED_KINDS.map((row) => row.kind);

/** The rows of several children, by role, for help texts: `config snapshots (ConfigMaps, Secrets)`. */
const CHILD_SETS_HELP = [...new Set(SET_KINDS.map((row) => row.role))].map((role) => {
  const kinds = SET_KINDS.filter((row) => row.role === role).map((row) => `${row.kind}s`);
  return `${role.replace('-', ' ')}s (${kinds.join(', ')})`;
});

/**
 * The children, for help texts, from the kind table: `the ConfigMap; as the spec asks, a
 * Deployment, Service, … or HTTPRoute; with a workload, its config snapshots (…) and revisions
 * (…)`. The first row is the one every WebService has.
 */
const CHILDREN_HELP = ((first: string, rest: string[], sets: string[]) =>
  `the ${first}; as the spec asks, a ${rest.slice(0, -1).join(', ')} or ${rest[rest.length - 1]}; ` +
  `with a workload, its ${sets.join(' and ')}`)(
  NAMED_KINDS[0].kind,
  NAMED_KINDS.slice(1).map((row) => row.kind),
  CHILD_SETS_HELP,
);

/** The last paragraph of apply's and observe's help: their own, so the root help stays short. */
export const CHILDREN_EPILOGUE = `The children of a WebService: ${CHILDREN_HELP}.`;

/** The one WebService a command acts on (history, rollback): NAME, never --all. */
export async function singleTarget(
  ctx: Context,
  args: TargetArgs,
  verb: string,
): Promise<{ namespace: string; name: string }> {
  if (!args.name) throw new UserError(`${verb} acts on one WebService: give its NAME`);
  return { namespace: checkNamespace(await ctx.namespace()), name: checkName(args.name) };
}

/**
 * The observations in a -f file: raw objects (as kubectl get prints them, or as
 * {parent, children, related}) are observed; saved observations are taken as they are.
 */
export function observationsFromFile(file: string): Observation[] {
  const documents = readDocuments(file);
  const objects = documents.filter(isKubeObject);
  const observations = documents
    .filter((doc) => !isKubeObject(doc))
    .map((doc) => (isSyncInput(doc) ? observe(parseSyncInput(doc)) : parseObservation(doc)));
  if (objects.length > 0)
    observations.push(...groupObjects(objects, CHILD_KIND_NAMES).map((raw) => observe(parseSyncInput(raw))));
  return observations;
}

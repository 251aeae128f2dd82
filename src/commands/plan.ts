// kubectl webservice plan: what apply would do, and why. Writes nothing.
import type { Argv, CommandModule } from 'yargs';
import { Decision, decide } from '../core/decide';
import { DEFAULT_REQUEUE_AFTER_SECONDS } from '../core/model';
import { Observation, observe } from '../core/observe';
import { isSyncInput, parseObservation, parseSyncInput } from '../core/validate';
import { Context, readJsonInput } from '../cli/context';
import { UserError } from '../kube/errors';
import { withContext } from '../cli/run';
import { printDecisions } from './decisions';
import { TargetArgs, gatherTarget, targetOptions } from './shared';

export interface RequeueArgs {
  'requeue-after': number;
}

interface Args extends TargetArgs, RequeueArgs {
  filename?: string;
}

export function requeueOption<T>(yargs: Argv<T>) {
  return yargs.option('requeue-after', {
    type: 'number',
    default: DEFAULT_REQUEUE_AFTER_SECONDS,
    describe: 'Seconds to wait before looking again at a WebService whose dependencies are not ready',
  });
}

export const planCommand: CommandModule<object, Args> = {
  command: 'plan [name]',
  describe: 'Decide create/update/noop/requeue/conflict/finalize for WebServices, with a reason; writes nothing',
  builder: (yargs) =>
    requeueOption(targetOptions(yargs, 'plan'))
      .option('filename', {
        alias: 'f',
        type: 'string',
        describe: 'Plan from an observation, or raw objects {parent, children, related}, in a file ("-" for stdin)',
      })
      .example('$0 plan checkout', 'what apply would do to checkout, and why')
      .example('$0 plan --all -n crd-lab -o json', 'every decision in a namespace')
      .example('$0 plan -f observe.json -o json', 'decide from a saved observation, offline'),
  handler: withContext<Args>(async (ctx, args) => {
    checkRequeueAfter(args['requeue-after']);
    const observations = args.filename ? [observationFromFile(args.filename)] : (await gatherTarget(ctx, args)).map(observe);
    const decisions = observations.map((o) => decide(o, { requeueAfterSeconds: args['requeue-after'] }));
    printPlan(ctx, decisions, Boolean(args.name || args.filename));
  }),
};

export function checkRequeueAfter(seconds: number): void {
  if (!Number.isInteger(seconds) || seconds <= 0) {
    throw new UserError(`--requeue-after must be a whole number of seconds > 0, got ${seconds}`);
  }
}

function observationFromFile(file: string): Observation {
  const value = readJsonInput(file);
  return isSyncInput(value) ? observe(parseSyncInput(value)) : parseObservation(value);
}

function printPlan(ctx: Context, decisions: Decision[], single: boolean): void {
  if (ctx.out.format === 'json' || ctx.out.format === 'yaml') {
    ctx.out.data(single ? decisions[0] : { items: decisions });
    return;
  }
  printDecisions(ctx, decisions.map((d) => ({ decision: d })));
}

// kubectl webservice plan: what apply would do, and why. Writes nothing.
import type { CommandModule } from 'yargs';
import { observe } from '../core/observe';
import { withContext } from '../cli/handler';
import { printDecisions } from './decisions';
import {
  RequeueArgs,
  TargetArgs,
  decisionFor,
  gatherTarget,
  observationsFromFile,
  printResults,
  requeueOption,
  targetOptions,
} from './shared';

interface Args extends TargetArgs, RequeueArgs {
  filename?: string;
}

export const planCommand: CommandModule<object, Args> = {
  command: 'plan [names..]',
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
    const observations = args.filename
      ? observationsFromFile(args.filename)
      : (await gatherTarget(ctx, args)).map(observe);
    const progress = ctx.out.counter('planned', observations.length);
    const decisions = observations.map((o) => {
      const decision = decisionFor(o, args);
      progress.tick();
      return decision;
    });
    progress.done();
    await printResults(
      ctx,
      decisions,
      Boolean(args.name) || (Boolean(args.filename) && decisions.length === 1),
      (items) =>
        printDecisions(
          ctx,
          items.map((decision) => ({ decision })),
        ),
    );
  }),
};

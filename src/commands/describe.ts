// kubectl webservice describe: one screen on a WebService, as kubectl describe gives one on a
// Deployment: its spec and conditions, the tree of what it owns and their states, what a pass
// would do now (plan's decision), and the Events of it all. Writes nothing.
import type { CommandModule } from 'yargs';
import { describeWebService } from '../core/description';
import { observe } from '../core/observe';
import { withContext } from '../cli/handler';
import { gatherDescribeReads } from '../engine/describe';
import { renderDescriptions } from '../print/describe';
import {
  RequeueArgs,
  TargetArgs,
  decisionFor,
  gatherTarget,
  nowIso,
  printResults,
  requeueOption,
  targetOptions,
} from './shared';

type Args = TargetArgs & RequeueArgs;

export const describeCommand: CommandModule<object, Args> = {
  command: 'describe [names..]',
  describe:
    'Show WebServices in detail: spec, conditions, the tree of their children with states, what a pass would do now, and recent Events; writes nothing',
  builder: (yargs) =>
    requeueOption(targetOptions(yargs, 'describe'))
      .example(
        '$0 describe web',
        'spec, conditions, children (Deployment → ReplicaSets → pods, Service → endpoints), Events',
      )
      .example('$0 describe --all -n shop -o json', 'the same, as data'),
  handler: withContext<Args>(async (ctx, args) => {
    const inputs = await gatherTarget(ctx, args);
    const scope = args.name || args.many ? await ctx.namespace() : await ctx.scopeNamespace();
    const reads = await gatherDescribeReads(await ctx.client(), inputs, scope);
    const now = nowIso(ctx)();
    const descriptions = inputs.map((input) => {
      const observation = observe(input);
      return describeWebService({
        input,
        observation,
        decision: decisionFor(observation, args),
        related: reads.related,
        events: reads.events.get(observation.namespace) ?? [],
        unread: reads.unread,
        now,
      });
    });
    await printResults(ctx, descriptions, Boolean(args.name), (items) =>
      ctx.out.line(renderDescriptions(items, ctx.out.color, ctx.now()).trimEnd()),
    );
  }),
};

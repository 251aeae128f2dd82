// kubectl webservice observe: what is wanted (the spec) and what is there (the child).
import type { CommandModule } from 'yargs';
import { Observation, observe } from '../core/observe';
import { Context } from '../cli/context';
import { Cell } from '../print/output';
import { TargetArgs, gatherTarget, observationsFromFile, printResults, targetOptions } from './shared';
import { withContext } from '../cli/handler';

interface Args extends TargetArgs {
  filename?: string;
}

export const observeCommand: CommandModule<object, Args> = {
  command: 'observe [names..]',
  describe:
    'Show the desired state (spec) and the actual state (the children: the ConfigMap; with spec.workload, the Deployment and Service) of WebServices',
  builder: (yargs) =>
    targetOptions(yargs, 'observe')
      .option('filename', {
        alias: 'f',
        type: 'string',
        describe: 'Observe raw objects {parent, children, related} from a file ("-" for stdin) instead of the cluster',
      })
      .example('$0 observe checkout -n crd-lab -o json', 'desired and actual of one WebService')
      .example(
        "kubectl get webservice checkout -o json | jq '{parent: .}' | $0 observe -f -",
        'observe objects you already have',
      ),
  handler: withContext<Args>(async (ctx, args) => {
    const observations = args.filename
      ? observationsFromFile(args.filename)
      : (await gatherTarget(ctx, args)).map(observe);
    await printResults(
      ctx,
      observations,
      Boolean(args.name) || (Boolean(args.filename) && observations.length === 1),
      (items) => observationTable(ctx, items),
    );
  }),
};

function observationTable(ctx: Context, observations: Observation[]): void {
  const { out } = ctx;
  const wide = out.format === 'wide';
  const headers = ['namespace', 'name', 'desired image', 'actual image', 'replicas', 'child', 'dependencies'];
  if (wide) headers.push('tier', 'generation');
  const rows = observations.map((o) => {
    const childState = !o.child ? 'absent' : o.child.controlledByParent && o.child.managedByUs ? 'owned' : 'foreign';
    const drift = o.actual.image !== undefined && o.actual.image !== o.desired.image;
    const cells: Cell[] = [
      { text: o.namespace },
      { text: o.name },
      { text: o.desired.image },
      { text: o.actual.image ?? '<none>', style: drift ? ctx.out.color.yellow : undefined },
      { text: `${o.actual.replicas ?? '-'}/${o.desired.replicas}` },
      { text: childState, style: childState === 'foreign' ? ctx.out.color.red : undefined },
      { text: o.dependencies.map((d) => `${d.name}:${d.state}`).join(',') || '<none>' },
    ];
    if (wide) cells.push({ text: `${o.actual.tier ?? '-'}/${o.desired.tier}` }, { text: String(o.generation) });
    return cells;
  });
  out.table(headers, rows);
}

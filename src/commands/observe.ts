// kubectl webservice observe: what is wanted (the spec) and what is there (the child).
import type { CommandModule } from 'yargs';
import { Observation, observe } from '../core/observe';
import { parseSyncInput } from '../core/validate';
import { Context, readJsonInput } from '../cli/context';
import { Cell } from '../print/output';
import { TargetArgs, gatherTarget, targetOptions } from './shared';
import { withContext } from '../cli/run';

interface Args extends TargetArgs {
  filename?: string;
}

export const observeCommand: CommandModule<object, Args> = {
  command: 'observe [name]',
  describe: 'Show the desired state (spec) and the actual state (child ConfigMap) of WebServices',
  builder: (yargs) =>
    targetOptions(yargs, 'observe')
      .option('filename', {
        alias: 'f',
        type: 'string',
        describe: 'Observe raw objects {parent, children, related} from a file ("-" for stdin) instead of the cluster',
      })
      .example('$0 observe checkout -n crd-lab -o json', 'desired and actual of one WebService')
      .example('kubectl get webservice checkout -o json | jq \'{parent: .}\' | $0 observe -f -', 'observe objects you already have'),
  handler: withContext<Args>(async (ctx, args) => {
    const observations = args.filename
      ? [observe(parseSyncInput(readJsonInput(args.filename)))]
      : (await gatherTarget(ctx, args)).map(observe);
    printObservations(ctx, observations, Boolean(args.name || args.filename));
  }),
};

function printObservations(ctx: Context, observations: Observation[], single: boolean): void {
  const { out } = ctx;
  if (out.format === 'json' || out.format === 'yaml') {
    out.data(single ? observations[0] : { items: observations });
    return;
  }
  if (observations.length === 0) {
    out.progress(`No WebServices found${ctx.args['all-namespaces'] ? '' : ` in ${ctx.namespace()} namespace`}.`);
    return;
  }
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

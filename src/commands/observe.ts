// kubectl webservice observe: what is wanted (the spec) and what is there (the children).
import type { CommandModule } from 'yargs';
import { CONFIG_MAP, DEPLOYMENT } from '../core/kinds';
import { Deployment } from '../core/model';
import type { Observation } from '../core/observation';
import { observe } from '../core/observe';
import { Context } from '../cli/context';
import { Cell } from '../print/output';
import {
  CHILDREN_EPILOGUE,
  TargetArgs,
  gatherTarget,
  observationsFromFile,
  printResults,
  targetOptions,
} from './shared';
import { withContext } from '../cli/handler';

interface Args extends TargetArgs {
  filename?: string;
}

export const observeCommand: CommandModule<object, Args> = {
  command: 'observe [names..]',
  describe: 'Show the desired state (spec) and the actual state (the children) of WebServices',
  builder: (yargs) =>
    targetOptions(yargs, 'observe')
      .epilogue(CHILDREN_EPILOGUE)
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
  const headers = ['namespace', 'name', 'desired image', 'actual image', 'replicas', 'ready', 'child', 'dependencies'];
  if (wide) headers.push('tier', 'child replicas', 'generation');
  const rows = observations.map((o) => {
    const child = o.children[CONFIG_MAP.kind];
    const childState = !child ? 'absent' : child.controlledByParent && child.managedByUs ? 'owned' : 'foreign';
    const actual = actualImage(o);
    const drift = actual !== undefined && actual !== o.desired.image;
    const cells: Cell[] = [
      { text: o.namespace },
      { text: o.name },
      { text: o.desired.image },
      { text: actual ?? '<none>', style: drift ? ctx.out.color.yellow : undefined },
      { text: String(o.desired.replicas) },
      { text: readyText(o) },
      { text: childState, style: childState === 'foreign' ? ctx.out.color.red : undefined },
      { text: o.dependencies.map((d) => `${d.name}:${d.state}`).join(',') || '<none>' },
    ];
    if (wide) {
      cells.push(
        { text: `${o.actual.tier ?? '-'}/${o.desired.tier}` },
        { text: o.actual.replicas ?? '-' },
        { text: String(o.generation) },
      );
    }
    return cells;
  });
  out.table(headers, rows);
}

/** The Deployment's, where the spec has a workload (its ConfigMap's too, when they differ); else the ConfigMap's. */
function actualImage(o: Observation): string | undefined {
  const running = deploymentOf(o)?.spec?.template?.spec?.containers?.find((c) => c.name === 'web')?.image;
  if (running === undefined) return o.actual.image;
  return o.actual.image !== undefined && o.actual.image !== running
    ? `${running} (configmap: ${o.actual.image})`
    : running;
}

/** kubectl's READY: ready/desired pods of the Deployment; '-' without a workload (no pods). */
function readyText(o: Observation): string {
  if (!o.desired.workload) return '-';
  return `${deploymentOf(o)?.status?.readyReplicas ?? 0}/${o.desired.replicas}`;
}

function deploymentOf(o: Observation): Deployment | null {
  const facts = o.children[DEPLOYMENT.kind];
  return facts ? facts.object : null;
}

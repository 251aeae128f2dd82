// kubectl webservice uninstall: removes what install makes. Refuses while WebServices
// exist, naming them and what they run, because deleting the CRD deletes every WebService
// with it: --cascade=orphan keeps what they run, --force deletes it too.
import type { CommandModule } from 'yargs';
import { Context } from '../cli/context';
import { parseDuration, parseWait } from '../cli/duration';
import { withContext } from '../cli/handler';
import type { AppSummary } from '../install/apps';
import type { Cascade, UninstallReport } from '../install/installer';
import type { KubeObject } from '../kube/object-location';
import { UserError } from '../kube/errors';
import { DryRunArgs, dryRunOption, dryRunSuffix } from '../cli/dry-run';

interface Args extends DryRunArgs {
  force: boolean;
  cascade: string;
  wait?: string;
  timeout: string;
}

export const uninstallCommand: CommandModule<object, Args> = {
  command: 'uninstall',
  describe: 'Remove what install makes: the controller, the RBAC and the CRD (refused while WebServices exist)',
  builder: (yargs) =>
    dryRunOption(yargs)
      .option('cascade', {
        type: 'string',
        default: 'background',
        describe:
          'What becomes of what the WebServices run (their Deployments, Services, ConfigMaps…): "orphan" keeps it ' +
          'running, without our ownerReferences, and deletes only the WebServices; "background" deletes it with them ' +
          '(needs --force)',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'Uninstall even though WebServices exist: they and everything they run are deleted with the CRD',
      })
      .option('wait', {
        type: 'string',
        describe: 'Wait until everything deleted is gone: true (the default), false, or at most a duration (90s)',
      })
      .option('timeout', { type: 'string', default: '2m', describe: 'How long to wait when --wait is true' })
      .example('$0 uninstall', 'remove the CRD, the RBAC and the controller, if no WebService is left')
      .example('$0 uninstall --cascade=orphan --dry-run', 'which WebServices would go, and which apps would stay')
      .example('$0 uninstall --cascade=orphan', 'remove them and every WebService; the apps keep running')
      .example('$0 uninstall --force', 'remove them even so: every WebService and every app is lost'),
  handler: withContext<Args>(async (ctx, args) => {
    parseDuration(args.timeout, '--timeout');
    const timeoutMs = parseWait(args.wait, 'default', args.timeout);
    const cascade = parseCascade(args.cascade);
    if (cascade === 'orphan' && args.force) {
      throw new UserError(
        '--cascade=orphan keeps what the WebServices run and --force deletes it: give one; nothing was changed',
      );
    }
    const { allBundledManifests, displayName } = await import('../install/manifests');
    const { uninstall } = await import('../install/installer');
    const report = await uninstall(await ctx.client(), allBundledManifests(), {
      force: args.force,
      cascade,
      dryRun: ctx.dryRun,
      timeoutMs,
    });
    printUninstall(ctx, report, displayName);
  }),
};

/** kubectl's --cascade values that mean something here: foreground would wait as background does. */
function parseCascade(value: string): Cascade {
  if (value === 'background' || value === 'orphan') return value;
  throw new UserError(`invalid --cascade value (${value}); must be "background" or "orphan"`);
}

function printUninstall(ctx: Context, report: UninstallReport, displayName: (object: KubeObject) => string): void {
  const { out } = ctx;
  if (out.machine) {
    out.data({
      items: report.results.map(({ object, action }) => ({
        kind: object.kind,
        name: object.metadata.name,
        ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
        action,
      })),
      cascade: report.cascade,
      // Each WebService and its children: deleted with it (background), or left running (orphan).
      apps: report.apps,
      webServicesLost: report.webServicesLost,
      finalizersRemoved: report.finalizersRemoved,
      dryRun: ctx.dryRun,
    });
    return;
  }
  const suffix = dryRunSuffix(ctx.dryRun);
  const deleted = report.results.filter((r) => r.action === 'deleted');
  for (const { object } of deleted) {
    // What became of each WebService's children, just before the CRD that held them.
    if (object.kind === 'CustomResourceDefinition') {
      for (const app of report.apps) out.line(appLine(app, report.cascade, suffix));
    }
    out.line(`${displayName(object)} deleted${suffix}`);
  }
  if (report.webServicesLost > 0) {
    out.line(
      `${report.webServicesLost} WebService(s) deleted with the CRD${suffix}` +
        (report.finalizersRemoved > 0 ? `; our finalizer removed from ${report.finalizersRemoved}` : ''),
    );
  }
  if (deleted.length === 0) out.progress('Nothing to uninstall: none of the objects install makes exist.');
}

function appLine(app: AppSummary, cascade: Cascade, suffix: string): string {
  const children = app.children.join(', ');
  const target = `webservice ${app.namespace}/${app.name}`;
  if (cascade === 'orphan') {
    return `${target} deleted${suffix}; ${children ? `left running without it: ${children}` : 'it had no children'}`;
  }
  return `${target} deleted with the CRD${suffix}${children ? `, and with it ${children}` : ''}`;
}

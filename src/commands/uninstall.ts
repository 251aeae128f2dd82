// kubectl webservice uninstall: removes what install makes. Refuses while WebServices
// exist, unless --force, because deleting the CRD deletes every WebService with it.
import type { CommandModule } from 'yargs';
import { Context } from '../cli/context';
import { parseDuration, parseWait } from '../cli/duration';
import { withContext } from '../cli/handler';
import type { UninstallReport } from '../install/installer';
import type { KubeObject } from '../kube/client';
import { DryRunArgs, dryRunOption, dryRunSuffix } from '../cli/dry-run';

interface Args extends DryRunArgs {
  force: boolean;
  wait?: string;
  timeout: string;
}

export const uninstallCommand: CommandModule<object, Args> = {
  command: 'uninstall',
  describe: 'Remove what install makes: the controller, the RBAC and the CRD (refused while WebServices exist)',
  builder: (yargs) =>
    dryRunOption(yargs)
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'Uninstall even though WebServices exist: they are deleted with the CRD, without finalize',
      })
      .option('wait', {
        type: 'string',
        describe: 'Wait until everything deleted is gone: true (the default), false, or at most a duration (90s)',
      })
      .option('timeout', { type: 'string', default: '2m', describe: 'How long to wait when --wait is true' })
      .example('$0 uninstall', 'remove the CRD, the RBAC and the controller, if no WebService is left')
      .example('$0 uninstall --force', 'remove them even so: every WebService is lost'),
  handler: withContext<Args>(async (ctx, args) => {
    parseDuration(args.timeout, '--timeout');
    const timeoutMs = parseWait(args.wait, 'default', args.timeout);
    const { allBundledManifests, displayName } = await import('../install/manifests');
    const { uninstall } = await import('../install/installer');
    const report = await uninstall(await ctx.client(), allBundledManifests(), {
      force: args.force,
      dryRun: ctx.dryRun,
      timeoutMs,
    });
    printUninstall(ctx, report, displayName);
  }),
};

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
      webServicesLost: report.webServicesLost,
      finalizersRemoved: report.finalizersRemoved,
      dryRun: ctx.dryRun,
    });
    return;
  }
  const suffix = dryRunSuffix(ctx.dryRun);
  const deleted = report.results.filter((r) => r.action === 'deleted');
  for (const { object } of deleted) out.line(`${displayName(object)} deleted${suffix}`);
  if (report.webServicesLost > 0) {
    out.line(
      `${report.webServicesLost} WebService(s) deleted with the CRD${suffix}` +
        (report.finalizersRemoved > 0 ? `; our finalizer removed from ${report.finalizersRemoved}` : ''),
    );
  }
  if (deleted.length === 0) out.progress('Nothing to uninstall: none of the objects install makes exist.');
}

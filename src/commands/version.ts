// kubectl webservice version: like `kubectl version`. The plugin's version, the commit it was
// built from, the Node.js it runs on and its platform; then the server's Kubernetes version, and
// whether the server's CRD is the one this plugin bundles. --client never contacts a server.
// A server that cannot be reached gets a warning on stderr and exit code 1, as with kubectl.
import type { ChalkInstance } from 'chalk';
import type { CommandModule } from 'yargs';
import { Context } from '../cli/context';
import { withContext } from '../cli/handler';
import type { CrdReport } from '../check/verdicts';
import { PLUGIN_VERSION } from '../core/version';
import type { ServerVersion } from '../kube/api';
import { checkMark } from '../print/output';
import { ClientVersion, clientVersion } from '../version';

interface Args {
  client: boolean;
}

export interface VersionReport {
  clientVersion: ClientVersion;
  /** The server's /version, as it answered. */
  serverVersion?: ServerVersion;
  crd?: CrdReport;
}

export const versionCommand: CommandModule<object, Args> = {
  command: 'version',
  describe: "Print the plugin's version, the server's, and whether the server's CRD is the one this plugin bundles",
  builder: (yargs) =>
    yargs
      .option('client', {
        type: 'boolean',
        default: false,
        describe: 'The plugin only (its version, commit, Node.js and platform): no server is contacted',
      })
      .example('$0 version --client', 'the plugin alone, offline')
      .example('$0 version -o json', 'with the server and the CRD, as data'),
  handler: withContext<Args>(async (ctx, args) => {
    const report: VersionReport = { clientVersion: clientVersion() };
    if (args.client) {
      printVersion(ctx, report);
      return 0;
    }
    const warning = await addServer(ctx, report);
    printVersion(ctx, report);
    if (warning === undefined) return 0;
    ctx.out.progress(`warning: ${warning.replace(/\s*\n\s*/g, ' ')}`);
    return 1;
  }),
};

/** Adds the server's version and the CRD's to report; returns what went wrong, if anything did. */
async function addServer(ctx: Context, report: VersionReport): Promise<string | undefined> {
  const { unreachableVerdict, crdReport } = await import('../check/verdicts');
  try {
    report.serverVersion = await (await ctx.client()).serverVersion();
  } catch (err) {
    return unreachableVerdict(err as Error).message;
  }
  const { observeCrd } = await import('../check/run-checks');
  const { CRD_NAME, VERSION_LABEL } = await import('../install/manifests');
  try {
    report.crd = crdReport(CRD_NAME, await observeCrd(await ctx.client()), PLUGIN_VERSION, VERSION_LABEL);
  } catch (err) {
    return `cannot read the CRD ${CRD_NAME}: ${(err as Error).message}`;
  }
  return undefined;
}

function printVersion(ctx: Context, report: VersionReport): void {
  const { out } = ctx;
  if (out.machine) out.data(report);
  else for (const line of versionLines(report, out.color)) out.line(line);
}

/** The text form, one field per line like `kubectl version`; the CRD as `check` shows it. */
export function versionLines(report: VersionReport, color: ChalkInstance): string[] {
  const client = report.clientVersion;
  const lines = [
    `Plugin Version: ${client.pluginVersion}`,
    `Git Commit: ${client.gitCommit}`,
    `Node.js Version: ${client.nodeVersion}`,
    `Platform: ${client.platform}`,
  ];
  if (report.serverVersion) lines.push(`Server Version: ${report.serverVersion.gitVersion}`);
  if (report.crd) {
    lines.push(`${checkMark(color, report.crd.status)} ${report.crd.message}`);
    if (report.crd.status !== 'ok' && report.crd.hint) lines.push(`    ${color.dim('hint:')} ${report.crd.hint}`);
  }
  return lines;
}

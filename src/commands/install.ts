// kubectl webservice install: the CRD (and with flags, the reconciler's RBAC and the
// controller) from the manifests bundled in the plugin; no repository checkout needed.
import type { CommandModule } from 'yargs';
import { Context } from '../cli/context';
import { parseDuration } from '../cli/duration';
import { DryRunArgs, dryRunOption, dryRunSuffix } from '../cli/dry-run';
import { withContext } from '../cli/handler';
import { PLUGIN_VERSION } from '../core/version';
import type { InstallResult } from '../install/installer';
import type { KubeObject } from '../kube/object-location';
import { UserError } from '../kube/errors';

interface Args extends DryRunArgs {
  rbac: boolean;
  controller: boolean;
  image?: string;
  timeout: string;
}

export const installCommand: CommandModule<object, Args> = {
  command: 'install',
  describe:
    'Install the WebService CRD (and with --rbac, --controller: the RBAC and the controller) with server-side apply',
  builder: (yargs) =>
    dryRunOption(yargs)
      .option('rbac', {
        type: 'boolean',
        default: false,
        describe: 'Also the ClusterRole webservice-reconciler: the least a user needs to run every command',
      })
      .option('controller', {
        type: 'boolean',
        default: false,
        describe:
          'Also the controller (kubectl webservice run) in webservice-system: namespace, RBAC, leader fence, Deployment',
      })
      .option('image', {
        type: 'string',
        describe:
          "With --controller: the controller's image, built from deploy/Dockerfile (the bundled one is a placeholder)",
      })
      .option('timeout', { type: 'string', default: '1m', describe: 'How long to wait for the CRD to be Established' })
      .example('$0 install', 'install or upgrade the CRD; a second run changes nothing')
      .example('$0 install --controller --image registry.example.com/webservice-controller:v0.1.0', 'with your image')
      .example('$0 install --rbac --controller --dry-run=server', 'what would change, checked by the API server')
      .example('$0 install -o yaml | kubectl apply -f -', 'print the manifests instead, for another tool to apply'),
  handler: withContext<Args>(async (ctx, args) => {
    const timeoutMs = parseDuration(args.timeout, '--timeout') * 1000;
    const { bundledManifests, checkImage, controllerImage, displayName } = await import('../install/manifests');
    if (args.image !== undefined && !args.controller)
      throw new UserError("--image is the controller's image: give it with --controller; nothing was changed");
    const image = args.image === undefined ? undefined : checkImage(args.image);
    const objects = bundledManifests({ rbac: args.rbac, controller: args.controller, image });
    // -o json|yaml prints the manifests instead of applying them: no cluster needed.
    if (ctx.out.machine) return ctx.out.documents(objects);
    if (args.controller && image === undefined) {
      ctx.out.progress(
        `warning: the controller's image ${controllerImage(objects)} is a placeholder: ` +
          'build one from deploy/Dockerfile and pass it with --image',
      );
    }
    const { install } = await import('../install/installer');
    const results = await install(await ctx.client(), objects, {
      dryRun: ctx.dryRun,
      establishTimeoutMs: timeoutMs,
      version: PLUGIN_VERSION,
    });
    printInstall(ctx, results, displayName);
  }),
};

function printInstall(ctx: Context, results: InstallResult[], displayName: (object: KubeObject) => string): void {
  const suffix = dryRunSuffix(ctx.dryRun);
  for (const { object, action, note } of results) {
    const style = action === 'unchanged' ? ctx.out.color.dim : ctx.out.color.green;
    ctx.out.line(`${displayName(object)} ${style(action)}${suffix}${note ? ` (not checked: ${note})` : ''}`);
  }
}

// kubectl webservice run: the reconcile core as a long-running, watch-driven controller,
// in a terminal or in the cluster (deploy/), with leader election, metrics and probes.
import { readFileSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { Context } from '../cli/context';
import { parseDuration } from '../cli/duration';
import { withContext } from '../cli/handler';
import { checkName, checkNamespace } from '../core/validate';
import { LOG_FORMATS, LogFormat, createLogger } from '../controller/log';
import type { ManagerOptions } from '../controller/manager';
import { UserError } from '../kube/errors';
import { RequeueArgs, nowIso, requeueOption } from './shared';

const IN_CLUSTER_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

interface Args extends RequeueArgs {
  concurrency: number;
  'resync-period': string;
  'backoff-base': string;
  'backoff-max': string;
  'watch-idle-timeout': string;
  'api-probe-interval': string;
  'watch-list': boolean;
  'priority-queue': boolean;
  'reconcile-timeout': string;
  'leader-elect': boolean;
  'leader-elect-namespace'?: string;
  'leader-elect-lease-name': string;
  'leader-elect-lease-duration': string;
  'leader-elect-renew-deadline': string;
  'leader-elect-retry-period': string;
  'metrics-bind-address': string;
  'health-probe-bind-address': string;
  'log-format': LogFormat;
}

export const runCommand: CommandModule<object, Args> = {
  command: 'run',
  describe: 'Run as a controller: watch WebServices and reconcile each change until interrupted',
  builder: (yargs) =>
    requeueOption(yargs)
      // run prints log lines (--log-format), not a table: -o means nothing to it.
      .hide('output')
      .option('concurrency', { type: 'number', default: 4, describe: 'WebServices reconciled at once (workers)' })
      .option('resync-period', {
        type: 'string',
        default: '10m',
        describe: 'Reconcile every cached WebService this often',
      })
      .option('backoff-base', {
        type: 'string',
        default: '500ms',
        describe: 'First retry delay after an error (doubles per failure)',
      })
      .option('backoff-max', { type: 'string', default: '5m', describe: 'Longest retry delay after repeated errors' })
      .option('watch-idle-timeout', {
        type: 'string',
        default: '3m',
        describe: 'Restart a watch that brings no event or bookmark for this long',
      })
      .option('api-probe-interval', {
        type: 'string',
        default: '30s',
        describe:
          "While a WebService asks for a child of an absent optional API (the Gateway API's HTTPRoute), ask discovery this often whether it is installed",
      })
      // On: at 100 000 WebServices it lowered both run's peak and the apiserver's while
      // listing (bench/RESULTS.md).
      .option('watch-list', {
        type: 'boolean',
        default: true,
        describe: 'List with streaming lists (sendInitialEvents=true), falling back to LIST where not served',
      })
      .option('priority-queue', {
        type: 'boolean',
        default: true,
        describe: 'Reconcile changed WebServices before those from the initial list and resyncs',
      })
      .option('reconcile-timeout', {
        type: 'string',
        default: '0',
        describe: "Abort a reconcile's requests after this long (e.g. 30s) and retry it with backoff; 0: no limit",
      })
      .option('leader-elect', { type: 'boolean', default: false, describe: 'Only the holder of a Lease reconciles' })
      .option('leader-elect-namespace', {
        type: 'string',
        describe: "Namespace of the Lease (default: the pod's namespace in a cluster, else the context's)",
      })
      .option('leader-elect-lease-name', {
        type: 'string',
        default: 'webservice-controller',
        describe: 'Name of the Lease',
      })
      .option('leader-elect-lease-duration', { type: 'string', default: '15s', describe: 'How long a lease is held' })
      .option('leader-elect-renew-deadline', {
        type: 'string',
        default: '10s',
        describe: 'A leader that cannot renew for this long steps down',
      })
      .option('leader-elect-retry-period', {
        type: 'string',
        default: '2s',
        describe: 'Between attempts to acquire or renew',
      })
      .option('metrics-bind-address', {
        type: 'string',
        default: '0',
        describe: 'Serve /metrics here (e.g. :8080); 0 turns it off',
      })
      .option('health-probe-bind-address', {
        type: 'string',
        default: '0',
        describe: 'Serve /healthz and /readyz here (e.g. :8081); 0 turns it off',
      })
      .option('log-format', {
        choices: LOG_FORMATS,
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: yargs' chained types do not narrow to this
        default: 'text' as LogFormat,
        describe: 'Log lines as text or JSON (stderr)',
      })
      .example('$0 run -n crd-lab', 'reconcile the WebServices of one namespace until Ctrl-C')
      .example('$0 run -A --leader-elect --metrics-bind-address=:8080', 'as deployed: one active replica of several'),
  handler: withContext<Args>(async (ctx, args) => runController(ctx, args)),
};

async function runController(ctx: Context, args: Args): Promise<number> {
  if (!Number.isInteger(args.concurrency) || args.concurrency < 1) {
    throw new UserError(`--concurrency must be a whole number >= 1, got ${args.concurrency}`);
  }
  const ms = (flag: keyof Args) => parseDuration(String(args[flag]), `--${flag}`) * 1000;
  const scope = await ctx.scopeNamespace();
  const options: ManagerOptions = {
    namespace: scope === null ? null : checkNamespace(scope),
    concurrency: args.concurrency,
    requeueAfterSeconds: args['requeue-after'],
    resyncPeriodMs: ms('resync-period'),
    backoffBaseMs: ms('backoff-base'),
    backoffMaxMs: ms('backoff-max'),
    watchIdleTimeoutMs: ms('watch-idle-timeout'),
    apiProbeIntervalMs: ms('api-probe-interval'),
    watchList: args['watch-list'],
    priorityQueue: args['priority-queue'],
    // 0 (or 0s, 0m...) is the default: no limit. parseDuration refuses zero for the other flags.
    reconcileTimeoutMs: /^0+(ms|s|m|h)?$/.test(args['reconcile-timeout'].trim()) ? 0 : ms('reconcile-timeout'),
    leaderElection: args['leader-elect']
      ? {
          namespace: checkNamespace(
            args['leader-elect-namespace'] || inClusterNamespace() || (await ctx.namespace()),
            '--leader-elect-namespace',
          ),
          name: checkName(args['leader-elect-lease-name'], '--leader-elect-lease-name'),
          leaseDurationMs: ms('leader-elect-lease-duration'),
          renewDeadlineMs: ms('leader-elect-renew-deadline'),
          retryPeriodMs: ms('leader-elect-retry-period'),
        }
      : undefined,
    metricsBindAddress: args['metrics-bind-address'],
    metricsApi: ctx.metricsApi,
    healthProbeBindAddress: args['health-probe-bind-address'],
    log: createLogger(args['log-format'], ctx.args.verbose),
    now: nowIso(ctx),
  };
  // The controller's machinery (and prom-client) loads only for run: other commands start faster.
  const [{ runManager }, { tuneHeap }] = await Promise.all([
    import('../controller/manager'),
    import('../controller/heap'),
  ]);
  tuneHeap();
  return runManager(await ctx.client(), options);
}

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync(IN_CLUSTER_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

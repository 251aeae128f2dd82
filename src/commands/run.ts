// kubectl webservice run: the reconcile core as a long-running, watch-driven controller,
// in a terminal or in the cluster (deploy/), with leader election, metrics and probes.
import * as fs from 'node:fs';
import type { CommandModule } from 'yargs';
import { Context } from '../cli/context';
import { parseDuration } from '../cli/duration';
import { withContext } from '../cli/run';
import { checkName, checkNamespace } from '../core/validate';
import { Controller } from '../controller/controller';
import { startProbeServer } from '../controller/http';
import { LeaderElector, defaultIdentity } from '../controller/leader';
import { leaseStore } from '../controller/lease-store';
import { LOG_FORMATS, LogFormat, Logger, createLogger } from '../controller/log';
import { createMetrics } from '../controller/metrics';
import { UserError } from '../kube/errors';
import { RequeueArgs, checkRequeueAfter, nowIso, requeueOption } from './shared';

const IN_CLUSTER_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

interface Args extends RequeueArgs {
  concurrency: number;
  'resync-period': string;
  'backoff-base': string;
  'backoff-max': string;
  'watch-idle-timeout': string;
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
      .option('concurrency', { type: 'number', default: 4, describe: 'WebServices reconciled at once (workers)' })
      .option('resync-period', { type: 'string', default: '10m', describe: 'Reconcile every cached WebService this often' })
      .option('backoff-base', { type: 'string', default: '500ms', describe: 'First retry delay after an error (doubles per failure)' })
      .option('backoff-max', { type: 'string', default: '5m', describe: 'Longest retry delay after repeated errors' })
      .option('watch-idle-timeout', {
        type: 'string',
        default: '3m',
        describe: 'Restart a watch that brings no event or bookmark for this long',
      })
      .option('leader-elect', { type: 'boolean', default: false, describe: 'Only the holder of a Lease reconciles' })
      .option('leader-elect-namespace', {
        type: 'string',
        describe: "Namespace of the Lease (default: the pod's namespace in a cluster, else the context's)",
      })
      .option('leader-elect-lease-name', { type: 'string', default: 'webservice-controller', describe: 'Name of the Lease' })
      .option('leader-elect-lease-duration', { type: 'string', default: '15s', describe: 'How long a lease is held' })
      .option('leader-elect-renew-deadline', { type: 'string', default: '10s', describe: 'A leader that cannot renew for this long steps down' })
      .option('leader-elect-retry-period', { type: 'string', default: '2s', describe: 'Between attempts to acquire or renew' })
      .option('metrics-bind-address', { type: 'string', default: '0', describe: 'Serve /metrics here (e.g. :8080); 0 turns it off' })
      .option('health-probe-bind-address', {
        type: 'string',
        default: '0',
        describe: 'Serve /healthz and /readyz here (e.g. :8081); 0 turns it off',
      })
      .option('log-format', { choices: LOG_FORMATS, default: 'text' as LogFormat, describe: 'Log lines as text or JSON (stderr)' })
      .example('$0 run -n crd-lab', 'reconcile the WebServices of one namespace until Ctrl-C')
      .example('$0 run -A --leader-elect --metrics-bind-address=:8080', 'as deployed: one active replica of several'),
  handler: withContext<Args>(async (ctx, args) => runController(ctx, args)),
};

async function runController(ctx: Context, args: Args): Promise<number> {
  checkRequeueAfter(args['requeue-after']);
  if (!Number.isInteger(args.concurrency) || args.concurrency < 1) {
    throw new UserError(`--concurrency must be a whole number >= 1, got ${args.concurrency}`);
  }
  const ms = (flag: keyof Args) => parseDuration(String(args[flag]), `--${flag}`) * 1000;
  const log = createLogger(args['log-format'], ctx.args.verbose);
  const client = ctx.client();
  const scope = ctx.scopeNamespace();
  const namespace = scope === null ? null : checkNamespace(scope);
  const identity = defaultIdentity();
  client.transport.identify(`run/${identity}`);
  const metrics = createMetrics('webservice');

  const controller = new Controller(client, {
    namespace,
    concurrency: args.concurrency,
    requeueAfterSeconds: args['requeue-after'],
    resyncPeriodMs: ms('resync-period'),
    backoffBaseMs: ms('backoff-base'),
    backoffMaxMs: ms('backoff-max'),
    watchIdleTimeoutMs: ms('watch-idle-timeout'),
    identity,
    log,
    metrics,
    now: nowIso(ctx),
  });

  let stopping = false;
  let synced: Promise<void> = Promise.resolve();
  const lease = args['leader-elect'] ? leaseName(ctx, args) : undefined;
  const elector = lease
    ? createElector(identity, lease, ctx, log, ms, {
        onStartedLeading: () => {
          metrics.leader(true);
          void synced.then(() => {
            if (stopping) return;
            log('info', `became leader (lease ${lease.namespace}/${lease.name}); controller working`, { identity });
            controller.startWorkers();
          });
        },
        onStoppedLeading: () => {
          metrics.leader(false);
          if (stopping) return;
          // Lost without being asked to stop: another replica may already be writing.
          log('error', `leader election lost (lease ${lease.namespace}/${lease.name}); exiting`, { identity });
          process.exit(1);
        },
      })
    : undefined;
  client.guardWrites(
    () => {
      if (elector && !elector.isLeader()) throw new UserError('not the leader: refusing to write');
    },
    (verb, resource) => metrics.write(verb, resource),
  );

  const servers = await Promise.all([
    startProbeServer({ address: args['metrics-bind-address'], metrics: metrics.registry }),
    startProbeServer({ address: args['health-probe-bind-address'], ready: () => controller.synced() }),
  ]);
  if (servers[0]) log('info', 'serving /metrics', { address: args['metrics-bind-address'], port: servers[0].port });
  if (servers[1]) log('info', 'serving /healthz and /readyz', { address: args['health-probe-bind-address'], port: servers[1].port });

  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log('info', `shutting down: ${why}`);
    await controller.shutDown();
    await elector?.stop();
    await Promise.all(servers.map((s) => s?.close()));
    log('info', 'stopped');
    resolveExit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));

  controller.startCaches();
  const scopeText = namespace === null ? 'all namespaces' : `namespace ${namespace}`;
  synced = waitFor(() => controller.synced() || stopping).then(() => {
    if (!stopping) log('info', `caches synced; watching WebServices in ${scopeText}`, { identity });
  });

  if (elector && lease) {
    log('info', `waiting to lead (lease ${lease.namespace}/${lease.name})`, { identity });
    void elector.run();
  } else {
    await synced;
    if (!stopping) {
      controller.startWorkers();
      log('info', 'controller working', { workers: args.concurrency });
    }
  }
  return exited;
}

interface LeaseName {
  namespace: string;
  name: string;
}

function leaseName(ctx: Context, args: Args): LeaseName {
  const namespace = args['leader-elect-namespace'] || inClusterNamespace() || ctx.namespace();
  return { namespace: checkNamespace(namespace, '--leader-elect-namespace'), name: checkName(args['leader-elect-lease-name'], '--leader-elect-lease-name') };
}

function createElector(
  identity: string,
  lease: LeaseName,
  ctx: Context,
  log: Logger,
  ms: (flag: keyof Args) => number,
  callbacks: { onStartedLeading: () => void; onStoppedLeading: () => void },
): LeaderElector {
  try {
    return new LeaderElector({
      identity,
      store: leaseStore(ctx.client(), lease.namespace, lease.name),
      leaseDurationMs: ms('leader-elect-lease-duration'),
      renewDeadlineMs: ms('leader-elect-renew-deadline'),
      retryPeriodMs: ms('leader-elect-retry-period'),
      ...callbacks,
      onNewLeader: (holder) => {
        if (holder && holder !== identity) log('info', 'the lease is held by another replica', { leader: holder });
      },
      log: (message) => log('debug', message),
    });
  } catch (err) {
    throw new UserError((err as Error).message);
  }
}

function inClusterNamespace(): string | undefined {
  try {
    return fs.readFileSync(IN_CLUSTER_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function waitFor(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (condition() ? resolve() : setTimeout(check, 50));
    check();
  });
}

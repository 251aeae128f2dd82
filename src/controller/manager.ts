// The controller manager, as controller-runtime calls it: wires the cache and workers
// (controller.ts), leader election, metrics, probes and signals around one KubeClient.
// Loaded only by `kubectl webservice run`.
import type { KubeClient } from '../kube/client';
import { NotLeaderError, UserError } from '../kube/errors';
import { guardWrites } from '../kube/write-guard';
import { Controller, ControllerOptions } from './controller';
import { startProbeServer } from './http';
import { LeaderElector, defaultIdentity } from './leader';
import { leaseStore } from './lease-store';
import type { Logger } from './log';
import { createMetrics } from './metrics';

/** How long a replica that lost its lease waits for answers to writes it already sent. */
const SENT_WRITES_WAIT_MS = 5_000;

interface LeaderElectionOptions {
  namespace: string;
  name: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface ManagerOptions extends Omit<ControllerOptions, 'identity' | 'metrics'> {
  /** Absent: this process always leads. */
  leaderElection?: LeaderElectionOptions;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  log: Logger;
}

/** Runs until SIGINT or SIGTERM (resolves 0), or exits 1 when leadership is lost. */
export async function runManager(client: KubeClient, options: ManagerOptions): Promise<number> {
  const { log, namespace } = options;
  const identity = defaultIdentity();
  client.transport.identify(`run/${identity}`);
  const metrics = createMetrics('webservice');

  // Every write of the controller asks whether this replica leads (the Lease's own writes,
  // leader election itself, go through the client unguarded).
  let leading = () => true;
  const guarded = client.intercept(
    guardWrites(
      () => {
        if (!leading()) throw new NotLeaderError('not the leader: refusing to write');
      },
      (verb, resource) => metrics.write(verb, resource),
    ),
  );
  const controller = new Controller(guarded, { ...options, identity, metrics });

  let stopping = false;
  let synced: Promise<void> = Promise.resolve();
  const lease = options.leaderElection;
  const elector = lease
    ? createElector(client, identity, lease, log, {
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
          // Lost without being asked to stop: another replica may already be writing. The gate
          // is shut; a write already sent (by a replica paused after its gate let it through)
          // gets its answer first, so the log says what became of it: the API server's leader
          // fence refuses it (deploy/15-leader-fence.yaml). Exiting would not unsend it.
          log('error', `leader election lost (lease ${lease.namespace}/${lease.name}); exiting`, { identity });
          // (setImmediate: the refusal's own handling, a chain of promises, logs it first.)
          void client.writesSettled(SENT_WRITES_WAIT_MS).then(() => setImmediate(() => process.exit(1)));
        },
      })
    : undefined;
  // Health per WebService from the leader only: a standby's cache is as warm, and would count each twice.
  metrics.health(
    () => controller.webServices(),
    () => !elector || elector.isLeader(),
  );
  if (elector) leading = () => elector.isLeader();

  const servers = await Promise.all([
    startProbeServer({ address: options.metricsBindAddress, metrics: metrics.registry }),
    startProbeServer({ address: options.healthProbeBindAddress, ready: () => controller.readiness() }),
  ]);
  if (servers[0]) log('info', 'serving /metrics', { address: options.metricsBindAddress, port: servers[0].port });
  if (servers[1])
    log('info', 'serving /healthz and /readyz', { address: options.healthProbeBindAddress, port: servers[1].port });

  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log('info', `shutting down: ${why}`);
    await controller.shutDown();
    await elector?.stop();
    await Promise.all(servers.flatMap((s) => (s ? [s.close()] : [])));
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
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() sets it during the await
    if (!stopping) {
      controller.startWorkers();
      log('info', 'controller working', { workers: options.concurrency });
    }
  }
  return exited;
}

function createElector(
  client: KubeClient,
  identity: string,
  lease: LeaderElectionOptions,
  log: Logger,
  callbacks: { onStartedLeading: () => void; onStoppedLeading: () => void },
): LeaderElector {
  try {
    return new LeaderElector({
      identity,
      store: leaseStore(client, lease.namespace, lease.name),
      leaseDurationMs: lease.leaseDurationMs,
      renewDeadlineMs: lease.renewDeadlineMs,
      retryPeriodMs: lease.retryPeriodMs,
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

function waitFor(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (condition() ? resolve() : setTimeout(check, 50));
    check();
  });
}

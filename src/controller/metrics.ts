// Prometheus metrics for the controller, under the names controller-runtime and client-go use,
// so existing dashboards and alerts work unchanged. They live on a private registry: nothing
// else in the process (or a second controller in a test) can collide with them.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { WebService } from '../core/model';
import { healthPieces, healthText } from './health-metrics';
import { InFlight, QueueMetrics } from './queue';

/** controller-runtime's reconcile_total result label. */
type ResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

const RESULTS: readonly ResultLabel[] = ['success', 'error', 'requeue', 'requeue_after'];

/** controller-runtime's reconcile_time_seconds buckets. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** client-go's workqueue buckets: 10ns to 10s, one per power of ten. */
const WORKQUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

export interface ControllerMetrics {
  registry: ControllerRegistry;
  /** Feeds the workqueue_* metrics; pass it as the WorkQueue's metrics option. */
  queue: QueueMetrics;
  /** One finished reconcile: how it ended and how long it took. */
  reconciled(result: ResultLabel, seconds: number): void;
  /** One decision of the core (create, update, noop, requeue, conflict, finalize). */
  decision(action: string): void;
  /** One write request sent to the API server, e.g. ('create', 'configmaps'). */
  write(verb: string, resource: string): void;
  leader(isLeader: boolean): void;
  /** A worker started (+1) or finished (-1) a reconcile. */
  activeWorkers(delta: 1 | -1): void;
  /** The number of workers (--concurrency). */
  maxConcurrentReconciles(n: number): void;
  /** A reconcile threw: a bug, not a failure the engine reports. The worker carries on. */
  panicked(): void;
  /** A reconcile ran past --reconcile-timeout and was aborted. */
  timedOut(): void;
  /**
   * The per-WebService health gauges, read at each scrape from `webServices` (the watch
   * cache) while `leading()` says this replica leads: a standby exports none, so two
   * replicas never count a WebService twice.
   */
  health(webServices: () => Iterable<WebService>, leading: () => boolean): void;
}

/** A registry whose text ends with the per-WebService health families (health-metrics.ts). */
class ControllerRegistry extends Registry {
  health: () => Iterable<WebService> = () => [];

  // The default text format only (never OpenMetrics here): families may follow its last line.
  override async metrics(): Promise<string> {
    return `${await super.metrics()}${healthText(this.health())}`;
  }

  /** The same text in pieces, for /metrics to send as they are made (at 10 000 WebServices, 5.6 MB). */
  async pieces(): Promise<Iterable<string>> {
    const head = await super.metrics();
    const health = healthPieces(this.health());
    return (function* () {
      yield head;
      yield* health;
    })();
  }
}

export function createMetrics(controllerName = 'webservice'): ControllerMetrics {
  const registry = new ControllerRegistry();
  const registers = [registry];
  const controller = controllerName;
  const name = controllerName;

  const reconcileTotal = new Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'] as const,
    registers,
  });
  const reconcileErrors = new Counter({
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const reconcileTime = new Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'] as const,
    buckets: RECONCILE_BUCKETS,
    registers,
  });

  const reconcilePanics = new Counter({
    name: 'controller_runtime_reconcile_panics_total',
    help: 'Total number of reconciliation panics per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  // controller-runtime counts errors wrapped as reconcile.TerminalError, which are not retried.
  // Our engine has no such error: every failure is retried with backoff, so this stays 0.
  const terminalErrors = new Counter({
    name: 'controller_runtime_terminal_reconcile_errors_total',
    help: 'Total number of terminal reconciliation errors per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const reconcileTimeouts = new Counter({
    name: 'controller_runtime_reconcile_timeouts_total',
    help: 'Total number of reconciliation timeouts per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const activeWorkers = new Gauge({
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller',
    labelNames: ['controller'] as const,
    registers,
  });
  const maxConcurrent = new Gauge({
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Maximum number of concurrent reconciles per controller',
    labelNames: ['controller'] as const,
    registers,
  });

  // Read from the queue on each scrape, as client-go's queue updates them every 500 ms.
  let inFlight: () => InFlight = () => ({ unfinishedSeconds: 0, longestSeconds: 0 });
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help:
      "How many seconds of work has done that is in progress and hasn't been observed by work_duration. " +
      'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
    labelNames: ['name'] as const,
    registers,
    collect() {
      this.set({ name }, inFlight().unfinishedSeconds);
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: ['name'] as const,
    registers,
    collect() {
      this.set({ name }, inFlight().longestSeconds);
    },
  });

  const depth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name'] as const,
    registers,
  });
  const adds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: ['name'] as const,
    registers,
  });
  const retries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: ['name'] as const,
    registers,
  });
  const queueDuration = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: ['name'] as const,
    buckets: WORKQUEUE_BUCKETS,
    registers,
  });
  const workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes',
    labelNames: ['name'] as const,
    buckets: WORKQUEUE_BUCKETS,
    registers,
  });

  const leaderStatus = new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
    labelNames: ['name'] as const,
    registers,
  });

  const decisions = new Counter({
    name: 'webservice_decisions_total',
    help: 'Decisions of the reconcile core, by action',
    labelNames: ['action'] as const,
    registers,
  });
  const writes = new Counter({
    name: 'webservice_writes_total',
    help: 'Write requests sent to the API server, by verb and resource',
    labelNames: ['verb', 'resource'] as const,
    registers,
  });

  // The process's own: resident memory, CPU, heap and event loop (Node.js' names for what
  // controller-runtime's process_* and go_* series give).
  collectDefaultMetrics({ register: registry });

  // Series exist from the start (at zero), as in controller-runtime, so rate() and alerts on
  // absent series behave before the first reconcile.
  for (const result of RESULTS) reconcileTotal.inc({ controller, result }, 0);
  reconcileErrors.inc({ controller }, 0);
  reconcilePanics.inc({ controller }, 0);
  terminalErrors.inc({ controller }, 0);
  reconcileTimeouts.inc({ controller }, 0);
  activeWorkers.set({ controller }, 0);
  maxConcurrent.set({ controller }, 0);
  depth.set({ name }, 0);
  adds.inc({ name }, 0);
  retries.inc({ name }, 0);
  leaderStatus.set({ name }, 0);

  return {
    registry,
    queue: {
      adds: () => adds.inc({ name }),
      depth: (n) => depth.set({ name }, n),
      retries: () => retries.inc({ name }),
      queueLatency: (seconds) => queueDuration.observe({ name }, seconds),
      workDuration: (seconds) => workDuration.observe({ name }, seconds),
      inFlight: (probe) => (inFlight = probe),
    },
    reconciled(result, seconds) {
      reconcileTotal.inc({ controller, result });
      if (result === 'error') reconcileErrors.inc({ controller });
      reconcileTime.observe({ controller }, seconds);
    },
    decision(action) {
      decisions.inc({ action });
    },
    write(verb, resource) {
      writes.inc({ verb, resource });
    },
    leader(isLeader) {
      leaderStatus.set({ name }, isLeader ? 1 : 0);
    },
    activeWorkers(delta) {
      if (delta > 0) activeWorkers.inc({ controller });
      else activeWorkers.dec({ controller });
    },
    maxConcurrentReconciles(n) {
      maxConcurrent.set({ controller }, n);
    },
    panicked() {
      reconcilePanics.inc({ controller });
    },
    timedOut() {
      reconcileTimeouts.inc({ controller });
    },
    health(webServices, leading) {
      registry.health = () => (leading() ? webServices() : []);
    },
  };
}

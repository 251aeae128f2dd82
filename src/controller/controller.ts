// The watch-driven controller: the watch cache holds the WebServices and our children of
// every kind (by our label), its events become keys, workers reconcile keys from the cache
// through the same engine and core as `apply`. Only the engine decides and writes; this file
// only schedules. A converged key makes no request at all.
import { MetricsApi, withCanaryReads } from '../engine/canary-check';
import { NAMED_KINDS, cachedForm } from '../core/kinds';
import { Child, WebService } from '../core/model';
import { isOurs } from '../core/ownership';
import { withSharedParts } from '../core/shared-parts';
import {
  ObjectIndex,
  addChild,
  childKey,
  childKeyOf,
  controllerKeyOf,
  dependentsOf,
  keyOf,
  removeChild,
  setParent,
} from '../core/object-index';
import { EQUAL_JITTER, ItemExponentialFailureRateLimiter } from '../core/retry';
import { readyOf } from '../core/status';
import { ReconcileResult, reconcile } from '../engine/reconcile';
import type { KubeApi } from '../kube/api';
import { NotLeaderError, orNull } from '../kube/errors';
import { WebServiceCache } from './cache';
import { ConfigWatch } from './config-watch';
import { EventRecorder } from './event-recorder';
import type { Logger } from './log';
import type { ControllerMetrics } from './metrics';
import { LOW_PRIORITY, NORMAL_PRIORITY, WorkQueue } from './queue';
import { stripManagedFields } from './reflector';
import { EVENTS_V1 } from '../core/resource-types';

/** How long a shutdown waits for queued Events to go out. */
const EVENTS_DRAIN_MS = 5_000;

export interface ControllerOptions {
  /** Where running canaries' checks are asked (--prometheus-url); unset: none is evaluated. */
  metricsApi?: MetricsApi;
  /** null: every namespace. */
  namespace: string | null;
  concurrency: number;
  requeueAfterSeconds: number;
  resyncPeriodMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  watchIdleTimeoutMs: number;
  /** How often discovery is asked again about an absent optional API; unset: every 30 s. */
  apiProbeIntervalMs?: number;
  /** The cache lists with streaming lists (WatchList) where the server serves them. */
  watchList?: boolean;
  /** Initial list and resyncs behind events (controller-runtime's priority queue); false: one FIFO. */
  priorityQueue: boolean;
  /** Abort a reconcile's requests after this long and retry it with backoff; 0: no limit. */
  reconcileTimeoutMs: number;
  /** reportingInstance of our Events. */
  identity: string;
  log: Logger;
  metrics?: ControllerMetrics;
  now: () => string;
}

export class Controller {
  readonly queue: WorkQueue;
  private readonly cache: WebServiceCache;
  /** The Secrets and ConfigMaps the pods read: their changes queue their WebServices. */
  private readonly config: ConfigWatch;
  private readonly index: ObjectIndex;
  /**
   * Children on a child's name that are not ours (child keys), learnt from a conflict: looked
   * at again before each reconcile of their WebService, and forgotten at resync.
   */
  private readonly foreign = new Set<string>();
  /**
   * Read your own writes (KEP-5647): per WebService key, the resourceVersion of our last write
   * to it (its status, its finalizers), until the cache holds that version or a newer one.
   */
  private readonly lastWritten = new Map<string, number>();
  private readonly abort = new AbortController();
  private caches: Promise<void> = Promise.resolve();
  private workers: Promise<void>[] = [];
  private resyncTimer: NodeJS.Timeout | undefined;
  private readonly events: EventRecorder;

  constructor(
    private readonly client: KubeApi,
    private readonly options: ControllerOptions,
  ) {
    this.queue = new WorkQueue({
      rateLimiter: new ItemExponentialFailureRateLimiter({
        baseMs: options.backoffBaseMs,
        capMs: options.backoffMaxMs,
        jitter: EQUAL_JITTER,
        random: Math.random,
      }),
      metrics: options.metrics?.queue,
      priorities: options.priorityQueue,
    });
    this.cache = new WebServiceCache(
      client,
      {
        namespace: options.namespace,
        idleTimeoutMs: options.watchIdleTimeoutMs,
        probeIntervalMs: options.apiProbeIntervalMs,
        watchList: options.watchList,
        log: options.log,
      },
      {
        webServiceChanged: (ws, previous, initialList) =>
          this.webServiceChanged(ws, previous, priorityFor(initialList)),
        webServiceRemoved: (ws) => this.webServiceRemoved(ws),
        childChanged: (child, initialList) => this.childChanged(child, initialList),
        childRemoved: (child) => this.childRemoved(child),
        // The WebServices that asked for a child of that kind can have it now, or must say
        // that they cannot.
        apiChanged: () => this.enqueueAll(),
      },
    );
    this.index = this.cache.index;
    this.config = new ConfigWatch(client, {
      namespace: options.namespace,
      idleTimeoutMs: options.watchIdleTimeoutMs,
      // A resync reads again what was read half a period ago or more: a watch event lost on the
      // way delays a rollout by two resync periods at most.
      maxAgeMs: options.resyncPeriodMs > 0 ? options.resyncPeriodMs / 2 : undefined,
      log: options.log,
      changed: (keys) => {
        for (const key of keys) this.queue.add(key);
      },
      // Our Secret snapshots, found by the config's watch rather than a watch of the cache's.
      childChanged: (child) => {
        addChild(this.index, child);
        this.childChanged(child, false);
      },
      childRemoved: (child) => {
        removeChild(this.index, child);
        this.childRemoved(child);
      },
    });
    // As many Events in flight as workers: the reconciles that make them are never waiting on them.
    this.events = new EventRecorder({
      send: (event) => client.create(EVENTS_V1, event.metadata.namespace, event),
      inFlight: options.concurrency,
      log: options.log,
    });
  }

  /** Starts the list/watch loops (a standby replica keeps its cache warm too). */
  startCaches(): void {
    this.caches = Promise.all([this.cache.run(this.abort.signal), this.config.run(this.abort.signal)]).then(
      () => undefined,
    );
  }

  synced(): boolean {
    return this.cache.synced();
  }

  /**
   * Ready (/readyz): true once the caches have synced and while every watch can follow the
   * cluster; otherwise why not. A cache synced long ago but cut off now (the API server gone,
   * the CRD deleted) is stale, and a controller working from it is not ready.
   */
  readiness(): true | string {
    if (!this.synced()) return 'the caches have not synced yet';
    const problems = [...this.cache.problems(), ...this.config.problems()];
    return problems.length === 0 ? true : problems.join('; ');
  }

  /** The WebServices the cache holds now. */
  webServices(): Iterable<WebService> {
    return this.index.parentsByKey.values();
  }

  reflectorStats() {
    return this.cache.stats();
  }

  /** Starts the workers, and a full resync every resyncPeriod. Call once the caches have synced. */
  startWorkers(): void {
    this.enqueueAll();
    this.options.metrics?.maxConcurrentReconciles(this.options.concurrency);
    this.workers = Array.from({ length: this.options.concurrency }, () => this.work());
    const resync = () => {
      for (const key of this.foreign) {
        const stale = this.index.childrenByKey.get(key);
        if (stale) removeChild(this.index, stale);
      }
      this.foreign.clear();
      this.enqueueAll();
    };
    if (this.options.resyncPeriodMs > 0) {
      this.resyncTimer = setInterval(resync, this.options.resyncPeriodMs);
    }
  }

  /** Graceful: no new work, the reconciles in flight finish, then the watches stop. */
  async shutDown(): Promise<void> {
    clearInterval(this.resyncTimer);
    this.queue.shutDown();
    await Promise.all(this.workers);
    await this.events.drain(EVENTS_DRAIN_MS);
    this.abort.abort();
    await this.caches;
  }

  /** At start and at each resync: nothing changed, so behind every event (a queued key keeps its priority). */
  private enqueueAll(): void {
    for (const key of this.index.parentsByKey.keys()) this.queue.add(key, LOW_PRIORITY);
  }

  // --- events to keys ---------------------------------------------------------

  private webServiceChanged(ws: WebService, previous: WebService | undefined, priority: number): void {
    const key = keyOf(ws);
    this.config.webServiceChanged(ws);
    this.queue.add(key, priority);
    // A dependent converges as soon as its dependency does, not after_seconds later.
    if (!previous || dependencyState(previous) !== dependencyState(ws)) this.enqueueDependents(key, priority);
  }

  private webServiceRemoved(ws: WebService): void {
    const key = keyOf(ws);
    this.config.webServiceRemoved(ws);
    // A deletion at or past our last write: nothing older can come back. (A relist from a
    // lagging copy that lacks it removes an older version: that proves nothing.)
    if (!isOlderThan(ws, this.lastWritten.get(key))) this.lastWritten.delete(key);
    this.queue.add(key);
    this.enqueueDependents(key);
  }

  private childChanged(child: Child, initialList: boolean): void {
    this.foreign.delete(childKeyOf(child));
    this.enqueueOwner(child, priorityFor(initialList));
  }

  private childRemoved(child: Child): void {
    this.enqueueOwner(child);
  }

  private enqueueOwner(child: Child, priority = NORMAL_PRIORITY): void {
    const owner = controllerKeyOf(child);
    if (owner) this.queue.add(owner, priority);
  }

  private enqueueDependents(key: string, priority = NORMAL_PRIORITY): void {
    for (const dependent of dependentsOf(this.index, key)) this.queue.add(dependent, priority);
  }

  // --- workers ----------------------------------------------------------------

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.options.metrics?.activeWorkers(1);
      try {
        await this.reconcileKey(key);
      } catch (err) {
        // Engine failures come back in the result; what lands here is a refused write or a bug.
        if (err instanceof NotLeaderError && !err.byApiServer) {
          // Our own gate, once the lease is lost: expected, and the process is on its way out.
          this.options.log('info', 'write refused: not the leader', { key, error: err.message });
        } else {
          // A bug, or the API server's leader fence: that refuses a new leader only for a moment
          // after a takeover (its view of the Lease lags); for longer, the replica is misconfigured.
          this.options.log('error', 'reconcile failed', { key, error: (err as Error).message });
          // controller-runtime's panic: the worker recovers, the key is retried with backoff.
          if (!(err instanceof NotLeaderError)) this.options.metrics?.panicked();
        }
        this.options.metrics?.reconciled('error', 0);
        this.queue.addRateLimited(key);
      } finally {
        this.options.metrics?.activeWorkers(-1);
        this.queue.done(key);
      }
    }
  }

  private async reconcileKey(key: string): Promise<void> {
    const parent = this.index.parentsByKey.get(key);
    if (!parent) {
      this.queue.forget(key); // deleted: nothing left to reconcile
      return;
    }
    // A cache older than our own last write of this WebService (a relist from an API server
    // that lags): acting on it would apply a spec we have moved past, or delete what the
    // current spec keeps. Wait for the watch to bring our write, which queues the key again.
    const written = this.lastWritten.get(key);
    if (isOlderThan(parent, written)) {
      this.options.log('debug', 'the cache is older than our last write; waiting for it', {
        key,
        cached: parent.metadata.resourceVersion,
        written,
      });
      return;
    }
    this.lastWritten.delete(key);
    const started = process.hrtime.bigint();
    // Past the deadline, every request of this reconcile is cut off or refused unsent, so it
    // ends at once and writes nothing more (no status, no Event) once its worker moves on.
    const deadline = this.options.reconcileTimeoutMs > 0 ? AbortSignal.timeout(this.options.reconcileTimeoutMs) : null;
    const client = deadline ? this.client.withSignal(deadline) : this.client;
    let result: ReconcileResult;
    try {
      // The rechecks of a conflict are part of the reconcile: the same deadline cuts them off.
      await this.refreshForeign(client, parent);
      const input = await withCanaryReads(
        this.cache.syncInput(parent),
        client,
        this.options.metricsApi,
        this.options.now(),
      );
      let config;
      try {
        // A WebService being deleted only has its children cleaned up: its config is not read.
        if (!parent.metadata.deletionTimestamp) config = await this.config.reader.statesFor(parent, client);
      } catch (err) {
        if (deadline?.aborted) throw err;
        // A Secret it may not read, say: nothing is written until it can be, and the key backs off.
        this.configUnread(key, started, err as Error);
        return;
      }
      result = await reconcile(client, config ? { ...input, config } : input, {
        now: this.options.now,
        configReader: this.config.reader,
        requeueAfterSeconds: this.options.requeueAfterSeconds,
        reportingInstance: this.options.identity,
        // Past the deadline this reconcile says nothing more, as it writes nothing more.
        recordEvents: (events) => {
          if (!deadline?.aborted) this.events.record(key, events);
        },
      });
    } catch (err) {
      if (!deadline?.aborted || err instanceof NotLeaderError) throw err;
      this.timedOut(key, started, err as Error);
      return;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.remember(result);
    // A reconcile that got all its answers before the deadline fired has not timed out.
    const failure = result.error ?? result.eventError;
    if (deadline?.aborted && failure) {
      this.timedOut(key, started, failure);
      return;
    }
    const { decision } = result;
    const writes = [
      ...decision.ops.map((op) => op.op),
      ...(result.statusWritten ? ['status'] : []),
      ...result.events.map((event) => `event:${event.reason}`),
    ];
    this.options.metrics?.decision(decision.action);
    const fields = {
      key,
      action: decision.action,
      reason: decision.reason,
      writes,
      durationMs: Math.round(seconds * 1000),
    };
    if (result.error) {
      this.options.metrics?.reconciled('error', seconds);
      this.options.log('error', 'reconcile failed; retrying with backoff', { ...fields, error: result.error.message });
      this.queue.addRateLimited(key);
      return;
    }
    if (result.eventError)
      this.options.log('error', 'recording an Event failed', { key, error: result.eventError.message });
    if (decision.action === 'conflict') {
      // Only its owner can move a foreign object, and its removal is no event we see: look
      // again with backoff (a GET each time, refreshForeign), as apply --wait does.
      this.options.metrics?.reconciled('success', seconds);
      this.queue.addRateLimited(key);
    } else if (decision.action === 'requeue') {
      this.options.metrics?.reconciled('requeue_after', seconds);
      this.queue.forget(key);
      // No after_seconds (a dependency cycle): only a spec change resolves it, and that is an event.
      if (decision.after_seconds !== undefined) this.queue.addAfter(key, decision.after_seconds * 1000);
    } else {
      this.options.metrics?.reconciled('success', seconds);
      this.queue.forget(key);
      // A canary's pause ends, or its deadline passes, with no event to say so.
      if (decision.rollout && decision.after_seconds !== undefined) {
        this.queue.addAfter(key, decision.after_seconds * 1000);
      }
    }
    // A cycle needs a person to change a dependsOn: say so above INFO, once, when it is first
    // written to status (a steady cycle writes nothing, so logs nothing above debug).
    const level = writes.length === 0 ? 'debug' : decision.cycle ? 'warn' : 'info';
    this.options.log(level, 'reconciled', fields);
  }

  /**
   * Reads again the foreign children remembered for this WebService (one GET each): one that
   * is gone leaves the cache, one that changed (an adopt annotation, say) is refreshed there.
   */
  private async refreshForeign(client: KubeApi, parent: WebService): Promise<void> {
    const { namespace = '', name } = parent.metadata;
    const absent = this.cache.absentKinds();
    for (const row of NAMED_KINDS) {
      if (absent.includes(row.kind)) continue;
      const key = childKey(row.kind, namespace, row.nameFor(name));
      if (!this.foreign.has(key)) continue;
      const fresh = await orNull(client.get<Child>(row, namespace, row.nameFor(name)));
      const cached = this.index.childrenByKey.get(key);
      if (fresh) {
        addChild(this.index, stripManagedFields(fresh));
      } else {
        this.foreign.delete(key);
        if (cached) removeChild(this.index, cached);
      }
    }
  }

  private configUnread(key: string, started: bigint, error: Error): void {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.options.metrics?.reconciled('error', seconds);
    this.options.log('error', 'reading the config its pods read failed; retrying with backoff', {
      key,
      error: error.message,
    });
    this.queue.addRateLimited(key);
  }

  private timedOut(key: string, started: bigint, error: Error): void {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.options.metrics?.timedOut();
    this.options.metrics?.reconciled('error', seconds);
    this.options.log('error', 'reconcile timed out; retrying with backoff', {
      key,
      timeoutMs: this.options.reconcileTimeoutMs,
      durationMs: Math.round(seconds * 1000),
      error: error.message,
    });
    this.queue.addRateLimited(key);
  }

  /**
   * Folds our own writes' responses into the cache, so the next look at this key does not
   * act on what we have already changed; the watch events that follow carry the same or a
   * newer version. A foreign ConfigMap learnt from a refused create is remembered too.
   */
  private remember(result: ReconcileResult): void {
    const { written, decision } = result;
    const writtenVersion = Number(written.parent?.metadata.resourceVersion);
    if (written.parent && Number.isFinite(writtenVersion)) this.lastWritten.set(keyOf(written.parent), writtenVersion);
    if (written.parent && decision.action !== 'finalize') {
      const key = keyOf(written.parent);
      const cached = this.index.parentsByKey.get(key);
      if (cached && isNewer(written.parent, cached))
        setParent(this.index, withSharedParts(cached, stripManagedFields(written.parent)));
    }
    for (const child of written.children) {
      const cached = this.index.childrenByKey.get(childKeyOf(child));
      if (!cached || isNewer(child, cached))
        addChild(this.index, withSharedParts(cached, cachedForm(stripManagedFields(child))));
    }
    if (decision.action === 'conflict') {
      // Each child that is not ours is read again before the next try (refreshForeign): the
      // label-selected watches cannot see a foreign one, and the cache may hold one of ours by
      // label (an earlier WebService's of the same name) after it is gone, as when a relist
      // came from a lagging copy. Either way, no watch event is sure to end the conflict.
      const parentUid = result.input.parent.metadata.uid ?? '';
      for (const child of result.input.children) {
        if (isOurs(child, parentUid)) continue;
        const key = childKeyOf(child);
        if (!this.index.childrenByKey.has(key)) addChild(this.index, child);
        this.foreign.add(key);
      }
    }
  }
}

/**
 * The facts a dependent's decision reads from its dependency. The Ready reason is one:
 * when a cycle breaks, each former member's reason changes, which wakes the member before
 * it in the loop, and so on round the loop.
 */
function dependencyState(ws: WebService): string {
  const ready = readyOf(ws.status);
  return [
    Boolean(ws.metadata.deletionTimestamp),
    ready?.status,
    ready?.reason,
    ready?.observedGeneration ?? ws.status?.observedGeneration,
    ws.metadata.generation,
  ].join('|');
}

/** Keys from the initial list wait behind keys from events. */
function priorityFor(initialList: boolean): number {
  return initialList ? LOW_PRIORITY : NORMAL_PRIORITY;
}

/** Whether an object's resourceVersion is below a version we wrote (false where either is unknown). */
function isOlderThan(object: { metadata: { resourceVersion?: string } }, written: number | undefined): boolean {
  const version = Number(object.metadata.resourceVersion);
  return written !== undefined && Number.isFinite(version) && version < written;
}

/**
 * resourceVersions are opaque, but the API server hands out increasing integers; where
 * both parse, an older write response never overwrites a newer watch event.
 */
function isNewer(
  candidate: { metadata: { resourceVersion?: string } },
  cached: { metadata: { resourceVersion?: string } },
): boolean {
  const a = Number(candidate.metadata.resourceVersion);
  const b = Number(cached.metadata.resourceVersion);
  return !(Number.isFinite(a) && Number.isFinite(b)) || a > b;
}

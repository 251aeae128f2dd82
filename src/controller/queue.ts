// A work queue of object keys ("namespace/name") with client-go's workqueue semantics:
// de-duplicating, delaying and rate-limited. Workers take a key with get(), reconcile it, and
// always call done(key); after a success they also call forget(key) to reset its backoff.
// How long a failed key waits is the rate limiter's to say (client-go's RateLimiter).
//
// A key lives in up to three places, like client-go:
//   dirty      - wants processing; a key added many times before a worker gets it is one entry
//   processing - handed out by get() and not yet done(); never handed out a second time
//   waiting    - added with a delay; joins dirty when its timer fires
// `queue` holds the keys that are dirty and not being processed, one FIFO per priority.
//
// Priorities are controller-runtime's (its priority queue, the default since v0.23): keys
// from the initial list and from resyncs go in at LOW_PRIORITY, so a change made while
// thousands of unchanged objects are being looked at is not stuck behind them. A key keeps
// the highest priority it was added with until it is handed out, and a delayed or
// rate-limited re-add keeps the priority the key had. With priorities off, every key is
// NORMAL_PRIORITY: one FIFO, as client-go's queue.
import { ITEM_BACKOFF, ItemExponentialFailureRateLimiter, RateLimiter } from '../core/retry';
import { Clock, systemClock } from './clock';

/** What the queue reports; metrics.ts adapts this to Prometheus. */
export interface QueueMetrics {
  adds(): void;
  /** Keys waiting to be handed out (queued, or dirty behind an in-flight run). */
  depth(n: number): void;
  retries(): void;
  /** From the moment a key became ready until get() handed it out. */
  queueLatency(seconds: number): void;
  /** From get() until done(). */
  workDuration(seconds: number): void;
  /** Given once, by the queue's constructor: how to read the work in progress (on a scrape). */
  inFlight(probe: () => InFlight): void;
}

/** The keys handed out and not done yet, as client-go's unfinished-work metrics see them. */
export interface InFlight {
  /** Summed over the keys in progress: seconds since each was handed out. */
  unfinishedSeconds: number;
  /** Seconds since the oldest key in progress was handed out; 0 with none. */
  longestSeconds: number;
}

export interface WorkQueueOptions {
  /** How long addRateLimited waits; client-go's item exponential failure limiter by default. */
  rateLimiter?: RateLimiter;
  clock?: Clock;
  metrics?: QueueMetrics;
  /** false: every key at NORMAL_PRIORITY (plain FIFO). Default true. */
  priorities?: boolean;
}

/** controller-runtime's handler.LowPriority: the initial list and resyncs. */
export const LOW_PRIORITY = -100;
/** Events on objects. */
export const NORMAL_PRIORITY = 0;

interface Waiting {
  readyAt: number;
  timer: unknown;
  priority: number;
}

export class WorkQueue {
  /** priority -> FIFO of keys; `levels` lists the priorities in use, highest first. */
  private readonly queue = new Map<number, string[]>();
  private levels: number[] = [];
  private queued = 0;
  /** Each dirty key's priority. */
  private readonly dirty = new Map<string, number>();
  /** Each processing key's priority, the one a requeue keeps. */
  private readonly processing = new Map<string, number>();
  private readonly waiting = new Map<string, Waiting>();
  /** Clock time each dirty key became ready, and each processing key was handed out. */
  private readonly readySince = new Map<string, number>();
  private readonly workingSince = new Map<string, number>();
  /** Pending get() calls, served in order. */
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private stopping = false;

  private readonly rateLimiter: RateLimiter;
  private readonly clock: Clock;
  private readonly metrics?: QueueMetrics;
  private readonly prioritised: boolean;

  constructor(options: WorkQueueOptions = {}) {
    this.rateLimiter =
      options.rateLimiter ?? new ItemExponentialFailureRateLimiter({ ...ITEM_BACKOFF, random: Math.random });
    this.clock = options.clock ?? systemClock;
    this.metrics = options.metrics;
    this.prioritised = options.priorities ?? true;
    this.metrics?.inFlight(() => this.inFlight());
  }

  /** The work handed out and not done yet; a stuck worker shows as a growing longestSeconds. */
  inFlight(): InFlight {
    const now = this.clock.now();
    let unfinishedSeconds = 0;
    let longestSeconds = 0;
    for (const started of this.workingSince.values()) {
      const seconds = this.secondsSince(started, now);
      unfinishedSeconds += seconds;
      longestSeconds = Math.max(longestSeconds, seconds);
    }
    return { unfinishedSeconds, longestSeconds };
  }

  /**
   * Marks key as needing processing. A no-op if it is already dirty (at the same or a higher
   * priority) or the queue is shut down; a queued key added at a higher priority moves up.
   */
  add(key: string, priority = NORMAL_PRIORITY): void {
    if (this.stopping) return;
    if (!this.prioritised) priority = NORMAL_PRIORITY;
    const current = this.dirty.get(key);
    if (current !== undefined) {
      if (priority <= current) return;
      this.dirty.set(key, priority);
      // Parked behind an in-flight run: done() queues it at the new priority.
      if (this.processing.has(key)) return;
      this.unqueue(key, current);
      this.enqueue(key, priority);
      return;
    }
    this.dirty.set(key, priority);
    this.readySince.set(key, this.clock.now());
    this.metrics?.adds();
    this.reportDepth();
    // A key being processed stays parked in dirty; done() queues it again.
    if (this.processing.has(key)) return;
    this.enqueue(key, priority);
    this.serveGetters();
  }

  /**
   * Adds key after delayMs. If it is already waiting, the earlier ready time wins, with the
   * higher of the two priorities. The priority defaults to the key's own (see priorityOf).
   */
  addAfter(key: string, delayMs: number, priority = this.priorityOf(key)): void {
    if (this.stopping) return;
    if (delayMs <= 0) {
      this.add(key, priority);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.waiting.get(key);
    if (existing) {
      if (existing.readyAt <= readyAt) {
        existing.priority = Math.max(existing.priority, priority);
        return;
      }
      this.clock.clearTimeout(existing.timer);
      priority = Math.max(existing.priority, priority);
    }
    const timer = this.clock.setTimeout(() => {
      const waited = this.waiting.get(key);
      this.waiting.delete(key);
      this.add(key, waited?.priority ?? priority);
    }, delayMs);
    this.waiting.set(key, { readyAt, timer, priority });
  }

  /**
   * Adds key after the delay the rate limiter gives its next retry. For errors; a plain
   * "look again in 30s" is addAfter. Like addAfter, it keeps the key's priority.
   */
  addRateLimited(key: string, priority = this.priorityOf(key)): void {
    if (this.stopping) return;
    const delayMs = this.rateLimiter.when(key);
    this.metrics?.retries();
    this.addAfter(key, delayMs, priority);
  }

  /**
   * The priority key was handed out with while it is processing, else the one it is queued
   * with, else NORMAL_PRIORITY: what a requeue from a worker keeps.
   */
  priorityOf(key: string): number {
    return this.processing.get(key) ?? this.dirty.get(key) ?? NORMAL_PRIORITY;
  }

  /** Resets key's backoff; call it after key was processed successfully. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  /** How many times key has been rate-limited since it was last forgotten. */
  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /**
   * The next key, highest priority first and first in first out within one, once one is ready. Resolves undefined once the queue is
   * shut down: the worker should then return.
   */
  get(): Promise<string | undefined> {
    if (this.stopping) return Promise.resolve(undefined);
    if (this.queued > 0) return Promise.resolve(this.take());
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends the processing of key. If key was added meanwhile, it is queued again now. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const started = this.workingSince.get(key);
    this.workingSince.delete(key);
    if (started !== undefined) this.metrics?.workDuration(this.secondsSince(started));
    const priority = this.dirty.get(key);
    if (priority !== undefined && !this.stopping) {
      this.enqueue(key, priority);
      this.serveGetters();
    }
  }

  /** Keys ready to be handed out now. */
  len(): number {
    return this.queued;
  }

  /**
   * Stops taking work: pending and future get() calls resolve undefined, adds are ignored and
   * delayed keys are dropped. Keys already handed out still end with done().
   */
  shutDown(): void {
    if (this.stopping) return;
    this.stopping = true;
    for (const { timer } of this.waiting.values()) this.clock.clearTimeout(timer);
    this.waiting.clear();
    for (const resolve of this.getters.splice(0)) resolve(undefined);
  }

  shuttingDown(): boolean {
    return this.stopping;
  }

  /** Hands queued keys to waiting get() calls, in order. */
  private serveGetters(): void {
    while (this.getters.length > 0 && this.queued > 0) {
      const resolve = this.getters.shift() as (key: string | undefined) => void;
      resolve(this.take());
    }
  }

  private enqueue(key: string, priority: number): void {
    let fifo = this.queue.get(priority);
    if (!fifo) {
      fifo = [];
      this.queue.set(priority, fifo);
      this.levels = [...this.queue.keys()].sort((a, b) => b - a);
    }
    fifo.push(key);
    this.queued++;
  }

  /** Takes key out of its FIFO (it is moving up). */
  private unqueue(key: string, priority: number): void {
    const fifo = this.queue.get(priority);
    const at = fifo?.indexOf(key) ?? -1;
    if (!fifo || at < 0) return;
    fifo.splice(at, 1);
    this.queued--;
  }

  /** Moves the head of the highest non-empty FIFO from dirty to processing. */
  private take(): string {
    const level = this.levels.find((p) => (this.queue.get(p)?.length ?? 0) > 0) as number;
    const key = (this.queue.get(level) as string[]).shift() as string;
    this.queued--;
    const priority = this.dirty.get(key) ?? level;
    this.dirty.delete(key);
    this.processing.set(key, priority);
    const now = this.clock.now();
    const ready = this.readySince.get(key);
    this.readySince.delete(key);
    if (ready !== undefined) this.metrics?.queueLatency(this.secondsSince(ready, now));
    this.workingSince.set(key, now);
    this.reportDepth();
    return key;
  }

  private reportDepth(): void {
    this.metrics?.depth(this.dirty.size);
  }

  private secondsSince(startMs: number, nowMs = this.clock.now()): number {
    return Math.max(0, nowMs - startMs) / 1000;
  }
}

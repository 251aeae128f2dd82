// A work queue of object keys ("namespace/name") with client-go's workqueue semantics:
// de-duplicating, delaying and rate-limited. Workers take a key with get(), reconcile it, and
// always call done(key); after a success they also call forget(key) to reset its backoff.
// How long a failed key waits is the rate limiter's to say (client-go's RateLimiter).
//
// A key lives in up to three places, like client-go:
//   dirty      - wants processing; a key added many times before a worker gets it is one entry
//   processing - handed out by get() and not yet done(); never handed out a second time
//   waiting    - added with a delay; joins dirty when its timer fires
// `queue` is the FIFO of keys that are dirty and not being processed.
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
}

export interface WorkQueueOptions {
  /** How long addRateLimited waits; client-go's item exponential failure limiter by default. */
  rateLimiter?: RateLimiter;
  clock?: Clock;
  metrics?: QueueMetrics;
}

interface Waiting {
  readyAt: number;
  timer: unknown;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
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

  constructor(options: WorkQueueOptions = {}) {
    this.rateLimiter =
      options.rateLimiter ?? new ItemExponentialFailureRateLimiter({ ...ITEM_BACKOFF, random: Math.random });
    this.clock = options.clock ?? systemClock;
    this.metrics = options.metrics;
  }

  /** Marks key as needing processing. A no-op if it is already dirty or the queue is shut down. */
  add(key: string): void {
    if (this.stopping || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.readySince.set(key, this.clock.now());
    this.metrics?.adds();
    this.reportDepth();
    // A key being processed stays parked in dirty; done() queues it again.
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.serveGetters();
  }

  /** Adds key after delayMs. If it is already waiting, the earlier ready time wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopping) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.waiting.get(key);
    if (existing) {
      if (existing.readyAt <= readyAt) return;
      this.clock.clearTimeout(existing.timer);
    }
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.waiting.set(key, { readyAt, timer });
  }

  /**
   * Adds key after the delay the rate limiter gives its next retry. For errors; a plain
   * "look again in 30s" is addAfter.
   */
  addRateLimited(key: string): void {
    if (this.stopping) return;
    const delayMs = this.rateLimiter.when(key);
    this.metrics?.retries();
    this.addAfter(key, delayMs);
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
   * The next key, first in first out, once one is ready. Resolves undefined once the queue is
   * shut down: the worker should then return.
   */
  get(): Promise<string | undefined> {
    if (this.stopping) return Promise.resolve(undefined);
    if (this.queue.length > 0) return Promise.resolve(this.take());
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends the processing of key. If key was added meanwhile, it is queued again now. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const started = this.workingSince.get(key);
    this.workingSince.delete(key);
    if (started !== undefined) this.metrics?.workDuration(this.secondsSince(started));
    if (this.dirty.has(key) && !this.stopping) {
      this.queue.push(key);
      this.serveGetters();
    }
  }

  /** Keys ready to be handed out now. */
  len(): number {
    return this.queue.length;
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
    while (this.getters.length > 0 && this.queue.length > 0) {
      const resolve = this.getters.shift() as (key: string | undefined) => void;
      resolve(this.take());
    }
  }

  /** Moves the head of the queue from dirty to processing. */
  private take(): string {
    const key = this.queue.shift() as string;
    this.dirty.delete(key);
    this.processing.add(key);
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

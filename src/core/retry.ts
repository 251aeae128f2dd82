// How long to wait before trying again, and how often: the backoff arithmetic, its named
// defaults, and client-go's rate limiter for the work queue. Pure: random is passed in, and
// the waiting itself (sleep) and the 409 loop (retryOnConflict) are in src/kube/retry.ts.

/** Exponential backoff: baseMs after the first failure, doubling per consecutive failure, capped. */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /**
   * The random share of each delay, from 0 to 1: a delay d is spread over [d * (1 - jitter), d],
   * so that objects that failed together do not all retry in lockstep.
   */
  jitter: number;
}

export interface BackoffOptions extends BackoffPolicy {
  /** Returns a number in [0, 1), like Math.random. */
  random: () => number;
}

/** "Equal jitter": half the delay is fixed, half random. */
export const EQUAL_JITTER = 0.5;

/**
 * client-go's item exponential failure limiter, the one controller-runtime's default rate
 * limiter is built on: 5 ms doubling to 1000 s, without jitter. The work queue's default.
 */
export const ITEM_BACKOFF: BackoffPolicy = { baseMs: 5, capMs: 1_000_000, jitter: 0 };

/**
 * client-go's reflector: 800 ms doubling to 30 s between list/watch restarts. Its jitter adds up
 * to d on top; ours has kept to [d/2, d], like every other backoff here.
 */
export const REFLECTOR_BACKOFF: BackoffPolicy = { baseMs: 800, capMs: 30_000, jitter: EQUAL_JITTER };

/** Ours, for apply --wait: a failed pass is retried after 1 s doubling to 60 s. */
export const APPLY_BACKOFF: BackoffPolicy = { baseMs: 1_000, capMs: 60_000, jitter: EQUAL_JITTER };

/**
 * A write that meets a 409 (the object changed since it was read) is tried at most this many
 * times in all, each retry from a fresh read: the engine's reconcile, status and uninstall alike.
 */
export const MAX_ATTEMPTS = 4;

/**
 * A child we just created is made ours as an apply's would be (src/kube/client.ts), from a
 * fresh read after each 409. Its controller changes it several times in its first second (a
 * Deployment: its revision annotation, then its status as pods come up), so those reads wait
 * a little, 25 ms doubling to 400 ms: about 2.4 s over all the attempts.
 */
export const CONVERSION_BACKOFF: BackoffPolicy = { baseMs: 25, capMs: 400, jitter: EQUAL_JITTER };
export const CONVERSION_ATTEMPTS = 10;

/** The delay after the attempt-th consecutive failure (attempt >= 1), in milliseconds. */
export function backoff(attempt: number, options: BackoffOptions): number {
  const n = Math.max(1, Math.floor(attempt));
  const delay = Math.min(options.capMs, options.baseMs * 2 ** (n - 1));
  const jitter = Math.min(1, Math.max(0, options.jitter));
  if (jitter === 0) return delay;
  const r = Math.min(1, Math.max(0, options.random()));
  return delay * (1 - jitter) + delay * jitter * r;
}

/**
 * client-go's workqueue RateLimiter: how long an item waits before it is retried. The work
 * queue asks it and does no arithmetic of its own.
 */
export interface RateLimiter<T = string> {
  /** The delay before item's next try; counts one more failure of item. */
  when(item: T): number;
  /** Forgets item's failures: the next one is a first one again. */
  forget(item: T): void;
  /** How many failures of item are counted since it was last forgotten. */
  numRequeues(item: T): number;
}

/** client-go's ItemExponentialFailureRateLimiter: each item backs off by its own count of failures. */
export class ItemExponentialFailureRateLimiter<T = string> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(private readonly options: BackoffOptions) {
    if (!(options.baseMs > 0)) throw new Error(`backoff: baseMs must be greater than zero, got ${options.baseMs}`);
    if (!(options.capMs >= options.baseMs)) {
      throw new Error(`backoff: capMs must be at least baseMs (${options.baseMs}), got ${options.capMs}`);
    }
  }

  when(item: T): number {
    const n = this.numRequeues(item) + 1;
    this.failures.set(item, n);
    return backoff(n, this.options);
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

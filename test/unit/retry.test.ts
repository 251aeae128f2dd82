// Waiting and retrying: the backoff arithmetic and its defaults, the queue's rate limiter,
// sleep and retryOnConflict.
import {
  APPLY_BACKOFF,
  BackoffPolicy,
  CONVERSION_ATTEMPTS,
  CONVERSION_BACKOFF,
  ITEM_BACKOFF,
  ItemExponentialFailureRateLimiter,
  MAX_ATTEMPTS,
  REFLECTOR_BACKOFF,
  backoff,
} from '../../src/core/retry';
import { retryOnConflict, sleep } from '../../src/kube/retry';
import { ConflictError, NotFoundError } from '../../src/kube/errors';

/** The delays after failures 1..n, with random() fixed. */
const delays = (policy: BackoffPolicy, random: number, n: number) =>
  Array.from({ length: n }, (_, i) => backoff(i + 1, { ...policy, random: () => random }));

describe('backoff', () => {
  const policy: BackoffPolicy = { baseMs: 100, capMs: 1000, jitter: 0.5 };

  it('doubles per failure from the base and never exceeds the cap', () => {
    expect(delays(policy, 1, 7)).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('spreads each delay d over [d * (1 - jitter), d]', () => {
    expect(delays(policy, 0, 5)).toEqual([50, 100, 200, 400, 500]);
    expect(delays(policy, 0.5, 5)).toEqual([75, 150, 300, 600, 750]);
    expect(backoff(3, { ...policy, jitter: 1, random: () => 0.25 })).toBe(100); // full jitter: [0, d]
  });

  it('stays within its bounds whatever random returns', () => {
    for (const r of [-1, 0, 0.3, 0.999, 1, 7]) {
      for (let n = 1; n <= 12; n++) {
        const d = Math.min(policy.capMs, policy.baseMs * 2 ** (n - 1));
        const delay = backoff(n, { ...policy, random: () => r });
        expect(delay).toBeGreaterThanOrEqual(d / 2);
        expect(delay).toBeLessThanOrEqual(d);
      }
    }
  });

  it('without jitter is exact and does not draw a random number', () => {
    const random = jest.fn(() => 0.5);
    expect([1, 2, 3].map((n) => backoff(n, { ...policy, jitter: 0, random }))).toEqual([100, 200, 400]);
    expect(random).not.toHaveBeenCalled();
  });

  it('counts anything below the first failure as the first, and a huge count as the cap', () => {
    expect(backoff(0, { ...policy, random: () => 1 })).toBe(100);
    expect(backoff(-3, { ...policy, random: () => 1 })).toBe(100);
    expect(backoff(2.7, { ...policy, random: () => 1 })).toBe(200);
    expect(backoff(5000, { ...policy, random: () => 1 })).toBe(1000);
  });

  it('names the defaults: client-go item limiter, client-go reflector, ours for apply --wait', () => {
    expect(delays(ITEM_BACKOFF, 0, 3)).toEqual([5, 10, 20]);
    expect(backoff(100, { ...ITEM_BACKOFF, random: () => 0 })).toBe(1_000_000);
    expect(delays(REFLECTOR_BACKOFF, 1, 7)).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000]);
    expect(delays(APPLY_BACKOFF, 1, 8)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
  });
});

describe('ItemExponentialFailureRateLimiter', () => {
  const limiter = () => new ItemExponentialFailureRateLimiter({ baseMs: 100, capMs: 1000, jitter: 0, random: () => 0 });

  it('backs each item off by its own count of failures until it is forgotten', () => {
    const l = limiter();
    expect([l.when('a'), l.when('a'), l.when('a'), l.when('b')]).toEqual([100, 200, 400, 100]);
    expect(l.numRequeues('a')).toBe(3);
    expect(l.numRequeues('b')).toBe(1);
    l.forget('a');
    expect(l.numRequeues('a')).toBe(0);
    expect(l.when('a')).toBe(100);
    expect(l.numRequeues('b')).toBe(1);
  });

  it('rejects a base of zero and a cap below the base', () => {
    const make = (baseMs: number, capMs: number) => () =>
      new ItemExponentialFailureRateLimiter({ baseMs, capMs, jitter: 0, random: Math.random });
    expect(make(0, 10)).toThrow(/baseMs must be greater than zero, got 0/);
    expect(make(100, 50)).toThrow(/capMs must be at least baseMs \(100\), got 50/);
    expect(make(100, 100)).not.toThrow();
  });
});

describe('sleep', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Tracks whether a promise has settled yet. */
  const track = (promise: Promise<void>) => {
    const state = { settled: false };
    void promise.then(() => (state.settled = true));
    return state;
  };

  it('resolves after ms, not before', async () => {
    const state = track(sleep(1000));
    await jest.advanceTimersByTimeAsync(999);
    expect(state.settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(state.settled).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('resolves as soon as the signal aborts, clearing its timer and its listener', async () => {
    const abort = new AbortController();
    const removed = jest.spyOn(abort.signal, 'removeEventListener');
    const state = track(sleep(60_000, abort.signal));
    await jest.advanceTimersByTimeAsync(10);
    expect(state.settled).toBe(false);
    abort.abort();
    await Promise.resolve();
    expect(state.settled).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('removes its abort listener when the time is up', async () => {
    const abort = new AbortController();
    const added = jest.spyOn(abort.signal, 'addEventListener');
    const removed = jest.spyOn(abort.signal, 'removeEventListener');
    const done = sleep(100, abort.signal);
    await jest.advanceTimersByTimeAsync(100);
    await done;
    expect(removed.mock.calls).toEqual(added.mock.calls.map(([type, listener]) => [type, listener]));
  });

  it('resolves at once, with no timer, when the signal has already aborted', async () => {
    const abort = new AbortController();
    abort.abort();
    const state = track(sleep(60_000, abort.signal));
    await Promise.resolve();
    expect(state.settled).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('retryOnConflict', () => {
  const conflict = () => new ConflictError('the object has been modified');

  it('returns the first success, without retrying', async () => {
    const fn = jest.fn(async (attempt: number) => `done at ${attempt}`);
    await expect(retryOnConflict(fn)).resolves.toBe('done at 1');
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('tries again after each 409, passing the attempt number, until one succeeds', async () => {
    const seen: number[] = [];
    const result = await retryOnConflict(async (attempt) => {
      seen.push(attempt);
      if (attempt < 3) throw conflict();
      return 'written';
    });
    expect(result).toBe('written');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('tries MAX_ATTEMPTS times by default, then throws the last 409', async () => {
    const errors = Array.from({ length: MAX_ATTEMPTS }, conflict);
    const fn = jest.fn(async (attempt: number) => {
      throw errors[attempt - 1];
    });
    await expect(retryOnConflict(fn)).rejects.toBe(errors[MAX_ATTEMPTS - 1]);
    expect(fn).toHaveBeenCalledTimes(MAX_ATTEMPTS);
  });

  it('tries as many times as it is told', async () => {
    const fn = jest.fn(async () => {
      throw conflict();
    });
    await expect(retryOnConflict(fn, 2)).rejects.toBeInstanceOf(ConflictError);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('with a backoff, waits before each new read, and not after the last 409', async () => {
    jest.useFakeTimers();
    try {
      const tried: number[] = [];
      const done = retryOnConflict(
        async (attempt) => {
          tried.push(attempt);
          throw conflict();
        },
        3,
        { policy: { baseMs: 100, capMs: 1000, jitter: 0 } },
      );
      const settled = done.catch((err: unknown) => err);
      await jest.advanceTimersByTimeAsync(99);
      expect(tried).toEqual([1]);
      await jest.advanceTimersByTimeAsync(1);
      expect(tried).toEqual([1, 2]);
      await jest.advanceTimersByTimeAsync(199);
      expect(tried).toEqual([1, 2]);
      await jest.advanceTimersByTimeAsync(1);
      await expect(settled).resolves.toBeInstanceOf(ConflictError);
      expect(tried).toEqual([1, 2, 3]);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it("gives a new child's conversion a couple of seconds against its controller's first writes", () => {
    const waits = delays(CONVERSION_BACKOFF, 1, CONVERSION_ATTEMPTS - 1);
    const total = waits.reduce((sum, ms) => sum + ms, 0);
    expect(total).toBeGreaterThanOrEqual(2000);
    expect(total).toBeLessThanOrEqual(3000);
  });

  it('passes any other error through at once', async () => {
    const gone = new NotFoundError('webservices "a" not found');
    const fn = jest.fn(async (attempt: number) => {
      if (attempt === 1) throw conflict();
      throw gone;
    });
    await expect(retryOnConflict(fn)).rejects.toBe(gone);
    expect(fn).toHaveBeenCalledTimes(2);

    const plain = new Error('boom');
    await expect(
      retryOnConflict(async () => {
        throw plain;
      }),
    ).rejects.toBe(plain);
  });
});

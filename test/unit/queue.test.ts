// The work queue: de-duplication, one worker per key, delays, backoff through its rate
// limiter, and shutdown, driven by a fake clock.
import { LOW_PRIORITY, NORMAL_PRIORITY, QueueMetrics, WorkQueue } from '../../src/controller/queue';
import { EQUAL_JITTER, ItemExponentialFailureRateLimiter, RateLimiter } from '../../src/core/retry';
import { FakeClock, flushPromises } from '../support/fake-clock';

class RecordingMetrics implements QueueMetrics {
  addCount = 0;
  retryCount = 0;
  depths: number[] = [];
  latencies: number[] = [];
  durations: number[] = [];
  adds(): void {
    this.addCount++;
  }
  depth(n: number): void {
    this.depths.push(n);
  }
  retries(): void {
    this.retryCount++;
  }
  queueLatency(seconds: number): void {
    this.latencies.push(seconds);
  }
  workDuration(seconds: number): void {
    this.durations.push(seconds);
  }
  inFlight(): void {
    // read through WorkQueue.inFlight() directly
  }
}

/** A queue whose rate limiter backs off 100 ms doubling to 1 s, with equal jitter. */
function setup(options: { random?: () => number; rateLimiter?: RateLimiter; priorities?: boolean } = {}) {
  const clock = new FakeClock();
  const metrics = new RecordingMetrics();
  const rateLimiter =
    options.rateLimiter ??
    new ItemExponentialFailureRateLimiter({
      baseMs: 100,
      capMs: 1000,
      jitter: EQUAL_JITTER,
      random: options.random ?? (() => 1),
    });
  const queue = new WorkQueue({ rateLimiter, clock, metrics, priorities: options.priorities });
  return { clock, metrics, queue };
}

/** Tracks a get() so a test can see whether it has resolved yet. */
function pendingGet(queue: WorkQueue) {
  const state: { settled: boolean; key?: string } = { settled: false };
  void queue.get().then((key) => {
    state.settled = true;
    state.key = key;
  });
  return state;
}

/** How long after now key becomes ready, to the millisecond (it must become ready within limitMs). */
async function msUntilReady(clock: FakeClock, queue: WorkQueue, limitMs = 10_000): Promise<number> {
  for (let elapsed = 0; elapsed <= limitMs; elapsed++) {
    if (queue.len() > 0) return elapsed;
    await clock.advance(1);
  }
  throw new Error(`not ready within ${limitMs}ms`);
}

describe('WorkQueue', () => {
  it('adding a key that is already queued does nothing', async () => {
    const { queue, metrics } = setup();
    queue.add('ns/a');
    queue.add('ns/b');
    queue.add('ns/a');
    expect(queue.len()).toBe(2);
    expect(metrics.addCount).toBe(2);
    expect(await queue.get()).toBe('ns/a');
    expect(await queue.get()).toBe('ns/b');
    expect(queue.len()).toBe(0);
  });

  it('hands keys out first in, first out, to getters in the order they asked', async () => {
    const { queue } = setup();
    const first = pendingGet(queue);
    const second = pendingGet(queue);
    queue.add('ns/x');
    queue.add('ns/y');
    await flushPromises();
    expect(first).toEqual({ settled: true, key: 'ns/x' });
    expect(second).toEqual({ settled: true, key: 'ns/y' });
  });

  it('never hands out a key being processed; a re-add during processing is queued again by done()', async () => {
    const { queue } = setup();
    queue.add('ns/a');
    expect(await queue.get()).toBe('ns/a');

    queue.add('ns/a'); // changed while a worker has it
    queue.add('ns/a');
    expect(queue.len()).toBe(0);
    const waiter = pendingGet(queue);
    await flushPromises();
    expect(waiter.settled).toBe(false);

    queue.done('ns/a');
    await flushPromises();
    expect(waiter).toEqual({ settled: true, key: 'ns/a' });
    queue.done('ns/a');
    expect(queue.len()).toBe(0); // the two adds during processing made one run, not two
  });

  it('done() without a re-add does not queue the key again', async () => {
    const { queue } = setup();
    queue.add('ns/a');
    expect(await queue.get()).toBe('ns/a');
    queue.done('ns/a');
    expect(queue.len()).toBe(0);
  });

  it('addAfter makes the key ready only after the delay', async () => {
    const { queue, clock } = setup();
    queue.addAfter('ns/a', 1000);
    await clock.advance(999);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(queue.len()).toBe(1);
  });

  it('addAfter with a delay of zero or less adds at once', () => {
    const { queue } = setup();
    queue.addAfter('ns/a', 0);
    queue.addAfter('ns/b', -5);
    expect(queue.len()).toBe(2);
  });

  it('addAfter for a key already waiting: the earlier ready time wins', async () => {
    const { queue, clock } = setup();
    queue.addAfter('ns/a', 5000);
    queue.addAfter('ns/a', 1000); // earlier: replaces the 5s wait
    queue.addAfter('ns/a', 9000); // later: ignored
    expect(clock.pendingTimers()).toBe(1);
    expect(await msUntilReady(clock, queue)).toBe(1000);

    expect(await queue.get()).toBe('ns/a');
    queue.done('ns/a');
    await clock.advance(10_000);
    expect(queue.len()).toBe(0); // neither the 5s nor the 9s wait fires later
  });

  it('addRateLimited backs off base*2^(n-1), capped at the maximum, and counts retries', async () => {
    const { queue, clock, metrics } = setup(); // random() = 1: the full delay
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      queue.addRateLimited('ns/a');
      delays.push(await msUntilReady(clock, queue));
      await queue.get();
      queue.done('ns/a');
    }
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(queue.numRequeues('ns/a')).toBe(6);
    expect(metrics.retryCount).toBe(6);
  });

  it('forget() resets the backoff after a success', async () => {
    const { queue, clock } = setup();
    for (let i = 0; i < 3; i++) queue.addRateLimited('ns/a'); // 100, 200, 400: earliest wins
    expect(queue.numRequeues('ns/a')).toBe(3);
    await clock.advance(100);
    await queue.get();
    queue.done('ns/a');
    queue.forget('ns/a');
    expect(queue.numRequeues('ns/a')).toBe(0);

    queue.addRateLimited('ns/a');
    expect(await msUntilReady(clock, queue)).toBe(100);
  });

  it('backoff is per key', async () => {
    const { queue, clock } = setup();
    queue.addRateLimited('ns/a');
    queue.addRateLimited('ns/a');
    queue.addRateLimited('ns/b');
    expect(queue.numRequeues('ns/a')).toBe(2);
    expect(queue.numRequeues('ns/b')).toBe(1);
    await clock.advance(100);
    expect(queue.len()).toBe(2); // b's first retry is not delayed by a's failures
  });

  it('jitter spreads the backoff over [d/2, d]', async () => {
    /** ms until ready after the given (1-based) failure, with random() fixed. */
    const ready = async (random: number, failure: number) => {
      const { queue, clock } = setup({ random: () => random });
      for (let i = 1; i < failure; i++) queue.addRateLimited('ns/a'); // earlier failures
      await clock.advance(10_000);
      if (failure > 1) {
        await queue.get();
        queue.done('ns/a');
      }
      queue.addRateLimited('ns/a');
      return msUntilReady(clock, queue);
    };
    expect(await ready(0, 1)).toBe(50);
    expect(await ready(0.5, 1)).toBe(75);
    expect(await ready(0, 3)).toBe(200); // d = 400
    expect(await ready(0.5, 5)).toBe(750); // d = 1000 (capped)
  });

  it('shutDown resolves waiting get() calls with undefined, and every later one at once', async () => {
    const { queue } = setup();
    const a = pendingGet(queue);
    const b = pendingGet(queue);
    queue.shutDown();
    await flushPromises();
    expect(a).toEqual({ settled: true, key: undefined });
    expect(b).toEqual({ settled: true, key: undefined });
    expect(queue.shuttingDown()).toBe(true);
    await expect(queue.get()).resolves.toBeUndefined();
  });

  it('after shutDown no new work is taken: queued keys are not handed out and adds are ignored', async () => {
    const { queue, clock } = setup();
    queue.add('ns/a');
    queue.add('ns/b');
    expect(await queue.get()).toBe('ns/a'); // in flight
    queue.addAfter('ns/c', 1000);
    queue.addRateLimited('ns/d');
    queue.shutDown();
    expect(clock.pendingTimers()).toBe(0); // delayed keys' timers were cancelled

    queue.add('ns/e');
    queue.add('ns/a');
    queue.done('ns/a'); // the in-flight key just finishes
    await clock.advance(5000);
    await expect(queue.get()).resolves.toBeUndefined();
  });

  it('reports queue latency from ready to get, and work duration from get to done', async () => {
    const { queue, clock, metrics } = setup();
    queue.add('ns/a');
    await clock.advance(250);
    expect(await queue.get()).toBe('ns/a');
    await clock.advance(1500);
    queue.done('ns/a');

    queue.addAfter('ns/b', 5000); // latency counts from when it became ready, not from addAfter
    await clock.advance(5100);
    expect(await queue.get()).toBe('ns/b');
    queue.done('ns/b');

    expect(metrics.latencies).toEqual([0.25, 0.1]);
    expect(metrics.durations).toEqual([1.5, 0]);
    expect(metrics.addCount).toBe(2);
  });

  it('reports depth as the number of keys waiting to be handed out', async () => {
    const { queue, metrics } = setup();
    queue.add('ns/a');
    queue.add('ns/b');
    await queue.get();
    queue.add('ns/a'); // parked behind its own run: still waiting
    expect(metrics.depths).toEqual([1, 2, 1, 2]);
  });

  it('rejects backoff options that make no sense', () => {
    const limiter = (baseMs: number, capMs: number) => () =>
      new WorkQueue({
        rateLimiter: new ItemExponentialFailureRateLimiter({
          baseMs,
          capMs,
          jitter: EQUAL_JITTER,
          random: Math.random,
        }),
      });
    expect(limiter(0, 10)).toThrow(/baseMs must be greater than zero/);
    expect(limiter(100, 50)).toThrow(/capMs must be at least baseMs/);
  });

  it('waits what its rate limiter says, and leaves forget and numRequeues to it', async () => {
    const calls: string[] = [];
    const rateLimiter: RateLimiter = {
      when: (key) => {
        calls.push(`when ${key}`);
        return 42;
      },
      forget: (key) => {
        calls.push(`forget ${key}`);
      },
      numRequeues: (key) => {
        calls.push(`numRequeues ${key}`);
        return 7;
      },
    };
    const { queue, clock, metrics } = setup({ rateLimiter });
    queue.addRateLimited('ns/a');
    expect(await msUntilReady(clock, queue)).toBe(42);
    expect(queue.numRequeues('ns/a')).toBe(7);
    queue.forget('ns/a');
    expect(calls).toEqual(['when ns/a', 'numRequeues ns/a', 'forget ns/a']);
    expect(metrics.retryCount).toBe(1);

    queue.shutDown();
    queue.addRateLimited('ns/b'); // a queue shutting down asks nothing
    expect(calls).toHaveLength(3);
  });

  it("without a rate limiter, backs off as client-go's default does: 5 ms doubling, no jitter", async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock });
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      queue.addRateLimited('ns/a');
      delays.push(await msUntilReady(clock, queue));
      await queue.get();
      queue.done('ns/a');
    }
    expect(delays).toEqual([5, 10, 20, 40]);
  });
});

describe('WorkQueue priorities', () => {
  /** Every key ready now, in the order get() hands them out (each marked done). */
  async function drain(queue: WorkQueue): Promise<string[]> {
    const keys: string[] = [];
    while (queue.len() > 0) {
      const key = (await queue.get()) as string;
      keys.push(key);
      queue.done(key);
    }
    return keys;
  }

  it('hands out normal-priority keys before low ones, first in first out within each', async () => {
    const { queue } = setup();
    queue.add('ns/list-1', LOW_PRIORITY);
    queue.add('ns/list-2', LOW_PRIORITY);
    queue.add('ns/event-1');
    queue.add('ns/list-3', LOW_PRIORITY);
    queue.add('ns/event-2', NORMAL_PRIORITY);
    expect(await drain(queue)).toEqual(['ns/event-1', 'ns/event-2', 'ns/list-1', 'ns/list-2', 'ns/list-3']);
  });

  it('an event on a key queued at low priority raises it; a low add never lowers a normal one', async () => {
    const { queue, metrics } = setup();
    queue.add('ns/a', LOW_PRIORITY);
    queue.add('ns/b', LOW_PRIORITY);
    queue.add('ns/c');
    queue.add('ns/b'); // an event on b
    queue.add('ns/c', LOW_PRIORITY); // a resync of c
    expect(queue.len()).toBe(3);
    expect(metrics.addCount).toBe(3); // raising is not a second add
    expect(await drain(queue)).toEqual(['ns/c', 'ns/b', 'ns/a']);
  });

  it('never hands out a key being processed, whatever priority it is re-added with', async () => {
    const { queue } = setup();
    queue.add('ns/a', LOW_PRIORITY);
    expect(await queue.get()).toBe('ns/a');
    queue.add('ns/a'); // raised while a worker has it
    queue.add('ns/b', LOW_PRIORITY);
    expect(await queue.get()).toBe('ns/b');
    const waiter = pendingGet(queue);
    await flushPromises();
    expect(waiter.settled).toBe(false);
    queue.done('ns/a');
    await flushPromises();
    expect(waiter).toEqual({ settled: true, key: 'ns/a' });
    expect(queue.priorityOf('ns/a')).toBe(NORMAL_PRIORITY);
  });

  it('a rate-limited or delayed requeue keeps the priority the key was handed out with', async () => {
    const { queue, clock } = setup();
    queue.add('ns/low', LOW_PRIORITY);
    queue.add('ns/normal');
    expect(await queue.get()).toBe('ns/normal');
    expect(await queue.get()).toBe('ns/low');
    queue.addRateLimited('ns/low'); // 100 ms
    queue.done('ns/low');
    queue.addAfter('ns/normal', 100);
    queue.done('ns/normal');
    queue.add('ns/other', LOW_PRIORITY);
    await clock.advance(100);
    expect(await drain(queue)).toEqual(['ns/normal', 'ns/other', 'ns/low']);
  });

  it('priorities leave the backoff as it was: per key, doubling, reset by forget()', async () => {
    const { queue, clock } = setup();
    queue.add('ns/a', LOW_PRIORITY);
    const key = (await queue.get()) as string;
    queue.addRateLimited(key);
    queue.done(key);
    expect(await msUntilReady(clock, queue)).toBe(100);
    expect(await queue.get()).toBe('ns/a');
    queue.addRateLimited('ns/a');
    queue.done('ns/a');
    expect(await msUntilReady(clock, queue)).toBe(200);
    expect(queue.numRequeues('ns/a')).toBe(2);
    expect(queue.priorityOf('ns/a')).toBe(LOW_PRIORITY);
    queue.forget('ns/a');
    expect(queue.numRequeues('ns/a')).toBe(0);
  });

  it('addAfter without backoff: a waiting key keeps the earlier time and the higher priority', async () => {
    const { queue, clock, metrics } = setup();
    queue.addAfter('ns/a', 500, LOW_PRIORITY);
    queue.addAfter('ns/a', 300, NORMAL_PRIORITY);
    queue.addAfter('ns/b', 100, LOW_PRIORITY);
    expect(await msUntilReady(clock, queue)).toBe(100);
    await clock.advance(199);
    expect(queue.len()).toBe(1);
    await clock.advance(1);
    expect(queue.len()).toBe(2);
    expect(metrics.retryCount).toBe(0);
    expect(await drain(queue)).toEqual(['ns/a', 'ns/b']);
  });

  it('turned off, it is one FIFO: priorities are ignored', async () => {
    const { queue } = setup({ priorities: false });
    queue.add('ns/list-1', LOW_PRIORITY);
    queue.add('ns/event-1');
    queue.add('ns/list-2', LOW_PRIORITY);
    queue.add('ns/list-1'); // would raise it; off, it is a plain duplicate
    expect(queue.len()).toBe(3);
    expect(await drain(queue)).toEqual(['ns/list-1', 'ns/event-1', 'ns/list-2']);
  });
});

// A Clock for unit tests: time stands still until the test advances it, and due timers then
// fire in order (by due time, then by the order they were set).
import { Clock } from '../../src/controller/clock';

interface Timer {
  id: number;
  due: number;
  fn: () => void;
}

/** Lets every pending promise callback run (they all run before a setImmediate callback). */
export function flushPromises(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class FakeClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(startMs = Date.UTC(2026, 10, 30, 0, 0, 0)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, due: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Number of timers not yet fired or cleared. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward without firing any timer, as when a busy event loop runs timers late.
   * The next advance() fires whatever fell due.
   */
  jump(ms: number): void {
    this.current += ms;
  }

  /**
   * Moves time forward by ms, firing each timer that falls due on the way at its own due time.
   * Promise callbacks are flushed before and after each timer, so async code under test can set
   * its next timer before time moves on.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await flushPromises();
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.due); // late timers (after jump) fire now
      next.fn();
      await flushPromises();
    }
    this.current = target;
    await flushPromises();
  }

  private nextDue(limit: number): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.timers) {
      if (t.due > limit) continue;
      if (!best || t.due < best.due || (t.due === best.due && t.id < best.id)) best = t;
    }
    return best;
  }
}

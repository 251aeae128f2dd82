// Time as a dependency: the queue and the leader elector read the time and set timers only
// through a Clock, so tests drive them with a fake clock instead of waiting for real seconds.

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls fn once after ms milliseconds; returns a handle for clearTimeout. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * The real clock. Timers are not unref'd on purpose: a standby replica waiting to retry the
 * lease may have nothing else keeping the process alive.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

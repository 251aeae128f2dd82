// The shell side of src/core/retry.ts: waiting between tries, and trying a write again after
// a 409. Here beside the client, which retries its own writes with it, so that it needs
// nothing from the layers above it; they use it from here too.
import { BackoffPolicy, MAX_ATTEMPTS, backoff } from '../core/retry';
import { ConflictError } from './errors';

/**
 * Resolves after ms, or as soon as signal aborts (at once if it already has): a loop that
 * sleeps between retries checks signal.aborted and stops. Leaves no timer or listener behind.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

/**
 * Like client-go's retry.RetryOnConflict: runs fn, and runs it again while it fails with a 409
 * (ConflictError), at most `attempts` times in all; any other error, or the last 409, is thrown.
 * fn gets the attempt number, from 1, so it can read the object again only after a 409: the
 * first attempt uses what the caller has already read. No wait between attempts unless a
 * backoff is given: a 409 says the object changed, and a fresh read sees how; an object that
 * someone is still changing quickly is better read again a moment later.
 */
export async function retryOnConflict<T>(
  fn: (attempt: number) => Promise<T>,
  attempts: number = MAX_ATTEMPTS,
  wait?: { policy: BackoffPolicy; signal?: AbortSignal },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= attempts) throw err;
      if (wait) await sleep(backoff(attempt, { ...wait.policy, random: Math.random }), wait.signal);
    }
  }
}

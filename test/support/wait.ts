// Waiting in tests: a pause, and polling until a condition holds.

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

type Maybe<T> = T | null | undefined | false;

/**
 * Calls check (which may be async) every 250 ms until it gives something truthy, and returns
 * that; throws after timeoutMs.
 */
export async function eventually<T>(check: () => Maybe<T> | Promise<Maybe<T>>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs}ms`);
    await sleep(250);
  }
}

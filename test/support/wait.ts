// Waiting in tests: a pause, and polling until a condition holds (eventually for a plane,
// until for unit tests' in-process fakes, which answer in milliseconds).

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

/** Polls condition (which may be async) every 5 ms until it holds; throws after timeoutMs. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs}ms`);
    await sleep(5);
  }
}

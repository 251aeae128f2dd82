// Shrinking a failing history: delta debugging (Zeller's ddmin, complements only), as
// fast-check shrinks a failing command list. It removes chunks of steps, halving them until
// single steps, and keeps any shorter list that still fails. Each try is a whole campaign run
// on the plane, so the number of tries is bounded.

/** The shortest list found that still fails, within `maxTries` calls of `fails`. */
export async function shrink<T>(
  items: readonly T[],
  fails: (candidate: T[]) => Promise<boolean>,
  maxTries: number,
  onSmaller: (smaller: T[]) => void = () => undefined,
): Promise<{ items: T[]; tries: number }> {
  let current = [...items];
  let parts = 2;
  let tries = 0;
  while (current.length > 1 && tries < maxTries) {
    const size = Math.ceil(current.length / parts);
    let smaller: T[] | null = null;
    for (let start = 0; start < current.length && tries < maxTries; start += size) {
      const candidate = [...current.slice(0, start), ...current.slice(start + size)];
      tries++;
      if (await fails(candidate)) {
        smaller = candidate;
        break;
      }
    }
    if (smaller) {
      current = smaller;
      onSmaller(current);
      parts = Math.max(parts - 1, 2);
    } else if (size === 1) {
      break; // no single step can go: 1-minimal
    } else {
      parts = Math.min(parts * 2, current.length);
    }
  }
  return { items: current, tries };
}

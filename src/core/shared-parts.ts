// A new version of a cached object, made to share what did not change with the version before
// (client-go keeps no such thing; immutable data structures do). Most watch events change a
// status or a resourceVersion only, yet each brings a whole object, freshly parsed. Kept as it
// is, every event puts a whole copy into the cache: the old version, long-lived and so in V8's
// old generation by then, becomes garbage there, and a burst of rollouts grows the old
// generation with it until a full GC (its peak memory). Shared, the new parse's unchanged parts
// die young, and the cache keeps the old parts it already holds.

/**
 * `next`, with each part equal to the same part of `previous` replaced by previous's own; or
 * previous itself when all is equal. Mutates next, which must be fresh (parsed, not yet read by
 * anyone). Plain JSON values only; arrays are matched by index.
 */
export function withSharedParts<T>(previous: T | undefined, next: T): T {
  return previous === undefined ? next : (shared(previous, next) as T);
}

function shared(previous: unknown, next: unknown): unknown {
  if (previous === next) return previous;
  if (typeof next !== 'object' || next === null || typeof previous !== 'object' || previous === null) {
    // Equal strings are two copies: keep the one the cache already holds.
    return typeof next === 'string' && next === previous ? previous : next;
  }
  if (Array.isArray(next)) {
    if (!Array.isArray(previous)) return next;
    let same = next.length === previous.length;
    for (let i = 0; i < next.length && i < previous.length; i++) {
      const item = shared(previous[i], next[i]);
      if (item !== previous[i]) same = false;
      next[i] = item;
    }
    return same ? previous : next;
  }
  if (Array.isArray(previous)) return next;
  const [was, is] = [previous as Record<string, unknown>, next as Record<string, unknown>];
  let keys = 0;
  let same = true;
  for (const key in is) {
    keys++;
    const value = Object.prototype.hasOwnProperty.call(was, key) ? shared(was[key], is[key]) : is[key];
    if (value !== was[key]) same = false;
    is[key] = value;
  }
  return same && keys === Object.keys(was).length ? previous : next;
}

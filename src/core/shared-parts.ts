// A new version of a cached object, made to share what did not change with the version before
// (client-go keeps no such thing; immutable data structures do). Most watch events change a
// status or a resourceVersion only, yet each brings a whole object, freshly parsed. Kept as it
// is, every event puts a whole copy into the cache: the old version, long-lived and so in V8's
// old generation by then, becomes garbage there, and a burst of rollouts grows the old
// generation with it until a full GC (its peak memory). Shared, the new parse's unchanged parts
// die young, and the cache keeps the old parts it already holds.
//
// Objects of one kind share too (`other`): WebServices made from one chart, and the children
// built from them, differ in names and little else, and every container the server defaults
// holds the same defaults. A part equal to the same part of the last object of its kind is that
// object's: the cache holds what differs, once per object, and what is common, once.

/**
 * `next`, with each part equal to the same part of `previous` (its version before) or of `other`
 * (another object of its kind) replaced by that one's own, other's first; previous itself when
 * all is equal to it, and never other itself: next stays an object of its own. Mutates next
 * only, which must be fresh (parsed, not yet read by anyone): the parts it takes are the cache's,
 * and are never written. Plain JSON values only; arrays are matched by index.
 */
export function withSharedParts<T>(previous: T | undefined, next: T, other?: T): T {
  return shared(previous, other === next ? undefined : other, next, true) as T;
}

/** next, or the part of `was` or `like` (preferred) that equals it; `top`: never like itself. */
function shared(was: unknown, like: unknown, next: unknown, top = false): unknown {
  if (typeof next !== 'object' || next === null) {
    // Equal strings are two copies: keep one the cache already holds.
    if (typeof next !== 'string') return next;
    return next === like ? like : next === was ? was : next;
  }
  if (Array.isArray(next)) {
    const [before, other] = [Array.isArray(was) ? was : undefined, Array.isArray(like) ? like : undefined];
    let [sameBefore, sameOther] = [before?.length === next.length, !top && other?.length === next.length];
    for (let i = 0; i < next.length; i++) {
      const item = shared(before?.[i], other?.[i], next[i]);
      next[i] = item;
      sameBefore &&= item === before?.[i];
      sameOther &&= item === other?.[i];
    }
    return sameOther ? other : sameBefore ? before : next;
  }
  const before = isRecord(was) ? was : undefined;
  const other = isRecord(like) ? like : undefined;
  const is = next as Record<string, unknown>;
  let keys = 0;
  let [sameBefore, sameOther] = [before !== undefined, !top && other !== undefined];
  for (const key in is) {
    keys++;
    const item = shared(own(before, key), own(other, key), is[key]);
    is[key] = item;
    sameBefore &&= item === before?.[key];
    sameOther &&= item === other?.[key];
  }
  if (sameOther && keys === Object.keys(other!).length) return other;
  return sameBefore && keys === Object.keys(before!).length ? before : next;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(object: Record<string, unknown> | undefined, key: string): unknown {
  return object !== undefined && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

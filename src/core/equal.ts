// Structural equality for JSON values: key order does not matter, array order does.
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  const aKeys = Object.keys(aRecord).filter((k) => aRecord[k] !== undefined);
  const bKeys = Object.keys(bRecord).filter((k) => bRecord[k] !== undefined);
  return aKeys.length === bKeys.length && aKeys.every((k) => jsonEqual(aRecord[k], bRecord[k]));
}

export interface Difference {
  /** Where the values part, as a JSONPath-like string: `ops[0].patch.data.image`. */
  path: string;
  was: unknown;
  is: unknown;
}

/** The first place where two JSON values differ (in `was`'s key order), or undefined when equal. */
export function firstDifference(was: unknown, is: unknown, path = ''): Difference | undefined {
  if (jsonEqual(was, is)) return undefined;
  const here = { path: path || '.', was, is };
  if (typeof was !== 'object' || typeof is !== 'object' || was === null || is === null) return here;
  if (Array.isArray(was) !== Array.isArray(is)) return here;
  if (Array.isArray(was) && Array.isArray(is)) {
    for (let i = 0; i < Math.max(was.length, is.length); i++) {
      const found = firstDifference(was[i], is[i], `${path}[${i}]`);
      if (found) return found;
    }
    return here;
  }
  const wasRecord = was as Record<string, unknown>;
  const isRecord = is as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(wasRecord), ...Object.keys(isRecord)])];
  for (const key of keys) {
    const found = firstDifference(wasRecord[key], isRecord[key], path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return here;
}

/** JSON with sorted keys: the same object, the same text, the same hash. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

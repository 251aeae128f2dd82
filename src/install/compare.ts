// Pure judgements for install: is a bundled object already live, and which CRD version wins.

/**
 * Whether every field of `desired` has the same value in `live` (desired ⊆ live): then an
 * apply would change nothing, and install skips the request. Fields the server or other
 * managers added do not count. Lists must match item by item and in length, so a rule or
 * container removed from a manifest is noticed; a map key removed is not, which is why
 * every bundled object carries the plugin's version label: a new version re-applies all.
 */
export function containedIn(desired: unknown, live: unknown): boolean {
  if (desired === null || desired === undefined) return live === null || live === undefined;
  if (Array.isArray(desired)) {
    return (
      Array.isArray(live) && live.length === desired.length && desired.every((item, i) => containedIn(item, live[i]))
    );
  }
  if (typeof desired === 'object') {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    const fields = live as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).every(([key, value]) => containedIn(value, fields[key]));
  }
  return desired === live;
}

/** major.minor.patch, with an optional leading "v" and pre-release suffix (ignored). */
function parseVersion(text: string): [number, number, number] | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/** -1, 0 or 1 as a is older than, equal to or newer than b; null when either is not a version. */
export function compareVersions(a: string, b: string): -1 | 0 | 1 | null {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (!left || !right) return null;
  for (let i = 0; i < 3; i++) {
    if (left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return 0;
}

export type CrdVersionState = 'unlabelled' | 'older' | 'current' | 'newer';

/**
 * Where a live CRD stands against the bundled one, by its version label. Unlabelled (applied
 * by hand from the repository) and unreadable labels count as older: install upgrades them.
 */
export function crdVersionState(liveVersion: string | undefined, bundledVersion: string): CrdVersionState {
  if (!liveVersion) return 'unlabelled';
  if (liveVersion === bundledVersion) return 'current';
  const order = compareVersions(liveVersion, bundledVersion);
  if (order === 1) return 'newer';
  if (order === 0) return 'current';
  return 'older';
}

// Entries of ours whose key someone changed by hand, and how they become ours again. Pure.
//
// Server-side apply merges a keyed list (a Service's ports by port and protocol, env by name,
// a container's ports by port) entry by entry. To the server, a hand edit of an entry's key
// (`kubectl patch service web --type=json … replace /spec/ports/0/port`) removes our entry and
// adds another, which the editor's field manager owns; our next apply puts ours back beside
// it, and for a Service that is two ports of one name, which is invalid, refused on every pass.
// A change to the key of an entry of ours is a change to our field: ours goes back, and the
// moved one goes. The server cannot tell a moved entry from an added one (both are another
// manager's, and ours is gone from every manager), so its place tells: an entry with a key none
// of ours has, at the place of one of ours that is missing, is ours moved, where nothing else
// can explain ours missing (see movedEntries). Its fields are made ours in the object's
// managedFields (Kubernetes' "transferring ownership"), and then our apply, which does not set
// them, removes it: the one write that adds ours back removes it, so the object is never
// invalid in between.
import { KeyedLists, fieldAt, itemsAt, keyedListsOf, listKey } from './list-keys';
import type { Json } from './model';

/** One step down to an entry: a field by name, or the entry of a keyed list that holds these values. */
export type FieldStep = string | { entry: Json };

/** An entry to take over: where it is, for people (spec.ports[9999/TCP]) and as steps. */
export interface MovedEntry {
  path: string;
  steps: FieldStep[];
}

/**
 * The entries of the live object's keyed lists that sit where entries of ours are missing and
 * have keys none of ours has: ours, with their keys changed by hand. From spec only (metadata's
 * keyed list, ownerReferences, is what makes a child ours at all). Call it only where a missing
 * entry of ours cannot be new: when the live object was applied from this very spec, or when
 * our last apply was refused (then whatever stands where ours should be must give way).
 */
export function movedEntries(
  want: { apiVersion: string; kind: string; spec: Json },
  live: { spec?: unknown },
): MovedEntry[] {
  return walk(want.spec, live.spec, { steps: ['spec'], path: 'spec', typePath: 'spec' }, keyedListsOf(want));
}

/** Where a value is: the steps down to it, its path for people, its type path (list-keys.ts). */
interface At {
  steps: FieldStep[];
  path: string;
  typePath: string;
}

function walk(want: unknown, have: unknown, at: At, lists: KeyedLists): MovedEntry[] {
  if (Array.isArray(want)) return Array.isArray(have) ? inList(want, have, at, lists) : [];
  if (!isObject(want) || !isObject(have)) return [];
  return Object.keys(want).flatMap((key) =>
    walk(
      want[key],
      have[key],
      { steps: [...at.steps, key], path: join(at.path, key), typePath: fieldAt(at.typePath, key) },
      lists,
    ),
  );
}

function inList(want: unknown[], have: unknown[], here: At, lists: KeyedLists): MovedEntry[] {
  const { steps, path } = here;
  const keyOf = listKey(lists, here.typePath);
  if (!keyOf || !want.every(isObject) || !have.every(isObject)) return [];
  const keys = want.map(keyOf);
  const ours = new Set(keys);
  // Where each of ours is in the live list; -1 where it is missing.
  const at = keys.map((key) => (key === undefined ? -1 : have.findIndex((item) => keyOf(item) === key)));
  const within = want.flatMap((item, i) =>
    at[i] < 0
      ? []
      : walk(
          item,
          have[at[i]],
          { steps: [...steps, { entry: have[at[i]] }], path: `${path}[${keys[i]}]`, typePath: itemsAt(here.typePath) },
          lists,
        ),
  );
  const taken = new Set<number>();
  const moved = keys.flatMap((key, i): MovedEntry[] => {
    if (key === undefined || at[i] >= 0) return [];
    // Its typePath: after the ours before it, before the ours after it that the live list holds.
    const after = Math.max(-1, ...at.slice(0, i));
    const later = at.slice(i + 1).filter((position) => position > after);
    const before = later.length > 0 ? Math.min(...later) : have.length;
    for (let place = after + 1; place < before; place++) {
      const other = keyOf(have[place]);
      if (taken.has(place) || other === undefined || ours.has(other)) continue;
      taken.add(place);
      return [{ path: `${path}[${other}]`, steps: [...steps, { entry: have[place] }] }];
    }
    return [];
  });
  return [...within, ...moved];
}

/** One manager's fields in metadata.managedFields. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  fieldsType?: string;
  fieldsV1?: Json;
  subresource?: string;
  time?: string;
}

/**
 * The object's managedFields with every field of these entries taken from the managers that
 * hold them and given to `manager`'s Apply entry (made if it has none); null when no other
 * manager holds any of them. FieldsV1 is a tree: `f:<field>` for a field, `k:<key as JSON>` for
 * an entry of a keyed list, `.` for the entry itself; a node with no children is a field owned.
 */
export function takeOverEntries(
  managedFields: ManagedFieldsEntry[],
  entries: FieldStep[][],
  manager: string,
  apiVersion: string,
): ManagedFieldsEntry[] | null {
  const fields = structuredClone(managedFields);
  const isOurs = (entry: ManagedFieldsEntry) =>
    entry.manager === manager && entry.operation === 'Apply' && entry.subresource === undefined;
  const ours = fields.find(isOurs) ?? {
    manager,
    operation: 'Apply',
    apiVersion,
    fieldsType: 'FieldsV1',
    fieldsV1: {},
  };
  const oursFields = (ours.fieldsV1 ??= {});
  let moved = false;
  for (const steps of entries) {
    for (const entry of fields) {
      if (isOurs(entry) || !entry.fieldsV1) continue;
      const found = detach(entry.fieldsV1, steps);
      if (!found) continue;
      attach(oursFields, found.keys, found.subtree);
      moved = true;
    }
  }
  if (!moved) return null;
  // A manager left with no field has no entry (the server drops those too).
  const kept = fields.filter((entry) => isOurs(entry) || !entry.fieldsV1 || Object.keys(entry.fieldsV1).length > 0);
  return kept.includes(ours) ? kept : [...kept, ours];
}

/**
 * Takes the subtree at steps out of a FieldsV1 tree, with the keys that led to it; the nodes
 * above it that it leaves empty go too (an empty node would be a field owned). Null if the
 * tree has nothing there.
 */
function detach(tree: Json, steps: FieldStep[]): { keys: string[]; subtree: Json } | null {
  const trail: { node: Json; key: string }[] = [];
  let node = tree;
  for (const step of steps) {
    const key = typeof step === 'string' ? `f:${step}` : Object.keys(node).find((k) => entryKeyMatches(k, step.entry));
    const next = key === undefined ? undefined : node[key];
    if (key === undefined || !isObject(next)) return null;
    trail.push({ node, key });
    node = next;
  }
  for (let i = trail.length - 1; i >= 0; i--) {
    const { node: parent, key } = trail[i];
    if (i < trail.length - 1 && Object.keys(parent[key] as Json).length > 0) break;
    delete parent[key];
  }
  return { keys: trail.map((t) => t.key), subtree: node };
}

/** Puts a subtree at keys into a FieldsV1 tree, merged with what is there. */
function attach(tree: Json, keys: string[], subtree: Json): void {
  let node = tree;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node = isObject(next) ? next : (node[key] = {});
  }
  const last = keys[keys.length - 1];
  const there = node[last];
  node[last] = isObject(there) ? merged(there, subtree) : subtree;
}

function merged(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    out[key] = isObject(mine) && isObject(value) ? merged(mine, value) : value;
  }
  return out;
}

/** `k:{"port":9999,"protocol":"TCP"}` names the entry whose fields hold those values. */
function entryKeyMatches(key: string, entry: Json): boolean {
  if (!key.startsWith('k:')) return false;
  try {
    const fields = JSON.parse(key.slice(2)) as unknown;
    return isObject(fields) && Object.entries(fields).every(([field, value]) => entry[field] === value);
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

// The one comparison of a desired child with the live one, as the API server stores it. Only
// the fields we set are compared (a subset): a field the server defaults or someone else adds
// is not ours and makes no difference. Within that:
// - quantities compare by value (`0.5` is `500m`), wherever a resource list holds them;
// - lists of named things compare item by item, by their merge key (containers by name, env
//   by name, ports by port and protocol, volumes by name, mounts by path), so an item others
//   add, and the order, make no difference; other lists are atomic, compared whole;
// - a value the server drops because it is empty (false, 0, "", [], {}) is not missing.
// Pure. What we stopped setting is not seen here: the object's applied hash says that.
import { sameQuantity } from './quantity';
import type { Json } from './model';

export interface StoredDifference {
  /** Where they part: spec.template.spec.containers[web].env[LOG_LEVEL].value */
  path: string;
  want: unknown;
  have: unknown;
}

/** Keyed lists by field name: the fields whose values identify an item. */
const LIST_KEYS: Record<string, (item: Json) => string | undefined> = {
  containers: byField('name'),
  initContainers: byField('name'),
  env: byField('name'),
  volumes: byField('name'),
  volumeMounts: byField('mountPath'),
  imagePullSecrets: byField('name'),
  ownerReferences: byField('uid'),
  // A container's ports by containerPort, a Service's by port; both with the protocol (TCP when unset).
  ports: (item) => {
    const port = byField('containerPort')(item) ?? byField('port')(item);
    return port === undefined ? undefined : `${port}/${typeof item.protocol === 'string' ? item.protocol : 'TCP'}`;
  },
};

/** How the items of a keyed list of this field name are identified; undefined for an atomic list. */
export function listKey(field: string): ((item: Json) => string | undefined) | undefined {
  return Object.hasOwn(LIST_KEYS, field) ? LIST_KEYS[field] : undefined;
}

/** Maps whose values are quantities. */
const QUANTITY_MAPS = new Set(['requests', 'limits', 'overhead']);
/** Fields that are quantities themselves. */
const QUANTITY_FIELDS = new Set(['sizeLimit']);

function byField(field: string): (item: Json) => string | undefined {
  return (item) =>
    typeof item[field] === 'string' || typeof item[field] === 'number' ? String(item[field]) : undefined;
}

/** The fields of want that have does not hold, as the server stores them; [] when it holds them all. */
export function storedDifferences(want: unknown, have: unknown, path = ''): StoredDifference[] {
  return differences(want, have, path, '', false);
}

function differences(want: unknown, have: unknown, path: string, field: string, quantity: boolean): StoredDifference[] {
  if (want === undefined || want === null) return [];
  if (have === undefined && isEmpty(want)) return [];
  if (Array.isArray(want)) return listDifferences(want, have, path, field);
  if (isObject(want)) {
    if (!isObject(have)) return [{ path: path || '.', want, have }];
    const values = quantity || QUANTITY_MAPS.has(field);
    return Object.keys(want).flatMap((key) =>
      differences(want[key], have[key], join(path, key), key, values && !isObject(want[key])),
    );
  }
  if (quantity || QUANTITY_FIELDS.has(field)) return sameQuantity(want, have) ? [] : [{ path, want, have }];
  return want === have ? [] : [{ path, want, have }];
}

function listDifferences(want: unknown[], have: unknown, path: string, field: string): StoredDifference[] {
  const live = Array.isArray(have) ? have : [];
  const keyOf = listKey(field);
  if (keyOf && want.every(isObject) && live.every(isObject)) {
    return want.flatMap((item) => {
      const key = keyOf(item);
      const match = key === undefined ? undefined : live.find((other) => keyOf(other) === key);
      const where = `${path}[${key ?? '?'}]`;
      return match ? differences(item, match, where, '', false) : [{ path: where, want: item, have: undefined }];
    });
  }
  // Atomic: the same items in the same order, each holding what we set.
  if (live.length !== want.length) return [{ path, want, have }];
  const inner = want.flatMap((item, i) => differences(item, live[i], `${path}[${i}]`, '', false));
  return inner.length > 0 ? [{ path, want, have }] : [];
}

function isEmpty(value: unknown): boolean {
  if (value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

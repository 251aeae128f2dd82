// The one comparison of a desired child with the live one, as the API server stores it. Only
// the fields we set are compared (a subset): a field the server defaults or someone else adds
// is not ours and makes no difference. Within that:
// - quantities compare by value (`0.5` is `500m`), wherever a resource list holds them;
// - the lists the server merges by key compare item by item, by that key, so an item others
//   add, and the order, make no difference; other lists are atomic, compared whole. Which
//   lists are keyed, and by what, depends on the kind and the field's path, as the server's
//   OpenAPI says (list-keys.ts reads the table generated from it): a container's ports are
//   keyed by containerPort and protocol, a Service's by port and protocol, and a protocol
//   unset is the OpenAPI's default, TCP;
// - a value the server drops because it is empty (false, 0, "", [], {}) is not missing.
// Pure. What we stopped setting is not seen here: the object's applied hash says that.
import { KeyedLists, fieldAt, itemsAt, keyedListsOf, listKey } from './list-keys';
import { sameQuantity } from './quantity';
import type { Json } from './model';

export interface StoredDifference {
  /** Where they part: spec.template.spec.containers[web].env[LOG_LEVEL].value */
  path: string;
  want: unknown;
  have: unknown;
}

/** Maps whose values are quantities. */
const QUANTITY_MAPS = new Set(['requests', 'limits', 'overhead']);
/** Fields that are quantities themselves. */
const QUANTITY_FIELDS = new Set(['sizeLimit']);
/** An autoscaler metric's target (its `value` is a quantity there only, so it goes by type path). */
const QUANTITY_TARGET = /(^|\.)target\.(value|averageValue)$/;

/**
 * The fields of want that have does not hold, as the server stores them; [] when it holds them
 * all. Want's apiVersion and kind say which of its lists are keyed (none without them).
 */
export function storedDifferences(want: unknown, have: unknown): StoredDifference[] {
  return differences(want, have, { path: '', typePath: '', field: '', quantity: false }, keyedListsOf(want));
}

/** Where a value is: its path for people, its type path (list-keys.ts), its field's name, whether it is a quantity. */
interface At {
  path: string;
  typePath: string;
  field: string;
  quantity: boolean;
}

function differences(want: unknown, have: unknown, at: At, lists: KeyedLists): StoredDifference[] {
  const { path, field, quantity } = at;
  if (want === undefined || want === null) return [];
  if (have === undefined && isEmpty(want)) return [];
  if (Array.isArray(want)) return listDifferences(want, have, at, lists);
  if (isObject(want)) {
    if (!isObject(have)) return [{ path: path || '.', want, have }];
    const values = quantity || QUANTITY_MAPS.has(field);
    return Object.keys(want).flatMap((key) =>
      differences(
        want[key],
        have[key],
        {
          path: join(path, key),
          typePath: fieldAt(at.typePath, key),
          field: key,
          quantity: values && !isObject(want[key]),
        },
        lists,
      ),
    );
  }
  if (quantity || QUANTITY_FIELDS.has(field) || QUANTITY_TARGET.test(at.typePath))
    return sameQuantity(want, have) ? [] : [{ path, want, have }];
  return want === have ? [] : [{ path, want, have }];
}

function listDifferences(want: unknown[], have: unknown, at: At, lists: KeyedLists): StoredDifference[] {
  const { path } = at;
  const live = Array.isArray(have) ? have : [];
  const keyOf = listKey(lists, at.typePath);
  const item = (where: string): At => ({ path: where, typePath: itemsAt(at.typePath), field: '', quantity: false });
  if (keyOf && want.every(isObject) && live.every(isObject)) {
    return want.flatMap((mine) => {
      const key = keyOf(mine);
      const match = key === undefined ? undefined : live.find((other) => keyOf(other) === key);
      const where = `${path}[${key ?? '?'}]`;
      return match ? differences(mine, match, item(where), lists) : [{ path: where, want: mine, have: undefined }];
    });
  }
  // Atomic: the same items in the same order, each holding what we set.
  if (live.length !== want.length) return [{ path, want, have }];
  const inner = want.flatMap((mine, i) => differences(mine, live[i], item(`${path}[${i}]`), lists));
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

// Which lists of a child the API server merges item by item, and how it tells their items apart:
// by kind and by the field's path in the kind (a container's ports by containerPort and
// protocol, a Service's by port and protocol), as its OpenAPI says. The table is generated from
// a live API server's OpenAPI (list-keys.generated.ts, by npm run crd:generate), never written
// by hand. Pure.
import { KEYED_LISTS } from './list-keys.generated';
import type { Json } from './model';

/** A keyed list: the fields whose values identify an item, and the defaults the server stores for them. */
export interface KeyedList {
  keys: string[];
  defaults?: Record<string, string | number | boolean>;
}

/**
 * One kind's keyed lists, by their type path: a field's path in the kind without the keys of
 * the lists above it, `spec.template.spec.containers[].ports`.
 */
export type KeyedLists = Readonly<Record<string, KeyedList>>;

const TABLE: Readonly<Record<string, KeyedLists>> = KEYED_LISTS;

/** How the table names a kind: `apps/v1 Deployment`. */
export function typeName(apiVersion: string, kind: string): string {
  return `${apiVersion} ${kind}`;
}

/** The keyed lists of an object's kind (its apiVersion and kind); none for a kind the table lacks. */
export function keyedListsOf(object: unknown): KeyedLists {
  if (typeof object !== 'object' || object === null) return {};
  const { apiVersion, kind } = object as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return {};
  const name = typeName(apiVersion, kind);
  return Object.hasOwn(TABLE, name) ? TABLE[name] : {};
}

/** The type path of a field of the object at typePath: `spec.ports`. */
export function fieldAt(typePath: string, field: string): string {
  return typePath ? `${typePath}.${field}` : field;
}

/** The type path of the items of the list at typePath: `spec.ports[]`. */
export function itemsAt(typePath: string): string {
  return `${typePath}[]`;
}

/**
 * How the items of the list at typePath are identified: their key fields' values, the default
 * where one is unset, joined by `/` (`8080/TCP`); undefined for a list compared whole.
 */
export function listKey(lists: KeyedLists, typePath: string): ((item: Json) => string | undefined) | undefined {
  const list = Object.hasOwn(lists, typePath) ? lists[typePath] : undefined;
  if (!list) return undefined;
  return (item) => {
    const values = list.keys.map((field) => item[field] ?? list.defaults?.[field]);
    return values.every(isScalar) ? values.map(String).join('/') : undefined;
  };
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

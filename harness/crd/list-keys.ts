// The lists the API server merges item by item, by key, in the children we write: read from its
// OpenAPI (v3) from each kind's root schema down, as server-side apply reads them. A list of type
// `map` is keyed by its x-kubernetes-list-map-keys; a list of no type whose patch strategy is
// merge, by its x-kubernetes-patch-merge-key; any other list (atomic, set) is compared whole.
// Each key field comes with its default from the OpenAPI, which the server stores where it is
// unset (a port's protocol is TCP). Pure: OpenAPI documents in, the table and its module out.
import { CHILD_KINDS } from '../../src/core/kinds';
import { KeyedList, typeName } from '../../src/core/list-keys';
import type { Json } from '../../src/core/model';
import { OpenApiDocument, referenceOf } from './schema';

/** The module the table is written to (npm run crd:generate). */
export const LIST_KEYS_MODULE = 'src/core/list-keys.generated.ts';

/** The kinds we write, each once, as the kind table has them. */
export const WRITTEN_KINDS: readonly { apiVersion: string; kind: string }[] = CHILD_KINDS.filter(
  (row, i) => CHILD_KINDS.findIndex((other) => other.apiVersion === row.apiVersion && other.kind === row.kind) === i,
).map(({ apiVersion, kind }) => ({ apiVersion, kind }));

/** Where the API server serves an API version's OpenAPI: /openapi/v3/ and this (api/v1, apis/apps/v1). */
export function openApiPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;
}

/** The API versions of the kinds we write, each once. */
export function writtenApiVersions(): string[] {
  return [...new Set(WRITTEN_KINDS.map((kind) => kind.apiVersion))];
}

type Scalar = string | number | boolean;

/** Each kind's keyed lists, by place (`spec.template.spec.containers[].ports`), places sorted. */
export function keyedLists(
  documents: OpenApiDocument[],
  kinds: readonly { apiVersion: string; kind: string }[],
): Record<string, Record<string, KeyedList>> {
  const schemas: Record<string, Json | undefined> = {};
  for (const document of documents) Object.assign(schemas, document.components?.schemas);
  const table: Record<string, Record<string, KeyedList>> = {};
  for (const { apiVersion, kind } of kinds) {
    const root = rootSchema(schemas, apiVersion, kind);
    const found: [string, KeyedList][] = [];
    // Status is the server's to write: none of our objects sets it.
    const { status: _status, ...fields } = (root.schema.properties ?? {}) as Record<string, Json>;
    for (const [field, schema] of Object.entries(fields)) walk(schema, field, [root.name], schemas, found);
    table[typeName(apiVersion, kind)] = Object.fromEntries(found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  return table;
}

/** The schema whose x-kubernetes-group-version-kind is this kind's, and its name. */
function rootSchema(schemas: Record<string, Json | undefined>, apiVersion: string, kind: string) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  for (const [name, schema] of Object.entries(schemas)) {
    const kinds = (schema?.['x-kubernetes-group-version-kind'] ?? []) as {
      group: string;
      version: string;
      kind: string;
    }[];
    if (schema && kinds.some((gvk) => gvk.group === group && gvk.version === version && gvk.kind === kind)) {
      return { name, schema };
    }
  }
  throw new Error(`the OpenAPI has no ${apiVersion} ${kind}: is its API installed?`);
}

function walk(
  field: Json,
  place: string,
  seen: string[],
  schemas: Record<string, Json | undefined>,
  found: [string, KeyedList][],
): void {
  const ref = referenceOf(field);
  if (ref !== undefined) {
    // A type within itself (JSONSchemaProps) holds no list of ours; none of our kinds reaches one.
    if (seen.includes(ref)) throw new Error(`recursive type ${ref} at ${place}: the table cannot hold it`);
    const target = schemas[ref];
    if (!target) throw new Error(`the OpenAPI has no ${ref}`);
    walk({ ...target, ...withoutReference(field) }, place, [...seen, ref], schemas, found);
    return;
  }
  if (field.items) {
    const keyed = keyedList(field, field.items as Json, schemas, place);
    if (keyed) found.push([place, keyed]);
    walk(field.items as Json, `${place}[]`, seen, schemas, found);
    return;
  }
  for (const [name, schema] of Object.entries((field.properties ?? {}) as Record<string, Json>)) {
    walk(schema, `${place}.${name}`, seen, schemas, found);
  }
  const values = field.additionalProperties;
  if (values && typeof values === 'object' && holdsKeyedList(values as Json, seen, schemas)) {
    throw new Error(`a keyed list within the map at ${place}: the table names places by field, not by a map's keys`);
  }
}

/** Whether a schema holds a keyed list somewhere. */
function holdsKeyedList(schema: Json, seen: string[], schemas: Record<string, Json | undefined>): boolean {
  const found: [string, KeyedList][] = [];
  walk(schema, '', seen, schemas, found);
  return found.length > 0;
}

/** The list's keys and their defaults, or undefined for a list compared whole. */
function keyedList(
  list: Json,
  items: Json,
  schemas: Record<string, Json | undefined>,
  place: string,
): KeyedList | undefined {
  const type = list['x-kubernetes-list-type'];
  const strategy = list['x-kubernetes-patch-strategy'];
  const mergeKey = list['x-kubernetes-patch-merge-key'];
  const keys =
    type === 'map'
      ? (list['x-kubernetes-list-map-keys'] as string[] | undefined)
      : type === undefined && typeof strategy === 'string' && strategy.split(',').includes('merge')
        ? typeof mergeKey === 'string'
          ? [mergeKey]
          : undefined
        : undefined;
  if (!keys || keys.length === 0) return undefined;
  const item = resolved(items, schemas);
  const properties = (item.properties ?? {}) as Record<string, Json | undefined>;
  const defaults: Record<string, Scalar> = {};
  for (const key of keys) {
    const field = properties[key];
    if (!field) throw new Error(`the items of ${place} have no key field ${key}`);
    const value = field.default ?? resolved(field, schemas).default;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') defaults[key] = value;
  }
  return Object.keys(defaults).length > 0 ? { keys, defaults } : { keys };
}

function resolved(schema: Json, schemas: Record<string, Json | undefined>): Json {
  const ref = referenceOf(schema);
  return ref === undefined ? schema : (schemas[ref] ?? {});
}

/** A field's own words beside its reference (its list type, its default), without the reference. */
function withoutReference(field: Json): Json {
  const { $ref: _ref, allOf: _allOf, ...rest } = field;
  return rest;
}

/** The generated module: the table, as data. */
export function listKeysModule(table: Record<string, Record<string, KeyedList>>): string {
  const lines = [
    "// Made by npm run crd:generate from the API server's OpenAPI (harness/crd/list-keys.ts): do not edit.",
    '// Each kind we write, its lists the server merges by key, by place: the key fields and their defaults.',
    'export const KEYED_LISTS = {',
  ];
  for (const [type, lists] of Object.entries(table)) {
    lines.push(`  ${quote(type)}: {`);
    for (const [place, list] of Object.entries(lists)) lines.push(`    ${quote(place)}: ${literal(list)},`);
    lines.push('  },');
  }
  lines.push('};', '');
  return lines.join('\n');
}

function literal(list: KeyedList): string {
  const keys = `keys: [${list.keys.map(quote).join(', ')}]`;
  if (!list.defaults) return `{ ${keys} }`;
  const defaults = Object.entries(list.defaults).map(
    ([key, value]) =>
      `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : quote(key)}: ${typeof value === 'string' ? quote(value) : String(value)}`,
  );
  return `{ ${keys}, defaults: { ${defaults.join(', ')} } }`;
}

function quote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

// The schemas of the Kubernetes types that the WebService's schema (src/core/spec-schema.ts)
// embeds, taken from the API server's own OpenAPI (v3), the way controller-gen embeds core types
// in a CRD: EnvVar, Probe, ResourceRequirements, SecurityContext... are validated at admission
// as Kubernetes validates them, `kubectl explain` describes them, and an unknown field is
// refused. Their lists keep their list types: env is a map keyed by name, so two variables of
// one name are refused at admission, and server-side apply merges the list entry by entry.
// Pure: OpenAPI documents in, schemas out.
import { MAX_RESOURCE_NAMES, RESOURCE_NAMES, resourceNamesRule } from '../../src/core/resource-names';
import type { Json } from '../../src/core/model';
import { Embedded, EmbeddedField, WEB_SERVICE_SCHEMA, embeddedFields } from '../../src/core/spec-schema';

/** An OpenAPI v3 document as /openapi/v3/api/v1 or /openapi/v3/apis/apps/v1 serves it. */
export interface OpenApiDocument {
  components?: { schemas?: Record<string, Json> };
}

const CORE = 'io.k8s.api.core.v1';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

/** controller-gen's schema of a Quantity: an integer or a string of a quantity's form. */
const QUANTITY_SCHEMA: Json = {
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  'x-kubernetes-int-or-string': true,
};
const INT_OR_STRING_SCHEMA: Json = {
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
};

/**
 * What a CRD's structural schema keeps of an OpenAPI schema; the rest (defaults, patch
 * strategies) goes, but the defaults of the keys of a map list that are not required (the API
 * server refuses a key with neither).
 */
const KEPT = [
  'type',
  'format',
  'enum',
  'required',
  'description',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
];

/** Where the embedded Kubernetes types are, as paths of a WebService: spec.workload.env, a file's items. */
export function embeddedFieldPaths(): string[] {
  return embeddedFields().map(({ at }) => at.replace(/\[\]$/, ''));
}

/** The longest description kept: its first sentence, within this. Enough for `kubectl explain`, small for etcd. */
const MAX_DESCRIPTION = 240;

/** The schema of each Kubernetes type the WebService embeds, by its path (embeddedFields' at), from the OpenAPI. */
export function embeddedSchemas(documents: OpenApiDocument[]): Record<string, Json> {
  const schemas: Record<string, Json | undefined> = {};
  for (const document of documents) Object.assign(schemas, document.components?.schemas);
  const found: Record<string, Json> = {};
  for (const { at, marker } of embeddedFields()) {
    const type = schemas[marker.embeds];
    const source =
      marker.field === undefined ? type : (type?.properties as Record<string, Json> | undefined)?.[marker.field];
    const name = marker.field === undefined ? marker.embeds : `${marker.embeds}.${marker.field}`;
    if (!source) throw new Error(`the OpenAPI has no ${name}`);
    const schema = structural(source, schemas);
    if (shapeOfSchema(schema) !== marker.shape) {
      throw new Error(`${at} embeds ${name}, whose shape is ${shapeOfSchema(schema)}, not ${marker.shape}`);
    }
    const bounded = withBounds(schema, marker);
    found[at] =
      marker.embeds === `${CORE}.Container` && marker.field === 'resources' ? withResourceNameRules(bounded) : bounded;
  }
  return found;
}

/** A type's schema with the bounds the marker adds: a list's maxItems, its fields' maxLength. */
function withBounds(schema: Json, { maxItems, maxLengths = {} }: Embedded): Json {
  const properties = { ...(schema.properties as Record<string, Json | undefined> | undefined) };
  for (const [field, maxLength] of Object.entries(maxLengths)) {
    const type = properties[field];
    if (!type) throw new Error(`the type has no field ${field} to bound`);
    properties[field] = { ...type, maxLength };
  }
  const bounded = Object.keys(maxLengths).length > 0 ? { ...schema, properties } : schema;
  return maxItems === undefined ? bounded : { ...bounded, maxItems };
}

/** A schema's JSON shape, as an embedded field's marker declares it. */
export function shapeOfSchema(schema: Json): Embedded['shape'] {
  if (schema.type === 'array') return (schema.items as Json | undefined)?.type === 'string' ? 'strings' : 'objects';
  return schema.type === 'string' ? 'string' : 'object';
}

/** The WebService's openAPIV3Schema with each embedded type's schema in place of its marker. */
export function expandedSchema(schemaOf: (field: EmbeddedField) => Json): Json {
  const expanded = structuredClone(WEB_SERVICE_SCHEMA) as unknown as Json;
  for (const field of embeddedFields()) {
    const parent = field.schemaPath.slice(0, -1).reduce<Json>((node, key) => node[key] as Json, expanded);
    parent[field.schemaPath[field.schemaPath.length - 1]] = schemaOf(field);
  }
  return expanded;
}

/**
 * ResourceRequirements' requests and limits with a rule on their keys: Kubernetes refuses a
 * container whose resource name it does not know (`memroy`), and so, at once, does admission of
 * the WebService; its OpenAPI says only "a map of quantities". The bound on their size keeps the
 * rule within the API server's cost budget (see MAX_RESOURCE_NAMES).
 */
function withResourceNameRules(resources: Json): Json {
  const properties = { ...(resources.properties as Record<string, Json | undefined>) };
  for (const field of ['limits', 'requests']) {
    const quantities = properties[field];
    if (!quantities) throw new Error(`the OpenAPI's ResourceRequirements has no ${field}`);
    properties[field] = {
      ...quantities,
      maxProperties: MAX_RESOURCE_NAMES,
      'x-kubernetes-validations': [
        { rule: resourceNamesRule(), message: `a resource name is one of ${RESOURCE_NAMES}` },
      ],
    };
  }
  return { ...resources, properties };
}

/** An OpenAPI schema with its references inlined, as a CRD's structural schema. */
function structural(schema: Json, schemas: Record<string, Json | undefined>, seen: string[] = []): Json {
  const ref = referenceOf(schema);
  if (ref === QUANTITY) return withDescription({ ...QUANTITY_SCHEMA }, schema);
  if (ref === INT_OR_STRING) return withDescription({ ...INT_OR_STRING_SCHEMA }, schema);
  if (ref !== undefined) {
    if (seen.includes(ref)) throw new Error(`recursive type ${ref}: a CRD schema cannot hold it`);
    const target = schemas[ref];
    if (!target) throw new Error(`the OpenAPI has no ${ref}`);
    // The field's own description says more about this use than the type's.
    return withDescription(structural(target, schemas, [...seen, ref]), schema);
  }
  const out: Json = {};
  for (const key of KEPT) {
    if (schema[key] === undefined) continue;
    out[key] = key === 'description' ? shortDescription(schema[key] as string) : schema[key];
  }
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, Json>).map(([key, value]) => [
        key,
        structural(value, schemas, seen),
      ]),
    );
  }
  if (schema.items) out.items = withKeyDefaults(schema, structural(schema.items as Json, schemas, seen), schemas);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    out.additionalProperties = structural(schema.additionalProperties as Json, schemas, seen);
  }
  if (out.type === undefined && (out.properties || out.additionalProperties)) out.type = 'object';
  return out;
}

/** A map list's items with the OpenAPI's default on each key that is not required. */
function withKeyDefaults(list: Json, items: Json, schemas: Record<string, Json | undefined>): Json {
  const keys = list['x-kubernetes-list-type'] === 'map' ? (list['x-kubernetes-list-map-keys'] as string[]) : [];
  const required = (items.required ?? []) as string[];
  const optional = keys.filter((key) => !required.includes(key));
  if (optional.length === 0) return items;
  const ref = referenceOf(list.items as Json);
  const source = ((ref === undefined ? list.items : schemas[ref]) ?? {}) as Json;
  const properties = { ...(items.properties as Record<string, Json>) };
  for (const key of optional) {
    const value = (source.properties as Record<string, Json | undefined> | undefined)?.[key]?.default;
    if (value === undefined) throw new Error(`the key ${key} of a map list is neither required nor defaulted`);
    properties[key] = { default: value, ...properties[key] };
  }
  return { ...items, properties };
}

/** The type a schema refers to: `$ref`, or a lone `allOf: [{$ref}]` beside a description. */
export function referenceOf(schema: Json): string | undefined {
  const direct = schema.$ref;
  const wrapped = Array.isArray(schema.allOf) && schema.allOf.length === 1 ? (schema.allOf[0] as Json).$ref : undefined;
  const ref = typeof direct === 'string' ? direct : typeof wrapped === 'string' ? wrapped : undefined;
  return ref?.replace('#/components/schemas/', '');
}

function withDescription(target: Json, field: Json): Json {
  return typeof field.description === 'string'
    ? { ...target, description: shortDescription(field.description) }
    : target;
}

function shortDescription(text: string): string {
  const first = text
    .split(/(?<=\.)\s/)[0]
    .replace(/\s+/g, ' ')
    .trim();
  return first.length > MAX_DESCRIPTION ? `${first.slice(0, MAX_DESCRIPTION - 1)}…` : first;
}

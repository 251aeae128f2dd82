// The WebService CRD's schema, read from crds/, and the structural part of what admission checks
// with it: types, unknown fields, required fields, bounds, lengths, patterns and enums. Its CEL
// rules (x-kubernetes-validations) are not evaluated here: only the API server runs those.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  anyOf?: Schema[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** CEL rules: read by tests that check them against the code's lists, never evaluated here. */
  'x-kubernetes-validations'?: { rule: string; message?: string }[];
}

const CRD_FILE = path.join(__dirname, '../../crds/webservices.apps.labhub.io.yaml');

/** The schema of a WebService's spec, as the CRD's (only) version declares it. */
export function webServiceSpecSchema(): Schema {
  const crd = yaml.load(fs.readFileSync(CRD_FILE, 'utf8')) as {
    spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
  };
  const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties?.spec;
  if (!spec) throw new Error(`${CRD_FILE} has no spec schema`);
  return spec;
}

/** What the schema refuses in value, one line each; [] when it takes it. */
export function schemaViolations(schema: Schema, value: unknown, at = 'spec'): string[] {
  if (schema['x-kubernetes-int-or-string'] || schema.anyOf) {
    if (!Number.isInteger(value) && typeof value !== 'string') return [`${at}: must be an integer or a string`];
    return typeof value === 'string'
      ? stringViolations(schema, value, at)
      : numberViolations(schema, value as number, at);
  }
  switch (schema.type) {
    case 'object':
      return objectViolations(schema, value, at);
    case 'array':
      if (!Array.isArray(value)) return [`${at}: must be a list`];
      return schema.items ? value.flatMap((item, i) => schemaViolations(schema.items!, item, `${at}[${i}]`)) : [];
    case 'string':
      return typeof value === 'string' ? stringViolations(schema, value, at) : [`${at}: must be a string`];
    case 'integer':
      return Number.isInteger(value) ? numberViolations(schema, value as number, at) : [`${at}: must be an integer`];
    case 'number':
      return typeof value === 'number' ? numberViolations(schema, value, at) : [`${at}: must be a number`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at}: must be a boolean`];
    default:
      return [];
  }
}

function objectViolations(schema: Schema, value: unknown, at: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${at}: must be an object`];
  const object = value as Record<string, unknown>;
  const found = (schema.required ?? []).filter((key) => !(key in object)).map((key) => `${at}.${key}: required`);
  for (const [key, item] of Object.entries(object)) {
    const field = schema.properties?.[key];
    const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    if (field) found.push(...schemaViolations(field, item, `${at}.${key}`));
    else if (extra) found.push(...schemaViolations(extra, item, `${at}.${key}`));
    else if (!schema['x-kubernetes-preserve-unknown-fields'] && schema.additionalProperties !== true)
      found.push(`${at}.${key}: unknown field`);
  }
  return found;
}

function stringViolations(schema: Schema, value: string, at: string): string[] {
  const found: string[] = [];
  if (schema.minLength !== undefined && value.length < schema.minLength)
    found.push(`${at}: shorter than ${schema.minLength}`);
  if (schema.maxLength !== undefined && value.length > schema.maxLength)
    found.push(`${at}: longer than ${schema.maxLength}`);
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value))
    found.push(`${at}: not ${schema.pattern}`);
  if (schema.enum && !schema.enum.includes(value)) found.push(`${at}: not one of ${schema.enum.join(', ')}`);
  return found;
}

function numberViolations(schema: Schema, value: number, at: string): string[] {
  const found: string[] = [];
  if (schema.minimum !== undefined && value < schema.minimum) found.push(`${at}: below ${schema.minimum}`);
  if (schema.maximum !== undefined && value > schema.maximum) found.push(`${at}: above ${schema.maximum}`);
  if (schema.enum && !schema.enum.includes(value)) found.push(`${at}: not one of ${schema.enum.join(', ')}`);
  return found;
}

/**
 * The fields the CRD itself defines, as paths (`spec.workload.disruption.minAvailable`,
 * `spec.workload.files[].mountPath`): the spec's, the workload's, and those of the objects
 * inside it that are not a Kubernetes type embedded whole (those carry the type's own schema,
 * generated from the API server's OpenAPI, and are drawn as a whole).
 */
export function ownFieldPaths(spec: Schema, embedded: ReadonlySet<string>): string[] {
  const paths: string[] = [];
  const walk = (schema: Schema, at: string) => {
    for (const [key, field] of Object.entries(schema.properties ?? {})) {
      const here = `${at}.${key}`;
      paths.push(here);
      if (embedded.has(here)) continue;
      if (field.type === 'object' && field.properties) walk(field, here);
      if (field.type === 'array' && field.items?.properties) walk(field.items, `${here}[]`);
    }
  };
  walk(spec, 'spec');
  return paths;
}

/** The paths of the fields a value sets, in the form ownFieldPaths gives. */
export function setFieldPaths(value: unknown, at = 'spec'): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => setFieldPaths(item, `${at}[]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => [`${at}.${key}`, ...setFieldPaths(item, `${at}.${key}`)]);
}

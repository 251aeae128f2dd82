// The TypeScript types of a WebService's spec and status, made from its schema
// (src/core/spec-schema.ts) by `npm run crd:generate`, so that the model's types say what the CRD
// says: a field the schema requires is required, every other is optional. Pure: schema in, text out.
import { WEB_SERVICE_SCHEMA, type Embedded, type SchemaNode } from '../../src/core/spec-schema';

export const SPEC_TYPES_MODULE = 'src/core/spec.generated.ts';

/** The objects that get a named type, by path; the others are written in place. */
const TYPE_NAMES: Record<string, string> = {
  spec: 'WebServiceSpec',
  'spec.expose': 'Expose',
  'spec.workload': 'WorkloadSpec',
  'spec.workload.files[]': 'FileMount',
  'spec.workload.disruption': 'Disruption',
  'spec.workload.autoscaling': 'Autoscaling',
  'spec.rollout': 'RolloutSpec',
  'spec.rollout.canary.steps[]': 'CanaryStep',
  'status.rollout': 'RolloutStatus',
  status: 'WebServiceStatus',
  'status.conditions[]': 'Condition',
};

const EMBEDDED_TYPES: Record<Embedded['shape'], string> = {
  object: 'KubeValue',
  objects: 'KubeValue[]',
  string: 'string',
  strings: 'string[]',
};

/** The module's text. */
export function specTypesModule(): string {
  const named: string[] = [];
  const pending: [string, SchemaNode][] = ['spec', 'status'].map((key) => [key, property(WEB_SERVICE_SCHEMA, key)]);
  const typeOf = (node: SchemaNode | Embedded, at: string, indent: string): string => {
    if ('embeds' in node) return EMBEDDED_TYPES[node.shape];
    if (TYPE_NAMES[at]) {
      pending.push([at, node]);
      return TYPE_NAMES[at];
    }
    if (node['x-kubernetes-int-or-string']) return 'number | string';
    if (node.enum) return node.enum.map((value) => `'${value}'`).join(' | ');
    switch (node.type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'array':
        return `${typeOf(node.items ?? {}, `${at}[]`, indent)}[]`;
      default:
        if (node.additionalProperties) return `Record<string, ${typeOf(node.additionalProperties, `${at}{}`, indent)}>`;
        return `{\n${fields(node, at, `${indent}  `)}${indent}}`;
    }
  };
  const fields = (node: SchemaNode, at: string, indent: string): string =>
    Object.entries(node.properties ?? {})
      .map(([key, field]) => {
        const optional = node.required?.includes(key) ? '' : '?';
        const comment = 'embeds' in field ? embeddedComment(field) : field.description;
        return `${docComment(comment, indent)}${indent}${key}${optional}: ${typeOf(field, `${at}.${key}`, indent)};\n`;
      })
      .join('');
  while (pending.length > 0) {
    const [at, node] = pending[0];
    named.push(`${docComment(node.description, '')}export interface ${TYPE_NAMES[at]} {\n${fields(node, at, '  ')}}\n`);
    pending.shift();
  }
  return [
    "// Made by npm run crd:generate from the WebService's schema (src/core/spec-schema.ts): do not edit.",
    '',
    '/** A Kubernetes type the CRD carries with its own schema (EnvVar, Probe...): validated at admission. */',
    'type KubeValue = Record<string, unknown>;',
    '',
    named.join('\n'),
  ].join('\n');
}

function property(node: SchemaNode, key: string): SchemaNode {
  const found = node.properties?.[key];
  if (!found || 'embeds' in found) throw new Error(`the schema has no own ${key}`);
  return found;
}

function embeddedComment({ embeds, field }: Embedded): string {
  const type = embeds.slice(embeds.lastIndexOf('.') + 1);
  return `Kubernetes' ${field === undefined ? type : `${type}.${field}`}, with its schema.`;
}

/** A JSDoc comment of the description, wrapped; none without one. */
function docComment(description: string | undefined, indent: string): string {
  if (!description) return '';
  const lines: string[] = [];
  for (const word of description.split(/\s+/)) {
    const last = lines.length - 1;
    if (last >= 0 && `${lines[last]} ${word}`.length <= 96 - indent.length) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  if (lines.length === 1 && lines[0].length <= 110 - indent.length) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}\n`).join('')}${indent} */\n`;
}

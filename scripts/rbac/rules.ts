// The children's RBAC rules and the leader fence's rules, made from the kind table
// (src/core/kinds.ts): what each kind's rows need (rowVerbs), and what reading the config the
// pods read needs (CONFIG_READ_KINDS). Each file holds them between two marker comments;
// everything else in it is written by hand. Pure: a file's text in, its text out.
import {
  CANARY_PODS,
  CONFIG_READ_KINDS,
  CONFIG_WATCHED_SETS,
  KindRow,
  NAMED_KINDS,
  ResourceType,
  SET_KINDS,
  resourceName,
  rowVerbs,
} from '../../src/core/kinds';

/** The files that hold generated rules, and how each region of theirs is made. */
export const GENERATED_FILES: Record<string, (indent: string) => string[]> = {
  'crds/rbac/webservice-reconciler.yaml': roleRules,
  'deploy/10-rbac.yaml': roleRules,
  'deploy/15-leader-fence.yaml': fenceRules,
};

const BEGIN = '# Made from src/core/kinds.ts by npm run rbac:generate: edit the kind table, not these rules.';
const END = '# End of the rules made from src/core/kinds.ts.';

/** A file's text with each region between the markers made anew (its indentation kept). */
export function regenerate(file: string, text: string): string {
  const region = GENERATED_FILES[file] as ((indent: string) => string[]) | undefined;
  if (!region) throw new Error(`${file} holds no generated rules`);
  const lines = text.split('\n');
  const out: string[] = [];
  let regions = 0;
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    if (lines[i].trim() !== BEGIN) continue;
    const end = lines.findIndex((line, j) => j > i && line.trim() === END);
    if (end < 0) throw new Error(`${file}:${i + 1}: a region of generated rules without its end: ${END}`);
    const indent = lines[i].slice(0, lines[i].indexOf('#'));
    out.push(...region(indent), lines[end]);
    i = end;
    regions++;
  }
  if (regions === 0) throw new Error(`${file} has no region of generated rules: ${BEGIN}`);
  return out.join('\n');
}

/** One kind's rule: the verbs every row of it needs, and why. */
interface KindRule extends ResourceType {
  version: string;
  verbs: Set<string>;
  purposes: string[];
}

/** RBAC's verbs in the order the rules list them. */
const VERBS = ['get', 'list', 'watch', 'create', 'patch', 'delete'];

/**
 * One rule per kind: the kinds of one child per WebService in the table's order, then those of
 * several; a kind watched with the config the pods read (Secrets) last, as its rule is mostly
 * for reading that config, which is not ours.
 */
function kindRules(): KindRule[] {
  const rows: KindRow[] = [
    ...NAMED_KINDS,
    ...SET_KINDS.filter((row) => !CONFIG_WATCHED_SETS.includes(row)),
    ...CONFIG_WATCHED_SETS,
  ];
  const rules = new Map<string, KindRule>();
  const ruleOf = (kind: ResourceType): KindRule => {
    const key = resourceName(kind);
    let rule = rules.get(key);
    if (!rule) {
      rule = { ...kind, version: kind.apiVersion.split('/').pop() ?? '', verbs: new Set(), purposes: [] };
      rules.set(key, rule);
    }
    return rule;
  };
  for (const row of rows) {
    const rule = ruleOf(row);
    for (const verb of rowVerbs(row)) rule.verbs.add(verb);
    rule.purposes.push(row.purpose);
    if (row.optional) rule.purposes.push('Granted where its API is not installed too (nothing to match then).');
  }
  for (const kind of [...CONFIG_READ_KINDS, CANARY_PODS]) {
    const rule = ruleOf(kind);
    for (const verb of kind.verbs) rule.verbs.add(verb);
    rule.purposes.push(kind.purpose);
  }
  for (const rule of rules.values()) {
    const unknown = [...rule.verbs].filter((verb) => !VERBS.includes(verb));
    if (unknown.length > 0)
      throw new Error(`${resourceName(rule)}: no place in the rules' order for ${unknown.join(', ')}`);
  }
  return [...rules.values()];
}

const list = (values: string[]) => `[${values.map((value) => JSON.stringify(value)).join(', ')}]`;

/** The ClusterRoles' rules of the children: the kind's purposes as its comment. */
function roleRules(indent: string): string[] {
  return kindRules().flatMap((rule) => [
    ...comment(indent, rule.purposes.join(' ')),
    `${indent}- apiGroups: ${list([rule.group])}`,
    `${indent}  resources: ${list([rule.resource])}`,
    `${indent}  verbs: ${list(VERBS.filter((verb) => rule.verbs.has(verb)))}`,
  ]);
}

/** The admission operations of the verbs that write. */
const OPERATIONS: [string, string][] = [
  ['create', 'CREATE'],
  ['patch', 'UPDATE'],
  ['delete', 'DELETE'],
];

/** The leader fence's rules: every kind written, one rule per API group and version. */
function fenceRules(indent: string): string[] {
  const groups = new Map<string, { group: string; version: string; resources: string[]; operations: Set<string> }>();
  for (const rule of kindRules()) {
    const operations = OPERATIONS.filter(([verb]) => rule.verbs.has(verb)).map(([, operation]) => operation);
    if (operations.length === 0) continue;
    const key = `${rule.group}/${rule.version}`;
    const group = groups.get(key) ?? { group: rule.group, version: rule.version, resources: [], operations: new Set() };
    group.resources.push(rule.resource);
    for (const operation of operations) group.operations.add(operation);
    groups.set(key, group);
  }
  return [...groups.values()].flatMap((group) => [
    `${indent}- apiGroups: ${list([group.group])}`,
    `${indent}  apiVersions: ${list([group.version])}`,
    `${indent}  resources: ${list(group.resources)}`,
    `${indent}  operations: ${list(OPERATIONS.map(([, operation]) => operation).filter((o) => group.operations.has(o)))}`,
  ]);
}

/** Comment lines of at most 100 characters. */
function comment(indent: string, text: string): string[] {
  const width = 100 - indent.length - 2;
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= width) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines.map((line) => `${indent}# ${line}`);
}

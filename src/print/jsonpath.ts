// kubectl's -o jsonpath=TEMPLATE and -o custom-columns=SPEC. A template is text with {…}
// expressions: a path (.items[*].name), a quoted literal ("\n"), or {range PATH}…{end},
// which renders its body once for each value the path finds. Paths are evaluated by
// jsonpath-plus (the library client-node itself depends on), with the object as $.
import { JSONPath } from 'jsonpath-plus';
import { UserError } from '../kube/errors';

type Node = { text: string } | { path: string } | { range: string; body: Node[] };

export function renderJsonPath(template: string, value: unknown): string {
  return render(parse(template), value);
}

/** NAME:.path,OTHER:.path, as kubectl takes it: the header row, then one row per item. */
export function customColumns(spec: string, items: unknown[]): { headers: string[]; rows: string[][] } {
  const columns = spec.split(',').map((column) => {
    const colon = column.indexOf(':');
    if (colon <= 0) throw new UserError(`custom-columns: "${column}" is not NAME:.path`);
    return { name: column.slice(0, colon), path: stripBraces(column.slice(colon + 1)) };
  });
  return {
    headers: columns.map((c) => c.name),
    rows: items.map((item) =>
      columns.map((c) => {
        const found = evaluate(c.path, item);
        return found.length === 0 ? '<none>' : found.map(show).join(',');
      }),
    ),
  };
}

function stripBraces(path: string): string {
  return path.startsWith('{') && path.endsWith('}') ? path.slice(1, -1) : path;
}

function parse(template: string): Node[] {
  const tokens: ({ text: string } | { expr: string })[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    if (open < 0) {
      tokens.push({ text: template.slice(at) });
      break;
    }
    if (open > at) tokens.push({ text: template.slice(at, open) });
    const close = template.indexOf('}', open);
    if (close < 0) throw new UserError(`jsonpath: unclosed "{" in ${JSON.stringify(template)}`);
    tokens.push({ expr: template.slice(open + 1, close).trim() });
    at = close + 1;
  }
  const [nodes, rest] = nest(tokens, 0);
  if (rest < tokens.length) throw new UserError('jsonpath: {end} without {range}');
  return nodes;
}

function nest(tokens: ({ text: string } | { expr: string })[], from: number): [Node[], number] {
  const nodes: Node[] = [];
  for (let i = from; i < tokens.length; i++) {
    const token = tokens[i];
    if ('text' in token) {
      nodes.push(token);
    } else if (token.expr === 'end') {
      return [nodes, i];
    } else if (token.expr.startsWith('range ')) {
      const [body, end] = nest(tokens, i + 1);
      if (end >= tokens.length) throw new UserError('jsonpath: {range} without {end}');
      nodes.push({ range: token.expr.slice('range '.length).trim(), body });
      i = end;
    } else if (/^".*"$/s.test(token.expr)) {
      nodes.push({ text: JSON.parse(token.expr) as string });
    } else {
      nodes.push({ path: token.expr });
    }
  }
  return [nodes, tokens.length];
}

function render(nodes: Node[], value: unknown): string {
  return nodes
    .map((node) => {
      if ('text' in node) return node.text;
      if ('path' in node) return evaluate(node.path, value).map(show).join(' ');
      return evaluate(node.range, value)
        .map((item) => render(node.body, item))
        .join('');
    })
    .join('');
}

function evaluate(path: string, value: unknown): unknown[] {
  if (!path.startsWith('.') && !path.startsWith('[') && path !== '@') {
    throw new UserError(`jsonpath: "${path}" must start with "." (e.g. {.items[*].name})`);
  }
  const expression = path === '@' ? '$' : `$${path}`;
  return JSONPath<unknown[]>({ path: expression, json: value as object, wrap: true });
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

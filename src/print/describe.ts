// describe's text: kubectl describe's layout (Name:, sections, tables with dashed headers),
// with the children as a tree drawn the way kubectl-tree draws it. Pure: a Description and
// the time in, text out; colour through the ChalkInstance handed in (level 0 for none).
import type { ChalkInstance } from 'chalk';
import type { Description } from '../core/description';
import type { DescribedEvent } from '../core/recent-events';
import type { NodeState, TreeNode } from '../core/tree';
import { Cell, actionStyle, age } from './output';

const INDENT = '  ';

export function renderDescription(d: Description, color: ChalkInstance, now: Date): string {
  const lines: string[] = [
    ...fields([
      ['Name', d.name],
      ['Namespace', d.namespace],
      ['Labels', labelsText(d.labels)],
      ['Created', d.creationTimestamp ? `${d.creationTimestamp} (${age(d.creationTimestamp, now)} ago)` : '<unknown>'],
      ['Generation', `${d.generation} (observed: ${d.observedGeneration ?? '<none>'})`],
    ]),
    'Spec:',
    ...fields(
      [
        ['Image', d.spec.image],
        ['Replicas', String(d.spec.replicas)],
        ['Tier', d.spec.tier],
        ['Depends On', d.spec.dependsOn.join(', ') || '<none>'],
        ['Workload', workloadText(d.spec.workload)],
        ['Expose', exposeText(d.spec.expose, d.namespace)],
      ],
      INDENT,
    ),
    ...canaryLines(d, color, now),
    'Conditions:',
    ...conditionLines(d, color, now),
    'Children:',
    ...treeLines(d.tree, color, now),
    'Decision:',
    ...decisionLines(d, color),
    'Events:',
    ...eventLines(d.events, color, now),
  ];
  if (d.unread) lines.push('Not shown:', ...d.unread.map((text) => `${INDENT}${color.yellow(text)}`));
  return lines.map((line) => `${line}\n`).join('');
}

/** While a canary runs: its step, the traffic, the pods, the time left in a pause. */
function canaryLines(d: Description, color: ChalkInstance, now: Date): string[] {
  const c = d.canary;
  if (!c) return [];
  const phase =
    c.phase === 'Aborted' ? color.red(c.phase) : c.phase === 'Completed' ? color.green(c.phase) : color.yellow(c.phase);
  const step = c.step < c.steps ? `step ${c.step + 1} of ${c.steps}, ${c.stepText}` : c.stepText;
  const pairs: [string, string][] = [
    ['Phase', `${phase} (${step})`],
    ['Traffic', `${c.weight}% to the canary (${c.revision}), ${100 - c.weight}% to stable (${c.stableRevision})`],
    ['Pods', `canary ${c.canaryReady}/${c.canaryReplicas ?? 0} ready, stable ${c.stableReplicas ?? 0} wanted`],
  ];
  if (c.pauseEndsAt) {
    const left = Math.max(0, Math.ceil((Date.parse(c.pauseEndsAt) - now.getTime()) / 1000));
    pairs.push(['Pause', `${left}s left (until ${c.pauseEndsAt})`]);
  }
  if (c.message) pairs.push(['Message', c.message]);
  return ['Canary:', ...fields(pairs, INDENT)];
}

/** Several descriptions, one after another with a blank line between, as kubectl describe does. */
export function renderDescriptions(items: Description[], color: ChalkInstance, now: Date): string {
  return items.map((d) => renderDescription(d, color, now)).join('\n');
}

/** The colour of a state: green is well, yellow is on its way or waiting on us, red needs someone. */
function stateStyle(color: ChalkInstance, state: NodeState): (s: string) => string {
  switch (state) {
    case 'Ready':
    case 'Completed':
      return color.green;
    case 'Progressing':
    case 'Pending':
    case 'OutOfDate':
    case 'Missing':
      return color.yellow;
    case 'Failed':
    case 'Conflict':
      return color.red;
    case 'Unwanted':
      return color.magenta;
    default:
      return color.dim;
  }
}

/** `Key:  value` lines, the values in one column. */
function fields(pairs: [string, string][], indent = ''): string[] {
  const width = Math.max(...pairs.map(([key]) => key.length)) + 1;
  return pairs.map(([key, value]) => `${indent}${`${key}:`.padEnd(width + 2)}${value}`);
}

function labelsText(labels: Record<string, string>): string {
  const entries = Object.entries(labels);
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${v}`).join(', ');
}

function workloadText(workload: Description['spec']['workload']): string {
  if (!workload) return '<none> (no Deployment, no Service)';
  const port = workload.port !== undefined ? `port ${workload.port}` : 'no port (no Service)';
  return workload.fields.length > 0 ? `${port}; ${workload.fields.join(', ')}` : port;
}

/** Where the endpoint is, and through what: `shop.example.com/ (HTTPRoute on gateway infra/public)`. */
function exposeText(expose: Description['spec']['expose'], namespace: string): string {
  if (!expose) return '<none>';
  const where = `${expose.host}${expose.path ?? '/'}`;
  if (expose.gateway) {
    return `${where} (HTTPRoute on gateway ${expose.gateway.namespace ?? namespace}/${expose.gateway.name})`;
  }
  const tls = expose.tls ? `, TLS with secret ${expose.tls.secretName}` : '';
  return `${where} (Ingress, ${expose.ingressClassName ? `class ${expose.ingressClassName}` : 'the default IngressClass'}${tls})`;
}

/**
 * kubectl describe's tables: Title headers over dashes, columns two spaces apart, the last
 * column unpadded; styles go on the padded text so that colour never shifts a column.
 */
function describeTable(headers: string[], rows: Cell[][]): string[] {
  const all: Cell[][] = [
    headers.map((text) => ({ text })),
    headers.map((text) => ({ text: '-'.repeat(text.length) })),
    ...rows,
  ];
  const widths = headers.map((_, col) => Math.max(...all.map((row) => row[col]?.text.length ?? 0)));
  return all.map(
    (row) =>
      INDENT +
      row
        .map((cell, col) => {
          const text = col === row.length - 1 ? cell.text : cell.text.padEnd(widths[col] + 2);
          return cell.style ? cell.style(text) : text;
        })
        .join('')
        .trimEnd(),
  );
}

function conditionLines(d: Description, color: ChalkInstance, now: Date): string[] {
  if (d.conditions.length === 0) return [`${INDENT}<none> (nothing has reconciled it yet)`];
  return describeTable(
    ['Type', 'Status', 'Age', 'Reason', 'Message'],
    d.conditions.map((c) => {
      // Ready and Reconciling are good when True, Stalled when False.
      const good = c.type === 'Stalled' ? c.status === 'False' : c.status === 'True' || c.type === 'Reconciling';
      return [
        { text: c.type },
        { text: c.status, style: good ? color.green : c.type === 'Stalled' ? color.red : color.yellow },
        { text: age(c.lastTransitionTime, now) },
        { text: c.reason },
        { text: c.message },
      ];
    }),
  );
}

/** The tree as rows: each node's name drawn under its parent's with ├─, └─ and │. */
function treeLines(root: TreeNode, color: ChalkInstance, now: Date): string[] {
  const rows: { cells: Cell[]; message?: string }[] = [];
  const walk = (node: TreeNode, prefix: string, branch: string) => {
    // What is drawn left of this node's children, and of a line about this node.
    const under = branch === '' ? '' : `${prefix}${branch === '└─' ? '  ' : '│ '}`;
    const style = stateStyle(color, node.state);
    rows.push({
      cells: [
        { text: `${prefix}${branch}${node.kind}/${node.name}` },
        { text: node.state, style },
        { text: node.creationTimestamp ? age(node.creationTimestamp, now) : '-' },
        { text: node.info },
      ],
      // Why a node is not well goes on a line of its own under it, in its colour.
      ...(node.message
        ? { message: `${INDENT}${under}${node.children.length > 0 ? '│ ' : '  '}${style(node.message)}` }
        : {}),
    });
    node.children.forEach((child, i) => walk(child, under, i === node.children.length - 1 ? '└─' : '├─'));
  };
  walk(root, '', '');
  const table = describeTable(
    ['Object', 'State', 'Age', 'Info'],
    rows.map((row) => row.cells),
  );
  return [...table.slice(0, 2), ...rows.flatMap((row, i) => [table[i + 2], ...(row.message ? [row.message] : [])])];
}

function decisionLines(d: Description, color: ChalkInstance): string[] {
  const { decision } = d;
  const ready = decision.ready;
  return fields(
    [
      ['Action', actionStyle(color, decision.action)(decision.action)],
      ['Target', decision.target],
      ['Reason', decision.reason],
      ...(decision.after_seconds !== undefined ? [['Again In', `${decision.after_seconds}s`] as [string, string]] : []),
      ['Writes', decision.writes.join(', ') || '<none>'],
      ['Ready', ready ? `${ready.status} (${ready.reason}): ${ready.message}` : '<none> (being deleted)'],
    ],
    INDENT,
  );
}

function eventLines(events: DescribedEvent[], color: ChalkInstance, now: Date): string[] {
  if (events.length === 0) return [`${INDENT}<none>`];
  return describeTable(
    ['Type', 'Reason', 'Age', 'From', 'Object', 'Message'],
    events.map((e) => [
      { text: e.type, style: e.type === 'Warning' ? color.yellow : undefined },
      { text: e.reason },
      { text: eventAge(e, now) },
      { text: e.from || '-' },
      { text: e.object },
      { text: e.message },
    ]),
  );
}

/** kubectl describe's Age of an Event: `3m`, or `3m (x4 over 10m)` for one seen several times. */
export function eventAge(event: DescribedEvent, now: Date): string {
  const last = age(event.lastTime, now);
  return event.count > 1 ? `${last} (x${event.count} over ${age(event.firstTime, now)})` : last;
}

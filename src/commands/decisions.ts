// The decision table shared by plan and apply.
import { Decision } from '../core/decide';
import { Context } from '../cli/context';
import { Cell, actionStyle } from '../print/output';

export interface DecisionRow {
  decision: Decision;
  /** Only for apply: what happened when the decision was carried out. */
  result?: string;
  failed?: boolean;
}

export function printDecisions(ctx: Context, rows: DecisionRow[]): void {
  const { out } = ctx;
  const wide = out.format === 'wide';
  const withResult = rows.some((r) => r.result !== undefined);
  const headers = ['namespace', 'name', 'action', 'target'];
  if (withResult) headers.push('result');
  if (wide) headers.push('after', 'writes');
  headers.push('reason');
  out.table(
    headers,
    rows.map(({ decision: d, result, failed }) => {
      const cells: Cell[] = [
        { text: d.namespace },
        { text: d.name },
        { text: d.action, style: actionStyle(out.color, d.action) },
        { text: d.target },
      ];
      if (withResult) cells.push({ text: result ?? '', style: failed ? out.color.red : undefined });
      if (wide) {
        cells.push({ text: d.after_seconds !== undefined ? `${d.after_seconds}s` : '-' });
        cells.push({ text: d.ops.map((op) => op.op).join(',') || '-' });
      }
      cells.push({ text: d.reason });
      return cells;
    }),
  );
  // Under the table, on stderr, as kubectl prints the API server's warnings.
  for (const { decision: d } of rows) {
    for (const warning of d.warnings ?? [])
      out.progress(`warning: webservice ${d.namespace}/${d.name}: ${warning.message}`);
  }
}

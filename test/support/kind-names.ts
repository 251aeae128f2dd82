// Prose that names the kinds of child (help texts, docs): each row of the kind table, by its
// kind (singular or plural), and a row of several children by its role too, since rows of one
// kind (the lab's ConfigMap, the config snapshots) are told apart by it.
import { CHILD_KINDS, KindRow, isSetRow } from '../../src/core/kinds';

/** Each row of the kind table, with a title for it.each: `Secret (config-snapshot)`. */
export const KIND_ROWS = CHILD_KINDS.map(
  (row) => [isSetRow(row) ? `${row.kind} (${row.role})` : row.kind, row] as const,
);

export function expectNamesKind(text: string, row: KindRow): void {
  expect(text).toMatch(new RegExp(`\\b${row.kind}s?\\b`));
  if (isSetRow(row)) expect(text).toContain(row.role.replace('-', ' '));
}

// apply --help and observe --help name every kind of child in the kind table: the text is made
// from the table, so a new row is named in both.
import { applyCommand } from '../../src/commands/apply';
import { observeCommand } from '../../src/commands/observe';
import { KIND_ROWS, expectNamesKind } from '../support/kind-names';

describe.each([
  ['apply', applyCommand.describe],
  ['observe', observeCommand.describe],
])('%s --help', (_, describe) => {
  it.each(KIND_ROWS)('names the kind of child %s', (_kind, row) => expectNamesKind(String(describe), row));
});

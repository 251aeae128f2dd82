// apply --help and observe --help name every kind of child in the kind table: the text is made
// from the table, so a new row is named in both. The root help keeps to a short description.
import yargs = require('yargs');
import type { CommandModule } from 'yargs';
import { applyCommand } from '../../src/commands/apply';
import { observeCommand } from '../../src/commands/observe';
import { KIND_ROWS, expectNamesKind } from '../support/kind-names';

/** What yargs prints for `<command> --help`, without running the command. */
function helpOf(command: CommandModule<object, any>): Promise<string> {
  const name = String(command.command).split(' ')[0];
  return new Promise((resolve) => {
    void yargs()
      .command(command)
      .exitProcess(false)
      .parse([name, '--help'], (_err: unknown, _argv: unknown, output: string) => resolve(output));
  });
}

describe.each([
  ['apply', applyCommand],
  ['observe', observeCommand],
])('%s --help', (_, command) => {
  let help: string;
  beforeAll(async () => {
    help = await helpOf(command);
  });

  it.each(KIND_ROWS)('names the kind of child %s', (_kind, row) => expectNamesKind(help, row));

  it('keeps the list of kinds out of its root help line', () => {
    expect(String(command.describe)).not.toContain('ConfigMap');
    expect(String(command.describe).length).toBeLessThanOrEqual(110);
  });
});

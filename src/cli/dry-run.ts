// kubectl's --dry-run=none|client|server, the same on every command that can write.
import type { Argv } from 'yargs';
import type { DryRun } from '../kube/api';
import { UserError } from '../kube/errors';

export type { DryRun };

export interface DryRunArgs {
  'dry-run': string;
}

export function dryRunOption<T>(yargs: Argv<T>) {
  return yargs.option('dry-run', {
    type: 'string',
    default: 'none',
    describe:
      '"client": write nothing, print what would be done; "server": send every write as a server-side dry run, ' +
      'which the API server checks and persists nothing',
  });
}

/**
 * kubectl's values, plus the spellings it still accepts: a bare --dry-run (rewritten to
 * "client" before parsing, see withBareFlags) and the old booleans.
 */
export function parseDryRun(value: string): DryRun {
  switch (value) {
    case 'none':
    case 'false':
      return 'none';
    case 'client':
    case 'true':
    case '':
      return 'client';
    case 'server':
      return 'server';
    default:
      throw new UserError(`invalid dry-run value (${value}); must be "none", "server", or "client"`);
  }
}

/** What kubectl appends to each line of a dry run's output. */
export function dryRunSuffix(mode: DryRun): string {
  return { none: '', client: ' (dry run)', server: ' (server dry run)' }[mode];
}

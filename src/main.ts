// Entry point of the kubectl-webservice plugin.
// require-style imports make esbuild take yargs' CommonJS build, whose help text
// wraps at word boundaries (the ESM build ships a naive wrapper).
import yargs = require('yargs');
import helpers = require('yargs/helpers');
import { globalOptions } from './cli/context';
import { withBareFlags } from './cli/argv';
import { commandWord, kubectlUsageMessage, unknownCommand } from './cli/usage';
import { applyCommand } from './commands/apply';
import { checkCommand } from './commands/check';
import { describeCommand } from './commands/describe';
import { finalizeCommand } from './commands/finalize';
import { historyCommand } from './commands/history';
import { installCommand } from './commands/install';
import { observeCommand } from './commands/observe';
import { planCommand } from './commands/plan';
import { rollbackCommand } from './commands/rollback';
import { abortCommand, promoteCommand } from './commands/promote';
import { runCommand } from './commands/run';
import { statusCommand } from './commands/status';
import { uninstallCommand } from './commands/uninstall';
import { versionCommand } from './commands/version';
import { InputError } from './core/validate';
import { PLUGIN_VERSION } from './core/version';
import { KubeError, UserError } from './kube/errors';

class UsageError extends Error {}

/** For the unknown-command message; the parser registers each below. */
const COMMANDS = [
  observeCommand,
  planCommand,
  describeCommand,
  applyCommand,
  statusCommand,
  historyCommand,
  rollbackCommand,
  promoteCommand,
  abortCommand,
  finalizeCommand,
  runCommand,
  installCommand,
  checkCommand,
  uninstallCommand,
  versionCommand,
];

/** How a shell sees kubectl end on a closed pipe: killed by SIGPIPE, 128 + 13. */
const EXIT_CLOSED_PIPE = 141;

/**
 * `... | head`: the reader went away. kubectl dies of SIGPIPE there and prints nothing;
 * Node ignores that signal, so its write fails with EPIPE, which unhandled is a stack trace.
 */
function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT_CLOSED_PIPE);
    process.exitCode = 1;
    if (stream !== process.stderr) process.stderr.write(`error: writing the output: ${err.message}\n`);
  });
}

export async function main(argv: string[]): Promise<void> {
  exitQuietlyOnClosedPipe(process.stdout);
  exitQuietlyOnClosedPipe(process.stderr);
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  const commands = COMMANDS.map((c) => String(c.command).split(' ')[0]);
  const word = commandWord(argv);
  if (word !== undefined && !commands.includes(word) && word !== 'help') {
    process.stderr.write(unknownCommand(word, commands));
    process.exitCode = 1;
    return;
  }
  // A bare `kubectl webservice` shows the help, as kubectl does.
  const words = word === undefined && !argv.some((a) => a === '--version') ? [...argv, '--help'] : argv;
  try {
    const parser = yargs(withBareFlags(words));
    skipHelpTextCache(parser);
    await globalOptions(parser)
      .scriptName('kubectl webservice')
      .usage(
        '$0 <command> [NAME | --all] [flags]\n\nReconcile WebService custom resources (webservices.apps.labhub.io).',
      )
      .command(observeCommand)
      .command(planCommand)
      .command(describeCommand)
      .command(applyCommand)
      .command(historyCommand)
      .command(rollbackCommand)
      .command(promoteCommand)
      .command(abortCommand)
      .command(statusCommand)
      .command(finalizeCommand)
      .command(runCommand)
      .command(installCommand)
      .command(checkCommand)
      .command(uninstallCommand)
      .command(versionCommand)
      .strict()
      .version(PLUGIN_VERSION)
      .help()
      .alias('h', 'help')
      .wrap(Math.min(120, process.stdout.columns || 100))
      .fail((message, err: Error | undefined) => {
        throw err ?? new UsageError(kubectlUsageMessage(message, argv) ?? message);
      })
      .parseAsync();
  } catch (err) {
    reportError(err, verbose);
  }
}

/**
 * yargs 17 renders the whole help text right after it starts a command's handler (usage's
 * cacheHelpMessage), for a handler that might show help later; ours never do, and --help is
 * rendered fresh. Rendering it held the event loop while the command's first request waited
 * for its TLS handshake (the figures: bench/RESULTS.md at f745c9c).
 */
function skipHelpTextCache(parser: object): void {
  type Usage = { cacheHelpMessage?: () => void };
  const internals = parser as { getInternalMethods?: () => { getUsageInstance?: () => Usage } };
  const usage = internals.getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

function reportError(err: unknown, verbose: boolean): void {
  const error = err instanceof Error ? err : new Error(String(err));
  process.stderr.write(`error: ${oneLine(error.message)}\n`);
  if (err instanceof UsageError) process.stderr.write('See "kubectl webservice --help" for usage.\n');
  // yargs hands on a flag's coerce error as its own YError, with the message we gave it.
  const fromFlag = error.name === 'YError';
  const expected =
    fromFlag ||
    err instanceof UserError ||
    err instanceof KubeError ||
    err instanceof InputError ||
    err instanceof UsageError;
  if (verbose && error.stack) process.stderr.write(`${error.stack}\n`);
  else if (!expected && !verbose) process.stderr.write('(run with -v for details)\n');
  process.exitCode = 1;
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

void main(helpers.hideBin(process.argv));

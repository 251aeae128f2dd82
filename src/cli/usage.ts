// Usage errors in kubectl's words, not the parser's: an unknown command with a suggestion,
// an unknown flag named as typed.

/** Global flags that take a value in the next word when written without "=". */
const VALUED_FLAGS = new Set([
  '-n',
  '--namespace',
  '--context',
  '--kubeconfig',
  '-o',
  '--output',
  '--request-timeout',
  '--as',
  '--as-group',
  '-s',
  '--server',
  '--token',
]);

/** The command the user typed (the first word that is neither a flag nor a flag's value), if any. */
export function commandWord(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') return argv[i + 1];
    if (!word.startsWith('-')) return word;
    if (VALUED_FLAGS.has(word)) i++;
  }
  return undefined;
}

/** kubectl's (cobra's) text for a command it does not know, with the commands within two edits. */
export function unknownCommand(word: string, commands: string[]): string {
  const near = commands.filter((c) => c.startsWith(word) || editDistance(c, word) <= 2);
  const hint = near.length > 0 ? `\n\nDid you mean this?\n${near.map((c) => `\t${c}\n`).join('')}` : '\n';
  return `error: unknown command "${word}" for "kubectl webservice"${hint}`;
}

/** The parser's message about an unknown flag, said as kubectl says it; null if it is no such message. */
export function kubectlUsageMessage(message: string, argv: string[]): string | null {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown) {
    const first = unknown[1].split(', ')[0];
    const typed = argv.find((a) => a === `--${first}` || a.startsWith(`--${first}=`));
    if (typed) return `unknown flag: --${first}`;
    if (argv.some((a) => /^-[^-]/.test(a) && a.slice(1).includes(first))) {
      return `unknown shorthand flag: '${first}' in -${first}`;
    }
    return `unexpected argument "${first}"`;
  }
  return null;
}

/** Levenshtein distance, for suggestions among a handful of command names. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

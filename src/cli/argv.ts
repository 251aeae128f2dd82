// Flags whose value may be left out, as kubectl's: a bare --dry-run means client and a bare
// --wait means true. Written out before parsing, because the parser would otherwise read
// the NAME after the flag as its value ("apply --dry-run checkout").
const BARE_VALUES: Record<string, string> = { '--dry-run': 'client', '--wait': 'true' };

export function withBareFlags(argv: string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) =>
    Object.hasOwn(BARE_VALUES, arg) && (end < 0 || i < end) ? `${arg}=${BARE_VALUES[arg]}` : arg,
  );
}

// Flags spelled as kubectl users spell them: --dry-run's values, a bare --dry-run or --wait,
// and durations for --wait, --requeue-after and --request-timeout.
import { withBareFlags } from '../../src/cli/argv';
import { parseDryRun } from '../../src/cli/dry-run';
import { parseWait, parseWholeSeconds } from '../../src/cli/duration';

describe('parseDryRun', () => {
  it.each([
    ['none', 'none'],
    ['false', 'none'],
    ['client', 'client'],
    ['true', 'client'],
    ['', 'client'],
    ['server', 'server'],
  ])('%j is %s', (value, mode) => {
    expect(parseDryRun(value)).toBe(mode);
  });

  it.each(['Server', 'all', 'yes'])('refuses %j with kubectl words', (value) => {
    expect(() => parseDryRun(value)).toThrow(`invalid dry-run value (${value}); must be "none", "server", or "client"`);
  });
});

describe('withBareFlags', () => {
  it('gives a bare --dry-run and --wait their value, so the next word stays a NAME', () => {
    expect(withBareFlags(['apply', '--dry-run', 'checkout', '--wait'])).toEqual([
      'apply',
      '--dry-run=client',
      'checkout',
      '--wait=true',
    ]);
  });

  it('leaves written values and everything after -- alone', () => {
    expect(withBareFlags(['apply', '--dry-run=server', '--wait=2m', '--', '--dry-run'])).toEqual([
      'apply',
      '--dry-run=server',
      '--wait=2m',
      '--',
      '--dry-run',
    ]);
  });
});

describe('parseWait', () => {
  it('absent: no wait for apply, the default for uninstall', () => {
    expect(parseWait(undefined, 'no', '5m')).toBe(0);
    expect(parseWait(undefined, 'default', '2m')).toBe(120_000);
  });

  it('true (or bare) waits the default, false not at all, a duration that long', () => {
    expect(parseWait('true', 'no', '5m')).toBe(300_000);
    expect(parseWait(true, 'no', '5m')).toBe(300_000);
    expect(parseWait('false', 'default', '2m')).toBe(0);
    expect(parseWait(false, 'default', '2m')).toBe(0);
    expect(parseWait('1m30s', 'no', '5m')).toBe(90_000);
    expect(parseWait('45', 'no', '5m')).toBe(45_000);
  });

  it('refuses what is not a duration', () => {
    expect(() => parseWait('soon', 'no', '5m')).toThrow('invalid duration for --wait: "soon"');
  });
});

describe('parseWholeSeconds', () => {
  it('takes plain seconds and Go-style durations', () => {
    expect(parseWholeSeconds('10', '--requeue-after')).toBe(10);
    expect(parseWholeSeconds('10s', '--requeue-after')).toBe(10);
    expect(parseWholeSeconds('2m30s', '--requeue-after')).toBe(150);
  });

  it('refuses fractions of a second and zero', () => {
    expect(() => parseWholeSeconds('1.5s', '--requeue-after')).toThrow(
      '--requeue-after must be a whole number of seconds, got "1.5s"',
    );
    expect(() => parseWholeSeconds('0', '--requeue-after')).toThrow('--requeue-after must be longer than zero');
  });
});

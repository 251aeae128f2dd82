// Durations as kubectl writes them: 90, 90s, 5m, 1h, 1m30s. Returns seconds.
import { UserError } from '../kube/errors';

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return positive(Number(trimmed), text, flag);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) {
    throw new UserError(`invalid duration for ${flag}: "${text}" (use e.g. 30s, 5m, 1h)`);
  }
  return positive(
    parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_SECONDS[p[2]], 0),
    text,
    flag,
  );
}

function positive(seconds: number, text: string, flag: string): number {
  if (!(seconds > 0)) throw new UserError(`${flag} must be longer than zero, got "${text}"`);
  return seconds;
}

/** A duration that must come to whole seconds (an after_seconds in a decision is an integer). */
export function parseWholeSeconds(text: string, flag: string): number {
  const seconds = parseDuration(text, flag);
  if (!Number.isInteger(seconds)) {
    throw new UserError(`${flag} must be a whole number of seconds, got "${text}"`);
  }
  return seconds;
}

/**
 * --wait as kubectl users write it: bare or "true" waits up to the default, "false" does not
 * wait, a duration waits up to that long. Returns milliseconds, 0 for no wait.
 */
export function parseWait(
  value: string | boolean | undefined,
  whenAbsent: 'no' | 'default',
  defaultText: string,
): number {
  if (value === undefined) return whenAbsent === 'no' ? 0 : parseDuration(defaultText, '--wait') * 1000;
  // --no-wait arrives as false.
  if (value === false || value === 'false') return 0;
  if (value === true) return parseDuration(defaultText, '--wait') * 1000;
  const text = value === '' || value === 'true' ? defaultText : value;
  return parseDuration(text, '--wait') * 1000;
}

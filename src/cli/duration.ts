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

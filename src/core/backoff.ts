// Per-object exponential backoff with jitter and a cap, for errors only: a requeue
// waits exactly the after_seconds its decision asked for. Pure: random is passed in.

import { ReportItem } from './report';

export interface BackoffOptions {
  baseSeconds: number;
  capSeconds: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseSeconds: 1, capSeconds: 60 };

/**
 * Delay after the n-th consecutive failure (n >= 1): base * 2^(n-1), capped, then
 * "equal jitter" spreads it over [d/2, d] so failing objects do not retry in lockstep.
 */
export function backoffSeconds(failures: number, random: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const n = Math.max(1, Math.floor(failures));
  const delay = Math.min(options.capSeconds, options.baseSeconds * 2 ** (n - 1));
  const r = Math.min(1, Math.max(0, random));
  return delay / 2 + (delay / 2) * r;
}

/**
 * When to look at an unsettled CR again (controller-runtime's Result vs error):
 * a requeue after exactly its after_seconds, anything else (an error, a conflict)
 * after the backoff for its count of consecutive failures. null for a requeue without
 * after_seconds (a dependency cycle): no timer resolves it, only a change to a spec.
 */
export function retryAfterSeconds(item: ReportItem, failures: number, random: number): number | null {
  if (item.action === 'requeue' && !item.error) return item.after_seconds ?? null;
  return backoffSeconds(failures, random);
}

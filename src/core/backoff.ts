// When apply --wait looks at an unsettled CR again: backoff for errors only, while a requeue
// waits exactly the after_seconds its decision asked for. Pure: random is passed in.

import { ReportItem } from './report';
import { APPLY_BACKOFF, BackoffPolicy, backoff } from './retry';

/**
 * Delay in seconds after the n-th consecutive failure (n >= 1): the shared backoff, by default
 * apply's 1 s doubling to 60 s, spread over [d/2, d] so failing objects do not retry in lockstep.
 */
export function backoffSeconds(failures: number, random: number, policy: BackoffPolicy = APPLY_BACKOFF): number {
  return backoff(failures, { ...policy, random: () => random }) / 1000;
}

/**
 * When to look at an unsettled CR again (controller-runtime's Result vs error):
 * a requeue after exactly its after_seconds, anything else (an error, a conflict)
 * after the backoff for its count of consecutive failures. null for a requeue without
 * after_seconds (a dependency cycle): no timer resolves it, only a change to a spec.
 * A rollout in progress is no failure either: its decision's after_seconds, too.
 */
export function retryAfterSeconds(item: ReportItem, failures: number, random: number): number | null {
  if (item.action === 'requeue' && !item.error) return item.after_seconds ?? null;
  if (!item.error && item.action !== 'conflict' && item.after_seconds !== undefined) return item.after_seconds;
  return backoffSeconds(failures, random);
}

// The report of one pass over many CRs, and the exit code it implies. Pure.
import { ACTIONS, Action } from './decide';

export interface ReportItem {
  name: string;
  namespace: string;
  action: Action;
  reason: string;
  target: string;
  /** Set when carrying out the decision failed. */
  error?: string;
  /** observedGeneration == generation and Ready=True after the pass. */
  converged: boolean;
  after_seconds?: number;
  /** With a workload: the rollout it still waits for (e.g. "deployment/web: 1/3 ready"). */
  waiting_for?: string;
  /** With a workload: its rollout is past the progress deadline, as kubectl rollout status fails. */
  stalled?: string;
  /** With a workload: what the server takes but will likely not work as meant (the decision's warnings). */
  warnings?: string[];
}

type Summary = Record<Action | 'error', number>;

export interface Report {
  items: ReportItem[];
  summary: Summary;
  converged: boolean;
}

/** Nothing left to wait for: converged, or finalized and gone. */
export function isSettled(item: ReportItem): boolean {
  return item.converged || (item.action === 'finalize' && !item.error);
}

export function buildReport(items: ReportItem[]): Report {
  const summary = Object.fromEntries([...ACTIONS, 'error'].map((key) => [key, 0])) as Summary;
  for (const item of items) {
    summary[item.action]++;
    if (item.error) summary.error++;
  }
  const sorted = [...items].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  // A CR that finalize removed is gone, so it cannot hold anything back.
  const converged = sorted.every(isSettled);
  return { items: sorted, summary, converged };
}

export const EXIT_CONVERGED = 0;
export const EXIT_FAILED = 1;
export const EXIT_PENDING = 2;

/**
 * 0 converged; 1 errors, conflicts or stalled rollouts; 2 requeues still pending. A rollout
 * still in progress is not a failure (kubectl apply's convention, and the row says what it
 * waits for): 0, unless --wait timed out on it.
 */
export function exitCodeOf(report: Report): number {
  if (report.summary.error > 0 || report.summary.conflict > 0) return EXIT_FAILED;
  if (report.items.some((item) => item.stalled !== undefined)) return EXIT_FAILED;
  const pending = report.items.filter((item) => !isSettled(item) && item.waiting_for === undefined);
  return pending.length === 0 ? EXIT_CONVERGED : EXIT_PENDING;
}

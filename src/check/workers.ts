// check's view of the controller's workers, pure: the text of its /metrics goes in, one
// verdict comes out. A worker held by a request that never finishes is invisible in the
// Lease (the leader still renews it), so only the work queue's gauges can tell.
import type { CheckResult } from './verdicts';

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export type WorkersObservation =
  | { kind: 'not-asked' }
  | { kind: 'unreachable'; url: string; message: string }
  | { kind: 'read'; url: string; samples: MetricSample[] };

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a Prometheus text exposition; comments and lines it cannot read are skipped. */
export function parseMetrics(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line.trim());
    if (!match) continue;
    const value = Number(match[3]);
    if (Number.isNaN(value)) continue;
    const labels: Record<string, string> = {};
    // The label group takes no part in a sample without labels.
    const labelText = match[0].includes('{') ? match[2] : '';
    for (const [, key, raw] of labelText.matchAll(LABEL)) {
      labels[key] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1], labels, value });
  }
  return samples;
}

const METRICS_PORT_FORWARD =
  'kubectl -n webservice-system port-forward deployment/webservice-controller 8080 & ' +
  'kubectl webservice check --metrics-url http://127.0.0.1:8080/metrics';

/** Warns when the longest-running reconcile has run for longer than stuckAfterSeconds. */
export function workersVerdict(observed: WorkersObservation, stuckAfterSeconds: number): CheckResult {
  const check = 'controller-workers';
  if (observed.kind === 'not-asked') {
    return {
      check,
      status: 'skip',
      message: "controller workers: not checked: check reads the controller's /metrics only from --metrics-url",
      hint: METRICS_PORT_FORWARD,
    };
  }
  if (observed.kind === 'unreachable') {
    return {
      check,
      status: 'warn',
      message: `controller workers: could not read ${observed.url}: ${observed.message}`,
      hint: `is the controller serving /metrics there (run --metrics-bind-address)? ${METRICS_PORT_FORWARD}`,
    };
  }
  const total = (name: string): number | undefined => {
    const found = observed.samples.filter((s) => s.name === name);
    return found.length === 0 ? undefined : found.reduce((sum, s) => sum + s.value, 0);
  };
  const longest = observed.samples
    .filter((s) => s.name === 'workqueue_longest_running_processor_seconds')
    .reduce<number | undefined>((max, s) => Math.max(max ?? 0, s.value), undefined);
  if (longest === undefined) {
    return {
      check,
      status: 'warn',
      message: `controller workers: ${observed.url} has no workqueue_longest_running_processor_seconds`,
      hint: "give --metrics-url the controller's /metrics (run --metrics-bind-address)",
    };
  }
  const active = total('controller_runtime_active_workers') ?? 0;
  const max = total('controller_runtime_max_concurrent_reconciles');
  const busy = max === undefined ? `${active} busy` : `${active}/${max} busy`;
  const timeouts = total('controller_runtime_reconcile_timeouts_total') ?? 0;
  const panics = total('controller_runtime_reconcile_panics_total') ?? 0;
  const counts = `${timeouts} timed out, ${panics} panicked so far`;
  if (longest > stuckAfterSeconds) {
    const unfinished = total('workqueue_unfinished_work_seconds') ?? longest;
    return {
      check,
      status: 'warn',
      message:
        `controller workers: a reconcile has been running for ${roundSeconds(longest)} ` +
        `(over --stuck-worker-after ${roundSeconds(stuckAfterSeconds)}); ${busy}, ` +
        `${roundSeconds(unfinished)} of unfinished work; ${counts}`,
      hint:
        "a request that never finishes holds the worker: see the controller's log; " +
        'run --reconcile-timeout aborts such a reconcile and counts it in controller_runtime_reconcile_timeouts_total',
    };
  }
  return {
    check,
    status: 'ok',
    message: `controller workers: ${busy}, the longest reconcile running ${roundSeconds(longest)}; ${counts}`,
  };
}

function roundSeconds(value: number): string {
  return value >= 10 ? `${Math.round(value)}s` : `${Math.round(value * 10) / 10}s`;
}

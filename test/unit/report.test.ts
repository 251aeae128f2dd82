import { backoffSeconds, retryAfterSeconds } from '../../src/core/backoff';
import { ReportItem, buildReport, exitCodeOf } from '../../src/core/report';

function item(name: string, action: ReportItem['action'], extra: Partial<ReportItem> = {}): ReportItem {
  return {
    name,
    namespace: 'crd-lab',
    action,
    reason: 'r',
    target: `configmap/${name}-desired`,
    converged: true,
    ...extra,
  };
}

describe('buildReport', () => {
  it('counts actions, sorts items and converges when every item has', () => {
    const report = buildReport([item('search', 'create'), item('checkout', 'noop'), item('billing', 'noop')]);
    expect(report.items.map((i) => i.name)).toEqual(['billing', 'checkout', 'search']);
    expect(report.summary).toEqual({ create: 1, update: 0, noop: 2, requeue: 0, conflict: 0, finalize: 0, error: 0 });
    expect(report.converged).toBe(true);
    expect(exitCodeOf(report)).toBe(0);
  });

  it('a pending requeue is exit 2, not an error', () => {
    const report = buildReport([item('a', 'noop'), item('b', 'requeue', { converged: false, after_seconds: 10 })]);
    expect(report.converged).toBe(false);
    expect(exitCodeOf(report)).toBe(2);
  });

  it('a conflict or an error is exit 1', () => {
    expect(exitCodeOf(buildReport([item('a', 'conflict', { converged: false })]))).toBe(1);
    const failed = buildReport([item('a', 'update', { converged: false, error: 'forbidden' })]);
    expect(failed.summary.error).toBe(1);
    expect(exitCodeOf(failed)).toBe(1);
  });

  it('a rollout still in progress is exit 0, as kubectl apply; a stalled one is exit 1', () => {
    const rolling = item('web', 'create', {
      converged: false,
      after_seconds: 5,
      waiting_for: 'deployment/web: 1/3 ready',
    });
    expect(buildReport([rolling]).converged).toBe(false);
    expect(exitCodeOf(buildReport([rolling]))).toBe(0);
    // A requeue beside it still waits on something apply cannot do: exit 2.
    expect(exitCodeOf(buildReport([rolling, item('b', 'requeue', { converged: false, after_seconds: 10 })]))).toBe(2);
    const stalled = item('big', 'noop', { converged: false, after_seconds: 5, stalled: 'deployment/big: 2/9 ready' });
    expect(exitCodeOf(buildReport([rolling, stalled]))).toBe(1);
  });

  it('a finalized CR is gone and does not hold convergence back', () => {
    expect(buildReport([item('a', 'finalize', { converged: false })]).converged).toBe(true);
  });

  it('an empty scope is converged', () => {
    expect(buildReport([]).converged).toBe(true);
  });
});

describe('backoffSeconds', () => {
  it('doubles per failure and caps', () => {
    const full = (n: number) => backoffSeconds(n, 1, { baseMs: 1000, capMs: 60_000, jitter: 0.5 });
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(full)).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
  });

  it('jitters within [delay/2, delay]', () => {
    expect(backoffSeconds(4, 0)).toBe(4);
    expect(backoffSeconds(4, 0.5)).toBe(6);
    expect(backoffSeconds(4, 1)).toBe(8);
  });
});

describe('retryAfterSeconds', () => {
  it('a requeue comes back after exactly its after_seconds, however often it repeats', () => {
    expect(retryAfterSeconds(item('a', 'requeue', { converged: false, after_seconds: 7 }), 0, 0.3)).toBe(7);
  });

  it('an error or a conflict backs off by its count of failures', () => {
    const conflict = item('a', 'conflict', { converged: false });
    expect(retryAfterSeconds(conflict, 1, 1)).toBe(1);
    expect(retryAfterSeconds(conflict, 4, 1)).toBe(8);
    const failedRequeue = item('b', 'requeue', { converged: false, after_seconds: 7, error: 'forbidden' });
    expect(retryAfterSeconds(failedRequeue, 3, 1)).toBe(4);
  });
});

// check's controller-workers verdict, from the text of the controller's /metrics.
import { parseMetrics, workersVerdict } from '../../src/check/workers';

const exposition = (longest: number, active = 1) =>
  [
    '# HELP workqueue_longest_running_processor_seconds How many seconds has the longest running processor been running.',
    '# TYPE workqueue_longest_running_processor_seconds gauge',
    `workqueue_longest_running_processor_seconds{name="webservice"} ${longest}`,
    `workqueue_unfinished_work_seconds{name="webservice"} ${longest + 0.5}`,
    `controller_runtime_active_workers{controller="webservice"} ${active}`,
    'controller_runtime_max_concurrent_reconciles{controller="webservice"} 4',
    'controller_runtime_reconcile_timeouts_total{controller="webservice"} 2',
    'controller_runtime_reconcile_panics_total{controller="webservice"} 0',
    'process_start_time_seconds 1764590000',
  ].join('\n');
const read = (text: string) => ({
  kind: 'read' as const,
  url: 'http://127.0.0.1:8080/metrics',
  samples: parseMetrics(text),
});

describe('parseMetrics', () => {
  it('reads samples with and without labels, and skips comments', () => {
    expect(parseMetrics('# HELP x y\nup 1\nreqs{code="200",path="/a\\"b"} 3.5 1700000000000\nbad line here')).toEqual([
      { name: 'up', labels: {}, value: 1 },
      { name: 'reqs', labels: { code: '200', path: '/a"b' }, value: 3.5 },
    ]);
  });
});

describe('workersVerdict', () => {
  it('passes while the longest reconcile is under the limit', () => {
    expect(workersVerdict(read(exposition(0.2)), 60)).toEqual({
      check: 'controller-workers',
      status: 'ok',
      message: 'controller workers: 1/4 busy, the longest reconcile running 0.2s; 2 timed out, 0 panicked so far',
    });
  });

  it('warns when a reconcile has held its worker for longer than the limit', () => {
    const verdict = workersVerdict(read(exposition(75)), 60);
    expect(verdict.status).toBe('warn');
    expect(verdict.message).toBe(
      'controller workers: a reconcile has been running for 75s (over --stuck-worker-after 60s); ' +
        '1/4 busy, 76s of unfinished work; 2 timed out, 0 panicked so far',
    );
    expect(verdict.hint).toContain('--reconcile-timeout');
  });

  it('says why it did not check', () => {
    expect(workersVerdict({ kind: 'not-asked' }, 60)).toMatchObject({ status: 'skip', message: /--metrics-url/ });
    expect(
      workersVerdict({ kind: 'unreachable', url: 'http://127.0.0.1:1/metrics', message: 'connect ECONNREFUSED' }, 60),
    ).toMatchObject({
      status: 'warn',
      message: 'controller workers: could not read http://127.0.0.1:1/metrics: connect ECONNREFUSED',
    });
    expect(workersVerdict(read('up 1'), 60)).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('has no workqueue_longest_running_processor_seconds') as unknown,
    });
  });
});

// The metric names the monitoring tests check (test/support/promql.ts): the reader must
// find each name in every shape our rules and dashboard use, and nothing else.
import { metricNamesOf, servedMetricNames } from '../support/promql';

describe('metricNamesOf', () => {
  it.each([
    ['webservice_status_condition{condition="Ready",status="true"} == 0', ['webservice_status_condition']],
    [
      'sum(increase(controller_runtime_reconcile_errors_total{controller="webservice"}[10m])) > 0',
      ['controller_runtime_reconcile_errors_total'],
    ],
    [
      'histogram_quantile(0.99, sum by (le) (rate(workqueue_queue_duration_seconds_bucket{name="webservice"}[$__rate_interval])))',
      ['workqueue_queue_duration_seconds_bucket'],
    ],
    [
      'workqueue_depth{name="webservice"} > 10 and deriv(workqueue_depth{name="webservice"}[10m]) > 0',
      ['workqueue_depth'],
    ],
    ['absent(up{job="webservice-controller"} == 1)', ['up']],
    [
      'count(webservice_metadata_generation > webservice_status_observed_generation) or vector(0)',
      ['webservice_metadata_generation', 'webservice_status_observed_generation'],
    ],
    ['sum without (pod) (rate(a_total[5m] offset 1h)) / ignoring (x) group_left (y) b * 1e-3', ['a_total', 'b']],
    ['max by (namespace, name) (x{name=~"a|b", le!="+Inf"}) unless on (name) y', ['x', 'y']],
  ])('%s', (expr, names) => {
    expect(metricNamesOf(expr)).toEqual(names);
  });
});

describe('servedMetricNames', () => {
  it('takes the name of every sample line, and no comment', () => {
    const text = [
      '# HELP workqueue_depth Current depth of workqueue',
      '# TYPE workqueue_depth gauge',
      'workqueue_depth{name="webservice"} 0',
      'h_bucket{le="0.1"} 1',
      'h_sum 0.2',
      'process_resident_memory_bytes 123',
      '',
    ].join('\n');
    expect([...servedMetricNames(text)].sort()).toEqual([
      'h_bucket',
      'h_sum',
      'process_resident_memory_bytes',
      'workqueue_depth',
    ]);
  });
});

// The per-WebService health gauges, as kube-state-metrics exports them for Deployments:
// written afresh from the cache at each scrape, so a WebService that is gone has no series
// left, and cardinality follows the number of WebServices (a few series each).
//
// Written as text rather than through prom-client's Gauges: at 10 000 WebServices a scrape
// through Gauges (reset, then 70 000 labelled sets, each hashing its labels) took 240-480 ms
// of CPU and grew the heap by tens of MiB; the text costs one pass over the cache.
import type { ConditionStatus, WebService } from '../core/model';

/** kube-state-metrics' status label values: one series each, 1 for the condition's status. */
const STATUSES: readonly [ConditionStatus, string][] = [
  ['True', 'true'],
  ['False', 'false'],
  ['Unknown', 'unknown'],
];

const CONDITION = 'webservice_status_condition';
const SPEC_REPLICAS = 'webservice_spec_replicas';
const READY_REPLICAS = 'webservice_status_replicas_ready';
const GENERATION = 'webservice_metadata_generation';
const OBSERVED_GENERATION = 'webservice_status_observed_generation';

const HEADERS: readonly [string, string][] = [
  [CONDITION, 'The condition of a WebService: 1 for its status (true, false or unknown), 0 for the others'],
  [SPEC_REPLICAS, 'Number of desired replicas of a WebService (spec.replicas)'],
  [
    READY_REPLICAS,
    "Number of ready replicas of a WebService (status.replicas: with a workload, its Deployment's ready pods)",
  ],
  [GENERATION, 'Sequence number of the desired state of a WebService (metadata.generation)'],
  [OBSERVED_GENERATION, 'The generation of a WebService its status was computed from (status.observedGeneration)'],
];

/** The health families in Prometheus' text format: their HELP and TYPE always, samples only from `webServices`. */
export function healthText(webServices: Iterable<WebService>): string {
  // One string per family, grown by concatenation (V8 joins them once, when the text is sent).
  const families = HEADERS.map(([name, help]) => `# HELP ${name} ${help}\n# TYPE ${name} gauge\n`);
  for (const ws of webServices) {
    const object = `{namespace="${labelValue(ws.metadata.namespace ?? '')}",name="${labelValue(ws.metadata.name)}"`;
    // A condition type once, as the API server keeps conditions keyed by type: two samples of
    // one series would fail the whole scrape.
    const seen = new Set<string>();
    for (const c of ws.status?.conditions ?? []) {
      if (seen.has(c.type)) continue;
      seen.add(c.type);
      const labels = `${CONDITION}${object},condition="${labelValue(c.type)}",status="`;
      for (const [status, label] of STATUSES) families[0] += `${labels}${label}"} ${c.status === status ? 1 : 0}\n`;
    }
    families[1] += `${SPEC_REPLICAS}${object}} ${number(ws.spec.replicas ?? 1)}\n`;
    families[2] += `${READY_REPLICAS}${object}} ${number(ws.status?.replicas ?? 0)}\n`;
    families[3] += `${GENERATION}${object}} ${number(ws.metadata.generation ?? 0)}\n`;
    families[4] += `${OBSERVED_GENERATION}${object}} ${number(ws.status?.observedGeneration ?? 0)}\n`;
  }
  return families.join('');
}

/** A label value in the text format: backslash, double quote and newline escaped (CR content is not trusted). */
function labelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : value;
}

/** A sample value: Prometheus' spelling of a number, NaN for anything that is not one. */
function number(value: unknown): string {
  return typeof value === 'number'
    ? Number.isNaN(value)
      ? 'NaN'
      : value === Infinity
        ? '+Inf'
        : value === -Infinity
          ? '-Inf'
          : String(value)
    : 'NaN';
}

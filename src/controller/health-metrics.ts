// The per-WebService health gauges, as kube-state-metrics exports them for Deployments:
// written afresh from the cache at each scrape, so a WebService that is gone has no series
// left, and cardinality follows the number of WebServices (a few series each).
//
// Written as text rather than through prom-client's Gauges: at 10 000 WebServices a scrape
// through Gauges (reset, then 70 000 labelled sets, each hashing its labels) took 240-480 ms
// of CPU and grew the heap by tens of MiB; the text costs a pass over the cache per family.
import type { ConditionStatus, WebService } from '../core/model';

/** kube-state-metrics' status label values: one series each, 1 for the condition's status. */
const STATUSES: readonly [ConditionStatus, string][] = [
  ['True', 'true'],
  ['False', 'false'],
  ['Unknown', 'unknown'],
];

/** One gauge family: its samples for one WebService, whose labels `object` opens ({namespace=…,name=…). */
interface Family {
  name: string;
  help: string;
  samples(ws: WebService, object: string): string;
}

const FAMILIES: readonly Family[] = [
  {
    name: 'webservice_status_condition',
    help: 'The condition of a WebService: 1 for its status (true, false or unknown), 0 for the others',
    samples(ws, object) {
      let text = '';
      // A condition type once, as the API server keeps conditions keyed by type: two samples of
      // one series would fail the whole scrape.
      const seen = new Set<string>();
      for (const c of ws.status?.conditions ?? []) {
        if (seen.has(c.type)) continue;
        seen.add(c.type);
        const labels = `${this.name}${object},condition="${labelValue(c.type)}",status="`;
        for (const [status, label] of STATUSES) text += `${labels}${label}"} ${c.status === status ? 1 : 0}\n`;
      }
      return text;
    },
  },
  {
    name: 'webservice_spec_replicas',
    help: 'Number of desired replicas of a WebService (spec.replicas)',
    samples: (ws, object) => `webservice_spec_replicas${object}} ${number(ws.spec.replicas ?? 1)}\n`,
  },
  {
    name: 'webservice_status_replicas_ready',
    help: "Number of ready replicas of a WebService (status.replicas: with a workload, its Deployment's ready pods)",
    samples: (ws, object) => `webservice_status_replicas_ready${object}} ${number(ws.status?.replicas ?? 0)}\n`,
  },
  {
    name: 'webservice_metadata_generation',
    help: 'Sequence number of the desired state of a WebService (metadata.generation)',
    samples: (ws, object) => `webservice_metadata_generation${object}} ${number(ws.metadata.generation ?? 0)}\n`,
  },
  {
    name: 'webservice_status_observed_generation',
    help: 'The generation of a WebService its status was computed from (status.observedGeneration)',
    samples: (ws, object) =>
      `webservice_status_observed_generation${object}} ${number(ws.status?.observedGeneration ?? 0)}\n`,
  },
  {
    name: 'webservice_status_current_revision',
    help: 'The revision every pod of a WebService runs (status.currentRevision; with a workload only)',
    samples: (ws, object) => optional('webservice_status_current_revision', object, ws.status?.currentRevision),
  },
  {
    name: 'webservice_status_update_revision',
    help: 'The revision the pods of a WebService are rolled out to (status.updateRevision; with a workload only)',
    samples: (ws, object) => optional('webservice_status_update_revision', object, ws.status?.updateRevision),
  },
];

/** A sample where the status has the field; none where it has not (a WebService without a workload). */
function optional(name: string, object: string, value: number | undefined): string {
  return value === undefined ? '' : `${name}${object}} ${number(value)}\n`;
}

/**
 * Roughly how much text a piece holds. A scrape of 10 000 WebServices is 5.6 MB of text; made
 * whole, then copied into one buffer to send, it added 19 MiB to the controller's peak RSS.
 * Sent a piece at a time, a scrape holds a few pieces at once.
 */
const PIECE_CHARS = 64 * 1024;

/**
 * The health families in Prometheus' text format, in pieces of about PIECE_CHARS: their HELP
 * and TYPE always, samples only from `webServices`. Each family is one pass over a snapshot of
 * them, so every family names the same WebServices.
 */
export function* healthPieces(webServices: Iterable<WebService>): Generator<string> {
  const snapshot = [...webServices];
  let piece = '';
  for (const family of FAMILIES) {
    piece += `# HELP ${family.name} ${family.help}\n# TYPE ${family.name} gauge\n`;
    for (const ws of snapshot) {
      const object = `{namespace="${labelValue(ws.metadata.namespace ?? '')}",name="${labelValue(ws.metadata.name)}"`;
      piece += family.samples(ws, object);
      if (piece.length >= PIECE_CHARS) {
        yield piece;
        piece = '';
      }
    }
  }
  yield piece;
}

/** The health families whole (healthPieces joined). */
export function healthText(webServices: Iterable<WebService>): string {
  return [...healthPieces(webServices)].join('');
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

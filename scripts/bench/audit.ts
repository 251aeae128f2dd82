// Counting requests in the API server's audit log (JSON lines, Metadata level): mark
// the log's end before a case, then count what one client sent after it. The log is
// written after the response, so count() first sends a tagged marker request and waits
// until it shows up: everything sent before it is then in the log.
import * as fs from 'node:fs';
import * as readline from 'node:readline';
import { kubectl, until } from './proc';

const READ_VERBS = new Set(['get', 'list', 'watch']);
const MARKER = 'bench-audit-marker';

export interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  userAgent?: string;
  requestURI?: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string };
  /** When the request's stage was logged (RFC 3339, microseconds). */
  stageTimestamp?: string;
}

/** Which client's requests a case counts, by User-Agent. */
export type Client = 'plugin' | 'controller' | 'kubectl' | 'floor';

export interface RequestCount {
  /** Every request, reads and writes. */
  requests: number;
  reads: number;
  /** Mutating requests other than Event creates. */
  writes: number;
  /** Event creates (events.k8s.io), counted apart from the reconcile's own writes. */
  events: number;
  /** Writes by verb and resource, e.g. `patch webservices/status`. */
  byKind: Record<string, number>;
  /** When the last mutating request was logged (ms since the epoch); absent: none. */
  lastWriteAt?: number;
}

function clientOf(userAgent: string | undefined): Client | undefined {
  if (!userAgent) return undefined;
  if (userAgent.startsWith('kubectl-webservice/')) return userAgent.includes(' run/') ? 'controller' : 'plugin';
  // The controller-runtime peer (peer/), client-go's default User-Agent after its binary's name.
  if (userAgent.startsWith('ctrl-runtime-peer/')) return 'controller';
  if (userAgent.startsWith('kubectl/')) return 'kubectl';
  if (userAgent.startsWith('webservice-bench-floor/')) return 'floor';
  return undefined;
}

function emptyCount(): RequestCount {
  return { requests: 0, reads: 0, writes: 0, events: 0, byKind: {} };
}

function add(count: RequestCount, event: AuditEvent): void {
  count.requests++;
  if (READ_VERBS.has(event.verb)) {
    count.reads++;
    return;
  }
  const at = event.stageTimestamp ? Date.parse(event.stageTimestamp) : NaN;
  if (!Number.isNaN(at)) count.lastWriteAt = Math.max(count.lastWriteAt ?? at, at);
  const resource = event.objectRef?.resource ?? '?';
  if (resource === 'events' && event.verb === 'create') count.events++;
  else count.writes++;
  const subresource = event.objectRef?.subresource ?? (event.requestURI?.includes('/status') ? 'status' : undefined);
  const kind = `${event.verb} ${resource}${subresource ? `/${subresource}` : ''}`;
  count.byKind[kind] = (count.byKind[kind] ?? 0) + 1;
}

/** One event per request: a request logged at two stages counts once. */
function unique(events: AuditEvent[]): AuditEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => !seen.has(e.auditID) && seen.add(e.auditID));
}

export class Audit {
  private constructor(private readonly file: string) {}

  /** The audit log named by KUBE_AUDIT_LOG, or undefined on a cluster without one. */
  static open(): Audit | undefined {
    const file = process.env.KUBE_AUDIT_LOG;
    return file && fs.existsSync(file) ? new Audit(file) : undefined;
  }

  mark(): number {
    return fs.statSync(this.file).size;
  }

  /** Requests of one client since the mark (about one namespace's objects). Watches count once. */
  async count(since: number, client: Client, namespace?: string): Promise<RequestCount> {
    const count = emptyCount();
    for (const event of unique(await this.eventsSince(since))) {
      if (clientOf(event.userAgent) !== client) continue;
      if (namespace === undefined || event.objectRef?.namespace === namespace) add(count, event);
    }
    return count;
  }

  /**
   * Like count(), once the client has gone quiet: its requests no longer grow between two
   * counts `quietMs` apart (a controller sends its Events in the background after its reconciles).
   */
  async countSettled(since: number, client: Client, quietMs = 1000, timeoutMs = 60_000): Promise<RequestCount> {
    let last: RequestCount | undefined;
    const settled = async () => {
      const [was, next] = [last, (last = await this.count(since, client))];
      return was?.requests === next.requests && next;
    };
    return until(`${client} to stop sending requests`, settled, { timeoutMs, everyMs: quietMs });
  }

  /** One client's requests since the mark, in the order the log has them. */
  async requests(since: number, client: Client): Promise<AuditEvent[]> {
    return unique(await this.eventsSince(since)).filter((e) => clientOf(e.userAgent) === client);
  }

  private async eventsSince(since: number): Promise<AuditEvent[]> {
    const tag = `${MARKER}-${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    await kubectl(['get', '--raw', `/api/v1/namespaces/default?${tag}=1`]);
    const logged = async () => {
      const events = await this.read(since);
      return events.some((e) => e.requestURI?.includes(tag)) && events.filter((e) => !e.requestURI?.includes(MARKER));
    };
    return until('the audit marker request in the audit log', logged, { timeoutMs: 30_000, everyMs: 100 });
  }

  /**
   * The events logged since the mark, line by line: a window of the 100 000 run holds more
   * than one string can (V8 caps a string at 512 MiB), so the log is never read whole.
   */
  private async read(since: number): Promise<AuditEvent[]> {
    const lines = readline.createInterface({
      input: fs.createReadStream(this.file, { start: since }),
      crlfDelay: Infinity,
    });
    const events: AuditEvent[] = [];
    for await (const line of lines) {
      let event: AuditEvent;
      try {
        event = JSON.parse(line) as AuditEvent;
      } catch {
        continue; // empty, or a line still being written after the marker
      }
      if (event.stage === 'ResponseComplete' || event.stage === 'ResponseStarted') events.push(slim(event));
    }
    return events;
  }
}

/** The fields the bench reads, so that a large window's events take little memory. */
function slim({ auditID, stage, verb, userAgent, requestURI, stageTimestamp, objectRef: o }: AuditEvent): AuditEvent {
  const objectRef = o && { resource: o.resource, namespace: o.namespace, name: o.name, subresource: o.subresource };
  return { auditID, stage, verb, userAgent, requestURI, stageTimestamp, objectRef };
}

/** A count's figures as results.json keeps them: null without an audit log. */
export interface Figures {
  requests: number | null;
  reads: number | null;
  writes: number | null;
  events: number | null;
  writesByKind?: Record<string, number>;
}

export function figures(count: RequestCount | null): Figures {
  const [requests, reads, writes, events] = count ? [count.requests, count.reads, count.writes, count.events] : [];
  const byKind = count && Object.keys(count.byKind).length > 0 ? { writesByKind: count.byKind } : {};
  return {
    requests: requests ?? null,
    reads: reads ?? null,
    writes: writes ?? null,
    events: events ?? null,
    ...byKind,
  };
}

// The control plane's audit log, read the one way every test reads it: the requests
// completed since a point, parsed as the apiserver writes them (a line it has only begun
// to write waits for the next read).
import * as fs from 'node:fs';
import { run } from './process';
import { eventually } from './wait';

export interface AuditEvent {
  verb: string;
  user: { username: string };
  userAgent?: string;
  stage: string;
  auditID: string;
  requestURI?: string;
  objectRef?: { apiGroup?: string; resource?: string; namespace?: string; name?: string; subresource?: string };
  responseStatus?: { code?: number };
}

export const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

function auditLog(): string {
  const file = process.env.KUBE_AUDIT_LOG;
  if (!file) throw new Error('KUBE_AUDIT_LOG is not set: the tests need the control plane started by their setup');
  return file;
}

/**
 * Reads the audit log onward from an offset (by default, its end when made): each next()
 * returns the completed requests (stage ResponseComplete) written since the one before.
 */
export class AuditReader {
  private offset: number;
  private pending = '';

  constructor(offset?: number) {
    this.offset = offset ?? fs.statSync(auditLog()).size;
  }

  next(): AuditEvent[] {
    const fd = fs.openSync(auditLog(), 'r');
    try {
      const size = fs.fstatSync(fd).size;
      if (size <= this.offset) return [];
      const buffer = Buffer.alloc(size - this.offset);
      fs.readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset = size;
      const lines = (this.pending + buffer.toString('utf8')).split('\n');
      this.pending = lines.pop() ?? '';
      return lines
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as AuditEvent)
        .filter((e) => e.stage === 'ResponseComplete');
    } finally {
      fs.closeSync(fd);
    }
  }
}

/**
 * A window on the audit log: call mark() before an action, then events() after it.
 * The log is written by the apiserver asynchronously to our client, so events()
 * first makes a marker request and waits until that request appears.
 * The namespace may be given as a function, for a window made before the namespace exists.
 */
export class AuditWindow {
  private reader = new AuditReader(0);
  private seen: AuditEvent[] = [];

  constructor(private readonly ns: string | (() => string)) {}

  static available(): boolean {
    return Boolean(process.env.KUBE_AUDIT_LOG && fs.existsSync(process.env.KUBE_AUDIT_LOG));
  }

  private get namespace(): string {
    return typeof this.ns === 'string' ? this.ns : this.ns();
  }

  mark(): void {
    this.reader = new AuditReader();
    this.seen = [];
  }

  async events(): Promise<AuditEvent[]> {
    // One GET of something that exists, tagged in its query: kubectl makes no follow-up request.
    const marker = `audit-marker-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    const uri = `/api/v1/namespaces/${this.namespace}?${marker}=1`;
    const result = run('kubectl', ['get', '--raw', uri]);
    if (result.status !== 0) throw new Error(`audit marker request failed: ${result.stderr}`);
    const all = await eventually(() => {
      const events = this.read();
      return events.some((e) => e.requestURI?.includes(marker)) ? events : null;
    });
    return all.filter((e) => !e.requestURI?.includes(marker) && e.objectRef?.namespace === this.namespace);
  }

  /**
   * mark(), once the requests that match have stopped for windowMs: a controller's Events go
   * out in the background, a little after the writes of the pass they tell of.
   */
  async markWhenQuiet(matches: (e: AuditEvent) => boolean, windowMs = 2_000, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.mark();
      await new Promise((resolve) => setTimeout(resolve, windowMs));
      const requests = (await this.events()).filter(matches);
      if (requests.length === 0) return this.mark();
      if (Date.now() > deadline)
        throw new Error(`still busy after ${timeoutMs} ms: ${requests.map(describeEvent).join(', ')}`);
    }
  }

  /** Every event since mark(), in any namespace or none (cluster-scoped requests too). */
  async all(): Promise<AuditEvent[]> {
    await this.events();
    return this.read().filter((e) => !e.requestURI?.includes('audit-marker-'));
  }

  /** Every request the plugin made since mark(), cluster-scoped ones included. */
  async pluginRequests(): Promise<AuditEvent[]> {
    return (await this.all()).filter(fromPlugin);
  }

  async mutating(): Promise<AuditEvent[]> {
    return (await this.events()).filter((e) => MUTATING.has(e.verb));
  }

  private read(): AuditEvent[] {
    for (const event of this.reader.next()) this.seen.push(event);
    return this.seen;
  }
}

/** An audit event of a request the plugin made. */
export const fromPlugin = (e: Pick<AuditEvent, 'userAgent'>) => e.userAgent?.startsWith('kubectl-webservice/') === true;

/** `verb resource/name`, for messages about audit events. */
export const describeEvent = (e: AuditEvent) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name ?? ''}`;

// The controller's HTTP endpoints, like controller-runtime's manager: /metrics for Prometheus,
// /healthz and /readyz for the kubelet. Metrics and probes may share one server or have one
// each: call startProbeServer once per bind address, with what that address should serve.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What /metrics serves: its text in pieces, sent as they are made rather than held whole. */
interface MetricsSource {
  contentType: string;
  pieces(): Promise<Iterable<string>>;
}

export interface ProbeServerOptions {
  /** controller-runtime's bind address: ":8080" (all interfaces), "127.0.0.1:0", or "0" (off). */
  address: string;
  /** Serve /metrics from this registry. */
  metrics?: MetricsSource;
  /**
   * Serve /healthz and /readyz; /readyz answers 200 only while this returns true. A string
   * is not ready, and says why (the body of the 503).
   */
  ready?: () => boolean | string;
  /** /healthz answers 200 while this returns true (default: always). */
  healthy?: () => boolean;
}

export interface ProbeServer {
  /** The port actually bound (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * Parses a bind address. Returns undefined for "0" (or ""): the endpoint is disabled.
 * A missing host means every interface, as in Go's net.Listen.
 */
export function parseBindAddress(address: string): { host?: string; port: number } | undefined {
  const trimmed = address.trim();
  if (trimmed === '' || trimmed === '0') return undefined;
  const match = /^(.*):(\d+)$/.exec(trimmed);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new Error(`invalid bind address "${address}": want host:port, :port, or 0 to disable`);
  }
  const host = match[1].replace(/^\[(.*)\]$/, '$1'); // [::1]:8080
  return host === '' ? { port } : { host, port };
}

/** Starts serving; resolves once listening, or undefined if the address disables it. */
export async function startProbeServer(options: ProbeServerOptions): Promise<ProbeServer | undefined> {
  const bind = parseBindAddress(options.address);
  if (!bind) return undefined;

  const server = createServer((req, res) => handle(options, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // close() ends idle keep-alive connections itself; a request still in flight (a slow
        // scrape) would hold it open, and at shutdown it is not worth waiting for.
        server.closeAllConnections();
      }),
  };
}

function handle(options: ProbeServerOptions, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    send(res, 405, 'method not allowed\n');
    return;
  }
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const { metrics, ready } = options;

  if (path === '/metrics' && metrics) {
    metrics.pieces().then(
      (pieces) => {
        // Chunked, without a length: the text is not made yet.
        res.writeHead(200, { 'Content-Type': metrics.contentType });
        // A scraper that hangs up midway ends the pipeline; nothing is left to answer.
        pipeline(Readable.from(pieces), res).catch(() => undefined);
      },
      (err: unknown) =>
        send(res, 500, `collecting metrics failed: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  } else if (path === '/healthz' && ready) {
    if (check(options.healthy ?? (() => true))) send(res, 200, 'ok');
    else send(res, 503, 'unhealthy\n');
  } else if (path === '/readyz' && ready) {
    const answer = check(ready);
    if (answer === true) send(res, 200, 'ok');
    else send(res, 503, typeof answer === 'string' ? `not ready: ${answer}\n` : 'not ready\n');
  } else {
    send(res, 404, 'not found\n');
  }
}

/** A probe whose check throws is failing, not crashing the server. */
function check<T>(probe: () => T): T | false {
  try {
    return probe();
  } catch {
    return false;
  }
}

function send(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

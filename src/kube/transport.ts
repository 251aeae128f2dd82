// HTTP to the API server: one keep-alive connection pool per process, plain JSON in
// and out. Credentials still come from client-node's KubeConfig (client certificates,
// tokens, exec and auth-provider plugins, rotating token files); the TLS context is
// built once, so a pass of thousands of requests reuses a handful of connections
// instead of paying a handshake and a new SecureContext for each one.
// Named imports: a namespace import of a builtin costs a copy of all its exports at start-up.
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions, type RequestOptions, request as httpsRequest } from 'node:https';
import type * as net from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { USER_AGENT } from '../core/version';
import { ManagedFieldsStripper, withoutManagedFields } from './managed-fields';
import {
  ConflictError,
  AbortedError,
  ForbiddenError,
  InvalidError,
  KubeError,
  LEADER_FENCE_POLICY,
  NotFoundError,
  NotLeaderError,
  UnreachableError,
  WatchIdleError,
} from './errors';

/** What ends a watch event's line. */
const NEWLINE = 0x0a;

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. /api/v1/namespaces/x/configmaps. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** What the request is about, for error messages: `configmaps "x"`. */
  what: string;
  /** Drop metadata.managedFields before parsing (see managed-fields.ts). */
  dropManagedFields?: boolean;
  /**
   * Asked once the request holds a connected socket, just before its bytes go out; throws
   * to cancel it unsent. A request can wait for a socket (a TLS handshake, a full pool), and
   * a process can be stopped meanwhile: a check made only when the request was created would
   * let it out after the reason to refuse it arose.
   */
  gate?: () => void;
  /**
   * Aborts the request: not sent if it has not gone out yet (nor if it is waiting for a
   * socket), cut off if it has; either way it rejects with an AbortedError.
   */
  signal?: AbortSignal;
}

/** A watch event as the API server streams it. */
export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export interface WatchOptions {
  /** Abort when no byte (event or bookmark) arrives for this long: a silent watch is a dead watch. */
  idleTimeoutMs: number;
  signal?: AbortSignal;
  /**
   * A streaming list (WatchList, sendInitialEvents=true): the watch starts with an ADDED event
   * for each object there is, then a bookmark annotated k8s.io/initial-events-end, then goes on.
   */
  sendInitialEvents?: boolean;
  /** Called once the server has accepted the watch (a 2xx answer), before any event. */
  onOpen?: () => void;
}

/** Counts connections opened and requests sent, so tests and -v can show the pool works. */
export interface TransportStats {
  connections: number;
  requests: number;
}

/** Connections per process; requests beyond this wait for a free socket. */
export const MAX_SOCKETS = 32;

export class Transport {
  readonly stats: TransportStats = { connections: 0, requests: 0 };
  private readonly agent: HttpAgent;
  private readonly url: URL;
  private readonly secure: boolean;
  private readonly staticHeaders: Record<string, string | string[]>;
  private readonly dynamicAuth: boolean;
  /** Sockets this pool opened that are not connected (TLS: handshake done) yet. */
  private readonly connecting = new WeakSet<object>();
  private gatedInFlight = 0;
  private readonly onGatedSettled: (() => void)[] = [];

  constructor(
    private readonly kubeConfig: KubeConfig,
    readonly server: string,
    private readonly timeoutMs: number,
    /** Impersonate-Group: one header per group (--as-group). */
    impersonateGroups: string[] = [],
  ) {
    this.url = new URL(server);
    this.secure = this.url.protocol === 'https:';
    const user = kubeConfig.getCurrentUser();
    const cluster = kubeConfig.getCurrentCluster();
    // Exec and auth-provider credentials (and in-cluster token files) can change while
    // we run, so those headers are asked for per request; client-node caches them.
    this.dynamicAuth = Boolean(user?.exec || user?.authProvider);
    this.staticHeaders = { 'User-Agent': USER_AGENT };
    if (user?.token && !this.dynamicAuth) this.staticHeaders.Authorization = `Bearer ${user.token}`;
    if (user?.username) {
      this.staticHeaders.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
    }
    if (user?.impersonateUser) this.staticHeaders['Impersonate-User'] = user.impersonateUser;
    if (impersonateGroups.length > 0) this.staticHeaders['Impersonate-Group'] = impersonateGroups;

    const agentOptions: AgentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS };
    if (this.secure) {
      const tlsOptions = tlsMaterial(kubeConfig);
      agentOptions.secureContext = createSecureContext(tlsOptions);
      if (cluster?.skipTLSVerify) agentOptions.rejectUnauthorized = false;
      if (cluster?.tlsServerName) agentOptions.servername = cluster.tlsServerName;
    }
    this.agent = this.secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    const createConnection = (this.agent as unknown as { createConnection: (...a: unknown[]) => unknown })
      .createConnection;
    (this.agent as unknown as { createConnection: (...a: unknown[]) => unknown }).createConnection = (
      ...args: unknown[]
    ) => {
      this.stats.connections++;
      const socket = createConnection.apply(this.agent, args) as net.Socket;
      this.connecting.add(socket);
      socket.once(this.secure ? 'secureConnect' : 'connect', () => this.connecting.delete(socket));
      return socket;
    };
  }

  /** One request; the parsed JSON body, or a typed error. */
  async request<T>(req: Request): Promise<T> {
    if (!req.gate) return this.exchange(req);
    this.gatedInFlight++;
    try {
      return await this.exchange<T>(req);
    } finally {
      if (--this.gatedInFlight === 0) for (const settled of this.onGatedSettled.splice(0)) settled();
    }
  }

  /** Resolves once no gated request (a write) is waiting for its answer, or after timeoutMs at the latest. */
  gatedSettled(timeoutMs: number): Promise<void> {
    if (this.gatedInFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.onGatedSettled.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async exchange<T>(req: Request): Promise<T> {
    const { signal } = req;
    if (signal?.aborted) throw new AbortedError(req.what);
    const call = await this.send(req);
    // A plain timer that destroys the request: cheaper per call than an AbortSignal.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      call.request.destroy();
    }, this.timeoutMs);
    // Destroyed before its socket is connected, a request never calls its gate nor sends a byte.
    // Node reports that destroy only once a socket is free for it, so the abort rejects at once
    // on its own: a request queued behind a full pool must not wait for one.
    let aborted = false;
    let onAbort: () => void = () => undefined;
    const abortion = new Promise<never>((_resolve, reject) => {
      onAbort = () => {
        aborted = true;
        call.request.destroy();
        reject(new AbortedError(req.what));
      };
    });
    const orAborted = <X>(work: Promise<X>): Promise<X> => (signal ? Promise.race([work, abortion]) : work);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await orAborted(call.response);
      const body = await orAborted(readText(res, req.dropManagedFields === true));
      if ((res.statusCode ?? 0) >= 400) throw statusError(res.statusCode ?? 0, body, req.what);
      if (body.length === 0) return {} as T;
      return JSON.parse(body) as T;
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by the timer's callback
      if (timedOut) throw new UnreachableError(`${this.server}: no answer within ${this.timeoutMs / 1000}s`, true);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by onAbort
      if (aborted) throw new AbortedError(req.what);
      throw networkError(err, this.server);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * A watch: streams events to onEvent until the server closes the stream (its
   * timeoutSeconds), the signal aborts, or nothing arrives for idleTimeoutMs.
   * Resolves on a clean end; rejects with a typed error otherwise.
   */
  async watch<T>(req: Request, onEvent: (event: WatchEvent<T>) => void, options: WatchOptions): Promise<void> {
    if (options.signal?.aborted) return;
    const call = await this.send(req);
    const stop = () => call.request.destroy();
    options.signal?.addEventListener('abort', stop);
    let idle = false;
    // One timer, pushed back by each chunk (refresh is cheaper than a new timer per chunk).
    const watchdog = setTimeout(() => {
      idle = true;
      stop();
    }, options.idleTimeoutMs);
    try {
      const res = await call.response;
      if ((res.statusCode ?? 0) >= 400) throw statusError(res.statusCode ?? 0, await readText(res), req.what);
      options.onOpen?.();
      // Events, not `for await` (see readText). Split as bytes: a newline is never inside a JSON
      // string or a UTF-8 character, and an event's managedFields go before its text is made (a
      // streaming list's 10 000 objects, a rollout's status events).
      await new Promise<void>((resolve, reject) => {
        let pending: Buffer = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          watchdog.refresh();
          pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
          let from = 0;
          try {
            for (let newline = pending.indexOf(NEWLINE); newline >= 0; newline = pending.indexOf(NEWLINE, from)) {
              const bytes = pending.subarray(from, newline);
              from = newline + 1;
              const line = (req.dropManagedFields ? withoutManagedFields(bytes) : bytes).toString('utf8').trim();
              if (line) onEvent(JSON.parse(line) as WatchEvent<T>);
            }
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
            res.destroy();
            return;
          }
          pending = pending.subarray(from);
        });
        res.once('error', reject);
        res.once('end', resolve);
        // Destroyed (by the watchdog, the signal or a cut connection): no 'end' comes.
        res.once('close', () => (res.complete ? resolve() : reject(new Error('the watch was cut short'))));
      });
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by the watchdog's callback
      if (idle) throw new Error('idle');
    } catch (err) {
      if (options.signal?.aborted) return;
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by the watchdog's callback
      if (idle) throw new WatchIdleError(req.what, options.idleTimeoutMs);
      throw networkError(err, this.server);
    } finally {
      clearTimeout(watchdog);
      options.signal?.removeEventListener('abort', stop);
    }
  }

  /** Adds to the User-Agent (e.g. a controller replica's identity), so audit logs tell writers apart. */
  identify(suffix: string): void {
    this.staticHeaders['User-Agent'] = `${USER_AGENT} ${suffix}`;
  }

  /** Closes idle pooled connections so the process can exit. */
  close(): void {
    this.agent.destroy();
  }

  private async send(req: Request): Promise<{ request: ClientRequest; response: Promise<IncomingMessage> }> {
    const headers: Record<string, string | string[]> = {
      ...this.staticHeaders,
      Accept: req.accept ?? 'application/json',
    };
    if (this.dynamicAuth) Object.assign(headers, await this.freshAuthHeaders());
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    if (payload) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    this.stats.requests++;
    const sendRequest = this.secure ? httpsRequest : httpRequest;
    let request!: ClientRequest;
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      request = sendRequest(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname,
          port: this.url.port || (this.secure ? 443 : 80),
          path: `${this.url.pathname.replace(/\/$/, '')}${req.path}${queryString(req.query)}`,
          method: req.method,
          headers,
          agent: this.agent,
        },
        resolve,
      );
      request.on('error', reject);
      const gate = req.gate;
      if (!gate) {
        request.end(payload);
        return;
      }
      // Nothing is written before end(), so nothing leaves unless the gate is still open.
      request.once('socket', (socket: net.Socket) => {
        const dispatch = () => {
          try {
            if (req.signal?.aborted) throw new AbortedError(req.what);
            gate();
          } catch (err) {
            request.destroy(err as Error);
            return;
          }
          // From here to the socket is synchronous: a connected socket takes the request
          // whole, in this call. A process stopped in between sends on resume; only the API
          // server can refuse that (deploy/15-leader-fence.yaml).
          request.end(payload);
        };
        if (this.connecting.has(socket)) socket.once(this.secure ? 'secureConnect' : 'connect', dispatch);
        else dispatch();
      });
    });
    return { request, response };
  }

  private async freshAuthHeaders(): Promise<Record<string, string>> {
    const opts: RequestOptions = {};
    try {
      await this.kubeConfig.applyToHTTPSOptions(opts);
    } catch {
      // client-node's error carries what the plugin printed, which may be a credential:
      // name the plugin, never echo its output (nor keep that error's stack for -v).
      const user = this.kubeConfig.getCurrentUser();
      const exec = user?.exec as { command?: string } | undefined;
      const provider = user?.authProvider as { name?: string } | undefined;
      const source = exec ? `the exec plugin "${exec.command}"` : `the auth provider "${provider?.name}"`;
      throw new ForbiddenError(`getting credentials from ${source} failed; run it by hand to see why`, 401);
    }
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(opts.headers ?? {})) {
      if (typeof value === 'string') out[key] = value;
    }
    return out;
  }
}

/** CA, client certificate and key of the current context, read once. */
function tlsMaterial(kc: KubeConfig): SecureContextOptions {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  const read = (file?: string, data?: string): Buffer | undefined => {
    if (file) return readFileSync(file);
    if (data) return Buffer.from(data, 'base64');
    return undefined;
  };
  const options: SecureContextOptions = {};
  const ca = read(cluster?.caFile, cluster?.caData);
  if (ca) options.ca = ca;
  const cert = read(user?.certFile, user?.certData);
  if (cert) options.cert = cert;
  const key = read(user?.keyFile, user?.keyData);
  if (key) options.key = key;
  return options;
}

function queryString(query: Request['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The body as text, decoded as it arrives (and without managedFields, when asked): a list of
 * 10 000 objects is never held whole as bytes beside its text.
 */
function readText(res: IncomingMessage, dropManagedFields = false): Promise<string> {
  const decoder = new StringDecoder('utf8');
  const stripper = dropManagedFields ? new ManagedFieldsStripper() : null;
  const parts: string[] = [];
  // Events, not `for await`: an async iterator costs a promise and a tick per chunk, which at
  // thousands of small answers is a measurable share of a pass's CPU.
  return new Promise((resolve, reject) => {
    res.on('data', (chunk: Buffer) => {
      for (const kept of stripper ? stripper.push(chunk) : [chunk]) parts.push(decoder.write(kept));
    });
    res.once('error', reject);
    res.once('end', () => {
      for (const kept of stripper?.end() ?? []) parts.push(decoder.write(kept));
      parts.push(decoder.end());
      resolve(parts.join(''));
    });
    // Destroyed before its end (a timeout, an abort, a cut connection): no 'end' will come.
    res.once('close', () => {
      if (!res.complete) reject(new Error('the answer was cut short'));
    });
  });
}

interface StatusBody {
  message?: string;
  reason?: string;
}

/** Maps an API status to a typed error, with the server's own message (kubectl's wording). */
export function statusError(code: number, text: string, what: string): KubeError {
  let body: StatusBody;
  let isStatus = true;
  try {
    body = JSON.parse(text) as StatusBody;
  } catch {
    body = { message: text.trim() || undefined };
    isStatus = false;
  }
  const message = body.message || `${what}: HTTP ${code}`;
  switch (code) {
    case 404:
      // A path the server does not route (an API it no longer serves) answers "404 page not
      // found" in plain text, which names nothing: kubectl's wording, with what was asked.
      return new NotFoundError(
        isStatus && body.message ? body.message : `the server could not find the requested resource (${what})`,
      );
    case 409:
      return new ConflictError(message, body.reason === 'AlreadyExists');
    case 401:
      // kubectl's wording; never the credentials themselves.
      return new ForbiddenError(
        `you must be logged in to the server (${body.message || 'Unauthorized'}): the token or certificate of this context was refused; is it wrong or expired?`,
        401,
      );
    case 403:
      return message.includes(LEADER_FENCE_POLICY) ? new NotLeaderError(message, true) : new ForbiddenError(message);
    case 400:
    case 422:
      return new InvalidError(message, code);
    case 410:
      return new KubeError('Gone', message, code);
    default:
      return new KubeError('Server', message, code);
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
]);

function networkError(err: unknown, server: string): Error {
  if (err instanceof KubeError) return err;
  const code = (err as { code?: string } | undefined)?.code;
  if (code && NETWORK_CODES.has(code)) {
    return new UnreachableError(
      `the connection to the server ${server} was refused or failed (${code}): is the cluster running?`,
    );
  }
  if (code && /^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code)) {
    return new UnreachableError(`TLS with ${server} failed: ${(err as Error).message}`);
  }
  if ((err as Error | undefined)?.name === 'AbortError')
    return new UnreachableError(`the request to ${server} was aborted`);
  return err instanceof Error ? err : new Error(String(err));
}

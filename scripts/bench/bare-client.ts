// The client of the write floor (floor.ts): Node's https with a keep-alive agent and the
// kubeconfig's credentials, as bare as a client gets.
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as http from 'node:http';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import type { ReadyWatch } from './controller';

/** The floor's User-Agent, so the audit log counts its requests apart from everyone else's. */
const FLOOR_USER_AGENT = 'webservice-bench-floor/1';

interface NamedEntry<T> {
  name: string;
  cluster?: T;
  user?: T;
  context?: T;
}

interface KubeconfigFile {
  'current-context'?: string;
  clusters?: NamedEntry<Partial<Record<string, string | boolean>>>[];
  users?: NamedEntry<Partial<Record<string, string>>>[];
  contexts?: NamedEntry<Record<string, string>>[];
}

/** Reads a file named by a kubeconfig, relative to the kubeconfig's directory. */
function readRelative(base: string, file: string): Buffer {
  return fs.readFileSync(path.resolve(path.dirname(base), file));
}

/**
 * The smallest honest client: Node's https with a keep-alive agent, the current context's
 * server, CA and credentials (a bearer token or a client certificate; nothing that needs
 * an exec plugin), JSON in and out.
 */
export class BareClient {
  private readonly agent: https.Agent;
  private readonly url: URL;
  private readonly headers: Record<string, string> = { 'user-agent': FLOOR_USER_AGENT, accept: 'application/json' };

  constructor(maxSockets: number) {
    const file = (process.env.KUBECONFIG ?? '').split(path.delimiter).find(Boolean);
    if (!file) throw new Error('the bare client needs KUBECONFIG');
    const config = yaml.load(fs.readFileSync(file, 'utf8')) as KubeconfigFile;
    const context = config.contexts?.find((c) => c.name === config['current-context'])?.context;
    const cluster = config.clusters?.find((c) => c.name === context?.cluster)?.cluster;
    const user = config.users?.find((u) => u.name === context?.user)?.user ?? {};
    if (!cluster || typeof cluster.server !== 'string') throw new Error(`no cluster for context in ${file}`);
    this.url = new URL(cluster.server);
    const options: https.AgentOptions = { keepAlive: true, maxSockets };
    if (typeof cluster['certificate-authority-data'] === 'string')
      options.ca = Buffer.from(cluster['certificate-authority-data'], 'base64');
    else if (typeof cluster['certificate-authority'] === 'string')
      options.ca = readRelative(file, cluster['certificate-authority']);
    if (cluster['insecure-skip-tls-verify'] === true) options.rejectUnauthorized = false;
    if (user['client-certificate-data']) options.cert = Buffer.from(user['client-certificate-data'], 'base64');
    else if (user['client-certificate']) options.cert = readRelative(file, user['client-certificate']);
    if (user['client-key-data']) options.key = Buffer.from(user['client-key-data'], 'base64');
    else if (user['client-key']) options.key = readRelative(file, user['client-key']);
    const token = user.token ?? (user.tokenFile ? readRelative(file, user.tokenFile).toString('utf8').trim() : '');
    if (token) this.headers.authorization = `Bearer ${token}`;
    if (user.exec || user['auth-provider'])
      throw new Error('the bare client takes a token or a client certificate, not an exec or auth-provider plugin');
    this.agent = new https.Agent(options);
  }

  request<T>(method: 'POST' | 'PATCH', apiPath: string, body: unknown, contentType = 'application/json'): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = payload
      ? { ...this.headers, 'content-type': contentType, 'content-length': String(payload.length) }
      : this.headers;
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname,
          port: this.url.port,
          path: apiPath,
          method,
          agent: this.agent,
          headers,
        },
        (res: http.IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${apiPath}: ${res.statusCode} ${text}`));
            else resolve(JSON.parse(text) as T);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /**
   * A watch of a collection from now on (JSON lines), each object handed to onObject as it
   * arrives; for a burst beside the floor, a far lighter watcher than `kubectl get -w`.
   */
  watch(apiPath: string, onObject: (object: Record<string, unknown>, atMs: number) => void): ReadyWatch {
    let failure: string | undefined;
    let stopped = false;
    let pending = '';
    const req = https.get(
      {
        protocol: this.url.protocol,
        hostname: this.url.hostname,
        port: this.url.port,
        path: `${apiPath}?watch=true`,
        agent: this.agent,
        headers: this.headers,
      },
      (res) => {
        if ((res.statusCode ?? 0) >= 300) failure = `watch ${apiPath}: ${res.statusCode}`;
        res.on('data', (chunk: Buffer) => {
          const atMs = performance.now();
          pending += chunk.toString('utf8');
          let newline: number;
          while ((newline = pending.indexOf('\n')) >= 0) {
            const line = pending.slice(0, newline);
            pending = pending.slice(newline + 1);
            const event = JSON.parse(line) as { type: string; object: Record<string, unknown> };
            if (event.type === 'ERROR') failure = `watch ${apiPath}: ${JSON.stringify(event.object)}`;
            else onObject(event.object, atMs);
          }
        });
        res.on('end', () => (failure ??= stopped ? undefined : `watch ${apiPath}: ended`));
      },
    );
    req.on('error', (err) => (failure ??= stopped ? undefined : `watch ${apiPath}: ${err.message}`));
    return {
      get failure() {
        return failure;
      },
      stop: () => {
        stopped = true;
        req.destroy();
        return Promise.resolve();
      },
    };
  }

  close(): void {
    this.agent.destroy();
  }
}

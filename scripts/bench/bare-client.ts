// The client of the write floor (floor.ts): Node's https with a keep-alive agent and the current
// context's server, CA and credentials (a token or a client certificate), as bare as a client gets.
import { execFileSync } from 'node:child_process';
import * as https from 'node:https';
import * as http from 'node:http';
import type { ReadyWatch } from './controller';
import { eachLine } from './proc';

/** The floor's User-Agent, so the audit log counts its requests apart from everyone else's. */
const FLOOR_USER_AGENT = 'webservice-bench-floor/1';

type Entry = { [key: string]: Entry | string | boolean | undefined };

export class BareClient {
  private readonly agent: https.Agent;
  private readonly url: URL;
  private readonly headers: Record<string, string> = { 'user-agent': FLOOR_USER_AGENT, accept: 'application/json' };

  constructor(maxSockets: number) {
    const view = ['config', 'view', '--raw', '--minify', '--flatten', '-o', 'json'];
    const config = JSON.parse(execFileSync('kubectl', view, { encoding: 'utf8' })) as Record<string, [Entry?]>;
    const cluster = (config.clusters[0]?.cluster ?? {}) as Entry;
    const user = (config.users[0]?.user ?? {}) as Entry;
    if (typeof cluster.server !== 'string') throw new Error('the bare client found no server in the kubeconfig');
    if (user.exec || user['auth-provider'] || user.tokenFile)
      throw new Error('the bare client takes a token or a client certificate, not an exec or auth-provider plugin');
    const data = (value: Entry[string]) => (typeof value === 'string' ? Buffer.from(value, 'base64') : undefined);
    this.url = new URL(cluster.server);
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets,
      ca: data(cluster['certificate-authority-data']),
      rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
      cert: data(user['client-certificate-data']),
      key: data(user['client-key-data']),
    });
    if (typeof user.token === 'string') this.headers.authorization = `Bearer ${user.token}`;
  }

  private options(apiPath: string, method: string, headers = this.headers): https.RequestOptions {
    const { protocol, hostname, port } = this.url;
    return { protocol, hostname, port, path: apiPath, method, agent: this.agent, headers };
  }

  request<T>(method: 'POST' | 'PATCH', apiPath: string, body: unknown, contentType = 'application/json'): Promise<T> {
    const payload = Buffer.from(JSON.stringify(body));
    const headers = { ...this.headers, 'content-type': contentType, 'content-length': String(payload.length) };
    return new Promise((resolve, reject) => {
      const req = https.request(this.options(apiPath, method, headers), (res: http.IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${apiPath}: ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text) as T);
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** A watch of a collection from now on, each object to onObject as it arrives; its stop closes the client. */
  watch(apiPath: string, onObject: (object: Record<string, unknown>, atMs: number) => void): ReadyWatch {
    let failure: string | undefined;
    let stopped = false;
    const req = https.get(this.options(`${apiPath}?watch=true`, 'GET'), (res) => {
      if ((res.statusCode ?? 0) >= 300) failure = `watch ${apiPath}: ${res.statusCode}`;
      eachLine(res, (line, atMs) => {
        const event = JSON.parse(line) as { type: string; object: Record<string, unknown> };
        if (event.type === 'ERROR') failure = `watch ${apiPath}: ${JSON.stringify(event.object)}`;
        else onObject(event.object, atMs);
      });
      res.on('end', () => (failure ??= stopped ? undefined : `watch ${apiPath}: ended`));
    });
    req.on('error', (err) => (failure ??= stopped ? undefined : `watch ${apiPath}: ${err.message}`));
    return {
      get failure() {
        return failure;
      },
      stop: () => {
        stopped = true;
        req.destroy();
        this.close();
        return Promise.resolve();
      },
    };
  }

  close(): void {
    this.agent.destroy();
  }
}

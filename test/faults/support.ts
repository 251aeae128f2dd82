// Tools the fault scenarios share: bulk creation, the plugin as a killable child process,
// control-plane faults (apiserver restart, etcd compaction), a direct admin client for
// fast concurrent writers, a loopback proxy that can go silent, and the results log that
// docs/RELIABILITY.md is written from.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as net from 'node:net';
import * as path from 'node:path';
import { OWNED_SELECTOR } from '../../src/core/model';
import {
  AuditEvent,
  AuditReader,
  Background,
  PLUGIN,
  ROOT,
  getJson,
  kubectl,
  run,
  waitEstablished,
} from '../support/cluster';
import { InvariantReport } from '../support/invariants';
import { ownPlane } from '../support/plane';

export { planeCommand } from '../support/plane';

export { createWebServices, numbered } from '../support/cluster';
export { CONTROLLER_USER } from '../support/controller';
export const onLocalPlane = process.env.USE_EXISTING_CLUSTER !== 'true';

export function count(resource: string, namespace: string, selector?: string): number {
  return getJson(['get', resource, '-n', namespace, ...(selector ? ['-l', selector] : [])]).items.length;
}

export const OWNED = OWNED_SELECTOR;

/**
 * Counts audit events as the apiserver writes them (the log is written before the response
 * goes out), cheaply enough to poll every few milliseconds: a kill can be timed to a point
 * in a pass that lasts a few seconds.
 */
export class AuditTail {
  private readonly reader = new AuditReader();
  private matched = 0;

  constructor(private readonly matches: (event: AuditEvent) => boolean) {}

  count(): number {
    this.matched += this.reader.next().filter(this.matches).length;
    return this.matched;
  }
}

/** Deletes a namespace without leaving WebServices stuck on our finalizer once nothing reconciles them. */
export function cleanNamespace(namespace: string): void {
  run('kubectl', ['delete', 'webservices', '--all', '-n', namespace, '--wait=false']);
  run(PLUGIN, ['finalize', '--all', '-n', namespace, '-o', 'json']);
  run('kubectl', ['delete', 'namespace', namespace, '--wait=false']);
}

/** The plugin as a child process that a scenario can kill, with what it printed. */
export class PluginProcess extends Background {
  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    super(PLUGIN, args, { env });
  }
}

/**
 * Applies deploy/'s leader fence on a kube-apiserver that starts after it. Kubernetes 1.36
 * stops an admission policy's informer of a built-in paramKind (the fence's Lease) once no
 * binding uses it, and never starts it again in that process (kubernetes/kubernetes#130887):
 * a fence applied again after an earlier file deleted it judges by a frozen Lease, refusing
 * the leader or admitting anyone. A fresh apiserver has a fresh informer.
 */
export function installLeaderFence(): void {
  kubectl(['apply', '-f', path.join(ROOT, 'deploy/15-leader-fence.yaml')]);
  if (onLocalPlane) restartApiserver();
}

/** Stops and starts kube-apiserver alone (etcd, data and kubeconfig stay). */
export function restartApiserver(): void {
  const result = spawnSync('bash', [path.join(ROOT, 'scripts/control-plane.sh'), 'restart-apiserver'], {
    encoding: 'utf8',
    env: planeEnv(),
  });
  if (result.status !== 0) throw new Error(`restart-apiserver failed: ${result.stderr}`);
}

/**
 * The test's environment, given to each child on purpose: jest hands a test file a copy of
 * process.env, and a child started without env gets the worker's, where the plane that
 * workloadsPlane() started (WEBSERVICE_CP_DIR, KUBECONFIG) was never set.
 */
function planeEnv(): NodeJS.ProcessEnv {
  return { ...process.env };
}

/**
 * The plane is one that control-plane.sh runs on this machine, so a scenario may stop and
 * start its components: the suite's own, or an existing one (USE_EXISTING_CLUSTER=true)
 * whose state directory WEBSERVICE_CP_DIR names.
 */
const controlsPlane =
  onLocalPlane ||
  (process.env.WEBSERVICE_CP_DIR !== undefined &&
    fs.existsSync(path.join(process.env.WEBSERVICE_CP_DIR, 'server.url')));

/**
 * A plane that runs pods, for the scenarios that need one, without making every other
 * scenario pay for kube-scheduler and kwok: the suite's plane when it already runs them
 * (WEBSERVICE_CP_WORKLOADS=true), else, on a local plane, one of the file's own, started
 * by up() and stopped by down(). null when neither is possible (an existing cluster).
 */
export function workloadsPlane(): { up: () => void; down: () => void } | null {
  if (process.env.WEBSERVICE_CP_WORKLOADS === 'true' && controlsPlane) return { up: () => {}, down: () => {} };
  if (!onLocalPlane) return null;
  const plane = ownPlane({ prefix: 'webservice-faults-workloads', workloads: true });
  return {
    up() {
      plane.up();
      kubectl(['apply', '-f', path.join(ROOT, 'crds/webservices.apps.labhub.io.yaml')]);
      waitEstablished('webservices.apps.labhub.io');
    },
    down: plane.down,
  };
}

function planeFile(name: string): string {
  return fs.readFileSync(path.join(process.env.WEBSERVICE_CP_DIR ?? '', name), 'utf8').trim();
}

/** Compacts etcd at its current revision through etcd's own HTTP API; returns the revision. */
export async function compactEtcd(): Promise<number> {
  const etcd = planeFile('etcd.url');
  const status = (await (await fetch(`${etcd}/v3/maintenance/status`, { method: 'POST', body: '{}' })).json()) as {
    header: { revision: string };
  };
  const revision = Number(status.header.revision);
  const res = await fetch(`${etcd}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision, physical: true }),
  });
  if (!res.ok) throw new Error(`etcd compaction failed: ${res.status} ${await res.text()}`);
  return revision;
}

/** The admin's connection details, from the kubeconfig the tests use. */
function adminConnection(): { server: URL; ca: Buffer; token: string } {
  const config = getJson(['config', 'view', '--raw', '--minify', '--flatten']);
  const cluster = config.clusters[0].cluster;
  return {
    server: new URL(cluster.server),
    ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
    token: config.users[0].user.token,
  };
}

/** A keep-alive HTTPS client as the admin, for writers fast enough to race the controller. */
export class AdminClient {
  private readonly connection = adminConnection();
  private readonly agent = new https.Agent({ keepAlive: true, maxSockets: 8, ca: this.connection.ca });

  /** Sends one request; resolves with the status code (never throws on HTTP errors). */
  request(
    method: string,
    apiPath: string,
    body?: unknown,
    contentType = 'application/merge-patch+json',
  ): Promise<number> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: this.connection.server.hostname,
          port: this.connection.server.port,
          path: apiPath,
          method,
          agent: this.agent,
          headers: {
            Authorization: `Bearer ${this.connection.token}`,
            'User-Agent': 'fault-writer',
            ...(payload ? { 'Content-Type': contentType, 'Content-Length': String(payload.length) } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * A loopback TCP proxy in front of the apiserver (TLS passes through untouched). silence()
 * makes every connection open at that moment stop forwarding, without closing it: the
 * client sees a connection that is up and says nothing. New connections work normally.
 */
export class SilenceableProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<[net.Socket, net.Socket]>();
  private readonly silenced = new Set<net.Socket>();

  constructor(target: URL) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      this.sockets.add(pair);
      const forward = (from: net.Socket, to: net.Socket) =>
        from.on('data', (chunk) => {
          if (!this.silenced.has(from)) to.write(chunk);
        });
      forward(client, upstream);
      forward(upstream, client);
      const close = () => {
        this.sockets.delete(pair);
        this.silenced.delete(client);
        this.silenced.delete(upstream);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', close).on('error', close);
      upstream.on('close', close).on('error', close);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `https://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  /** Stops forwarding on every open connection; returns how many were silenced. */
  silence(): number {
    for (const [client, upstream] of this.sockets) {
      this.silenced.add(client);
      this.silenced.add(upstream);
    }
    return this.sockets.size;
  }

  close(): void {
    for (const [client, upstream] of this.sockets) {
      client.destroy();
      upstream.destroy();
    }
    this.server.close();
  }
}

/** A copy of a (JSON) kubeconfig whose cluster server is `server`. */
export function kubeconfigVia(file: string, server: string): string {
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  config.clusters[0].cluster.server = server;
  const copy = `${file}.via-${new URL(server).port}`;
  fs.writeFileSync(copy, JSON.stringify(config));
  return copy;
}

export function apiServerUrl(): URL {
  return new URL(getJson(['config', 'view', '--minify']).clusters[0].cluster.server);
}

// --- results -------------------------------------------------------------------------

export const RESULTS = process.env.FAULTS_RESULTS ?? path.join(ROOT, '.cache', 'faults-results.jsonl');

let commitUnderTest: string | undefined;

/** The commit these results come from, so a report written later (or elsewhere) names it right. */
function testedCommit(): string {
  if (commitUnderTest === undefined) {
    try {
      const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
      const dirty = execFileSync(
        'git',
        ['status', '--porcelain', '--untracked-files=no', '--', 'src', 'test', 'scripts'],
        { cwd: ROOT, encoding: 'utf8' },
      ).trim();
      commitUnderTest = dirty ? `${head} (with uncommitted changes)` : head;
    } catch {
      commitUnderTest = 'unknown';
    }
  }
  return commitUnderTest;
}

/** Appends one scenario's outcome to the results log (docs/RELIABILITY.md is written from it). */
export function recordResult(
  scenario: string,
  mode: 'apply' | 'run',
  report: InvariantReport,
  details: Record<string, unknown> = {},
): void {
  fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
  const line = {
    at: new Date().toISOString(),
    commit: testedCommit(),
    scenario,
    mode,
    passed: report.violations.length === 0,
    ...report.figures,
    details,
    violations: report.violations,
  };
  fs.appendFileSync(RESULTS, `${JSON.stringify(line)}\n`);
}

// The bench's fixtures, made and watched with plain kubectl: namespaces, many WebServices at
// once, and watch streams read line by line.
import { ChildProcess, spawn } from 'node:child_process';
import { Watched, eachLine, kubectl, pool, progress, run, until } from './proc';

/** kubectl create of a List: 250 per call stays under kubectl's client-side burst (300). */
const CREATE_CHUNK = 250;
const CREATE_PARALLEL = 4;

export function webServiceName(index: number): string {
  return `svc-${String(index).padStart(5, '0')}`;
}

export function webService(index: number): Record<string, unknown> {
  return {
    apiVersion: 'apps.labhub.io/v1',
    kind: 'WebService',
    metadata: { name: webServiceName(index) },
    spec: { image: `nginx:1.${index % 30}`, replicas: (index % 5) + 1 },
  };
}

export async function createNamespace(name: string): Promise<void> {
  await kubectl(['create', 'namespace', name]);
}

/** Creates WebServices 0..count-1; how long it took. */
export const createWebServices = (namespace: string, count: number, make = webService) =>
  sendLists('create', namespace, count, make);

/** Creates (replaces, applies server-side) objects 0..count-1 by Lists, several calls at once; how long it took. */
export async function sendLists(
  verb: 'create' | 'replace' | 'apply',
  namespace: string,
  count: number,
  make: (index: number) => Record<string, unknown>,
): Promise<number> {
  const started = Date.now();
  const args = verb === 'apply' ? ['apply', '--server-side', '--force-conflicts'] : [verb];
  // Each List is made when it is sent: 10 000 Secrets of 4 KiB need not all be in memory at once.
  const lists = Array.from({ length: Math.ceil(count / CREATE_CHUNK) }, (_, c) => () => {
    const first = c * CREATE_CHUNK;
    const items = Array.from({ length: Math.min(CREATE_CHUNK, count - first) }, (_, i) => make(first + i));
    const input = JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
    return kubectl([...args, '-n', namespace, '--validate=false', '-f', '-'], { input });
  });
  await pool(CREATE_PARALLEL, lists);
  return Date.now() - started;
}

/**
 * What a case leaves by the thousand, emptied a page at a time before its namespace goes (the
 * namespace controller deletes a collection in one request, which at 100 000 ran past the
 * apiserver's timeout): the children first, so that the garbage collector has none to chase.
 */
const BULK_COLLECTIONS = [
  '/api/v1/namespaces/NS/configmaps',
  '/apis/apps.labhub.io/v1/namespaces/NS/webservices',
  '/api/v1/namespaces/NS/events',
];
const DELETE_PAGE = 2000;

interface DeletedPage {
  items?: unknown[];
  metadata?: { remainingItemCount?: number };
}

/**
 * DELETE of a collection with `limit`, as many pages as the first answer says remain (objects
 * held by a finalizer would come back in every page).
 */
async function deleteCollection(collection: string): Promise<void> {
  let pages = 1;
  for (let page = 0; page < pages; page++) {
    const result = await run(['kubectl', 'delete', '--raw', `${collection}?limit=${DELETE_PAGE}`], { capture: true });
    if (result.status !== 0) {
      progress(`kubectl delete --raw ${collection} failed (${result.stderr.trim()}); leaving it to the namespace`);
      return;
    }
    const deleted = JSON.parse(result.stdout) as DeletedPage;
    if (page === 0)
      pages = Math.ceil(((deleted.items?.length ?? 0) + (deleted.metadata?.remainingItemCount ?? 0)) / DELETE_PAGE);
  }
}

/** Deletes a namespace, emptied first, and waits until it is gone: the next case starts on a quiet API server. */
export async function deleteNamespace(name: string, timeoutMs = 20 * 60_000): Promise<void> {
  for (const collection of BULK_COLLECTIONS) await deleteCollection(collection.replace('NS', name));
  await run(['kubectl', 'delete', 'namespace', name, '--wait=false']);
  const gone = async () => (await run(['kubectl', 'get', 'namespace', name])).status !== 0;
  await until(`namespace ${name} to go`, gone, { timeoutMs, everyMs: 2000 }).catch((err: Error) =>
    progress(`${err.message}; moving on`),
  );
}

/** Runs a case in a fresh namespace, deleted afterwards whatever becomes of the case. */
export async function inNamespace<T>(namespace: string, body: (namespace: string) => Promise<T>): Promise<T> {
  await createNamespace(namespace);
  try {
    return await body(namespace);
  } finally {
    progress(`deleting namespace ${namespace}`);
    await deleteNamespace(namespace);
  }
}

/** One line of a watch stream, with the bench's clock when it arrived. */
export interface WatchLine {
  atMs: number;
  fields: string[];
}

/**
 * `kubectl get -w -o jsonpath=…`: a line of space-separated fields per change, after the current
 * list (in chunks of 500, each one line of empty fields; `listEach`: a line per object).
 */
export class WatchStream implements Watched {
  private readonly child: ChildProcess;
  private stderr = '';
  readonly exited: Promise<void>;

  constructor(
    resource: string,
    namespace: string,
    fields: string[],
    onLine: (line: WatchLine) => void,
    { selector, listEach = false }: { selector?: string; listEach?: boolean } = {},
  ) {
    const template = `${fields.map((f) => `{${f}}`).join(' ')}{"\\n"}`;
    const args = ['get', resource, '-n', namespace, '-w', '-o', `jsonpath=${template}`];
    if (selector) args.push('-l', selector);
    if (listEach) args.push('--chunk-size=0');
    this.child = spawn('kubectl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    eachLine(this.child.stdout!, (line, atMs) => {
      if (line.trim() !== '') onLine({ atMs, fields: line.split(' ') });
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('close', () => resolve()));
  }

  get failure(): string | undefined {
    return this.child.exitCode !== null ? `kubectl get -w exited ${this.child.exitCode}: ${this.stderr}` : undefined;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

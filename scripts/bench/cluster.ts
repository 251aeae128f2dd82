// The bench's fixtures, made and watched with plain kubectl: namespaces, many WebServices
// at once, and watch streams read line by line. The bench itself never talks to the API.
import { ChildProcess, spawn } from 'node:child_process';
import { kubectl, progress, run, sleep } from './proc';

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

/** Creates WebServices 0..count-1 (see sendLists). Returns how long it took. */
export function createWebServices(
  namespace: string,
  count: number,
  make: (index: number) => Record<string, unknown> = webService,
): Promise<number> {
  return sendLists('create', namespace, count, make);
}

/**
 * Creates (or replaces, whole; or applies, server-side) objects 0..count-1 with `kubectl create
 * -f` (`replace -f`, `apply --server-side -f`) of Lists, several calls at once. Returns how long
 * it took. A custom resource takes no replace without its resourceVersion: apply changes one.
 */
export async function sendLists(
  verb: 'create' | 'replace' | 'apply',
  namespace: string,
  count: number,
  make: (index: number) => Record<string, unknown>,
): Promise<number> {
  const started = Date.now();
  const chunks: number[][] = [];
  for (let first = 0; first < count; first += CREATE_CHUNK) {
    chunks.push(Array.from({ length: Math.min(CREATE_CHUNK, count - first) }, (_, i) => first + i));
  }
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++];
      const list = { apiVersion: 'v1', kind: 'List', items: chunk.map((i) => make(i)) };
      const args = verb === 'apply' ? ['apply', '--server-side', '--force-conflicts'] : [verb];
      await kubectl([...args, '-n', namespace, '--validate=false', '-f', '-'], { input: JSON.stringify(list) });
    }
  };
  await Promise.all(Array.from({ length: CREATE_PARALLEL }, worker));
  return Date.now() - started;
}

/**
 * What a case leaves by the thousand, emptied a page at a time before the namespace goes:
 * the children first, so kube-controller-manager's garbage collector (its client limited
 * to 20 requests/s) has none to chase, then the WebServices, then their Events.
 */
const BULK_COLLECTIONS = [
  (namespace: string) => `/api/v1/namespaces/${namespace}/configmaps`,
  (namespace: string) => `/apis/apps.labhub.io/v1/namespaces/${namespace}/webservices`,
  (namespace: string) => `/api/v1/namespaces/${namespace}/events`,
];

/**
 * Objects per DELETE of a collection. The namespace controller deletes each collection in
 * one request, and at 100 000 objects that ran past the apiserver's 60 s request timeout,
 * again and again; a page of 2000 takes a few seconds.
 */
const DELETE_PAGE = 2000;

interface DeletedPage {
  items?: unknown[];
  metadata?: { remainingItemCount?: number };
}

/**
 * DELETE of a collection with `limit`, until all that was there at the first page is
 * gone: the apiserver deletes one page and says how many remain. Objects held by a
 * finalizer stay (terminating) and would come back in every page, so the number of
 * pages is counted from the first answer instead of deleting until none is left.
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

/**
 * Deletes a namespace, emptied first page by page (see DELETE_PAGE), and waits until it
 * is gone, so the next case starts on a quiet API server. No case adds a finalizer (apply
 * and run add none), so nothing needs to be let go of meanwhile.
 */
export async function deleteNamespace(name: string, timeoutMs = 20 * 60_000): Promise<void> {
  for (const collection of BULK_COLLECTIONS) await deleteCollection(collection(name));
  await run(['kubectl', 'delete', 'namespace', name, '--wait=false']);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exists = await run(['kubectl', 'get', 'namespace', name, '-o', 'name']);
    if (exists.status !== 0) return;
    if (Date.now() > deadline) {
      progress(`namespace ${name} still terminating after ${timeoutMs / 1000}s; moving on`);
      return;
    }
    await sleep(2000);
  }
}

/** One line of a watch stream, with the bench's clock when it arrived. */
export interface WatchLine {
  atMs: number;
  fields: string[];
}

/**
 * `kubectl get -w -o jsonpath=…`: one line per change, space-separated fields, after the
 * current list. kubectl reads that list in chunks of 500 and prints each chunk as one line
 * whose fields are empty; `listEach` asks for it unchunked, one line per object (a case that
 * needs the objects there are, not only their changes). Arrival times are the bench's
 * performance.now().
 */
export class WatchStream {
  private readonly child: ChildProcess;
  private pending = '';
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
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const atMs = performance.now();
      this.pending += chunk.toString('utf8');
      let newline: number;
      while ((newline = this.pending.indexOf('\n')) >= 0) {
        const line = this.pending.slice(0, newline);
        this.pending = this.pending.slice(newline + 1);
        if (line.trim() !== '') onLine({ atMs, fields: line.split(' ') });
      }
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('close', () => resolve()));
  }

  get failure(): string | undefined {
    return this.child.exitCode !== null
      ? `kubectl get -w exited ${this.child.exitCode}: ${this.stderr.trim()}`
      : undefined;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

/** Waits until check() holds, polling; throws after the timeout with what it was waiting for. */
export async function until(what: string, check: () => boolean, timeoutMs: number, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(everyMs);
  }
}

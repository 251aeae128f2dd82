// run started over a backlog: 2000 WebServices that all need a write (no child yet, then
// their children deleted by hand while no controller ran). A WebService created once run is
// working must not wait behind them with the priority queue on (the default), and does with
// --priority-queue=false. Both are read from the order of the writes in the audit log, not
// from timing: how many of the 2000 had been written before the new one's status write.
import {
  AuditEvent,
  AuditWindow,
  applyYaml,
  createNamespace,
  deleteNamespace,
  eventually,
  kubectl,
  tryGetJson,
  webService,
} from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';

const BACKLOG = 2000;
const CONCURRENCY = 4;
const OWNED = 'app.kubernetes.io/managed-by=webservice-controller';

const names = Array.from({ length: BACKLOG }, (_, i) => `ws-${String(i).padStart(4, '0')}`);

/** The WebService a write was for: itself (or its status), or the owner of its `<name>-desired` child. */
function writtenFor(e: AuditEvent): string | undefined {
  const name = e.objectRef?.name;
  if (!name) return undefined;
  return e.objectRef?.resource === 'webservices' ? name : name.replace(/-desired$/, '');
}

interface Outcome {
  /** Backlog WebServices with at least one write logged before the new one's status write. */
  writtenBefore: number;
  readyAfterMs: number;
}

describe(`run over a backlog of ${BACKLOG} WebServices that need a write`, () => {
  let ns: string;
  let kubeconfig: string;
  let ctl: ControllerProcess | undefined;

  beforeAll(() => {
    kubeconfig = controllerKubeconfig();
    ns = createNamespace('backlog');
    for (let i = 0; i < BACKLOG; i += 500) {
      const items = names.slice(i, i + 500).map((name) => ({
        apiVersion: 'apps.labhub.io/v1',
        kind: 'WebService',
        metadata: { name },
        spec: { image: 'nginx:1.27' },
      }));
      kubectl(['create', '-n', ns, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    }
  }, 120_000);
  afterAll(async () => {
    await ctl?.stop();
    deleteNamespace(ns);
  });

  /** Starts run on the backlog, creates `fresh` once it works, and reads the audit log when `fresh` is Ready. */
  async function newcomerBehindBacklog(fresh: string, args: string[]): Promise<Outcome> {
    // Whatever an earlier run wrote, every backlog WebService needs a write again: a deleted
    // child. One DELETE of the collection, not 2000.
    kubectl(['delete', '--raw', `/api/v1/namespaces/${ns}/configmaps?labelSelector=${encodeURIComponent(OWNED)}`]);
    const audit = new AuditWindow(ns);
    audit.mark();
    ctl = new ControllerProcess(['-n', ns, '--kubeconfig', kubeconfig, `--concurrency=${CONCURRENCY}`, ...args]);
    await ctl.waitForLog(/controller working/, 60_000);
    const createdAt = Date.now();
    applyYaml(ns, webService(fresh, { image: 'nginx:1.27' }));
    await eventually(() => {
      const ws = tryGetJson(['get', 'webservice', fresh, '-n', ns]);
      return ws?.status?.conditions?.some(
        (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
      );
    }, 110_000);
    const readyAfterMs = Date.now() - createdAt;
    await ctl.stop();
    ctl = undefined;

    // The controller's writes to WebServices and their children (its Events aside).
    const writes = (await audit.mutating()).filter(
      (e) =>
        e.userAgent?.includes('kubectl-webservice/') &&
        ['webservices', 'configmaps'].includes(e.objectRef?.resource ?? ''),
    );
    const statusWrite = writes.findIndex(
      (e) =>
        e.objectRef?.resource === 'webservices' && e.objectRef.subresource === 'status' && e.objectRef.name === fresh,
    );
    expect(statusWrite).toBeGreaterThanOrEqual(0);
    const before = new Set(
      writes
        .slice(0, statusWrite)
        .map(writtenFor)
        .filter((name) => name !== undefined && name !== fresh),
    );
    // The writes seen are the backlog's own (a child, a status), or an earlier newcomer's child.
    expect([...before].filter((name) => !names.includes(name!) && !name!.startsWith('fresh-'))).toEqual([]);
    return { writtenBefore: [...before].filter((name) => names.includes(name!)).length, readyAfterMs };
  }

  it('with the priority queue (the default), a new WebService is Ready while most of the backlog still waits', async () => {
    const { writtenBefore, readyAfterMs } = await newcomerBehindBacklog('fresh-priority', []);
    console.log(
      `priority queue on: ${writtenBefore}/${BACKLOG} written before the new one, Ready in ${readyAfterMs} ms`,
    );
    expect(writtenBefore).toBeLessThan(BACKLOG / 4);
  }, 180_000);

  it('with --priority-queue=false, the same WebService waits behind the whole backlog', async () => {
    const { writtenBefore, readyAfterMs } = await newcomerBehindBacklog('fresh-fifo', ['--priority-queue=false']);
    console.log(
      `priority queue off: ${writtenBefore}/${BACKLOG} written before the new one, Ready in ${readyAfterMs} ms`,
    );
    // One FIFO: every backlog key was queued first; at most the other workers' keys finish after it.
    expect(writtenBefore).toBeGreaterThanOrEqual(BACKLOG - CONCURRENCY);
  }, 180_000);
});

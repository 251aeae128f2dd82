// The backlog case (issue 19): `run` started over N WebServices that all need a write, then
// one new WebService created once its workers run. With the priority queue on (the default)
// the newcomer's event goes ahead of the initial list's keys; with --priority-queue=false it
// waits behind them. Ready is timed on a watch; the queue order is read from the audit log:
// how many backlog WebServices had a write before the newcomer's status write.
import { Audit, AuditEvent } from './audit';
import { WatchStream, createWebServices, until } from './cluster';
import { ControllerProcess, READY_FIELDS, isReadyLine } from './controller';
import { BacklogRun } from './results';
import { kubectl, progress, round, sleep } from './proc';

const OWNED = 'app.kubernetes.io/managed-by=webservice-controller';
/** The backlog's names (cluster.ts's webServiceName), not an earlier newcomer's. */
const BACKLOG_NAME = /^svc-\d{5}$/;

/** The WebService a write was for: itself (or its status), or the owner of its `<name>-desired` child. */
function writtenFor(e: AuditEvent): string | undefined {
  const name = e.objectRef?.name;
  if (!name) return undefined;
  if (e.objectRef?.resource === 'webservices') return name;
  return e.objectRef?.resource === 'configmaps' ? name.replace(/-desired$/, '') : undefined;
}

async function newcomerBehindBacklog(
  audit: Audit | undefined,
  namespace: string,
  n: number,
  priorityQueue: boolean,
): Promise<BacklogRun> {
  const name = `newcomer-${priorityQueue ? 'priority' : 'fifo'}`;
  let seenAt: number | undefined;
  let readyAt: number | undefined;
  const stream = new WatchStream('webservices', namespace, READY_FIELDS, ({ atMs, fields }) => {
    if (fields[0] !== name) return;
    seenAt ??= atMs;
    if (isReadyLine(fields)) readyAt ??= atMs;
  });
  const since = audit?.mark() ?? 0;
  const controller = await ControllerProcess.start(namespace, priorityQueue ? [] : ['--priority-queue=false']);
  try {
    await controller.waitForLog(/^controller working/);
    progress(`backlog: ${n} WebServices queued, creating ${name} (priority queue ${priorityQueue ? 'on' : 'off'})`);
    const createdAt = performance.now();
    await kubectl(['create', '-n', namespace, '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps.labhub.io/v1',
        kind: 'WebService',
        metadata: { name },
        spec: { image: 'nginx:1.27' },
      }),
    });
    await until(
      `${name} Ready`,
      () => {
        if (stream.failure) throw new Error(stream.failure);
        return readyAt !== undefined;
      },
      5 * 60_000,
      5,
    );
    controller.mustHaveNoErrors();
    let writtenBefore: number | null = null;
    if (audit) {
      const writes = (await audit.writes(since, 'controller')).filter((e) => writtenFor(e) !== undefined);
      const statusWrite = writes.findIndex((e) => e.objectRef?.subresource === 'status' && e.objectRef.name === name);
      if (statusWrite < 0) throw new Error(`no status write for ${name} in the audit log`);
      const backlog = writes
        .slice(0, statusWrite)
        .map(writtenFor)
        .filter((w) => w && BACKLOG_NAME.test(w));
      writtenBefore = new Set(backlog).size;
    }
    return {
      n,
      priorityQueue,
      readyMs: Math.round(readyAt! - createdAt),
      seenToReadyMs: round(readyAt! - seenAt!, 1),
      writtenBefore,
    };
  } finally {
    await controller.stop();
    await stream.stop();
  }
}

/**
 * On a namespace of N new WebServices: the newcomer with the priority queue on, then (every
 * child deleted again, in one request) with it off.
 */
export async function controllerBacklog(audit: Audit | undefined, namespace: string, n: number): Promise<BacklogRun[]> {
  progress(`backlog: creating ${n} WebServices while no controller runs`);
  await createWebServices(namespace, n);
  const runs: BacklogRun[] = [];
  for (const priorityQueue of [true, false]) {
    if (runs.length > 0) {
      // Whatever the last run wrote, every backlog WebService needs a write again.
      await kubectl([
        'delete',
        '--raw',
        `/api/v1/namespaces/${namespace}/configmaps?labelSelector=${encodeURIComponent(OWNED)}`,
      ]);
      await sleep(1000);
    }
    runs.push(await newcomerBehindBacklog(audit, namespace, n, priorityQueue));
  }
  return runs;
}

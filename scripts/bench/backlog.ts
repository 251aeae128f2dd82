// The backlog case (issue 19): `run` started over N WebServices that all need a write, then one
// new WebService created. With the priority queue (the default) its event goes ahead of the
// initial list's keys; its Ready is timed on a watch.
import { WatchStream, createWebServices } from './cluster';
import { ControllerProcess, READY_FIELDS, isReadyLine } from './controller';
import { kubectl, progress, round, until } from './proc';

export async function controllerBacklog(namespace: string, n: number) {
  progress(`backlog: creating ${n} WebServices while no controller runs`);
  await createWebServices(namespace, n);
  const name = 'newcomer';
  let seenAt: number | undefined;
  let readyAt: number | undefined;
  const stream = new WatchStream('webservices', namespace, READY_FIELDS, ({ atMs, fields }) => {
    if (fields[0] !== name) return;
    seenAt ??= atMs;
    if (isReadyLine(fields)) readyAt ??= atMs;
  });
  let controller: ControllerProcess | undefined;
  try {
    controller = await ControllerProcess.start(namespace);
    progress(`backlog: ${n} WebServices queued, creating ${name}`);
    const createdAt = performance.now();
    const newcomer = {
      apiVersion: 'apps.labhub.io/v1',
      kind: 'WebService',
      metadata: { name },
      spec: { image: 'nginx:1.27' },
    };
    await kubectl(['create', '-n', namespace, '-f', '-'], { input: JSON.stringify(newcomer) });
    await until(`${name} Ready`, () => readyAt, { timeoutMs: 5 * 60_000, everyMs: 5, watches: [stream] });
    controller.mustHaveNoErrors();
    return {
      n,
      priorityQueue: true,
      readyMs: Math.round(readyAt! - createdAt),
      seenToReadyMs: round(readyAt! - seenAt!, 1),
    };
  } finally {
    await controller?.stop();
    await stream.stop();
  }
}

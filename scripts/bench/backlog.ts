// The backlog case (issue 19): `run` started over N WebServices that all need a write, then
// one new WebService created once its workers run. With the priority queue (the default) the
// newcomer's event goes ahead of the initial list's keys; Ready is timed on a watch.
import { WatchStream, createWebServices, until } from './cluster';
import { ControllerProcess, READY_FIELDS, isReadyLine } from './controller';
import { BacklogRun } from './results';
import { kubectl, progress, round } from './proc';

/** On a namespace of N new WebServices, `run` started over them and a newcomer created. */
export async function controllerBacklog(namespace: string, n: number): Promise<BacklogRun> {
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
  const controller = await ControllerProcess.start(namespace);
  try {
    await controller.waitForLog(/^controller working/);
    progress(`backlog: ${n} WebServices queued, creating ${name}`);
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
    return {
      n,
      priorityQueue: true,
      readyMs: Math.round(readyAt! - createdAt),
      seenToReadyMs: round(readyAt! - seenAt!, 1),
    };
  } finally {
    await controller.stop();
    await stream.stop();
  }
}

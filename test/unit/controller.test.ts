// The controller's workers against a fake client that holds one WebService: a reconcile that
// throws (a bug) is counted as a panic and the worker carries on with the next try.
import { Controller } from '../../src/controller/controller';
import { createMetrics } from '../../src/controller/metrics';
import type { WebService } from '../../src/core/model';
import type { KubeClient } from '../../src/kube/client';
import type { WatchOptions } from '../../src/kube/transport';

const WEB: WebService = {
  apiVersion: 'apps.labhub.io/v1',
  kind: 'WebService',
  metadata: { name: 'web', namespace: 'ns', uid: 'u-web', resourceVersion: '1', generation: 1 },
  spec: { image: 'nginx:1.27' },
};

/** A watch that stays open, silent, until the controller stops. */
const silentWatch = (options: WatchOptions) =>
  new Promise<void>((resolve) => options.signal?.addEventListener('abort', () => resolve()));

/** Lists WEB and no ConfigMaps; a client dry run, so a reconcile that gets through writes nothing. */
function fakeClient(): KubeClient {
  return {
    dryRun: 'client',
    listWebServices: () => Promise.resolve({ items: [structuredClone(WEB)], resourceVersion: '1' }),
    watchWebServices: (_ns: unknown, _rv: unknown, _t: unknown, _on: unknown, options: WatchOptions) =>
      silentWatch(options),
    listConfigMaps: () => Promise.resolve({ items: [], resourceVersion: '1' }),
    watchConfigMaps: (_ns: unknown, _rv: unknown, _t: unknown, _l: unknown, _on: unknown, options: WatchOptions) =>
      silentWatch(options),
  } as unknown as KubeClient;
}

function controllerFor(client: KubeClient) {
  const metrics = createMetrics();
  const logs: string[] = [];
  const controller = new Controller(client, {
    namespace: 'ns',
    concurrency: 1,
    requeueAfterSeconds: 10,
    resyncPeriodMs: 0,
    backoffBaseMs: 1,
    backoffMaxMs: 10,
    watchIdleTimeoutMs: 60_000,
    priorityQueue: true,
    identity: 'test',
    log: (_level, message) => logs.push(message),
    metrics,
    now: () => '2026-12-01T00:00:00Z',
  });
  return { controller, metrics, logs };
}

async function until(condition: () => Promise<boolean>, limitMs = 5000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function sample(metrics: ReturnType<typeof createMetrics>, series: string): Promise<number | undefined> {
  const line = (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function started(controller: Controller): Promise<void> {
  controller.startCaches();
  await until(() => Promise.resolve(controller.synced()));
  controller.startWorkers();
}

describe('Controller workers', () => {
  it('count a reconcile that throws as a panic, survive it and retry the key with backoff', async () => {
    const client = fakeClient();
    let throws = 1;
    // The engine's first look at the client throws, as a bug in it would.
    Object.defineProperty(client, 'dryRun', {
      get: () => {
        if (throws-- > 0) throw new TypeError('a bug');
        return 'client';
      },
    });
    const { controller, metrics, logs } = controllerFor(client);
    await started(controller);
    const success = 'controller_runtime_reconcile_total{controller="webservice",result="success"}';
    await until(async () => (await sample(metrics, success)) === 1);
    await controller.shutDown();

    expect(await sample(metrics, 'controller_runtime_reconcile_panics_total{controller="webservice"}')).toBe(1);
    expect(await sample(metrics, 'controller_runtime_reconcile_errors_total{controller="webservice"}')).toBe(1);
    expect(await sample(metrics, 'workqueue_retries_total{name="webservice"}')).toBe(1);
    expect(await sample(metrics, 'controller_runtime_active_workers{controller="webservice"}')).toBe(0);
    expect(await sample(metrics, 'controller_runtime_max_concurrent_reconciles{controller="webservice"}')).toBe(1);
    expect(logs).toContain('reconcile failed');
  });
});

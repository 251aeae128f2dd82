// Where the controller's keys get their priority (initial list low, events normal), and its
// workers against one WebService: a reconcile that throws (a bug) is counted
// as a panic and the worker carries on; a conflict is retried until the foreign object goes;
// a reconcile whose write never gets an answer is aborted at --reconcile-timeout, counted,
// writes no status, and is retried with backoff.
import { Controller, ControllerOptions } from '../../src/controller/controller';
import { createMetrics } from '../../src/controller/metrics';
import { CHILD_KINDS } from '../../src/core/kinds';
import { LOW_PRIORITY, NORMAL_PRIORITY } from '../../src/controller/queue';
import { Child, MANAGED_BY_LABEL, MANAGED_BY_VALUE, WebService } from '../../src/core/model';
import type { KubeApi } from '../../src/kube/api';
import { Request, Transport, WatchOptions } from '../../src/kube/transport';
import { AbortedError, ConflictError, orNull } from '../../src/kube/errors';
import { FakeApi } from '../support/fake-api';
import { useLocalServer } from '../support/local-transport';
import { until } from '../support/wait';
import { WEBSERVICE_TYPE } from '../../src/core/resource-types';

const WEB: WebService = {
  apiVersion: 'apps.labhub.io/v1',
  kind: 'WebService',
  metadata: { name: 'web', namespace: 'ns', uid: 'u-web', resourceVersion: '1', generation: 1 },
  spec: { image: 'nginx:1.27' },
};

/** A watch that stays open, silent, until the controller stops. */
const silentWatch = (options: WatchOptions) =>
  new Promise<void>((resolve) => options.signal?.addEventListener('abort', () => resolve()));

/** Lists `items` (WEB by default) and no children; a client dry run, so a reconcile that gets through writes nothing. */
function fakeClient(items: WebService[] = [WEB]): FakeApi {
  return new FakeApi({ webServices: items, dryRun: 'client' });
}

function controllerFor(client: KubeApi, options: Partial<ControllerOptions> = {}) {
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
    reconcileTimeoutMs: 0,
    ...options,
    identity: 'test',
    log: (_level, message) => logs.push(message),
    metrics,
    now: () => '2026-12-01T00:00:00Z',
  });
  return { controller, metrics, logs };
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

describe('Controller priorities', () => {
  const named = (name: string, resourceVersion = '1'): WebService => ({
    ...structuredClone(WEB),
    metadata: { ...WEB.metadata, name, uid: `u-${name}`, resourceVersion },
  });

  it.each([
    [true, LOW_PRIORITY],
    [false, NORMAL_PRIORITY],
  ])('queues the initial list low and a watch event normal (priority queue %s)', async (on, listed) => {
    const client = fakeClient([named('a'), named('b')]);
    const { controller } = controllerFor(client, { priorityQueue: on });
    controller.startCaches();
    try {
      await until(() => Promise.resolve(controller.synced() && 'webservices' in client.watchers));
      expect(controller.queue.priorityOf('ns/a')).toBe(listed);
      expect(controller.queue.priorityOf('ns/b')).toBe(listed);
      client.watchers.webservices({ type: 'MODIFIED', object: named('b', '2') });
      client.watchers.webservices({ type: 'ADDED', object: named('c', '3') });
      expect(controller.queue.priorityOf('ns/a')).toBe(listed);
      expect(controller.queue.priorityOf('ns/b')).toBe(NORMAL_PRIORITY);
      expect(controller.queue.priorityOf('ns/c')).toBe(NORMAL_PRIORITY);
      // The first keys handed out are the changed ones when priorities are on.
      const first = [await controller.queue.get(), await controller.queue.get()];
      expect(first).toEqual(on ? ['ns/b', 'ns/c'] : ['ns/a', 'ns/b']);
    } finally {
      await controller.shutDown();
    }
  });
});

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

describe('Controller conflicts', () => {
  const FOREIGN = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web-desired', namespace: 'ns', uid: 'u-foreign', resourceVersion: '5' },
    data: { theirs: 'yes' },
  };

  // Found by the correctness campaign (seed 33): the foreign object's removal is no event the
  // label-selected watches see, so only a retry that reads it again notices it.
  it('retries a conflict, never writes to the foreign object, and converges once it is gone', async () => {
    const client = new FakeApi({ webServices: [WEB], children: [FOREIGN] });
    client.beforeWrite = (request) => {
      if (
        request.verb === 'create' &&
        request.resource === 'configmaps' &&
        client.hasChild('ConfigMap', 'ns', 'web-desired')
      )
        throw new ConflictError('configmaps "web-desired" already exists', true);
    };
    const { controller } = controllerFor(client);
    try {
      await started(controller);
      const rechecks = () => client.calls.filter((c) => c === 'get configmaps').length;
      await until(() => Promise.resolve(rechecks() >= 3));
      const beforeRemoval = client.writes.filter((w) => w.resource === 'configmaps');
      // The one refused create; nothing else touched the foreign ConfigMap while it stood.
      expect(beforeRemoval.map((w) => w.verb)).toEqual(['create']);

      client.removeChild('ConfigMap', 'ns', 'web-desired');
      await until(() => Promise.resolve(client.writes.filter((w) => w.resource === 'configmaps').length === 2));
      const made = await orNull(client.get<Child>(CHILD_KINDS[0], 'ns', 'web-desired'));
      expect(made?.metadata.uid).not.toBe('u-foreign');
      expect(made?.metadata.ownerReferences?.[0].uid).toBe('u-web');
    } finally {
      await controller.shutDown();
    }
  });

  // Found by the correctness campaign (seed 52, with the lagging copy): the child of an earlier
  // WebService of the same name, ours by label, stayed in the watch cache after the garbage
  // collector had deleted it. The watches can see such an object, so only a read of it at the
  // retry, not a watch event, ends a conflict that the cache alone keeps alive.
  it('reads a conflicting child again even when the watches can see it, and drops it from the cache once gone', async () => {
    const previousIncarnations: Child = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'web-desired',
        namespace: 'ns',
        uid: 'u-old-child',
        resourceVersion: '3',
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
        ownerReferences: [
          { apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name: 'web', uid: 'u-web-before', controller: true },
        ],
      },
      data: {},
    };
    const client = new FakeApi({ webServices: [WEB], children: [previousIncarnations] });
    const { controller } = controllerFor(client);
    try {
      await started(controller);
      await until(() => Promise.resolve(client.calls.includes('get configmaps')));
      expect(client.writes.filter((w) => w.resource === 'configmaps')).toEqual([]);

      // Deleted by the garbage collector, and the DELETED event never reaches the cache.
      client.removeChild('ConfigMap', 'ns', 'web-desired');
      await until(() => Promise.resolve(client.hasChild('ConfigMap', 'ns', 'web-desired')));
      const made = await orNull(client.get<Child>(CHILD_KINDS[0], 'ns', 'web-desired'));
      expect(made?.metadata.ownerReferences?.[0].uid).toBe('u-web');
    } finally {
      await controller.shutDown();
    }
  });
});

describe('Controller conflicts, rechecked under the deadline', () => {
  it('cuts off a recheck that hangs at the reconcile deadline, and counts a timeout', async () => {
    const foreign = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-desired', namespace: 'ns', uid: 'u-foreign', resourceVersion: '5' },
      data: {},
    };
    const client = new FakeApi({ webServices: [WEB], children: [foreign] });
    client.beforeWrite = (request) => {
      if (request.verb === 'create') throw new ConflictError('configmaps "web-desired" already exists', true);
    };
    // Once the conflict is known, a GET of the child answers only when its signal aborts it.
    let hang = false;
    const get = client.get.bind(client);
    client.withSignal = (signal: AbortSignal) =>
      Object.assign(Object.create(client) as FakeApi, {
        get: (...args: Parameters<FakeApi['get']>) =>
          hang && args[0] !== WEBSERVICE_TYPE
            ? new Promise<never>((_resolve, reject) =>
                signal.addEventListener('abort', () => reject(new AbortedError('configmaps "web-desired"'))),
              )
            : get(...args),
      });
    const { controller, metrics, logs } = controllerFor(client, { reconcileTimeoutMs: 100 });
    try {
      await started(controller);
      await until(() => Promise.resolve(client.writes.some((w) => w.verb === 'create')));
      hang = true;
      const timeouts = 'controller_runtime_reconcile_timeouts_total{controller="webservice"}';
      await until(async () => ((await sample(metrics, timeouts)) ?? 0) >= 1);
      expect(logs).toContain('reconcile timed out; retrying with backoff');
    } finally {
      await controller.shutDown();
    }
  });
});

describe('Controller read-your-writes', () => {
  // KEP-5647: a relist from an API server that lags can hand the cache a WebService older than
  // the controller's own last write of it. Acting on that old spec (here: before its workload)
  // would delete the Deployment the current spec keeps.
  it('does not act on a WebService older than its own last write of it, and acts once the cache catches up', async () => {
    const before: WebService = structuredClone(WEB);
    const now: WebService = {
      ...structuredClone(WEB),
      metadata: { ...WEB.metadata, resourceVersion: '5', generation: 2 },
      spec: { image: 'nginx:1.27', workload: {} },
    };
    const client = new FakeApi({ webServices: [now] });
    const patchStatus = client.patchStatus.bind(client);
    // As the API server answers a write: with a new resourceVersion.
    client.patchStatus = (async (...args: Parameters<FakeApi['patchStatus']>) => {
      const written = await patchStatus<WebService>(...args);
      written.metadata.resourceVersion = '9';
      return written;
    }) as FakeApi['patchStatus'];
    const { controller, logs } = controllerFor(client);
    try {
      await started(controller);
      await until(() => Promise.resolve(client.writes.some((w) => w.resource === 'webservices/status')));
      expect(client.hasChild('Deployment', 'ns', 'web')).toBe(true);
      const writes = client.writes.length;

      // The lagging copy: the WebService at version 1, before its workload, after we wrote version 9.
      client.watchers.webservices({ type: 'MODIFIED', object: before });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(client.writes.slice(writes).map((w) => `${w.verb} ${w.resource}`)).toEqual([]);
      expect(client.hasChild('Deployment', 'ns', 'web')).toBe(true);
      expect(logs).toContain('the cache is older than our last write; waiting for it');

      // Caught up, with a newer version than ours: the controller acts on it again.
      const newer = { ...structuredClone(now), metadata: { ...now.metadata, resourceVersion: '12', generation: 3 } };
      newer.spec.image = 'nginx:1.28';
      client.watchers.webservices({ type: 'MODIFIED', object: newer });
      await until(() => Promise.resolve(client.writes.slice(writes).some((w) => w.verb === 'apply')));
      expect(client.writes.slice(writes).filter((w) => w.verb === 'delete')).toEqual([]);
    } finally {
      await controller.shutDown();
    }
  });
});

/**
 * A client that sends through a real Transport, as KubeClient does (KubeClient itself loads
 * client-node, which these tests cannot): lists are GETs, each other method the engine calls
 * is a write, POST /<method>, with a gate; withSignal's copy passes its signal with each.
 */
function transportClient(transport: Transport, signal?: AbortSignal): KubeApi {
  const send = (req: Request) =>
    transport.request<{ items: unknown[]; metadata: { resourceVersion: string } }>({ ...req, signal });
  const list = (path: string) =>
    send({ method: 'GET', path, what: path }).then((l) => ({
      items: l.items,
      resourceVersion: l.metadata.resourceVersion,
    }));
  const base: Record<string, unknown> = {
    dryRun: 'none',
    withSignal: (s: AbortSignal) => transportClient(transport, s),
    signal,
    // Discovery: every API is served (the writes are what this server holds).
    apiServed: () => Promise.resolve(true),
    list: (type: { resource: string }) => list(`/${type.resource}`),
    watch: (_type: unknown, _ns: unknown, _from: unknown, _on: unknown, options: WatchOptions) => silentWatch(options),
  };
  return new Proxy(base, {
    get: (target, prop) =>
      typeof prop !== 'string' || prop in target
        ? target[prop as string]
        : (...args: unknown[]) =>
            send({ method: 'POST', path: `/${prop}`, body: args, what: prop, gate: () => undefined }),
  }) as unknown as KubeApi;
}

describe('Controller reconcile timeout', () => {
  let received: string[];
  beforeEach(() => {
    received = [];
  });
  // Lists answer; every write is held, never answered.
  const { transport } = useLocalServer(
    (req, res, hold) => {
      received.push(`${req.method} ${req.url}`);
      if (req.method !== 'GET') {
        hold(res);
        return;
      }
      const items = req.url === '/webservices' ? [WEB] : [];
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ items, metadata: { resourceVersion: '1' } }));
    },
    { timeoutMs: 60_000, release: (res) => res.destroy() },
  );

  it('aborts the request in flight, counts a timeout, writes no status and retries with backoff', async () => {
    const { controller, metrics, logs } = controllerFor(transportClient(transport()), {
      reconcileTimeoutMs: 100,
      backoffBaseMs: 60_000,
      backoffMaxMs: 60_000,
    });
    try {
      await started(controller);
      const timeouts = 'controller_runtime_reconcile_timeouts_total{controller="webservice"}';
      await until(async () => (await sample(metrics, timeouts)) === 1);
      await new Promise((resolve) => setTimeout(resolve, 50)); // time for a late write, were there one

      const writes = received.filter((r) => !r.startsWith('GET'));
      expect(writes).toHaveLength(1); // the write that got no answer, cut off at the deadline
      expect(writes[0]).not.toMatch(/Status|Event/);
      expect(await sample(metrics, 'controller_runtime_reconcile_errors_total{controller="webservice"}')).toBe(1);
      expect(await sample(metrics, 'workqueue_retries_total{name="webservice"}')).toBe(1);
      expect(await sample(metrics, 'controller_runtime_reconcile_panics_total{controller="webservice"}')).toBe(0);
      expect(await sample(metrics, 'controller_runtime_active_workers{controller="webservice"}')).toBe(0);
      expect(logs).toContain('reconcile timed out; retrying with backoff');
    } finally {
      await controller.shutDown();
    }
  });
});

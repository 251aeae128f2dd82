// The watch cache's wiring, on a fake client (the list/watch protocol itself is the
// reflector's, tested against a real API server): one reflector per row of CACHED_KINDS, the
// children listed only once the WebServices are, and every change in the index before its
// listener hears of it.
import { getEventListeners } from 'node:events';
import { CacheListener, WebServiceCache } from '../../src/controller/cache';
import { Child, ConfigMap, Deployment, Service, WebService, kindOf } from '../../src/core/model';
import { CACHED_KINDS, OPTIONAL_KINDS } from '../../src/core/kinds';
import { addChild, dependentsOf, syncInputFor } from '../../src/core/object-index';
import { FakeApi } from '../support/fake-api';
import { until } from '../support/wait';

const OWNED = { labelSelector: 'app.kubernetes.io/managed-by=webservice-controller' };

function webService(name: string, dependsOn?: string[]): WebService {
  return {
    metadata: { name, namespace: 'ns', uid: `u-${name}`, resourceVersion: '1' },
    spec: { image: 'nginx:1.27', ...(dependsOn ? { dependsOn } : {}) },
  };
}

/** A WebService that asks for a route: what makes the cache ask discovery again. */
const routed: WebService = {
  ...webService('routed'),
  spec: {
    image: 'nginx:1.27',
    workload: { port: 8080 },
    expose: { host: 'shop.example.com', gateway: { name: 'public' } },
  },
};

const LABELS = { 'app.kubernetes.io/managed-by': 'webservice-controller' };
const owner = (name: string) => [
  { apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name, uid: `u-${name}`, controller: true },
];
const configMap: ConfigMap = {
  metadata: {
    name: 'web-desired',
    namespace: 'ns',
    resourceVersion: '2',
    labels: LABELS,
    ownerReferences: owner('web'),
  },
};
const deployment: Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', resourceVersion: '3', labels: LABELS, ownerReferences: owner('web') },
};
const service: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'ns', resourceVersion: '4', labels: LABELS, ownerReferences: owner('web') },
};

/** Records each call in order; the WebServices' list answers when answer() is called. */
function fakeClient() {
  const client = new FakeApi({
    webServices: [webService('web'), webService('api', ['web'])],
    children: [configMap, deployment, service],
  });
  const answer = client.holdWebServiceLists();
  const calls = () =>
    client.requests.map((r) =>
      r.verb !== 'list'
        ? `${r.verb} ${r.resource}`
        : r.resource === 'webservices'
          ? `list webservices in ${r.namespace}`
          : `list ${r.resource} in ${r.namespace} ${JSON.stringify(r.detail)}`,
    );
  return { client, calls, watchers: client.watchers, answer };
}

/** Hears every change, and what the index held for the changed object when it did. */
function recorder(cache: () => WebServiceCache) {
  const heard: string[] = [];
  const listener: CacheListener = {
    webServiceChanged: (ws, previous, initialList) =>
      heard.push(
        `ws ${ws.metadata.name} ${initialList ? 'listed' : 'changed'}${previous ? ' again' : ''}` +
          ` indexed=${cache().index.parentsByKey.get(`ns/${ws.metadata.name}`) === ws}`,
      ),
    webServiceRemoved: (ws) =>
      heard.push(`ws ${ws.metadata.name} removed indexed=${cache().index.parentsByKey.has('ns/web')}`),
    childChanged: (child: Child, initialList) =>
      heard.push(
        `${kindOf(child)} ${child.metadata.name} ${initialList ? 'listed' : 'changed'}` +
          ` indexed=${syncInputFor(webService('web'), cache().index).children.includes(child)}`,
      ),
    childRemoved: (child) => heard.push(`${kindOf(child)} ${child.metadata.name} removed`),
    synced: (kind) => heard.push(`synced ${kind}`),
    apiChanged: (kind, served) => heard.push(`${served ? 'installed' : 'uninstalled'} ${kind}`),
  };
  return { heard, listener };
}

const options = { namespace: 'ns', idleTimeoutMs: 60_000, log: () => undefined };

describe('WebServiceCache', () => {
  it('lists the children of every kind, by our label, once the WebServices are listed, and watches each', async () => {
    const { client, calls, answer } = fakeClient();
    const { heard, listener } = recorder(() => cache);
    const cache = new WebServiceCache(client, options, listener);
    const abort = new AbortController();
    const running = cache.run(abort.signal);
    await until(() => calls().length > 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls()).toEqual(['list webservices in ns']);
    expect(cache.synced()).toBe(false);
    answer();
    await until(() => cache.synced() && calls().length === 2 + OPTIONAL_KINDS.length + 2 * CACHED_KINDS.length);
    expect(calls().slice(0, 2)).toEqual(['list webservices in ns', 'watch webservices']);
    // Discovery is asked about each optional kind before its watch starts; here every API is served.
    expect(calls().slice(2).sort()).toEqual(
      [
        ...OPTIONAL_KINDS.map(() => 'get discovery'),
        ...CACHED_KINDS.flatMap((row) => [
          `list ${row.resource} in ns ${JSON.stringify(OWNED)}`,
          `watch ${row.resource}`,
        ]),
      ].sort(),
    );
    expect(heard.slice(0, 3)).toEqual([
      'ws web listed indexed=true',
      'ws api listed indexed=true',
      'synced WebService',
    ]);
    expect(heard.slice(3).sort()).toEqual(
      [
        'ConfigMap web-desired listed indexed=true',
        'Deployment web listed indexed=true',
        'Service web listed indexed=true',
        ...CACHED_KINDS.map((row) => `synced ${row.kind}`),
      ].sort(),
    );
    expect([...dependentsOf(cache.index, 'ns/web')]).toEqual(['ns/api']);
    expect(Object.entries(cache.stats()).map(([name, stats]) => [name, stats.lists, stats.watches])).toEqual([
      ['webservices', 1, 1],
      ...CACHED_KINDS.map((row) => [row.resource, 1, 1]),
    ]);
    abort.abort();
    await running;
  });

  it('keeps the index in step with watch events before the listener hears of them', async () => {
    const { client, watchers, answer } = fakeClient();
    const { heard, listener } = recorder(() => cache);
    const cache = new WebServiceCache(client, options, listener);
    const abort = new AbortController();
    answer();
    const running = cache.run(abort.signal);
    await until(() => cache.synced() && 'services' in watchers);
    heard.length = 0;
    const edited = { ...structuredClone(service), metadata: { ...service.metadata, resourceVersion: '11' } };
    watchers.services({ type: 'MODIFIED', object: edited });
    watchers.deployments({ type: 'DELETED', object: structuredClone(deployment) });
    watchers.webservices({
      type: 'MODIFIED',
      object: { ...webService('api'), metadata: { ...webService('api').metadata, resourceVersion: '12' } },
    });
    watchers.webservices({ type: 'DELETED', object: webService('web') });
    expect(heard).toEqual([
      'Service web changed indexed=true',
      'Deployment web removed',
      'ws api changed again indexed=true',
      'ws web removed indexed=false',
    ]);
    expect(syncInputFor(webService('web'), cache.index).children.map(kindOf)).toEqual(['ConfigMap', 'Service']);
    // api no longer depends on web: the index's dependents follow its new spec.
    expect([...dependentsOf(cache.index, 'ns/web')]).toEqual([]);
    abort.abort();
    await running;
  });

  it('lists no child when it is stopped before the WebServices are listed', async () => {
    const { client, calls, answer } = fakeClient();
    const cache: WebServiceCache = new WebServiceCache(client, options, recorder(() => cache).listener);
    const abort = new AbortController();
    const running = cache.run(abort.signal);
    await until(() => calls().length > 0);
    abort.abort();
    answer();
    await running;
    expect(calls().filter((call) => call.startsWith('list'))).toEqual(['list webservices in ns']);
  });

  it('watches no kind whose API is absent, says so in the inputs, and starts its watch once discovery finds it', async () => {
    const absent = OPTIONAL_KINDS.map((row) => row.resource);
    const client = new FakeApi({ webServices: [webService('web'), routed], children: [configMap], absent });
    const { heard, listener } = recorder(() => cache);
    const cache: WebServiceCache = new WebServiceCache(client, { ...options, probeIntervalMs: 20 }, listener);
    const abort = new AbortController();
    const running = cache.run(abort.signal);
    await until(() => cache.synced());
    const watched = () => client.requests.filter((r) => r.verb === 'watch').map((r) => r.resource);
    for (const resource of absent) expect(watched()).not.toContain(resource);
    expect(cache.syncInput(webService('web')).absentKinds).toEqual(OPTIONAL_KINDS.map((row) => row.kind));
    // Asked again while absent: reads only, and no write at all.
    await until(() => client.requests.filter((r) => r.resource === 'discovery').length >= 3 * absent.length);
    expect(client.writes).toEqual([]);
    expect(heard.filter((line) => line.startsWith('installed'))).toEqual([]);

    for (const resource of absent) client.install(resource);
    await until(() => heard.some((line) => line.startsWith('installed')));
    for (const resource of absent) expect(watched()).toContain(resource);
    expect(heard.filter((line) => line.startsWith('installed'))).toEqual(
      OPTIONAL_KINDS.map((row) => `installed ${row.kind}`),
    );
    expect(cache.syncInput(webService('web')).absentKinds).toBeUndefined();
    expect(cache.synced()).toBe(true);
    // Served now: discovery is not asked any more.
    const asked = client.requests.filter((r) => r.resource === 'discovery').length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(client.requests.filter((r) => r.resource === 'discovery').length).toBe(asked);
    abort.abort();
    await running;
  });

  it('forgets an optional kind whose API goes away, says so, and watches it again when it is back', async () => {
    const [row] = OPTIONAL_KINDS.filter((kind) => kind.kind === 'HTTPRoute');
    const route = {
      apiVersion: row.apiVersion,
      kind: row.kind,
      metadata: {
        name: 'routed',
        namespace: 'ns',
        resourceVersion: '5',
        labels: LABELS,
        ownerReferences: owner('routed'),
      },
    } as Child;
    // Someone else's route on a name of ours, read one by one as a conflict's recheck does.
    const foreign = {
      apiVersion: row.apiVersion,
      kind: row.kind,
      metadata: { name: 'web', namespace: 'ns', resourceVersion: '6' },
    } as Child;
    const client = new FakeApi({ webServices: [webService('web'), routed], children: [configMap, route, foreign] });
    const { heard, listener } = recorder(() => cache);
    const cache: WebServiceCache = new WebServiceCache(client, { ...options, probeIntervalMs: 20 }, listener);
    const abort = new AbortController();
    const running = cache.run(abort.signal);
    await until(() => cache.synced() && heard.some((line) => line.startsWith('HTTPRoute routed listed')));
    addChild(cache.index, foreign);
    const routesIndexed = () => [...cache.index.childrenByKey.values()].filter((c) => c.kind === row.kind).length;
    expect(routesIndexed()).toBe(2);

    client.uninstall(row);
    await until(() => heard.includes(`uninstalled ${row.kind}`));
    expect(heard).toContain('HTTPRoute routed removed');
    expect(heard).toContain('HTTPRoute web removed');
    expect(routesIndexed()).toBe(0);
    expect(cache.syncInput(routed).absentKinds).toEqual([row.kind]);
    // Absent is a complete answer: the cache is still synced, and wrote nothing.
    expect(cache.synced()).toBe(true);
    expect(client.writes).toEqual([]);

    client.install(row.resource);
    await until(() => heard.includes(`installed ${row.kind}`));
    expect(cache.syncInput(routed).absentKinds).toBeUndefined();
    expect(client.requests.filter((r) => r.verb === 'list' && r.resource === row.resource)).toHaveLength(2);
    abort.abort();
    await running;
  });

  it('leaves no listener on its signal behind as it waits, probe interval after probe interval', async () => {
    const client = new FakeApi({
      webServices: [webService('web'), routed],
      children: [configMap],
      absent: ['httproutes'],
    });
    const { listener } = recorder(() => cache);
    const cache: WebServiceCache = new WebServiceCache(client, { ...options, probeIntervalMs: 5 }, listener);
    const abort = new AbortController();
    const running = cache.run(abort.signal);
    try {
      await until(() => cache.synced());
      const listeners = () => getEventListeners(abort.signal, 'abort').length;
      const atStart = listeners();
      const probes = () => client.requests.filter((r) => r.resource === 'discovery').length;
      const probed = probes();
      await until(() => probes() >= probed + 20);
      // A watch per kind served, and one wait: as many as after the first interval.
      expect(listeners()).toBe(atStart);
    } finally {
      // Failing or not, the 5 ms probe loop must not outlive the test.
      abort.abort();
      await running;
    }
  });

  it('asks discovery again only while a WebService wants a child of an absent kind', async () => {
    const absent = OPTIONAL_KINDS.map((row) => row.resource);
    const client = new FakeApi({ webServices: [webService('web')], children: [configMap], absent });
    const { listener } = recorder(() => cache);
    const cache: WebServiceCache = new WebServiceCache(client, { ...options, probeIntervalMs: 20 }, listener);
    const abort = new AbortController();
    const running = cache.run(abort.signal);
    await until(() => cache.synced());
    const probes = () => client.requests.filter((r) => r.resource === 'discovery').length;
    const atStart = probes();
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Seven intervals, and nobody asks for a route: no request after the first look.
    expect(probes()).toBe(atStart);
    abort.abort();
    await running;
  });
});

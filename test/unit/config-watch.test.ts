// run's watch of the config the pods read, on the fake: metadata only, nothing until some
// WebService reads config, only the objects read are kept and have their data read, and a
// change of one queues exactly its readers.
import { ConfigWatch } from '../../src/controller/config-watch';
import type { WebService } from '../../src/core/model';
import { CONFIG_KEY_SECRET, CONFIG_TYPES } from '../../src/engine/config';
import { FakeApi } from '../support/fake-api';
import { until } from '../support/wait';
import { orNull } from '../../src/kube/errors';

const reads = (name: string, secret: string): WebService => ({
  metadata: { name, namespace: 'ns', uid: `u-${name}`, resourceVersion: '1' },
  spec: {
    image: 'shop:1',
    workload: { env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: secret, key: 'password' } } }] },
  },
});
const secret = (name: string, resourceVersion = '5') => ({
  kind: 'Secret',
  metadata: { name, namespace: 'ns', resourceVersion },
  data: { password: Buffer.from(`value of ${name}`).toString('base64') },
});
const UNREAD = 10_000;

function setUp() {
  const others = [secret('db'), ...Array.from({ length: UNREAD }, (_, i) => secret(`other-${i}`))];
  const api = new FakeApi({ others });
  const changed: string[][] = [];
  const children: string[] = [];
  const watch = new ConfigWatch(api, {
    namespace: 'ns',
    idleTimeoutMs: 60_000,
    log: () => undefined,
    changed: (keys) => changed.push(keys),
    childChanged: (child) => children.push(`+${child.kind}/${child.metadata.name}`),
    childRemoved: (child) => children.push(`-${child.kind}/${child.metadata.name}`),
  });
  return { api, watch, changed, children };
}

describe("run's watch of the config the pods read", () => {
  it('starts nothing while no WebService reads config', async () => {
    const { api, watch } = setUp();
    const abort = new AbortController();
    const running = watch.run(abort.signal);
    watch.webServiceChanged({ ...reads('lab', 'db'), spec: { image: 'nginx:1.27' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(api.calls).toEqual([]);
    abort.abort();
    await running;
  });

  it('lists metadata only, keeps the objects read, reads no other data, and queues their readers', async () => {
    const { api, watch, changed } = setUp();
    const abort = new AbortController();
    const running = watch.run(abort.signal);
    const shop = reads('shop', 'db');
    watch.webServiceChanged(shop);
    await until(() => watch.synced());
    expect(api.calls).toEqual([
      'list secrets metadata',
      'list configmaps metadata',
      'watch secrets metadata',
      'watch configmaps metadata',
    ]);
    // A reconcile reads the key and the one Secret it reads, and no other Secret's data.
    await watch.reader.statesFor(shop);
    const gets = api.requests.filter((r) => r.verb === 'get').map((r) => r.name);
    expect(gets.sort()).toEqual(['db', 'webservice-config-key']);
    // Kept: a pass whose config did not move reads nothing.
    const before = api.requests.length;
    await watch.reader.statesFor(shop);
    expect(api.requests.length).toBe(before);
    // An event for another Secret queues nothing; one for db queues shop, once.
    changed.length = 0;
    api.watchers['secrets metadata']({
      type: 'MODIFIED',
      object: { metadata: { name: 'other-1', namespace: 'ns', resourceVersion: '9' } },
    });
    api.watchers['secrets metadata']({
      type: 'MODIFIED',
      object: { metadata: { name: 'db', namespace: 'ns', resourceVersion: '9' } },
    });
    expect(changed).toEqual([['ns/shop']]);
    // The key's own event, at the version it was made with, changes nothing; another key does.
    changed.length = 0;
    const key = await orNull(api.get<WebService>(CONFIG_TYPES.Secret, 'ns', CONFIG_KEY_SECRET));
    const keyEvent = (resourceVersion: string) =>
      api.watchers['secrets metadata']({
        type: 'MODIFIED',
        object: { metadata: { name: CONFIG_KEY_SECRET, namespace: 'ns', resourceVersion } },
      });
    keyEvent(key!.metadata.resourceVersion!);
    expect(changed).toEqual([]);
    keyEvent('12345');
    expect(changed).toEqual([['ns/shop']]);
    abort.abort();
    await running;
  });
});

// Leader election against an in-memory lease with real resourceVersion conflicts, on a fake
// clock. Default timing: lease 15s, renew deadline 10s, retry 2s; random() = 0, so candidates
// retry exactly every 2s.
import * as os from 'node:os';
import {
  defaultIdentity,
  LeaderElector,
  LeaderElectorOptions,
  LeaseRecord,
  LeaseStore,
  microTime,
} from '../../src/controller/leader';
import { FakeClock } from '../support/fake-clock';
import { MemoryLeaseStore } from '../support/memory-lease-store';

/** One replica's view of a shared store, which a test can cut off from the API server. */
class ReplicaStore implements LeaseStore {
  cutOff = false;
  constructor(private readonly shared: MemoryLeaseStore) {}
  get() {
    return this.check().then(() => this.shared.get());
  }
  create(record: LeaseRecord) {
    return this.check().then(() => this.shared.create(record));
  }
  update(record: LeaseRecord, resourceVersion: string) {
    return this.check().then(() => this.shared.update(record, resourceVersion));
  }
  describe() {
    return this.shared.describe();
  }
  private async check(): Promise<void> {
    if (this.cutOff) throw new Error('dial tcp 127.0.0.1:6443: i/o timeout');
  }
}

function start(identity: string, store: LeaseStore, clock: FakeClock, extra: Partial<LeaderElectorOptions> = {}) {
  const events: string[] = [];
  const elector = new LeaderElector({
    identity,
    store,
    clock,
    random: () => 0,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
    onNewLeader: (leader) => events.push(`leader:${leader}`),
    ...extra,
  });
  let finished = false;
  void elector.run().then(() => {
    finished = true;
  });
  return { elector, events, finished: () => finished };
}

describe('LeaderElector', () => {
  let clock: FakeClock;
  let store: MemoryLeaseStore;
  let t0: number;

  beforeEach(() => {
    clock = new FakeClock();
    store = new MemoryLeaseStore();
    t0 = clock.now();
  });

  it('acquires a lease nobody holds, at once', async () => {
    const a = start('a', store, clock);
    await clock.advance(0);

    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(['leader:a', 'started']);
    expect(store.current()).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: microTime(t0),
      renewTime: microTime(t0),
      leaseTransitions: 0,
    });
    await a.elector.stop();
  });

  it('does not take a lease another holder keeps renewing, whatever its timestamps say', async () => {
    // b's record claims it was renewed in 2001: a must not trust b's clock.
    const stale = microTime(Date.UTC(2001, 0, 1));
    await store.create({
      holderIdentity: 'b',
      leaseDurationSeconds: 15,
      acquireTime: stale,
      renewTime: stale,
      leaseTransitions: 4,
    });
    const a = start('a', store, clock);

    for (let i = 0; i < 10; i++) {
      await clock.advance(5000);
      const lease = await store.get();
      await store.update(
        { ...lease!.record, renewTime: stale.replace('.000000Z', `.00000${i}Z`) },
        lease!.resourceVersion,
      );
    }

    expect(a.elector.isLeader()).toBe(false);
    expect(a.elector.getLeader()).toBe('b');
    expect(a.events).toEqual(['leader:b']);
    expect(store.current()?.holderIdentity).toBe('b');
    await a.elector.stop();
  });

  it('takes over once the holder has not renewed for the lease duration on the local clock', async () => {
    await store.create({
      holderIdentity: 'b',
      leaseDurationSeconds: 15,
      renewTime: microTime(t0),
      leaseTransitions: 4,
    });
    const a = start('a', store, clock);

    await clock.advance(14_999);
    expect(a.elector.isLeader()).toBe(false);
    expect(store.current()?.holderIdentity).toBe('b');

    // First seen at t0, so expired from t0+15s; the next retry is at t0+16s.
    await clock.advance(1001);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(['leader:b', 'leader:a', 'started']);
    expect(store.current()).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: microTime(t0 + 16_000),
      renewTime: microTime(t0 + 16_000),
      leaseTransitions: 5, // the holder changed
    });
    await a.elector.stop();
  });

  it('renews every retry period, keeping acquireTime and the transition count', async () => {
    const a = start('a', store, clock);
    await clock.advance(0);
    await clock.advance(2000);
    expect(store.current()).toMatchObject({
      acquireTime: microTime(t0),
      renewTime: microTime(t0 + 2000),
      leaseTransitions: 0,
    });
    await clock.advance(2000);
    expect(store.current()).toMatchObject({
      acquireTime: microTime(t0),
      renewTime: microTime(t0 + 4000),
      leaseTransitions: 0,
    });
    expect(store.writes.map((w) => w.verb)).toEqual(['create', 'update', 'update']);

    // Well past the renew deadline and the lease duration: renewals kept it.
    await clock.advance(60_000);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(['leader:a', 'started']);
    await a.elector.stop();
  });

  it('only one of two candidates racing for an empty lease wins', async () => {
    const a = start('a', store, clock);
    const b = start('b', store, clock);
    await clock.advance(0);
    await clock.advance(30_000);

    expect([a.elector.isLeader(), b.elector.isLeader()].filter(Boolean)).toHaveLength(1);
    expect(store.writes.filter((w) => w.verb === 'create')).toHaveLength(1);
    expect(store.current()?.leaseTransitions).toBe(0);
    await Promise.all([a.elector.stop(), b.elector.stop()]);
  });

  it('stops leading when no renew succeeds for the renew deadline', async () => {
    const a = start('a', store, clock);
    await clock.advance(0);
    store.unavailable = true;

    await clock.advance(9_999);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(['leader:a', 'started']);

    await clock.advance(1);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events).toEqual(['leader:a', 'started', 'stopped']);
    expect(a.finished()).toBe(true);
  });

  it('isLeader() is false the moment the renew deadline passes, even before any timer runs', async () => {
    const a = start('a', store, clock);
    await clock.advance(0);
    store.unavailable = true;
    await clock.advance(8_000);
    expect(a.elector.isLeader()).toBe(true);

    clock.jump(2_000); // the event loop was blocked: no timer has run
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events).not.toContain('stopped');

    await clock.advance(0); // the late timers run: the loop notices too
    expect(a.events).toEqual(['leader:a', 'started', 'stopped']);
    expect(a.finished()).toBe(true);
  });

  it('a leader cut off from the API steps down before a candidate can take over', async () => {
    const aStore = new ReplicaStore(store);
    const a = start('a', aStore, clock);
    await clock.advance(0);
    aStore.cutOff = true;
    const b = start('b', new ReplicaStore(store), clock);

    const both: number[] = [];
    for (let t = 0; t <= 20_000; t += 100) {
      if (a.elector.isLeader() && b.elector.isLeader()) both.push(t);
      await clock.advance(100);
    }

    expect(both).toEqual([]);
    expect(a.events).toEqual(['leader:a', 'started', 'stopped']);
    expect(b.events).toEqual(['leader:a', 'leader:b', 'started']);
    expect(store.current()).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    await b.elector.stop();
  });

  it('stop() releases the lease, then calls onStoppedLeading; a waiting candidate takes over at its next try', async () => {
    let holderWhenStopped: string | undefined;
    const a = start('a', store, clock, {
      onStoppedLeading: () => (holderWhenStopped = store.current()?.holderIdentity),
    });
    await clock.advance(0);
    const b = start('b', store, clock);
    await clock.advance(3000);
    expect(b.elector.isLeader()).toBe(false);

    await a.elector.stop();
    expect(a.elector.isLeader()).toBe(false);
    expect(a.finished()).toBe(true);
    expect(holderWhenStopped).toBe('');
    expect(store.current()).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: microTime(t0 + 3000),
      renewTime: microTime(t0 + 3000),
      leaseTransitions: 0,
    });

    await clock.advance(1000); // b's next retry, far sooner than the 15s lease
    expect(b.elector.isLeader()).toBe(true);
    expect(store.current()).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });

    await b.elector.stop();
    const c = start('a', store, clock);
    await clock.advance(0);
    expect(c.elector.isLeader()).toBe(true);
    expect(store.current()).toMatchObject({ holderIdentity: 'a', leaseTransitions: 2 });
    await c.elector.stop();
  });

  it('stop() before acquiring writes nothing and ends run()', async () => {
    await store.create({ holderIdentity: 'b', leaseDurationSeconds: 15, leaseTransitions: 0 });
    const a = start('a', store, clock);
    await clock.advance(5000);
    await a.elector.stop();

    expect(a.finished()).toBe(true);
    expect(a.events).toEqual(['leader:b', 'stopped']);
    expect(store.writes).toHaveLength(1); // the create above
  });

  it('validates its timing like client-go', () => {
    const make = (o: Partial<LeaderElectorOptions>) => () =>
      new LeaderElector({ identity: 'a', store, onStartedLeading: () => {}, onStoppedLeading: () => {}, ...o });

    expect(make({})).not.toThrow();
    expect(make({ leaseDurationMs: 10_000 })).toThrow(
      /leaseDurationMs \(10000\) must be greater than renewDeadlineMs \(10000\)/,
    );
    expect(make({ retryPeriodMs: 8_334 })).toThrow(
      /renewDeadlineMs \(10000\) must be greater than retryPeriodMs × 1.2/,
    );
    expect(make({ retryPeriodMs: 0 })).toThrow(/retryPeriodMs must be greater than zero/);
    expect(make({ renewDeadlineMs: -1 })).toThrow(/renewDeadlineMs must be greater than zero/);
    expect(make({ identity: '' })).toThrow(/identity must not be empty/);
  });
});

describe('microTime', () => {
  it('formats RFC 3339 in UTC with exactly six fractional digits', () => {
    const ms = Date.UTC(2026, 10, 30, 1, 2, 3, 123);
    expect(microTime(ms)).toBe('2026-11-30T01:02:03.123000Z');
    expect(microTime(ms + 0.456)).toBe('2026-11-30T01:02:03.123456Z');
    expect(microTime(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000000Z');
  });
});

describe('defaultIdentity', () => {
  it("is the pod's name (POD_NAME) and a random 8-hex-digit suffix: what the leader fence matches", () => {
    expect(defaultIdentity('webservice-controller-7d9f-abcde')).toMatch(
      /^webservice-controller-7d9f-abcde_[0-9a-f]{8}$/,
    );
  });

  it('is the hostname and a random 8-hex-digit suffix outside a pod', () => {
    const id = defaultIdentity('');
    expect(id.startsWith(`${os.hostname()}_`)).toBe(true);
    expect(id.slice(os.hostname().length + 1)).toMatch(/^[0-9a-f]{8}$/);
    expect(defaultIdentity()).not.toBe(id);
  });
});

// The controller's LeaseStore (src/controller/lease-store.ts) over the fake API server, whose
// Lease has the server's optimistic concurrency: create fails if the lease exists, update
// fails unless the caller read the current resourceVersion. Several electors can share one
// store to play different replicas.
import type { LeaseRecord, LeaseStore } from '../../src/controller/leader';
import { leaseStore } from '../../src/controller/lease-store';
import type { Lease } from '../../src/kube/api';
import { FakeApi } from './fake-api';

const NAMESPACE = 'test';
const NAME = 'webservice';

export class MemoryLeaseStore implements LeaseStore {
  /** The API server that keeps the Lease. */
  readonly api = new FakeApi();
  private readonly store = leaseStore(this.api, NAMESPACE, NAME);
  /** While set, every call fails, as when the API server cannot be reached. */
  unavailable = false;
  /** Every successful write, in order. */
  readonly writes: Array<{ verb: 'create' | 'update'; record: LeaseRecord }> = [];

  async get(): Promise<{ record: LeaseRecord; resourceVersion: string } | null> {
    this.failIfUnavailable();
    return this.store.get();
  }

  async create(record: LeaseRecord): Promise<string> {
    this.failIfUnavailable();
    const resourceVersion = await this.store.create(record);
    this.writes.push({ verb: 'create', record: { ...record } });
    return resourceVersion;
  }

  async update(record: LeaseRecord, resourceVersion: string): Promise<string> {
    this.failIfUnavailable();
    const updated = await this.store.update(record, resourceVersion);
    this.writes.push({ verb: 'update', record: { ...record } });
    return updated;
  }

  describe(): string {
    return this.store.describe();
  }

  /** The lease as stored now (a copy), or null. */
  current(): LeaseRecord | null {
    const lease = this.api.tracker.get<Lease>('Lease', NAMESPACE, NAME);
    return lease && { ...lease.spec };
  }

  private failIfUnavailable(): void {
    if (this.unavailable) throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
  }
}

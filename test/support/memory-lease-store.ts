// An in-memory LeaseStore with the API server's optimistic concurrency: create fails if the
// lease exists, update fails unless the caller read the current resourceVersion. Several
// electors can share one store to play different replicas.
import { LeaseRecord, LeaseStore } from '../../src/controller/leader';

export class MemoryLeaseStore implements LeaseStore {
  private lease: { record: LeaseRecord; resourceVersion: string } | null = null;
  private version = 0;
  /** While set, every call fails, as when the API server cannot be reached. */
  unavailable = false;
  /** Every successful write, in order. */
  readonly writes: Array<{ verb: 'create' | 'update'; record: LeaseRecord }> = [];

  async get(): Promise<{ record: LeaseRecord; resourceVersion: string } | null> {
    this.failIfUnavailable();
    return this.lease && { record: { ...this.lease.record }, resourceVersion: this.lease.resourceVersion };
  }

  async create(record: LeaseRecord): Promise<string> {
    this.failIfUnavailable();
    if (this.lease) throw new Error('leases.coordination.k8s.io "webservice" already exists');
    return this.store('create', record);
  }

  async update(record: LeaseRecord, resourceVersion: string): Promise<string> {
    this.failIfUnavailable();
    if (!this.lease) throw new Error('leases.coordination.k8s.io "webservice" not found');
    if (this.lease.resourceVersion !== resourceVersion) {
      throw new Error(
        'Operation cannot be fulfilled on leases.coordination.k8s.io "webservice": the object has been modified',
      );
    }
    return this.store('update', record);
  }

  describe(): string {
    return 'test/webservice';
  }

  /** The lease as stored now (a copy), or null. */
  current(): LeaseRecord | null {
    return this.lease && { ...this.lease.record };
  }

  private store(verb: 'create' | 'update', record: LeaseRecord): string {
    const resourceVersion = String(++this.version);
    this.lease = { record: { ...record }, resourceVersion };
    this.writes.push({ verb, record: { ...record } });
    return resourceVersion;
  }

  private failIfUnavailable(): void {
    if (this.unavailable) throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
  }
}

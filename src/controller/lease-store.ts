// The leader elector's lease, kept in a coordination.k8s.io/v1 Lease through the one
// API module. Updates carry the resourceVersion read, so two candidates never both win.
import { LEASE } from '../core/resource-types';
import type { Lease, LeaseApi } from '../kube/api';
import { orNull } from '../kube/errors';
import type { LeaseRecord, LeaseStore } from './leader';

export function leaseStore(client: LeaseApi, namespace: string, name: string): LeaseStore {
  return {
    async get() {
      const lease = await orNull(client.get<Lease>(LEASE, namespace, name));
      return lease ? { record: lease.spec ?? {}, resourceVersion: lease.metadata.resourceVersion ?? '' } : null;
    },
    async create(record: LeaseRecord) {
      const lease = await client.create<Lease>(LEASE, namespace, { metadata: { name, namespace }, spec: record });
      return lease.metadata.resourceVersion ?? '';
    },
    async update(record: LeaseRecord, resourceVersion: string) {
      const lease = await client.update<Lease>(LEASE, namespace, {
        metadata: { name, namespace, resourceVersion },
        spec: record,
      });
      return lease.metadata.resourceVersion ?? '';
    },
    describe: () => `${namespace}/${name}`,
  };
}

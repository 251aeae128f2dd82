// The engine carries out each kind of op through the client method of its kind: the
// ConfigMap's as before, a Deployment's or Service's through the workload methods, with
// the same preconditions (resourceVersion in the patch, uid on the delete).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decide } from '../../src/core/decide';
import { SyncInput } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { carryOut } from '../../src/engine/reconcile';
import type { KubeClient } from '../../src/kube/client';

function decisionFor(name: string) {
  const file = path.join(__dirname, '../fixtures/decide', name, 'input.json');
  return decide(observe(JSON.parse(fs.readFileSync(file, 'utf8')) as SyncInput));
}

function fakeClient() {
  const writes: unknown[][] = [];
  const echo = (object: { metadata: object }) => ({
    ...object,
    metadata: { ...object.metadata, resourceVersion: '9' },
  });
  const client = {
    createConfigMap: async (ns: string, object: { metadata: { name: string } }) => (
      writes.push(['createConfigMap', ns, object.metadata.name]),
      echo(object)
    ),
    patchConfigMap: async (ns: string, name: string, patch: unknown) => (
      writes.push(['patchConfigMap', ns, name, patch]),
      { metadata: { name, namespace: ns } }
    ),
    deleteConfigMap: async (ns: string, name: string, uid?: string) => (
      writes.push(['deleteConfigMap', ns, name, uid]),
      true
    ),
    createWorkload: async (kind: string, ns: string, object: { metadata: { name: string } }) => (
      writes.push(['createWorkload', kind, ns, object.metadata.name]),
      echo(object)
    ),
    patchWorkload: async (kind: string, ns: string, name: string, patch: unknown) => (
      writes.push(['patchWorkload', kind, ns, name, patch]),
      { metadata: { name, namespace: ns } }
    ),
    deleteWorkload: async (kind: string, ns: string, name: string, uid?: string) => (
      writes.push(['deleteWorkload', kind, ns, name, uid]),
      true
    ),
  };
  return { client: client as unknown as KubeClient, writes };
}

describe('carrying out workload ops', () => {
  it('creates the ConfigMap first, then the Deployment and the Service; the cache learns their kinds', async () => {
    const { client, writes } = fakeClient();
    const applied = await carryOut(client, decisionFor('create-workload'));
    expect(writes).toEqual([
      ['createConfigMap', 'crd-lab', 'checkout-desired'],
      ['createWorkload', 'Deployment', 'crd-lab', 'checkout'],
      ['createWorkload', 'Service', 'crd-lab', 'checkout'],
    ]);
    expect(applied.written.children.map((c) => c.kind)).toEqual(['ConfigMap', 'Deployment', 'Service']);
  });

  it('patches a Deployment with its resourceVersion precondition', async () => {
    const { client, writes } = fakeClient();
    await carryOut(client, decisionFor('update-workload-hand-edited-replicas'));
    expect(writes).toEqual([
      [
        'patchWorkload',
        'Deployment',
        'crd-lab',
        'checkout',
        { metadata: { resourceVersion: '3003' }, spec: { replicas: 3 } },
      ],
    ]);
  });

  it('deletes what is no longer wanted by uid before unmarking the ConfigMap, and reports what it deleted', async () => {
    const { client, writes } = fakeClient();
    const applied = await carryOut(client, decisionFor('update-workload-removed'));
    expect(writes.map((w) => w.slice(0, 2))).toEqual([
      ['deleteWorkload', 'Deployment'],
      ['deleteWorkload', 'Service'],
      ['patchConfigMap', 'crd-lab'],
    ]);
    expect(writes[0]).toEqual(['deleteWorkload', 'Deployment', 'crd-lab', 'checkout', 'deploy-uid-1']);
    expect(applied.cleaned).toEqual(['deployment/checkout', 'service/checkout']);
  });

  it('a ConfigMap-only decision uses only the ConfigMap methods, as before', async () => {
    const { client, writes } = fakeClient();
    await carryOut(client, decisionFor('update-image-changed'));
    expect(writes.map((w) => w[0])).toEqual(['patchConfigMap']);
  });
});

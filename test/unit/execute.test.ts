// The engine carries out each op through the client's one method for it, with the kind's
// row: the ConfigMap created and merge-patched as before, a Deployment or a Service applied
// whole with its uid and resourceVersion as preconditions, deletes by uid.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decide } from '../../src/core/decide';
import { SyncInput } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { carryOut } from '../../src/engine/reconcile';
import type { KubeClient } from '../../src/kube/client';
import type { ChildKindRow } from '../../src/core/kinds';

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
    createChild: async (row: ChildKindRow, ns: string, object: { metadata: { name: string } }) => (
      writes.push(['create', row.kind, ns, object.metadata.name]),
      { ...echo(object), kind: row.kind }
    ),
    patchChild: async (row: ChildKindRow, ns: string, name: string, patch: unknown) => (
      writes.push(['patch', row.kind, ns, name, patch]),
      { metadata: { name, namespace: ns }, kind: row.kind }
    ),
    applyChild: async (row: ChildKindRow, ns: string, object: { metadata: { name: string } }, precondition: object) => (
      writes.push(['apply', row.kind, ns, object.metadata.name, precondition]),
      { ...echo(object), kind: row.kind }
    ),
    deleteChild: async (row: ChildKindRow, ns: string, name: string, uid?: string) => (
      writes.push(['delete', row.kind, ns, name, uid]),
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
      ['create', 'ConfigMap', 'crd-lab', 'checkout-desired'],
      ['apply', 'Deployment', 'crd-lab', 'checkout', { uid: undefined, resourceVersion: undefined }],
      ['apply', 'Service', 'crd-lab', 'checkout', { uid: undefined, resourceVersion: undefined }],
    ]);
    expect(applied.written.children.map((c) => c.kind)).toEqual(['ConfigMap', 'Deployment', 'Service']);
  });

  it('applies a Deployment with the uid and resourceVersion it was read with', async () => {
    const { client, writes } = fakeClient();
    await carryOut(client, decisionFor('update-workload-hand-edited-replicas'));
    expect(writes).toEqual([
      ['apply', 'Deployment', 'crd-lab', 'checkout', { uid: 'deploy-uid-1', resourceVersion: '3003' }],
    ]);
  });

  it('deletes what is no longer wanted by uid before unmarking the ConfigMap, and reports what it deleted', async () => {
    const { client, writes } = fakeClient();
    const applied = await carryOut(client, decisionFor('update-workload-removed'));
    expect(writes.map((w) => w.slice(0, 2))).toEqual([
      ['delete', 'Deployment'],
      ['delete', 'Service'],
      ['patch', 'ConfigMap'],
    ]);
    expect(writes[0]).toEqual(['delete', 'Deployment', 'crd-lab', 'checkout', 'deploy-uid-1']);
    expect(applied.cleaned).toEqual(['deployment/checkout', 'service/checkout']);
  });

  it('a ConfigMap-only decision merge-patches the ConfigMap, as before', async () => {
    const { client, writes } = fakeClient();
    await carryOut(client, decisionFor('update-image-changed'));
    expect(writes.map((w) => w.slice(0, 2))).toEqual([['patch', 'ConfigMap']]);
  });
});

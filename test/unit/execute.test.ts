// The engine carries out each op through the generic verbs, with the kind's row: the ConfigMap
// created and merge-patched as before, a Deployment or a Service applied whole as our field
// manager with its uid and resourceVersion as preconditions (a new one created, then its
// fields made ours as an apply's), deletes by uid.
import { decide } from '../../src/core/decide';
import { observe } from '../../src/core/observe';
import { carryOut } from '../../src/engine/reconcile';
import { FakeApi } from '../support/fake-api';
import { decideFixture } from '../support/decide-fixtures';

/** The field manager of the children we apply. */
const OURS = 'webservice-controller';

/**
 * The decision of a fixture, and a fake API server holding its objects, with what it was asked
 * to write: [verb, kind, namespace, name, precondition or patch or uid].
 */
function fakeClient(name: string) {
  const input = decideFixture(name);
  const decision = decide(observe(input));
  const client = new FakeApi({ webServices: [input.parent], children: input.children });
  const kinds: Record<string, string> = {
    configmaps: 'ConfigMap',
    controllerrevisions: 'ControllerRevision',
    deployments: 'Deployment',
    services: 'Service',
  };
  return {
    client,
    decision,
    writes: () =>
      client.writes.map((w) => [
        w.verb,
        kinds[w.resource],
        w.namespace,
        w.name,
        ...(w.detail === undefined ? [] : [w.detail]),
      ]),
  };
}

describe('carrying out workload ops', () => {
  it('creates the ConfigMap first, then the revision, the Deployment and the Service; the cache learns their kinds', async () => {
    const { client, decision, writes } = fakeClient('create-workload');
    const applied = await carryOut(client, decision);
    expect(writes()).toEqual([
      ['create', 'ConfigMap', 'crd-lab', 'checkout-desired'],
      ['create', 'ControllerRevision', 'crd-lab', expect.stringMatching(/^checkout-[0-9a-f]{8}$/)],
      ...['Deployment', 'Service'].flatMap((kind) => [
        ['create', kind, 'crd-lab', 'checkout'],
        // The create's entry in managedFields, made an Apply entry.
        [
          'patch',
          kind,
          'crd-lab',
          'checkout',
          {
            metadata: {
              resourceVersion: expect.any(String),
              managedFields: [expect.objectContaining({ manager: OURS, operation: 'Apply' })],
            },
          },
        ],
      ]),
    ]);
    // The children applied go as our field manager; the ConfigMap and the revision name none.
    expect(client.writes.map((w) => w.fieldManager)).toEqual([undefined, undefined, OURS, OURS, OURS, OURS]);
    expect(applied.written.children.map((c) => c.kind)).toEqual([
      'ConfigMap',
      'ControllerRevision',
      'Deployment',
      'Service',
    ]);
  });

  it('applies a Deployment with the uid and resourceVersion it was read with', async () => {
    const { client, decision, writes } = fakeClient('update-workload-hand-edited-replicas');
    await carryOut(client, decision);
    expect(writes().filter(([, kind]) => kind === 'Deployment')).toEqual([
      [
        'apply',
        'Deployment',
        'crd-lab',
        'checkout',
        { fieldManager: OURS, force: true, uid: 'deploy-uid-1', resourceVersion: '3003' },
      ],
    ]);
  });

  it('deletes what is no longer wanted by uid before unmarking the ConfigMap, and reports what it deleted', async () => {
    const { client, decision, writes } = fakeClient('update-workload-removed');
    const applied = await carryOut(client, decision);
    expect(writes().map((w) => w.slice(0, 2))).toEqual([
      ['delete', 'Deployment'],
      ['delete', 'Service'],
      ['patch', 'ConfigMap'],
    ]);
    expect(writes()[0]).toEqual(['delete', 'Deployment', 'crd-lab', 'checkout', { uid: 'deploy-uid-1' }]);
    expect(applied.cleaned).toEqual(['deployment/checkout', 'service/checkout']);
  });

  it('a ConfigMap-only decision merge-patches the ConfigMap, as before', async () => {
    const { client, decision, writes } = fakeClient('update-image-changed');
    await carryOut(client, decision);
    expect(writes().map((w) => w.slice(0, 2))).toEqual([['patch', 'ConfigMap']]);
  });
});

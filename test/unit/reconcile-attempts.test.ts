// A reconcile whose write meets a 409 decides again from a fresh read, and what the attempt
// before it did stays done and reported. Found on a loaded plane: the Deployment's conversion
// lost its race against the deployment controller, the retry only had the Service left to
// make, and the fresh read already showed the rollout complete, so the rollout got no Event
// at all and the Created Event named the Service alone.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Deployment, SyncInput } from '../../src/core/model';
import { reconcile } from '../../src/engine/reconcile';
import { ConflictError, KubeError } from '../../src/kube/errors';
import { FakeApi } from '../support/fake-api';

const NOW = '2026-12-02T14:05:09Z';

function input(name: string): SyncInput {
  const file = path.join(__dirname, '../fixtures/decide', name, 'input.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SyncInput;
}

/** What the deployment controller writes once every pod of a Deployment is ready. */
function rolledOut(deployment: Deployment): void {
  const replicas = deployment.spec?.replicas ?? 1;
  deployment.metadata.generation = 1;
  deployment.status = {
    observedGeneration: 1,
    replicas,
    updatedReplicas: replicas,
    availableReplicas: replicas,
    readyReplicas: replicas,
  };
}

describe('a reconcile cut short by a 409 after some of its writes', () => {
  async function createWithServiceConflict() {
    const start = input('create-workload');
    const client = new FakeApi({ webServices: [start.parent] });
    let refused = false;
    client.beforeWrite = (request) => {
      if (refused || request.verb !== 'create' || request.resource !== 'services') return;
      refused = true;
      // Meanwhile the Deployment made before it rolled out: the fresh read sees it complete.
      client.changeChild('Deployment', 'crd-lab', 'checkout', (d) => rolledOut(d));
      throw new ConflictError('Operation cannot be fulfilled on deployments.apps "checkout"');
    };
    const result = await reconcile(client, start, { now: () => NOW, reportingInstance: 'test' });
    return { client, result };
  }

  it('makes each child once and reports one Created that names them all', async () => {
    const { client, result } = await createWithServiceConflict();
    expect(client.writes.map((w) => `${w.verb} ${w.resource}`)).toEqual([
      'create configmaps',
      'create controllerrevisions',
      'create deployments',
      'patch deployments',
      'create services',
      'create services',
      'patch services',
      'patch webservices/status',
      'create events',
      'create events',
      'create events',
    ]);
    expect(result.events.filter((e) => e.reason === 'Created')).toEqual([
      expect.objectContaining({
        note: expect.stringMatching(
          /^created configmap\/checkout-desired, controllerrevision\/checkout-[0-9a-f]{8}, deployment\/checkout, service\/checkout$/,
        ),
      }),
    ]);
  });

  it('reports the rollout it started: RolloutStarted now, its completion on the next pass', async () => {
    const { result } = await createWithServiceConflict();
    expect(result.error).toBeUndefined();
    expect(result.events.map((e) => e.reason)).toEqual(['Created', 'RevisionCreated', 'RolloutStarted']);
    // The Deployment was written by this reconcile: its rollout is not taken as done yet.
    const ready = result.status.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'RolloutInProgress' });
  });
});

// Found by the correctness campaign (seed 5, 20 steps, with exposure drawn): the Service made
// by the first attempt, then deleted by the second (the spec had lost its port between them),
// was still reported written; the controller folded it into its cache after the watch had
// removed it, and a Service that did not exist stood there for good.
describe('a reconcile whose spec changes between two attempts', () => {
  it('does not report as written a child that a later attempt deleted', async () => {
    const start = input('create-workload');
    const client = new FakeApi({ webServices: [start.parent] });
    let edited = false;
    client.beforeWrite = (request) => {
      if (edited || request.resource !== 'webservices/status') return;
      edited = true;
      // The user removes the port: the status is stale, and the Service is no longer wanted.
      client.changeWebService('crd-lab', 'checkout', (ws) => {
        ws.spec.workload = {};
        ws.metadata.generation = 2;
        ws.metadata.resourceVersion = '999';
      });
      throw new ConflictError('Operation cannot be fulfilled on webservices.apps.labhub.io "checkout"');
    };
    const result = await reconcile(client, start, { now: () => NOW, reportingInstance: 'test' });
    expect(client.writes.map((w) => `${w.verb} ${w.resource}`)).toContain('delete services');
    expect(client.hasChild('Service', 'crd-lab', 'checkout')).toBe(false);
    expect(result.written.children.map((c) => `${c.kind}/${c.metadata.name}`)).not.toContain('Service/checkout');
    expect(result.written.children.map((c) => c.kind)).toEqual(expect.arrayContaining(['ConfigMap', 'Deployment']));
  });
});

describe('a reconcile whose Deployment is refused after its revision was made', () => {
  it('reports the revision all the same: one RevisionCreated, then the error', async () => {
    const start = input('create-workload');
    const client = new FakeApi({ webServices: [start.parent] });
    client.beforeWrite = (request) => {
      if (request.verb === 'create' && request.resource === 'deployments') {
        throw new KubeError('Invalid', 'Deployment.apps "checkout" is invalid: refused by a test');
      }
    };
    const result = await reconcile(client, start, { now: () => NOW, reportingInstance: 'test' });
    expect(result.error?.message).toMatch(/refused by a test/);
    expect(client.writes.map((w) => `${w.verb} ${w.resource}`)).toContain('create controllerrevisions');
    expect(result.events.map((e) => e.reason)).toEqual(['RevisionCreated', 'ReconcileError']);
  });
});

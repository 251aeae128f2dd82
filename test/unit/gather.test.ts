// gather's rule for workload children: a scope without spec.workload (and no ConfigMap
// marked as having had one) makes exactly the requests it made before workloads existed;
// one with workloads adds the Deployment and Service reads it needs, and sees the ones
// it must delete once the spec no longer wants them.
import { decide } from '../../src/core/decide';
import { NAMED_KINDS, OPTIONAL_KINDS, SET_KINDS, WATCHED_KINDS } from '../../src/core/kinds';
import { Child, WebService } from '../../src/core/model';
import { FakeApi } from '../support/fake-api';
import { observe } from '../../src/core/observe';
import { gatherAll, gatherOne } from '../../src/engine/gather';
import { decideFixture } from '../support/decide-fixtures';

/** Answers from the fixture's objects, and records each request as `verb resource`. */
function fakeClient(parents: WebService[], children: Child[]): FakeApi {
  return new FakeApi({ webServices: parents, children });
}

describe('gather and workloads', () => {
  it('a scope without workloads: the same two LISTs as before, none of Deployments or Services', async () => {
    const input = decideFixture('noop-converged');
    const client = fakeClient([input.parent], input.children);
    await gatherAll(client, 'crd-lab');
    expect(client.calls.sort()).toEqual(['list configmaps', 'list webservices']);
  });

  it('one WebService without a workload: the same two GETs as before', async () => {
    const input = decideFixture('noop-converged');
    const client = fakeClient([input.parent], input.children);
    await gatherOne(client, 'crd-lab', input.parent.metadata.name);
    expect(client.calls.sort()).toEqual(['get configmaps', 'get webservices']);
  });

  it('a converged workload: a LIST more per kind of child, by our label, and the decision is a noop', async () => {
    const input = decideFixture('noop-workload-converged');
    const client = fakeClient([input.parent], input.children);
    const [gathered] = await gatherAll(client, 'crd-lab');
    // Secrets only where some WebService snapshots them.
    const kinds = WATCHED_KINDS.filter((row) => row.kind !== 'Secret');
    expect(client.calls.sort()).toEqual(
      [
        ...OPTIONAL_KINDS.map(() => 'get discovery'),
        ...['webservices', ...kinds.map((row) => row.resource)].map((resource) => `list ${resource}`),
      ].sort(),
    );
    expect(decide(observe(gathered)).action).toBe('noop');
  });

  it('one WebService with a workload: GETs each kind of named child, LISTs its revisions and snapshots', async () => {
    const input = decideFixture('noop-workload-converged');
    const client = fakeClient([input.parent], input.children);
    const gathered = await gatherOne(client, 'crd-lab', 'checkout');
    const sets = SET_KINDS.filter((row) => row.kind !== 'Secret');
    expect(client.calls.sort()).toEqual(
      [
        ...OPTIONAL_KINDS.map(() => 'get discovery'),
        ...['webservices', ...NAMED_KINDS.map((row) => row.resource)].map((resource) => `get ${resource}`),
        ...sets.map((row) => `list ${row.resource}`),
      ].sort(),
    );
    expect(decide(observe(gathered)).action).toBe('noop');
  });

  it('a workload removed from the spec: the ConfigMap marker makes --all look, and ours are deleted', async () => {
    const input = decideFixture('update-workload-removed');
    const client = fakeClient([input.parent], input.children);
    const [gathered] = await gatherAll(client, 'crd-lab');
    expect(client.calls).toEqual(expect.arrayContaining(['list deployments', 'list services']));
    const ops = decide(observe(gathered)).ops.map((op) => `${op.op} ${'kind' in op ? op.kind : ''}`.trim());
    expect(ops).toEqual(['deleteChild Deployment', 'deleteChild Service', 'patchChild ConfigMap']);
  });

  it('a foreign Deployment on the name (not labelled, so not listed) is found by a metadata LIST: a conflict', async () => {
    const input = decideFixture('conflict-foreign-deployment');
    const client = fakeClient([input.parent], input.children);
    const [gathered] = await gatherAll(client, 'crd-lab');
    expect(client.calls).toContain('list deployments metadata');
    expect(client.calls).not.toContain('list services metadata');
    expect(decide(observe(gathered))).toMatchObject({ action: 'conflict', target: 'deployment/checkout', ops: [] });
  });

  it('a kind whose API is absent is neither read nor written: the input and the decision leave it out', async () => {
    const input = decideFixture('noop-workload-converged');
    const absent = OPTIONAL_KINDS.map((row) => row.resource);
    for (const gather of [
      (client: FakeApi) => gatherAll(client, 'crd-lab').then(([one]) => one),
      (client: FakeApi) => gatherOne(client, 'crd-lab', 'checkout'),
    ]) {
      const client = new FakeApi({ webServices: [input.parent], children: input.children, absent });
      const gathered = await gather(client);
      // The fake answers any request for an absent resource with a 404: none was made.
      expect(client.requests.filter((r) => absent.includes(r.resource.split(' ')[0]))).toEqual([]);
      expect(gathered.absentKinds).toEqual(OPTIONAL_KINDS.map((row) => row.kind));
      expect(decide(observe(gathered)).action).toBe('noop');
    }
  });
});

// Status from the rollout of a WebService with spec.workload: Ready only once the Deployment
// has seen its spec and every pod is new, available and ready; kstatus' Reconciling and
// Stalled say why not; Events once per rollout start, stall and completion.
import { decide } from '../../src/core/decide';
import { eventsFor, transitionEvents } from '../../src/core/events';
import { ConfigMap, Deployment, SyncInput } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { computeStatus, isConverged, readyOf, statusPatch } from '../../src/core/status';
import { decideFixture } from '../support/decide-fixtures';

const T0 = '2026-11-29T09:00:00Z';
const T1 = '2026-11-29T10:00:00Z';

/** The converged fixture with the Deployment's status replaced. */
function withRollout(status: Deployment['status'], parentStatus?: SyncInput['parent']['status']): SyncInput {
  const input = decideFixture('noop-workload-converged');
  const children = input.children.map((c) => (c.kind === 'Deployment' ? { ...c, status } : c));
  return { ...input, parent: { ...input.parent, status: parentStatus }, children };
}

function appliedStatus(input: SyncInput, now = T1) {
  const obs = observe(input);
  return computeStatus(obs, decide(obs), { kind: 'applied' }, now);
}

const COMPLETE = (decideFixture('noop-workload-converged').children[1] as Deployment).status;

const condition = (status: ReturnType<typeof appliedStatus>['status'], type: string) =>
  status?.conditions?.find((c) => c.type === type);

describe('status from the rollout', () => {
  it('progressing, 2/3 ready: Ready=False RolloutInProgress, Reconciling=True, replicas = ready', () => {
    const { status } = appliedStatus(
      withRollout({ observedGeneration: 4, replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 }),
    );
    expect(status).toMatchObject({
      replicas: 2,
      ready: '2/3',
      selector: 'app.kubernetes.io/name=checkout,app.kubernetes.io/instance=checkout',
    });
    expect(condition(status, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'RolloutInProgress',
      message: 'deployment/checkout: 2/3 ready',
    });
    expect(condition(status, 'Reconciling')).toMatchObject({ status: 'True', reason: 'RolloutInProgress' });
    expect(condition(status, 'Stalled')).toMatchObject({ status: 'False' });
    expect(isConverged(2, status)).toBe(false);
  });

  it('old pods left (status.replicas above spec) is still a rollout in progress', () => {
    const { status } = appliedStatus(
      withRollout({ observedGeneration: 4, replicas: 4, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 }),
    );
    expect(condition(status, 'Ready')).toMatchObject({ status: 'False', reason: 'RolloutInProgress' });
  });

  it('a Deployment that has not observed its generation is not done, whatever its counts', () => {
    const { status } = appliedStatus(
      withRollout({ observedGeneration: 3, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 }),
    );
    expect(condition(status, 'Ready')).toMatchObject({ status: 'False', reason: 'RolloutInProgress' });
  });

  it('complete: Ready=True, Reconciling and Stalled False, replicas 3', () => {
    const { status } = appliedStatus(decideFixture('noop-workload-converged'));
    expect(status).toMatchObject({ replicas: 3, ready: '3/3', observedGeneration: 2 });
    // The pods, not the lab's ConfigMap (an internal detail with a workload).
    expect(condition(status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Reconciled',
      message: 'deployment/checkout: 3/3 ready',
    });
    expect(condition(status, 'Reconciling')).toMatchObject({ status: 'False', reason: 'RolloutComplete' });
    expect(condition(status, 'Stalled')).toMatchObject({ status: 'False', reason: 'RolloutComplete' });
    expect(isConverged(2, status)).toBe(true);
  });

  describe('counts no old pod as rolled out', () => {
    const message = (input: SyncInput) => condition(appliedStatus(input).status, 'Ready')?.message;
    /** Three pods of the spec before, ready, and none of the current one. */
    const oldPodsReady = {
      observedGeneration: 4,
      replicas: 3,
      updatedReplicas: 0,
      readyReplicas: 3,
      availableReplicas: 3,
    };

    it('the pass that writes a new image: how many are ready, and that the new spec is not seen yet', () => {
      const input = decideFixture('noop-workload-converged');
      input.parent = { ...input.parent, spec: { ...input.parent.spec, image: 'nginx:1.28' } };
      const obs = observe(input);
      const decision = decide(obs);
      const after = readyOf(computeStatus(obs, decision, { kind: 'applied' }, T1).status!);
      expect(after).toMatchObject({
        reason: 'RolloutInProgress',
        message: 'deployment/checkout: the new spec is not observed yet; 3 ready',
      });
      expect(transitionEvents(decision, readyOf(obs.status), after)).toEqual([
        expect.objectContaining({ reason: 'RolloutStarted', note: after?.message }),
      ]);
    });

    it('while old pods are there: how many are updated, and how many ready', () => {
      const rolling = { ...oldPodsReady, replicas: 4, updatedReplicas: 1 };
      expect(message(withRollout(rolling))).toBe('deployment/checkout: 1/3 updated, 3 ready');
      // A Deployment that has not seen its spec yet: its counts are of the spec before.
      expect(message(withRollout({ ...rolling, observedGeneration: 3 }))).toBe(
        'deployment/checkout: the new spec is not observed yet; 3 ready',
      );
    });

    it('a rollout a quota blocks: the old pods are ready, no new one can be made', () => {
      const blocked = {
        ...oldPodsReady,
        conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'exceeded quota' }],
      };
      expect(message(withRollout(blocked))).toBe(
        'deployment/checkout: 0/3 updated, 3 ready; pods cannot be created: exceeded quota',
      );
    });
  });

  it('stalled: ProgressDeadlineExceeded makes Stalled=True and Ready=False', () => {
    const { status } = appliedStatus(
      withRollout({
        observedGeneration: 4,
        replicas: 3,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
        conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
      }),
    );
    expect(condition(status, 'Ready')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
    expect(condition(status, 'Stalled')).toMatchObject({ status: 'True', reason: 'ProgressDeadlineExceeded' });
    expect(condition(status, 'Reconciling')).toMatchObject({ status: 'False' });
  });

  it('a Deployment spec written this pass is a rollout in progress, even if its old status was complete', () => {
    const { status } = appliedStatus(decideFixture('update-workload-hand-edited-replicas'));
    expect(condition(status, 'Ready')).toMatchObject({ status: 'False', reason: 'RolloutInProgress' });
  });

  it('lastTransitionTime moves only when a condition flips', () => {
    const first = appliedStatus(
      withRollout({ observedGeneration: 4, replicas: 3, updatedReplicas: 3, readyReplicas: 1, availableReplicas: 1 }),
      undefined,
    ).status;
    const second = appliedStatus(
      withRollout(
        { observedGeneration: 4, replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 },
        first ?? undefined,
      ),
      T1.replace('10:00', '10:05'),
    );
    expect(condition(second.status, 'Ready')?.lastTransitionTime).toBe(T1);
    expect(second.changed).toBe(true); // the message and counts moved
    const done = appliedStatus(withRollout(COMPLETE, second.status!));
    expect(condition(done.status, 'Ready')?.lastTransitionTime).toBe(T1);
    expect(condition(done.status, 'Ready')?.status).toBe('True');
  });

  it('at steady state no status write is due', () => {
    const first = appliedStatus(decideFixture('noop-workload-converged'), T0).status;
    const again = appliedStatus(withRollout(COMPLETE, first!), T1);
    expect(again.changed).toBe(false);
  });

  it('Events: started, then nothing while it progresses, then complete; stalled once', () => {
    const progress = { observedGeneration: 4, replicas: 3, updatedReplicas: 3, readyReplicas: 1, availableReplicas: 1 };
    const step = (input: SyncInput) => {
      const obs = observe(input);
      const decision = decide(obs);
      const result = computeStatus(obs, decision, { kind: 'applied' }, T1);
      return {
        status: result.status!,
        events: eventsFor(decision, { kind: 'applied' }, readyOf(obs.status), readyOf(result.status!)).map(
          (e) => e.reason,
        ),
      };
    };
    const a = step(withRollout(progress));
    expect(a.events).toEqual(['RolloutStarted']);
    const b = step(withRollout({ ...progress, readyReplicas: 2, availableReplicas: 2 }, a.status));
    expect(b.events).toEqual([]);
    const stalledStatus = {
      ...progress,
      conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
    };
    const c = step(withRollout(stalledStatus, b.status));
    expect(c.events).toEqual(['RolloutStalled']);
    expect(step(withRollout(stalledStatus, c.status)).events).toEqual([]);
    const d = step(withRollout(COMPLETE, c.status));
    expect(d.events).toEqual(['RolloutComplete']);
    expect(step(withRollout(COMPLETE, d.status)).events).toEqual([]);
  });

  it("status's write of a stall carries its Event, so the pass after it has none to send", () => {
    const progress = { observedGeneration: 4, replicas: 3, updatedReplicas: 3, readyReplicas: 1, availableReplicas: 1 };
    const rolling = appliedStatus(withRollout(progress)).status!;
    const stalled = withRollout(
      { ...progress, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] },
      rolling,
    );
    // What status computes and writes (nothing carried out: planned), and the Events of that write.
    const obs = observe(stalled);
    const decision = decide(obs);
    const planned = computeStatus(obs, decision, { kind: 'planned' }, T1).status!;
    expect(eventsFor(decision, { kind: 'planned' }, readyOf(obs.status), readyOf(planned))).toEqual([]);
    expect(transitionEvents(decision, readyOf(obs.status), readyOf(planned)).map((e) => e.reason)).toEqual([
      'RolloutStalled',
    ]);
    // The next pass finds the stall stored: no Event.
    const next = observe(withRollout((stalled.children[1] as Deployment).status, planned));
    const after = computeStatus(next, decide(next), { kind: 'applied' }, T1).status!;
    expect(eventsFor(decide(next), { kind: 'applied' }, readyOf(next.status), readyOf(after))).toEqual([]);
  });

  it('a stall stands while a new spec is written, so a scale-down that ends it makes one stall Event', () => {
    const step = (input: SyncInput) => {
      const obs = observe(input);
      const decision = decide(obs);
      const result = computeStatus(obs, decision, { kind: 'applied' }, T1);
      const events = eventsFor(decision, { kind: 'applied' }, readyOf(obs.status), readyOf(result.status!));
      return { decision, status: result.status!, events: events.map((e) => e.reason) };
    };
    const stalledStatus = {
      observedGeneration: 4,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 1,
      availableReplicas: 1,
      conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
    };
    const stalled = step(withRollout(stalledStatus));
    expect(condition(stalled.status, 'Stalled')).toMatchObject({ status: 'True' });
    // The user scales down: this pass patches the Deployment's spec.
    const scaled = withRollout(stalledStatus, stalled.status);
    scaled.parent = { ...scaled.parent, spec: { ...scaled.parent.spec, replicas: 1 } };
    const writing = step(scaled);
    expect(writing.decision.ops.some((op) => op.op === 'applyChild' && op.kind === 'Deployment')).toBe(true);
    expect(condition(writing.status, 'Stalled')).toMatchObject({ status: 'True', reason: 'ProgressDeadlineExceeded' });
    expect(writing.events).toEqual(['Updated']);
    // Its controller has seen the new spec, and still reports the deadline exceeded: no Event.
    const after = withRollout(stalledStatus, writing.status);
    after.parent = { ...after.parent, spec: scaled.parent.spec };
    // The writes of the pass before have landed: the Deployment as applied, the ConfigMap's replicas.
    const applied = writing.decision.ops.find((op) => op.op === 'applyChild' && op.kind === 'Deployment');
    if (applied?.op !== 'applyChild') throw new Error('no Deployment applied');
    after.children = scaled.children.map((c) =>
      c.kind === 'Deployment'
        ? {
            ...c,
            metadata: { ...c.metadata, annotations: applied.object.metadata.annotations },
            spec: { ...(c as Deployment).spec, replicas: 1 },
          }
        : c.kind === 'ConfigMap'
          ? { ...c, data: { ...(c as ConfigMap).data, replicas: '1' } }
          : c,
    );
    const still = step(after);
    expect(still.decision.ops).toEqual([]);
    expect(condition(still.status, 'Stalled')).toMatchObject({ status: 'True' });
    expect(still.events).toEqual([]);
  });

  describe('computed without writing (status, describe)', () => {
    /** The converged fixture without its Deployment, as if the API server had refused it. */
    const refused = (parentStatus?: SyncInput['parent']['status']): SyncInput => {
      const input = withRollout(COMPLETE, parentStatus);
      return { ...input, children: input.children.filter((c) => c.kind !== 'Deployment') };
    };
    const planned = (input: SyncInput, now = T1) => {
      const obs = observe(input);
      const decision = decide(obs);
      const result = computeStatus(obs, decision, { kind: 'planned' }, now);
      return { result, events: transitionEvents(decision, readyOf(obs.status), readyOf(result.status!)) };
    };

    it('says a child is missing, not that a rollout is under way', () => {
      const { result } = planned(refused());
      expect(condition(result.status, 'Ready')).toMatchObject({
        status: 'False',
        reason: 'ChildMissing',
        message: 'deployment/checkout does not exist yet',
      });
    });

    it('keeps the error the last pass stored while its writes are still to be made: no write, no Event', () => {
      const obs = observe(refused());
      const message = 'Deployment.apps "checkout" is forbidden: ValidatingAdmissionPolicy denied request';
      const failed = computeStatus(obs, decide(obs), { kind: 'failed', message }, T0).status!;
      const { result, events } = planned(refused(failed));
      expect(result.changed).toBe(false);
      expect(condition(result.status, 'Ready')).toMatchObject({ status: 'False', reason: 'ReconcileError', message });
      expect(condition(result.status, 'Stalled')).toMatchObject({ status: 'True', reason: 'ReconcileError' });
      expect(events).toEqual([]);
      // Once the spec changes, the error is about a spec that is gone.
      const changed = refused(failed);
      changed.parent = { ...changed.parent, metadata: { ...changed.parent.metadata, generation: 3 } };
      expect(condition(planned(changed).result.status, 'Ready')).toMatchObject({ reason: 'ChildMissing' });
    });
  });

  it('workload removed: selector, ready and the kstatus pair go; the patch sends null for the fields', () => {
    const before = appliedStatus(decideFixture('noop-workload-converged'), T0).status!;
    const input = decideFixture('update-workload-removed');
    const obs = observe({ ...input, parent: { ...input.parent, status: before } });
    const result = computeStatus(obs, decide(obs), { kind: 'applied' }, T1);
    expect(result.status).toEqual({
      observedGeneration: 2,
      replicas: 3,
      conditions: [expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Reconciled' })],
    });
    expect(statusPatch(result, '1001')?.status).toMatchObject({ selector: null, ready: null });
  });
});

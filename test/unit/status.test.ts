// The pure status computation: what Ready says, when lastTransitionTime moves,
// and when a write is due at all.
import { decide } from '../../src/core/decide';
import { Condition, SyncInput } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { computeStatus, isConverged, setCondition, statusPatch } from '../../src/core/status';
import { decideFixture } from '../support/decide-fixtures';

const T0 = '2026-11-29T09:00:00Z';
const T1 = '2026-11-29T10:00:00Z';

function statusFor(input: SyncInput, outcome: Parameters<typeof computeStatus>[2], now = T1) {
  const obs = observe(input);
  return computeStatus(obs, decide(obs), outcome, now);
}

function withStatus(input: SyncInput, status: SyncInput['parent']['status']): SyncInput {
  return { ...input, parent: { ...input.parent, status } };
}

describe('computeStatus', () => {
  it('after a successful create: Ready=True, observedGeneration and replicas from the spec', () => {
    const { status, changed } = statusFor(decideFixture('create-first-run'), { kind: 'applied' });
    expect(changed).toBe(true);
    expect(status).toEqual({
      observedGeneration: 2,
      replicas: 3,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          observedGeneration: 2,
          lastTransitionTime: T1,
          reason: 'Reconciled',
          message: 'configmap/checkout-desired matches the spec',
        },
      ],
    });
    expect(isConverged(2, status)).toBe(true);
  });

  it('planned (nothing written yet): a missing child is not Ready', () => {
    const ready = statusFor(decideFixture('create-first-run'), { kind: 'planned' }).status?.conditions?.[0];
    expect(ready).toMatchObject({ status: 'False', reason: 'ChildMissing' });
  });

  it('planned: a drifted child is not Ready', () => {
    const ready = statusFor(decideFixture('update-image-changed'), { kind: 'planned' }).status?.conditions?.[0];
    expect(ready).toMatchObject({ status: 'False', reason: 'ChildOutOfDate' });
  });

  it('planned: a child that matches is Ready without our finalizer (none is added)', () => {
    const ready = statusFor(decideFixture('noop-without-finalizer'), { kind: 'planned' }).status?.conditions?.[0];
    expect(ready).toMatchObject({ status: 'True', reason: 'Reconciled' });
  });

  it('a requeue is DependencyNotReady, a conflict is ChildConflict, a failure is ReconcileError', () => {
    expect(
      statusFor(decideFixture('requeue-dependency-missing'), { kind: 'applied' }).status?.conditions?.[0],
    ).toMatchObject({
      status: 'False',
      reason: 'DependencyNotReady',
      message: 'waiting for dependencies: webservice/payments not found',
    });
    expect(
      statusFor(decideFixture('conflict-foreign-child'), { kind: 'applied' }).status?.conditions?.[0],
    ).toMatchObject({
      status: 'False',
      reason: 'ChildConflict',
    });
    expect(
      statusFor(decideFixture('update-image-changed'), { kind: 'failed', message: 'configmaps "x" is forbidden' })
        .status?.conditions?.[0],
    ).toMatchObject({ status: 'False', reason: 'ReconcileError', message: 'configmaps "x" is forbidden' });
  });

  it('a converged CR needs no write: the same status computed later is unchanged', () => {
    const first = statusFor(decideFixture('noop-converged'), { kind: 'applied' }, T0);
    const again = statusFor(withStatus(decideFixture('noop-converged'), first.status!), { kind: 'applied' }, T1);
    expect(again.changed).toBe(false);
    expect(statusPatch(again, '7')).toBeNull();
    // A status that differs is written only over the WebService it was computed from.
    expect(statusPatch(first, '7')).toEqual({ metadata: { resourceVersion: '7' }, status: first.status });
    expect(again.status?.conditions?.[0].lastTransitionTime).toBe(T0);
  });

  it('lastTransitionTime stays when only reason or message change, and moves when status flips', () => {
    const notReady = statusFor(decideFixture('requeue-dependency-missing'), { kind: 'applied' }, T0).status!;
    const stillNotReady = statusFor(
      withStatus(decideFixture('conflict-foreign-child'), notReady),
      { kind: 'applied' },
      T1,
    ).status!.conditions![0];
    expect(stillNotReady).toMatchObject({ reason: 'ChildConflict', lastTransitionTime: T0 });

    const ready = statusFor(withStatus(decideFixture('noop-converged'), notReady), { kind: 'applied' }, T1);
    expect(ready.changed).toBe(true);
    expect(ready.status!.conditions![0]).toMatchObject({ status: 'True', lastTransitionTime: T1 });
  });

  it('a new generation is a change even when Ready stays True', () => {
    const converged = statusFor(decideFixture('noop-converged'), { kind: 'applied' }, T0).status!;
    const input = decideFixture('noop-converged');
    input.parent.metadata.generation = 3;
    const next = statusFor(withStatus(input, converged), { kind: 'applied' }, T1);
    expect(next.changed).toBe(true);
    expect(next.status).toMatchObject({ observedGeneration: 3 });
    expect(next.status!.conditions![0]).toMatchObject({ observedGeneration: 3, lastTransitionTime: T0 });
    expect(isConverged(3, converged)).toBe(false);
  });

  it("keeps other writers' conditions", () => {
    const foreign: Condition = {
      type: 'example.com/Audited',
      status: 'True',
      lastTransitionTime: T0,
      reason: 'Checked',
      message: 'ok',
    };
    const result = statusFor(withStatus(decideFixture('noop-converged'), { conditions: [foreign] }), {
      kind: 'applied',
    });
    expect(result.status!.conditions!.map((c) => c.type)).toEqual(['example.com/Audited', 'Ready']);
    expect(result.status!.conditions![0]).toEqual(foreign);
  });

  it('reports nothing for a CR being finalized', () => {
    expect(statusFor(decideFixture('finalize-terminating'), { kind: 'applied' })).toEqual({
      status: null,
      changed: false,
    });
  });
});

describe('setCondition', () => {
  it('adds a new condition with now as lastTransitionTime', () => {
    expect(setCondition([], { type: 'Ready', status: 'False', reason: 'R', message: 'm' }, T1)).toEqual([
      { type: 'Ready', status: 'False', reason: 'R', message: 'm', lastTransitionTime: T1 },
    ]);
  });
});

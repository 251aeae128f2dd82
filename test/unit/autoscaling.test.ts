// spec.workload.autoscaling, in the core: the kind table's HorizontalPodAutoscaler row aims it
// at the Deployment, the Deployment's apply leaves spec.replicas to it after a handover that
// keeps the count, validation refuses what admission refuses, and the autoscaler's conditions
// become the WebService's Autoscaling condition without holding Ready back.
import { decide } from '../../src/core/decide';
import { autoscalerCondition, horizontalPodAutoscalerHealth } from '../../src/core/health';
import { NAMED_KINDS, DEPLOYMENT } from '../../src/core/kinds';
import { Autoscaling, Deployment, SyncInput, WebService } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { computeStatus, readyOf, statusPatch } from '../../src/core/status';
import { parseSyncInput } from '../../src/core/validate';
import { REPLICAS_ANNOTATION, podsWanted } from '../../src/core/workload';
import { withHistory } from '../support/writes';
import { decideFixture } from '../support/decide-fixtures';

const MEMORY_METRIC = {
  type: 'Resource',
  resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '0.5Gi' } },
};
const row = NAMED_KINDS.find((r) => r.kind === 'HorizontalPodAutoscaler')!;
const desiredOf = (ws: WebService) => observe({ parent: ws, children: [], related: [] }).desired;
const T0 = '2026-12-02T09:00:00Z';
const T1 = '2026-12-02T10:00:00Z';

function parent(autoscaling?: Autoscaling, replicas = 3): WebService {
  return {
    apiVersion: 'apps.labhub.io/v1',
    kind: 'WebService',
    metadata: { name: 'shop', namespace: 'ns', uid: 'uid-1', generation: 1 },
    spec: { image: 'nginx:1.27', replicas, workload: { port: 8080, ...(autoscaling ? { autoscaling } : {}) } },
  };
}

describe('the HorizontalPodAutoscaler row', () => {
  it('is wanted only when the workload sets autoscaling', () => {
    expect(row.wanted(parent())).toBe(false);
    expect(row.wanted(parent({ maxReplicas: 5 }))).toBe(true);
  });

  it('aims at the Deployment, between minReplicas and maxReplicas, on the CPU target', () => {
    const desired = desiredOf(parent({ minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 }));
    expect(row.build!({ name: 'shop' }, { name: 'shop', desired })).toEqual({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'shop' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
        ],
      },
    });
  });

  it("sends the spec's metrics (the list whole) and behavior as they are written", () => {
    const behavior = { scaleDown: { stabilizationWindowSeconds: 60 } };
    const desired = desiredOf(parent({ maxReplicas: 6, metrics: [MEMORY_METRIC], behavior }));
    const object = row.build!({ name: 'shop' }, { name: 'shop', desired });
    expect(object?.spec.metrics).toEqual([MEMORY_METRIC]);
    expect(object?.spec.behavior).toEqual(behavior);
  });

  it("takes spec.replicas as its minimum when minReplicas is unset, and the server's default target, as ours", () => {
    const object = row.build!({ name: 'shop' }, { name: 'shop', desired: desiredOf(parent({ maxReplicas: 8 }, 4)) });
    expect(object?.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
      minReplicas: 4,
      maxReplicas: 8,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
      ],
    });
  });

  it('builds nothing without autoscaling', () => {
    expect(row.build!({ name: 'shop' }, { name: 'shop', desired: desiredOf(parent()) })).toBeNull();
  });
});

describe("the Deployment's replicas under an autoscaler", () => {
  const deployment = (autoscaling?: Autoscaling) =>
    DEPLOYMENT.build!({ name: 'shop' }, { name: 'shop', desired: desiredOf(parent(autoscaling)) })!;

  it('are ours without autoscaling, and left out (with the annotation that says so) with it', () => {
    expect(deployment().spec.replicas).toBe(3);
    expect(deployment().metadata.annotations).toBeUndefined();
    const scaled = deployment({ maxReplicas: 10 });
    expect(scaled.spec).not.toHaveProperty('replicas');
    expect(scaled.metadata.annotations).toEqual({ [REPLICAS_ANNOTATION]: 'autoscaler' });
  });

  const live = (annotations: Record<string, string> = {}): Deployment => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'shop', namespace: 'ns', annotations },
    spec: { replicas: 5 },
  });
  const handover = (d: Deployment | null, autoscaling?: Autoscaling) =>
    DEPLOYMENT.handover!(d, { name: 'shop', desired: desiredOf(parent(autoscaling)) });

  it('are handed over at their live value, once: before the first apply that leaves them out', () => {
    expect(handover(live(), { maxReplicas: 10 })).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'shop', namespace: 'ns' },
      spec: { replicas: 5 },
    });
    expect(handover(live({ [REPLICAS_ANNOTATION]: 'autoscaler' }), { maxReplicas: 10 })).toBeNull();
    expect(handover(live())).toBeNull();
  });

  // Found by the campaign (seed 201, step 934): a WebService at replicas 0 that then asked for
  // autoscaling kept 0 pods for good, as an autoscaler leaves a target at 0 alone.
  it("are handed over at the autoscaler's minimum when the live count is below it, 0 included", () => {
    const at = (replicas: number): Deployment => ({ ...live(), spec: { replicas } });
    expect(handover(at(0), { minReplicas: 2, maxReplicas: 4 })?.spec).toEqual({ replicas: 2 });
    expect(handover(at(1), { minReplicas: 2, maxReplicas: 4 })?.spec).toEqual({ replicas: 2 });
    // Without minReplicas, spec.replicas (3 here) is the minimum.
    expect(handover(at(0), { maxReplicas: 4 })?.spec).toEqual({ replicas: 3 });
    // Above it: the live count, never lowered (the autoscaler decides from there).
    expect(handover(at(7), { minReplicas: 2, maxReplicas: 4 })?.spec).toEqual({ replicas: 7 });
  });

  it("a pass that turns autoscaling on hands over first, then applies without replicas on the Deployment's uid", () => {
    const decision = decide(observe(decideFixture('update-workload-autoscaling-handover')));
    const deploymentOps = decision.ops.filter((op) => op.op === 'applyChild' && op.kind === 'Deployment');
    expect(deploymentOps).toEqual([
      expect.objectContaining({ handover: true, uid: 'deploy-uid-1', resourceVersion: '3003' }),
      expect.not.objectContaining({ handover: true, resourceVersion: expect.anything() }),
    ]);
    const [first, second] = deploymentOps;
    if (first.op !== 'applyChild' || second.op !== 'applyChild') throw new Error('not applies');
    expect(first.object.spec).toEqual({ replicas: 3 });
    expect(second.object.spec).not.toHaveProperty('replicas');
  });

  it("count as the autoscaler's: the live Deployment's replicas, else its minimum", () => {
    const desired = desiredOf(parent({ minReplicas: 2, maxReplicas: 10 }));
    expect(podsWanted(desired, live())).toBe(5);
    expect(podsWanted(desired, null)).toBe(2);
    expect(podsWanted(desiredOf(parent()), live())).toBe(3);
  });

  it('count never fewer than the minimum: a count below it is one the autoscaler has yet to raise', () => {
    const below: Deployment = { ...live(), spec: { replicas: 1 } };
    expect(podsWanted(desiredOf(parent({ minReplicas: 4, maxReplicas: 8 })), below)).toBe(4);
    // Without minReplicas, spec.replicas (3) is the minimum.
    expect(podsWanted(desiredOf(parent({ maxReplicas: 8 })), below)).toBe(3);
  });

  it("start at the autoscaler's minimum in a new Deployment, handed over from the start", () => {
    expect(handover(null, { minReplicas: 4, maxReplicas: 8 })).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'shop' },
      spec: { replicas: 4 },
    });
    const decision = decide(observe(decideFixture('create-workload-autoscaling')));
    const create = decision.ops.find((op) => op.op === 'applyChild' && op.kind === 'Deployment');
    if (create?.op !== 'applyChild') throw new Error('no Deployment applied');
    expect(create.object.spec.replicas).toBe(2);
    expect(create.handedOver?.spec).toEqual({ replicas: 2 });
    expect(create.object.metadata.annotations).toMatchObject({ [REPLICAS_ANNOTATION]: 'autoscaler' });
  });

  it('created at the minimum, the Deployment matches the spec on the next pass: no write', () => {
    const input = decideFixture('create-workload-autoscaling');
    const made = decide(observe(input)).ops.flatMap((op) =>
      op.op === 'createChild' || op.op === 'applyChild'
        ? [{ ...op.object, metadata: { ...op.object.metadata, uid: `uid-${op.object.kind}` } }]
        : [],
    );
    const next = decide(observe({ ...input, children: made }));
    expect(next.action).toBe('noop');
    expect(next.ops).toEqual([]);
  });

  it('hold Ready back while the Deployment runs fewer pods than the minimum, however rolled out', () => {
    const input = decideFixture('update-workload-autoscaling-removed');
    const workload = { ...input.parent.spec.workload, autoscaling: { minReplicas: 4, maxReplicas: 8 } };
    const atOne = (d: Deployment): Deployment => ({
      ...d,
      spec: { ...d.spec, replicas: 1 },
      status: { ...d.status, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 },
    });
    const children = input.children.map((c) => (c.kind === 'Deployment' ? atOne(c as Deployment) : c));
    const obs = observe({ ...input, parent: { ...input.parent, spec: { ...input.parent.spec, workload } }, children });
    const { status } = computeStatus(obs, decide(obs), { kind: 'applied' }, T0);
    expect(status?.ready).toBe('1/4');
    expect(readyOf(status!)).toMatchObject({ status: 'False', reason: 'RolloutInProgress' });
  });
});

describe('validating autoscaling', () => {
  const input = (autoscaling: unknown, replicas = 3) => ({
    parent: parent(autoscaling as Autoscaling, replicas),
    children: [],
    related: [],
  });

  it.each([
    [{ minReplicas: 5, maxReplicas: 2 }, 3, 'minReplicas (5) must not exceed maxReplicas (2)'],
    [{ maxReplicas: 2 }, 3, 'spec.replicas (3) must not exceed maxReplicas (2)'],
    [{ maxReplicas: 5 }, 0, "spec.replicas is the autoscaler's minimum: it must be 1 or more"],
    [{ minReplicas: 0, maxReplicas: 5 }, 3, 'minReplicas must be an integer of 1 or more'],
    [{ minReplicas: 1 }, 3, 'maxReplicas must be an integer of 1 or more'],
    [{ maxReplicas: 5, targetCPUUtilizationPercentage: 0 }, 3, 'targetCPUUtilizationPercentage must be an integer'],
    ['lots', 3, 'autoscaling must be an object'],
    [
      { maxReplicas: 5, targetCPUUtilizationPercentage: 70, metrics: [MEMORY_METRIC] },
      3,
      'targetCPUUtilizationPercentage and metrics exclude each other',
    ],
  ])('refuses %j with %d replicas', (autoscaling, replicas, message) => {
    expect(() => parseSyncInput(input(autoscaling, replicas))).toThrow(message);
  });

  it.each([
    [{ maxReplicas: 3 }, 3],
    [{ minReplicas: 1, maxReplicas: 1 }, 0],
    [{ minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 150 }, 3],
  ])('accepts %j with %d replicas', (autoscaling, replicas) => {
    expect(() => parseSyncInput(input(autoscaling, replicas))).not.toThrow();
  });
});

describe("the autoscaler's condition and health", () => {
  const hpa = (conditions?: { type: string; status: string; reason: string; message: string }[]) => ({
    metadata: { name: 'shop' },
    spec: { minReplicas: 2, maxReplicas: 10 },
    ...(conditions ? { status: { currentReplicas: 2, desiredReplicas: 2, conditions } } : {}),
  });
  const noMetrics = {
    type: 'ScalingActive',
    status: 'False',
    reason: 'FailedGetResourceMetric',
    message: 'the HPA was unable to compute the replica count: failed to get cpu utilization',
  };
  const ableToScale = { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: 'ok' };

  it('is Unknown before its controller has looked', () => {
    expect(autoscalerCondition(hpa())).toEqual({
      status: 'Unknown',
      reason: 'NotEvaluated',
      message: 'horizontalpodautoscaler/shop has not been evaluated by its controller yet',
    });
    expect(horizontalPodAutoscalerHealth(hpa()).state).toBe('Progressing');
  });

  it("says what stops it in the autoscaler's own reason and message", () => {
    expect(autoscalerCondition(hpa([ableToScale, noMetrics]))).toEqual({
      status: 'False',
      reason: 'FailedGetResourceMetric',
      message: noMetrics.message,
    });
    expect(horizontalPodAutoscalerHealth(hpa([ableToScale, noMetrics]))).toEqual({
      state: 'Failed',
      info: '2/2 replicas, 2 to 10',
      message: `FailedGetResourceMetric: ${noMetrics.message}`,
    });
  });

  it('is True once it scales on a metric', () => {
    const active = { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: 'found' };
    expect(autoscalerCondition(hpa([ableToScale, active]))).toMatchObject({
      status: 'True',
      reason: 'ValidMetricFound',
    });
    expect(horizontalPodAutoscalerHealth(hpa([ableToScale, active])).state).toBe('Ready');
  });
});

describe("the WebService's Autoscaling condition", () => {
  /** The removed fixture's children with autoscaling still in the spec: converged, 5 pods from the autoscaler. */
  function converged(hpaConditions: unknown[] | undefined, status?: WebService['status']): SyncInput {
    const input = decideFixture('update-workload-autoscaling-removed');
    const workload = { ...input.parent.spec.workload, autoscaling: { maxReplicas: 10 } };
    const children = input.children.map((c) =>
      c.kind === 'HorizontalPodAutoscaler'
        ? { ...c, status: { currentReplicas: 5, desiredReplicas: 5, conditions: hpaConditions } }
        : c,
    );
    return withHistory({
      ...input,
      parent: { ...input.parent, spec: { ...input.parent.spec, workload }, status },
      children,
    });
  }
  const statusOf = (input: SyncInput, now: string) => {
    const obs = observe(input);
    return computeStatus(obs, decide(obs), { kind: 'applied' }, now);
  };
  const noMetrics = [
    {
      type: 'AbleToScale',
      status: 'True',
      reason: 'SucceededGetScale',
      message: 'the HPA controller was able to get the target',
    },
    { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message: 'no metrics' },
  ];

  it('carries the missing metrics while Ready stays True, counting the pods the autoscaler set', () => {
    const input = converged(noMetrics);
    expect(decide(observe(input)).action).toBe('noop');
    const { status } = statusOf(input, T0);
    expect(readyOf(status!)).toMatchObject({ status: 'True' });
    expect(status?.ready).toBe('5/5');
    expect(status?.conditions?.find((c) => c.type === 'Autoscaling')).toEqual({
      type: 'Autoscaling',
      status: 'False',
      observedGeneration: input.parent.metadata.generation,
      lastTransitionTime: T0,
      reason: 'FailedGetResourceMetric',
      message: 'no metrics',
    });
  });

  it('is written once: a later pass over the same objects changes nothing, and keeps its time', () => {
    const first = statusOf(converged(noMetrics), T0);
    const again = statusOf(converged(noMetrics, first.status!), T1);
    expect(again.changed).toBe(false);
    expect(statusPatch(again, '1')).toBeNull();
  });

  it('is Unknown while the autoscaler is missing, and goes with autoscaling', () => {
    const input = converged(noMetrics);
    const missing = { ...input, children: input.children.filter((c) => c.kind !== 'HorizontalPodAutoscaler') };
    const { status } = statusOf(missing, T0);
    expect(status?.conditions?.find((c) => c.type === 'Autoscaling')).toMatchObject({
      status: 'Unknown',
      reason: 'ChildMissing',
      message: 'horizontalpodautoscaler/checkout does not exist yet',
    });
    const removed = decideFixture('update-workload-autoscaling-removed');
    const after = statusOf({ ...removed, parent: { ...removed.parent, status: status! } }, T1);
    expect(after.status?.conditions?.map((c) => c.type)).not.toContain('Autoscaling');
  });

  it('is added by no kind without a condition column', () => {
    const { status } = statusOf(decideFixture('noop-workload-converged'), T0);
    expect(status?.conditions?.map((c) => c.type).sort()).toEqual(['Ready', 'Reconciling', 'Stalled']);
  });
});

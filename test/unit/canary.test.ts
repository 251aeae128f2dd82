// A canary in the core, pass after pass with a clock given: the steps, the split of the pods and
// of the traffic, pauses that end on time or by promote, the promotion that rolls the stable pods
// last, and the aborts (by hand, by a deadline, by the server's refusal) that never touch the
// stable pods' template. Pure: inputs are built pass after pass with afterWrites.
import { ABORT_ANNOTATION, PROMOTE_ANNOTATION } from '../../src/core/canary-requests';
import { Decision, decide } from '../../src/core/decide';
import { Chalk } from 'chalk';
import { describeWebService } from '../../src/core/description';
import { eventsFor } from '../../src/core/events';
import { renderDescription } from '../../src/print/describe';
import { Deployment, SyncInput, kindOf } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { computeStatus } from '../../src/core/status';
import { parseSyncInput } from '../../src/core/validate';
import { afterWrites } from '../support/writes';

const T0 = Date.parse('2026-12-05T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const SPEC = {
  image: 'shop:1',
  replicas: 4,
  workload: { port: 8080 },
  expose: { host: 'shop.example.com', gateway: { name: 'public' } },
  rollout: { canary: { steps: [{ weight: 25 }, { pause: {} }, { weight: 50 }, { pause: { duration: '30s' } }] } },
};

type Ready = (deployment: Deployment) => boolean;
const everyoneReady: Ready = () => true;

/** One pass at a time: decide, write, the Deployments' pods as `ready` says, the status as computed. */
function pass(
  input: SyncInput,
  seconds: number,
  ready: Ready = everyoneReady,
): { decision: Decision; next: SyncInput } {
  const observation = observe(parseSyncInput(input));
  const decision = decide(observation, { at: at(seconds) });
  const written = afterWrites(input, decision);
  const children = written.children.map((c) => {
    if (kindOf(c) !== 'Deployment') return c;
    const d = c as Deployment;
    const generation = (d.metadata.generation ?? 0) + 1;
    const replicas = d.spec?.replicas ?? 1;
    const up = ready(d) ? replicas : 0;
    return {
      ...d,
      metadata: { ...d.metadata, generation },
      status: {
        ...d.status,
        observedGeneration: generation,
        replicas,
        updatedReplicas: replicas,
        readyReplicas: up,
        availableReplicas: up,
      },
    };
  });
  const status = computeStatus(observation, decision, { kind: 'applied' }, at(seconds)).status!;
  return { decision, next: { ...written, children, parent: { ...written.parent, status } } };
}

/** Passes until nothing is written, one second apart from `seconds`; the last decision and input. */
function settle(input: SyncInput, seconds: number, ready?: Ready): { decision: Decision; next: SyncInput } {
  let current = input;
  for (let i = 0; i < 30; i++) {
    const result = pass(current, seconds + i, ready);
    if (result.decision.ops.length === 0) return result;
    current = result.next;
  }
  throw new Error('no steady state in 30 passes');
}

const child = (input: SyncInput, kind: string, name: string) =>
  input.children.find((c) => kindOf(c) === kind && c.metadata.name === name) as any;
const weights = (input: SyncInput) =>
  (child(input, 'HTTPRoute', 'shop').spec.rules[0].backendRefs as any[]).map((r) => `${r.name}:${r.weight ?? '-'}`);
const image = (deployment: any) => deployment.spec.template.spec.containers[0].image as string;
const withSpec = (input: SyncInput, spec: object): SyncInput => ({
  ...input,
  parent: { ...input.parent, spec: { ...input.parent.spec, ...spec } },
});
const annotated = (input: SyncInput, key: string, value: string): SyncInput => ({
  ...input,
  parent: {
    ...input.parent,
    metadata: { ...input.parent.metadata, annotations: { ...input.parent.metadata.annotations, [key]: value } },
  },
});
/** The writes to the stable Deployment: only handovers of its count, never its template, during a canary. */
const stableTemplateWrites = (decisions: Decision[]) =>
  decisions
    .flatMap((d) => d.ops)
    .filter((op) => op.op === 'applyChild' && op.kind === 'Deployment' && op.name === 'shop' && !op.handover);

function converged(): SyncInput {
  const start: SyncInput = {
    parent: { metadata: { name: 'shop', namespace: 'ns', uid: 'uid-shop', generation: 1 }, spec: SPEC },
    children: [],
    related: [],
  };
  return settle(start, 0).next;
}

describe('a canary', () => {
  it('rolls the first revision as without one, the pods labelled as the stable ones', () => {
    const input = converged();
    expect(child(input, 'Deployment', 'shop').spec.template.metadata.labels['webservice.labhub.io/track']).toBe(
      'stable',
    );
    expect(child(input, 'Deployment', 'shop-canary')).toBeUndefined();
    expect(input.parent.status?.rollout).toBeUndefined();
    expect(input.parent.status?.currentRevision).toBe(1);
    expect(weights(input)).toEqual(['shop:-']);
  });

  it('takes the steps in order, the canary first and the traffic once its pods are ready', () => {
    let input = withSpec(converged(), { image: 'shop:2' });
    const decisions: Decision[] = [];
    const step = (seconds: number) => {
      const result = settle(input, seconds);
      decisions.push(result.decision);
      input = result.next;
    };
    step(100);
    expect(input.parent.status?.rollout).toMatchObject({ step: 1, weight: 25, phase: 'Paused' });
    expect(weights(input)).toEqual(['shop-stable:75', 'shop-canary:25']);
    expect(child(input, 'Deployment', 'shop-canary').spec.replicas).toBe(1);
    expect(image(child(input, 'Deployment', 'shop-canary'))).toBe('shop:2');
    expect(child(input, 'Deployment', 'shop').spec.replicas).toBe(3);
    expect(image(child(input, 'Deployment', 'shop'))).toBe('shop:1');
    // Paused until promote, however long: a pass an hour later writes nothing.
    expect(pass(input, 3700).decision.ops).toEqual([]);
    const revision = input.parent.status!.rollout!.revision!;
    // A promote of another step, or of another canary, is not this one's.
    expect(pass(annotated(input, PROMOTE_ANNOTATION, `${revision}/0`), 3700).decision.ops).toEqual([]);
    expect(pass(annotated(input, PROMOTE_ANNOTATION, `other/1`), 3700).decision.ops).toEqual([]);
    input = annotated(input, PROMOTE_ANNOTATION, `${revision}/1`);
    step(3800);
    expect(input.parent.status?.rollout).toMatchObject({ step: 3, weight: 50, phase: 'Paused' });
    expect(weights(input)).toEqual(['shop-stable:50', 'shop-canary:50']);
    const paused = input.parent.status!.rollout!.stepStartedAt!;
    // The pause counts from its recorded start: not over 29 s after it, over at 30 s.
    const pausedAt = (Date.parse(paused) - T0) / 1000;
    const early = pass(input, pausedAt + 29);
    expect(early.decision.ops).toEqual([]);
    expect(early.decision.after_seconds).toBe(1);
    step(pausedAt + 30);
    expect(input.parent.status?.rollout).toBeUndefined();
    expect(child(input, 'Deployment', 'shop-canary')).toBeUndefined();
    expect(weights(input)).toEqual(['shop:-']);
    expect(image(child(input, 'Deployment', 'shop'))).toBe('shop:2');
    expect(child(input, 'Deployment', 'shop').spec.replicas).toBe(4);
    expect(input.parent.status?.currentRevision).toBe(2);
    // Until the promotion, the stable Deployment's template was never written.
    expect(stableTemplateWrites(decisions.slice(0, 2))).toEqual([]);
  });

  it('describe shows where it stands, and its Deployment in the tree as wanted', () => {
    let input = settle(withSpec(converged(), { image: 'shop:2' }), 100).next;
    const revision = input.parent.status!.rollout!.revision!;
    input = settle(annotated(input, PROMOTE_ANNOTATION, `${revision}/1`), 200).next;
    const ends = Date.parse(input.parent.status!.rollout!.pauseEndsAt!);
    const now = new Date(ends - 12_000).toISOString();
    const observation = observe(parseSyncInput(input));
    const decision = decide(observation, { at: now });
    const d = describeWebService({ input, observation, decision, related: {}, events: [], unread: [], now });
    const text = renderDescription(d, new Chalk({ level: 0 }), new Date(now));
    const section = text.slice(text.indexOf('Canary:'), text.indexOf('Conditions:'));
    expect(section.split('\n').map((line) => line.trim())).toEqual([
      'Canary:',
      'Phase:    Paused (step 4 of 4, pause 30s)',
      `Traffic:  50% to the canary (${revision}), 50% to stable (${input.parent.status!.rollout!.stableRevision})`,
      'Pods:     canary 2/2 ready, stable 2 wanted',
      `Pause:    12s left (until ${new Date(ends).toISOString()})`,
      'Message:  paused for 30s',
      '',
    ]);
    const canaryNode = d.tree.children.find((node) => node.kind === 'Deployment' && node.name === 'shop-canary');
    // Weighed as decide weighs it: without the canary's plan, its Deployment would be Unwanted.
    expect(canaryNode).toBeDefined();
    expect(canaryNode!.state).not.toBe('Unwanted');
  });

  it('skips every step left with promote --full', () => {
    let input = settle(withSpec(converged(), { image: 'shop:2' }), 100).next;
    const revision = input.parent.status!.rollout!.revision!;
    input = settle(annotated(input, PROMOTE_ANNOTATION, `${revision}/full`), 200).next;
    expect(input.parent.status?.rollout).toBeUndefined();
    expect(image(child(input, 'Deployment', 'shop'))).toBe('shop:2');
  });

  it('takes no abort once the stable pods roll to the new revision: the way back is a rollback', () => {
    let input = settle(withSpec(converged(), { image: 'shop:2' }), 100).next;
    const revision = input.parent.status!.rollout!.revision!;
    // Promoted fully, up to the pass that releases the stable Deployment.
    input = annotated(input, PROMOTE_ANNOTATION, `${revision}/full`);
    for (let s = 200; input.parent.status?.rollout?.weight !== 100; s++) input = pass(input, s).next;
    expect(input.parent.status).toMatchObject({ rollout: { phase: 'Promoting', weight: 100 } });
    const { decision } = pass(annotated(input, ABORT_ANNOTATION, revision), 300);
    expect(decision.rollout?.phase).not.toBe('Aborted');
    expect(decision.rollout?.weight).toBe(100);
  });

  it('keeps a WebService scaled to 0 at 0 stable pods', () => {
    const input = settle(
      withSpec(settle(withSpec(converged(), { replicas: 0 }), 50).next, { image: 'shop:2' }),
      100,
    ).next;
    expect(child(input, 'Deployment', 'shop').spec.replicas).toBe(0);
  });

  it('aborts by hand: all traffic to the stable pods, the canary at 0, one Warning Event', () => {
    let input = settle(withSpec(converged(), { image: 'shop:2' }), 100).next;
    const revision = input.parent.status!.rollout!.revision!;
    const before = input.parent.status;
    const { decision, next } = pass(annotated(input, ABORT_ANNOTATION, revision), 200);
    expect(stableTemplateWrites([decision])).toEqual([]);
    input = settle(next, 201).next;
    expect(input.parent.status?.rollout).toMatchObject({
      phase: 'Aborted',
      weight: 0,
      message: 'aborted by kubectl webservice abort',
    });
    expect(weights(input)).toEqual(['shop-stable:100', 'shop-canary:0']);
    expect(child(input, 'Deployment', 'shop-canary').spec.replicas).toBe(0);
    expect(child(input, 'Deployment', 'shop').spec.replicas).toBe(4);
    expect(image(child(input, 'Deployment', 'shop'))).toBe('shop:1');
    const ready = next.parent.status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'CanaryAborted' });
    const events = eventsFor(
      decision,
      { kind: 'applied' },
      before?.conditions?.find((c) => c.type === 'Ready'),
      ready,
      [],
    );
    expect(events.filter((e) => e.type === 'Warning').map((e) => e.reason)).toEqual(['CanaryAborted']);
    // Aborted stays aborted, and writes nothing, until the spec changes.
    expect(pass(input, 5000).decision.ops).toEqual([]);
    // Back to the stable revision's spec: the canary goes, and so does the split.
    input = settle(withSpec(input, { image: 'shop:1' }), 5100).next;
    expect(child(input, 'Deployment', 'shop-canary')).toBeUndefined();
    expect(weights(input)).toEqual(['shop:-']);
    expect(input.parent.status?.rollout).toBeUndefined();
  });

  it('aborts by itself when the canary is not ready within the deadline', () => {
    const notCanary: Ready = (d) => d.metadata.name !== 'shop-canary';
    let input = withSpec(converged(), { image: 'shop:2' });
    input = settle(input, 100, notCanary).next;
    expect(input.parent.status?.rollout).toMatchObject({ step: 0, weight: 0, phase: 'Progressing' });
    expect(weights(input)).toEqual(['shop-stable:100', 'shop-canary:0']);
    expect(settle(input, 699, notCanary).next.parent.status?.rollout?.phase).toBe('Progressing');
    input = settle(input, 700, notCanary).next;
    expect(input.parent.status?.rollout).toMatchObject({ phase: 'Aborted', weight: 0 });
    expect(input.parent.status?.rollout?.message).toMatch(/not ready within 600s: 0\/1 ready/);
  });

  it("aborts by itself when the server refuses the canary's pods, in the server's words", () => {
    let input = settle(withSpec(converged(), { image: 'shop:2' }), 100, (d) => d.metadata.name !== 'shop-canary').next;
    const message =
      'pods "shop-canary-x" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=4, limited: pods=4';
    input = {
      ...input,
      children: input.children.map((c) =>
        c.metadata.name === 'shop-canary' && kindOf(c) === 'Deployment'
          ? {
              ...c,
              status: {
                ...(c as Deployment).status,
                conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message }],
              },
            }
          : c,
      ),
    };
    input = pass(input, 110).next;
    expect(input.parent.status?.rollout).toMatchObject({
      phase: 'Aborted',
      message: `the canary's pods cannot be made: ${message}`,
    });
  });

  it('aborts by itself when a pod of the canary restarts more than maxRestarts (3 unset)', () => {
    const input = settle(withSpec(converged(), { image: 'shop:2' }), 100).next;
    expect(pass({ ...input, canaryRestarts: 3 }, 200).decision.ops).toEqual([]);
    const aborted = pass({ ...input, canaryRestarts: 4 }, 200).next;
    expect(aborted.parent.status?.rollout).toMatchObject({
      phase: 'Aborted',
      message: 'a pod of the canary restarted 4 times (more than 3)',
    });
    const strict = withSpec(input, { rollout: { canary: { ...SPEC.rollout.canary, maxRestarts: 0 } } });
    expect(pass({ ...strict, canaryRestarts: 1 }, 200).next.parent.status?.rollout?.phase).toBe('Aborted');
  });

  it('starts no canary from pods that do not carry the track label: rollout and an image at once roll as before', () => {
    const { rollout: _, ...plain } = SPEC;
    const start: SyncInput = {
      parent: { metadata: { name: 'shop', namespace: 'ns', uid: 'uid-shop', generation: 1 }, spec: plain },
      children: [],
      related: [],
    };
    const input = settle(withSpec(settle(start, 0).next, { image: 'shop:2', rollout: SPEC.rollout }), 100).next;
    expect(input.parent.status?.rollout).toBeUndefined();
    expect(child(input, 'Deployment', 'shop-canary')).toBeUndefined();
    expect(image(child(input, 'Deployment', 'shop'))).toBe('shop:2');
  });

  describe('with a check', () => {
    const CHECK = { query: 'sum(rate(errors[1m]))', max: 0.01 };
    const checked =
      (result: SyncInput['canaryCheck']) =>
      (input: SyncInput): SyncInput =>
        result === undefined ? input : { ...input, canaryCheck: result };
    /** The canary at its timed pause (step 3), 30 s on: the check is due. */
    function atTimedPause(): { input: SyncInput; seconds: number } {
      let input = withSpec(converged(), {
        image: 'shop:2',
        rollout: { canary: { ...SPEC.rollout.canary, check: CHECK } },
      });
      input = settle(input, 100).next;
      const revision = input.parent.status!.rollout!.revision!;
      input = settle(annotated(input, PROMOTE_ANNOTATION, `${revision}/1`), 200).next;
      expect(input.parent.status?.rollout).toMatchObject({ step: 3, phase: 'Paused' });
      const started = (Date.parse(input.parent.status!.rollout!.stepStartedAt!) - T0) / 1000;
      return { input, seconds: started + 30 };
    }

    it('goes on once the pause is over and the check passes', () => {
      const { input, seconds } = atTimedPause();
      const next = settle(checked({ value: 0.002 })(input), seconds).next;
      expect(next.parent.status?.rollout).toBeUndefined();
      expect(image(child(next, 'Deployment', 'shop'))).toBe('shop:2');
    });

    it('aborts when the check fails, saying what it gave', () => {
      const { input, seconds } = atTimedPause();
      const next = settle(checked({ value: 0.2 })(input), seconds).next;
      expect(next.parent.status?.rollout).toMatchObject({
        phase: 'Aborted',
        message: 'the check failed: sum(rate(errors[1m])) gave 0.2 (max 0.01)',
      });
      expect(weights(next)).toEqual(['shop-stable:100', 'shop-canary:0']);
    });

    it('waits, and says why, while there is no result: not asked yet, no metrics API, or an error', () => {
      const { input, seconds } = atTimedPause();
      for (const [result, message] of [
        [undefined, 'the check is evaluated at the next pass'],
        [
          { error: 'no metrics API: it runs without --prometheus-url' },
          'the check could not be evaluated: no metrics API: it runs without --prometheus-url',
        ],
        [{ error: 'connect ECONNREFUSED' }, 'the check could not be evaluated: connect ECONNREFUSED'],
      ] as const) {
        const { decision, next } = pass(checked(result)(input), seconds);
        expect(decision.ops).toEqual([]);
        expect(decision.after_seconds).toBe(5);
        expect(next.parent.status?.rollout).toMatchObject({ step: 3, phase: 'Paused', message });
      }
    });
  });

  describe('with autoscaling', () => {
    const AUTOSCALED = { ...SPEC, workload: { port: 8080, autoscaling: { minReplicas: 2, maxReplicas: 10 } } };
    /** The autoscaler's count, as it sets it: spec.replicas, through the WebService's scale subresource. */
    const scaled = (input: SyncInput, replicas: number) => withSpec(input, { replicas });

    it("aims the autoscaler at the WebService, and owns the Deployment's count", () => {
      const input = settle(scaled(withSpec(converged(), AUTOSCALED), 4), 50).next;
      const hpa = child(input, 'HorizontalPodAutoscaler', 'shop');
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name: 'shop' });
      expect(child(input, 'Deployment', 'shop').spec.replicas).toBe(4);
      expect(child(input, 'Deployment', 'shop').metadata.annotations['webservice.labhub.io/replicas']).toBeUndefined();
      // Below its minimum, the count is the minimum until the autoscaler raises it.
      expect(child(settle(scaled(input, 1), 60).next, 'Deployment', 'shop').spec.replicas).toBe(2);
    });

    it("splits the autoscaler's count by the weight, and follows it when it changes, never setting it back", () => {
      let input = settle(scaled(withSpec(converged(), AUTOSCALED), 4), 50).next;
      input = settle(withSpec(input, { image: 'shop:2' }), 100).next;
      expect(input.parent.status?.rollout).toMatchObject({ step: 1, weight: 25, stableReplicas: 3, canaryReplicas: 1 });
      const decisions: Decision[] = [];
      const result = settle(scaled(input, 8), 200);
      decisions.push(result.decision);
      input = result.next;
      expect(child(input, 'Deployment', 'shop-canary').spec.replicas).toBe(2);
      expect(child(input, 'Deployment', 'shop').spec.replicas).toBe(6);
      expect(input.parent.status?.rollout).toMatchObject({ stableReplicas: 6, canaryReplicas: 2 });
      // Nothing of ours writes spec.replicas: the count is the autoscaler's.
      expect(input.parent.spec.replicas).toBe(8);
      expect(stableTemplateWrites(decisions)).toEqual([]);
    });
  });
});

// The lab's ConfigMap is a row of the kind table like the others (its `write` is merge):
// observed among the named children, decided by the row, written by ops that name its kind.
import { Decision, decide } from '../../src/core/decide';
import { CONFIG_MAP } from '../../src/core/kinds';
import { ConfigMap, SyncInput } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { WORKLOAD_ANNOTATION } from '../../src/core/workload';
import { parseDecision, parseObservation, parseSyncInput } from '../../src/core/validate';
import { decideFixture, decisionOf } from '../support/decide-fixtures';

const configMapOf = (input: SyncInput) => input.children[0] as ConfigMap;

describe("the lab's ConfigMap, a row written by merge patches", () => {
  it.each(['create-first-run', 'update-hand-edited', 'finalize-terminating'])(
    '%s: every write on a child names its kind, the ConfigMap too',
    (fixture) => {
      const ops = decisionOf(decideFixture(fixture)).ops.filter((op) => op.op.endsWith('Child'));
      expect(ops.length).toBeGreaterThan(0);
      expect(ops.map((op) => ('kind' in op ? op.kind : undefined))).toEqual(ops.map(() => CONFIG_MAP.kind));
    },
  );

  it('is observed among the named children, by kind', () => {
    const obs = observe(parseSyncInput(decideFixture('update-hand-edited')));
    expect(obs.children[CONFIG_MAP.kind]).toMatchObject({ name: 'checkout-desired', managedByUs: true });
    expect(obs.children[CONFIG_MAP.kind]?.object).toMatchObject({ data: { extra: 'kept' } });
    expect(obs.ownedChildren).toEqual([
      { kind: 'ConfigMap', name: 'checkout-desired', uid: 'cm-uid-1', resourceVersion: '2002' },
    ]);
  });

  it("patches only the keys that differ, and keeps another owner's reference beside ours", () => {
    const input = decideFixture('update-hand-edited');
    const theirs = { apiVersion: 'v1', kind: 'Secret', name: 'keep', uid: 'their-uid' };
    const [ours] = configMapOf(input).metadata.ownerReferences ?? [];
    configMapOf(input).metadata.ownerReferences = [theirs, { ...ours, blockOwnerDeletion: false }];
    const { ops, changes } = decisionOf(input);
    expect(ops).toHaveLength(1);
    const patch = (ops[0] as { patch: { metadata: Record<string, unknown>; data: unknown } }).patch;
    expect(patch.data).toEqual({ image: 'nginx:1.27' });
    expect(patch.metadata.ownerReferences).toEqual([
      theirs,
      expect.objectContaining({ uid: input.parent.metadata.uid }),
    ]);
    expect(changes?.map((c) => c.field)).toContain('metadata.ownerReferences');
    expect(changes?.every((c) => c.child === undefined)).toBe(true);
  });

  it("removes the row's annotation (null) once the desired object drops it, and leaves others' alone", () => {
    const input = decideFixture('noop-converged');
    const configMap = configMapOf(input);
    configMap.metadata.annotations = { [WORKLOAD_ANNOTATION]: 'true', theirs: 'stays' };
    const decision = decisionOf(input);
    expect(decision).toMatchObject({ action: 'update', reason: expect.stringContaining(WORKLOAD_ANNOTATION) });
    expect(decision.ops).toEqual([
      {
        op: 'patchChild',
        kind: 'ConfigMap',
        name: configMap.metadata.name,
        patch: {
          metadata: {
            resourceVersion: configMap.metadata.resourceVersion,
            annotations: { [WORKLOAD_ANNOTATION]: null },
          },
        },
      },
    ]);
  });
});

describe('decisions and observations read back from files', () => {
  it('refuse a write on a child that names no kind; the parent ops need none', () => {
    const decision = JSON.parse(JSON.stringify(decisionOf(decideFixture('finalize-terminating')))) as Decision;
    expect(parseDecision(decision)).toEqual(decision);
    const { kind: _kind, ...kindless } = decision.ops[0] as { kind: string };
    expect(() => parseDecision({ ...decision, ops: [kindless, decision.ops[1]] })).toThrow(
      'decision.ops[0].kind must be one of ConfigMap,',
    );
  });

  it('an observation printed as JSON decides the same when read back (plan -f observe.json)', () => {
    for (const fixture of ['create-first-run', 'noop-converged', 'update-hand-edited', 'create-workload']) {
      const obs = observe(parseSyncInput(decideFixture(fixture)));
      const read = parseObservation(JSON.parse(JSON.stringify(obs)));
      expect(decide(read)).toEqual(decide(obs));
    }
  });

  it('an observation without its named children is refused', () => {
    const { children: _children, ...obs } = JSON.parse(
      JSON.stringify(observe(parseSyncInput(decideFixture('noop-converged')))),
    ) as Record<string, unknown>;
    expect(() => parseObservation(obs)).toThrow('observation.children must be an object');
    expect(() => parseObservation({ ...obs, children: { ConfigMap: { name: 'x' } } })).toThrow(
      'observation.children.ConfigMap must be child facts',
    );
  });
});

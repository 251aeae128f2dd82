// Revisions and config snapshots in the core: what each pass makes, keeps and prunes, the
// rollback that makes an older revision the newest again with its config pinned, and what
// history and rollback read of them. Pure: inputs are built pass after pass with afterWrites.
import { CONFIG_PINS_ANNOTATION, formatPins } from '../../src/core/config';
import { Decision } from '../../src/core/decide';
import { eventsFor } from '../../src/core/events';
import { historyOf, mergePatch, planRollback, rollbackTarget } from '../../src/core/history';
import { ConfigState, Deployment, SyncInput, WorkloadSpec, kindOf } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { ControllerRevision } from '../../src/core/revision';
import { computeStatus } from '../../src/core/status';
import { decideFixture, decisionOf } from '../support/decide-fixtures';
import { afterWrites, convergedWorkload } from '../support/writes';

const WORKLOAD: WorkloadSpec = {
  port: 8080,
  env: [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
  files: [{ mountPath: '/etc/shop', configMap: 'files' }],
};
const STATES: ConfigState[] = [
  { kind: 'ConfigMap', name: 'files', digest: 'f1f1f1f1f1f1f1f1' },
  { kind: 'Secret', name: 'db', digest: 'd1d1d1d1d1d1d1d1' },
];
const with_ = (states: ConfigState[], name: string, digest: string | null) =>
  states.map((s) => (s.name === name ? { ...s, digest } : s));

/** `op kind name`. */
const opsOf = (decision: Decision) =>
  decision.ops.map((op) => `${op.op} ${'kind' in op ? op.kind : ''} ${nameOf(op)}`.trim());
const nameOf = (op: Decision['ops'][number]) =>
  'name' in op ? op.name : 'object' in op ? op.object.metadata.name : '';
const revisionsOf = (input: SyncInput) =>
  input.children.filter((c) => kindOf(c) === 'ControllerRevision') as unknown as ControllerRevision[];
const templateOf = (input: SyncInput) =>
  (input.children.find((c) => kindOf(c) === 'Deployment') as Deployment).spec!.template!;
const mounted = (input: SyncInput) => (templateOf(input).spec!.volumes as any[])[0].configMap.name as string;

/** One more pass, as `apply` makes it: the decision, and the input after its writes (rolled out). */
function pass(input: SyncInput): { decision: Decision; next: SyncInput } {
  const decision = decisionOf(input);
  const written = afterWrites(input, decision);
  const rolledOut = written.children.map((c) => {
    if (kindOf(c) !== 'Deployment') return c;
    const generation = (c.metadata.generation ?? 0) + 1;
    const replicas = input.parent.spec.replicas ?? 1;
    return { ...c, metadata: { ...c.metadata, generation }, status: rolledOutStatus(generation, replicas) };
  });
  return { decision, next: { ...written, children: rolledOut } };
}

const rolledOutStatus = (generation: number, replicas: number) => ({
  observedGeneration: generation,
  replicas,
  updatedReplicas: replicas,
  readyReplicas: replicas,
  availableReplicas: replicas,
});

function withSpec(input: SyncInput, spec: object): SyncInput {
  return { ...input, parent: { ...input.parent, spec: { ...input.parent.spec, ...spec } } };
}

/** The converged fixture, without the history of its own spec, converged on this workload. */
function start(workload: WorkloadSpec = WORKLOAD, config = STATES): SyncInput {
  const fixture = decideFixture('noop-workload-converged');
  const children = fixture.children.filter((c) => kindOf(c) !== 'ControllerRevision');
  return convergedWorkload({ ...fixture, children }, workload, { config });
}

describe('revisions and config snapshots', () => {
  it('a first pass snapshots the ConfigMap, reads the Secret as it is, and makes revision 1', () => {
    const input = decideFixture('noop-workload-converged');
    const first = decisionOf({ ...withSpec(input, { workload: WORKLOAD }), config: STATES, children: [] });
    expect(opsOf(first)).toEqual([
      'createChild ConfigMap checkout-desired',
      'copyChild ConfigMap checkout-files-f1f1f1f1f1',
      expect.stringMatching(/^createChild ControllerRevision checkout-[0-9a-f]{8}$/),
      'applyChild Deployment checkout',
      'applyChild Service checkout',
    ]);
    const copy = first.ops.find((op) => op.op === 'copyChild')!;
    // The copy names its source and the digest it must find there: never a value.
    expect(copy).toMatchObject({ from: { name: 'files', keys: null, digest: 'f1f1f1f1f1f1f1f1' } });
    expect(JSON.stringify(copy)).not.toMatch(/"data"/);
    const converged = start();
    expect(mounted(converged)).toBe('checkout-files-f1f1f1f1f1');
    const env = (templateOf(converged).spec!.containers as any[])[0].env[0];
    expect(env.valueFrom.secretKeyRef.name).toBe('db');
    expect(revisionsOf(converged)).toEqual([
      expect.objectContaining({
        revision: 1,
        data: expect.objectContaining({
          config: [
            { kind: 'ConfigMap', name: 'files', digest: 'f1f1f1f1f1f1f1f1', snapshot: 'checkout-files-f1f1f1f1f1' },
            { kind: 'Secret', name: 'db', digest: 'd1d1d1d1d1d1d1d1' },
          ],
        }),
      }),
    ]);
    expect(decisionOf(converged).action).toBe('noop');
  });

  it('snapshots the Secret too with snapshotSecrets, and reads the snapshot', () => {
    const converged = start({ ...WORKLOAD, snapshotSecrets: true });
    const env = (templateOf(converged).spec!.containers as any[])[0].env[0];
    expect(env.valueFrom.secretKeyRef.name).toBe('checkout-db-d1d1d1d1d1');
    expect(converged.children.filter((c) => kindOf(c) === 'Secret').map((c) => c.metadata.name)).toEqual([
      'checkout-db-d1d1d1d1d1',
    ]);
  });

  it('the sidecars and init containers read the snapshots too', () => {
    const workload: WorkloadSpec = {
      ...WORKLOAD,
      snapshotSecrets: true,
      sidecars: [{ name: 'log', image: 'shipper:1', envFrom: [{ configMapRef: { name: 'files' } }] }],
      initContainers: [
        {
          name: 'migrate',
          image: 'migrate:1',
          env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'db', key: 'p' } } }],
        },
      ],
    };
    const [sidecar, init] = templateOf(start(workload)).spec!.initContainers as any[];
    expect(sidecar.envFrom[0].configMapRef.name).toBe('checkout-files-f1f1f1f1f1');
    expect(init.env[0].valueFrom.secretKeyRef.name).toBe('checkout-db-d1d1d1d1d1');
  });

  it('a rotation is a new revision and a new snapshot; the old ones stay for the old pods', () => {
    const { decision, next } = pass({ ...start(), config: with_(STATES, 'files', 'f2f2f2f2f2f2f2f2') });
    expect(decision.action).toBe('update');
    expect(opsOf(decision)).toEqual([
      'copyChild ConfigMap checkout-files-f2f2f2f2f2',
      expect.stringMatching(/^createChild ControllerRevision /),
      'applyChild Deployment checkout',
    ]);
    expect(decision.reason).toContain('revision 2, configmap/files changed');
    expect(mounted(next)).toBe('checkout-files-f2f2f2f2f2');
    expect(next.children.map((c) => c.metadata.name)).toContain('checkout-files-f1f1f1f1f1');
    expect(decisionOf(next).action).toBe('noop');
  });

  it('a label-only edit reads as the same digests: nothing to do', () => {
    expect(decisionOf({ ...start(), config: STATES }).action).toBe('noop');
  });

  it('an opted-out mount reads the ConfigMap itself: no snapshot, and a change of it rolls nothing', () => {
    const optedOut = { ...WORKLOAD, files: [{ mountPath: '/etc/shop', configMap: 'files', restartOnChange: false }] };
    const converged = start(optedOut);
    expect(mounted(converged)).toBe('files');
    expect(converged.children.some((c) => c.metadata.name.startsWith('checkout-files-'))).toBe(false);
    expect(decisionOf({ ...converged, config: with_(STATES, 'files', 'f9f9f9f9f9f9f9f9') }).action).toBe('noop');
  });

  it('keeps revisionHistoryLimit revisions, and each snapshot while a kept revision names it', () => {
    let input = start({ ...WORKLOAD, revisionHistoryLimit: 2 });
    let last: Decision | undefined;
    for (const digest of ['f2f2f2f2f2f2f2f2', 'f3f3f3f3f3f3f3f3']) {
      ({ decision: last, next: input } = pass({ ...input, config: with_(STATES, 'files', digest) }));
    }
    expect(
      revisionsOf(input)
        .map((r) => r.revision)
        .sort(),
    ).toEqual([2, 3]);
    // The pruning comes after the Deployment is written: the new pods never lack their config.
    expect(opsOf(last!).slice(-2).sort()).toEqual([
      'deleteChild ConfigMap checkout-files-f1f1f1f1f1',
      expect.stringMatching(/^deleteChild ControllerRevision /),
    ]);
    const snapshots = input.children.filter((c) => c.metadata.name.startsWith('checkout-files-'));
    expect(snapshots.map((c) => c.metadata.name).sort()).toEqual([
      'checkout-files-f2f2f2f2f2',
      'checkout-files-f3f3f3f3f3',
    ]);
  });

  it('keeps a required ConfigMap that went missing as the pods have it: no rollout to pods that cannot start', () => {
    const decision = decisionOf({ ...start(), config: with_(STATES, 'files', null) });
    expect(decision.action).toBe('noop');
  });

  it('a spec back to an older revision makes it the newest again; a rollback pins its config', () => {
    const first = start();
    const { next: rotated } = pass({ ...first, config: with_(STATES, 'files', 'f2f2f2f2f2f2f2f2') });
    const { next: updated } = pass(
      withSpec({ ...rotated, config: with_(STATES, 'files', 'f2f2f2f2f2f2f2f2') }, { image: 'nginx:1.28' }),
    );
    const sources = with_(STATES, 'files', 'f2f2f2f2f2f2f2f2');
    const target = rollbackTarget({ ...updated.parent, status: { currentRevision: 3 } }, revisionsOf(updated), 1);
    const snapshots = updated.children.map((c) => c.metadata.name);
    const plan = planRollback(updated.parent, target, sources, snapshots);
    expect(plan).toMatchObject({
      to: 1,
      image: 'nginx:1.27',
      pins: [{ kind: 'ConfigMap', name: 'files', digest: 'f1f1f1f1f1f1f1f1', source: 'f2f2f2f2f2f2f2f2' }],
      notRestored: [],
    });
    expect(plan.patch).toEqual({
      metadata: {
        resourceVersion: updated.parent.metadata.resourceVersion,
        annotations: { [CONFIG_PINS_ANNOTATION]: formatPins(plan.pins) },
      },
      spec: { image: 'nginx:1.27' },
    });
    const annotations = { ...updated.parent.metadata.annotations, [CONFIG_PINS_ANNOTATION]: formatPins(plan.pins) };
    const rolledBack = withSpec(
      {
        ...updated,
        parent: { ...updated.parent, metadata: { ...updated.parent.metadata, annotations } },
        config: sources,
      },
      { image: 'nginx:1.27' },
    );
    const { decision, next } = pass(rolledBack);
    expect(opsOf(decision)).toEqual([
      'patchChild ConfigMap checkout-desired',
      expect.stringMatching(/^patchChild ControllerRevision /),
      'applyChild Deployment checkout',
    ]);
    expect(decision.reason).toContain('revision 4, rollback to revision 1 (from revision 3)');
    expect(mounted(next)).toBe('checkout-files-f1f1f1f1f1');
    expect(
      revisionsOf(next)
        .map((r) => r.revision)
        .sort(),
    ).toEqual([2, 3, 4]);
    const obs = observe(next);
    const events = eventsFor(decision, { kind: 'applied' }, undefined, undefined);
    expect(events.filter((e) => e.reason === 'RevisionCreated').map((e) => e.note)).toEqual([
      'revision 4: rollback to revision 1 (from revision 3)',
    ]);
    expect(computeStatus(obs, decisionOf(next), { kind: 'applied' }, '2026-12-04T00:00:00Z').status).toMatchObject({
      currentRevision: 4,
      updateRevision: 4,
    });
    // Pinned, the pods stay while the source stays; its next change releases the pin.
    expect(decisionOf(next).action).toBe('noop');
    const { decision: released, next: after } = pass({ ...next, config: with_(STATES, 'files', 'f3f3f3f3f3f3f3f3') });
    expect(opsOf(released)).toEqual([
      'copyChild ConfigMap checkout-files-f3f3f3f3f3',
      expect.stringMatching(/^createChild ControllerRevision /),
      'applyChild Deployment checkout',
      'releasePins',
    ]);
    expect(after.parent.metadata.annotations ?? {}).not.toHaveProperty(CONFIG_PINS_ANNOTATION);
    expect(decisionOf(after).action).toBe('noop');
  });

  it('history says which revision runs, which rolls out and which was rolled back', () => {
    const revision = (n: number, annotations: Record<string, string> = {}): ControllerRevision => ({
      metadata: {
        name: `web-${n}`,
        annotations: { 'webservice.labhub.io/change-cause': `change ${n}`, ...annotations },
      },
      revision: n,
      data: {
        image: `app:${n}`,
        tier: 'dev',
        fields: {},
        config: [
          { kind: 'ConfigMap', name: 'files', digest: `f${n}f${n}f${n}f${n}f${n}`, snapshot: `web-files-${n}` },
          { kind: 'Secret', name: 'db', digest: 'd1d1d1d1d1d1d1d1' },
        ],
      },
    });
    const parent = { ...start().parent, status: { currentRevision: 5, updateRevision: 6 } };
    const rows = historyOf(parent, [
      revision(3),
      revision(5, { 'webservice.labhub.io/rolled-back-from': '4' }),
      revision(4),
      revision(6),
    ]);
    expect(rows.map((r) => [r.revision, r.status])).toEqual([
      [6, 'rolling out'],
      [5, 'current'],
      [4, 'rolled back'],
      [3, ''],
    ]);
    expect(rows[0].config).toEqual(['configmap/files@f6f6f6f6', 'secret/db@d1d1d1d1 (live)']);
  });

  it('a rollback names what it cannot bring back, and refuses a revision it does not have', () => {
    const converged = start();
    const { next } = pass({ ...converged, config: with_(STATES, 'db', 'd2d2d2d2d2d2d2d2') });
    const target = rollbackTarget({ ...next.parent, status: { currentRevision: 2 } }, revisionsOf(next));
    expect(target.revision.revision).toBe(1);
    const plan = planRollback(next.parent, target, with_(STATES, 'db', 'd2d2d2d2d2d2d2d2'), []);
    expect(plan.notRestored).toEqual(['secret/db is not snapshotted: the pods read it as it is now']);
    expect(() => rollbackTarget(next.parent, revisionsOf(next), 9)).toThrow(
      /^webservice\/checkout has no revision 9 \(kept: 2, 1\); kubectl webservice history checkout lists them$/,
    );
  });

  it('mergePatch: nulls for what goes, whole lists, nested objects merged', () => {
    expect(mergePatch({ a: 1, b: { c: 1, d: 2 }, e: [1] }, { a: 1, b: { c: 2 }, e: [2], f: 'x' })).toEqual({
      b: { c: 2, d: null },
      e: [2],
      f: 'x',
    });
    expect(mergePatch({ a: 1 }, { a: 1 })).toBeNull();
  });
});

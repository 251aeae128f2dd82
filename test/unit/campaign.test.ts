// The correctness campaign's pure parts: its histories are a function of the seed, its
// shrinking finds a minimal failing list, and its oracle says why a WebService cannot converge.
import { embeddedFieldPaths } from '../../harness/crd/schema';
import { MANAGED_BY_VALUE } from '../../src/core/model';
import { isValidName, parseSyncInput } from '../../src/core/validate';
import { generate, NAMES } from '../campaign/generate';
import { Reversibility, blockers, ownedFields, statusRegressions } from '../campaign/oracles';
import { Random } from '../campaign/random';
import { shrink } from '../campaign/shrink';
import { STEP_KINDS, type Step } from '../campaign/steps';
import { ownFieldPaths, schemaViolations, setFieldPaths, webServiceSpecSchema } from '../support/crd-schema';

/** Every spec a step of these histories writes, whole: creates, edits, recreations, kills in a write. */
function drawnSpecs(history: Step[]): { name: string; spec: Record<string, unknown> }[] {
  return history.flatMap((step) =>
    step.step === 'create' || step.step === 'setSpec' || step.step === 'recreate' || step.step === 'killInWrite'
      ? [{ name: step.name, spec: step.spec }]
      : [],
  );
}

/** Properties of the generator, over many seeds: no test here depends on what one seed draws. */
const SEEDS = Array.from({ length: 30 }, (_, i) => i + 1);
const histories = new Map(SEEDS.map((seed) => [seed, generate(seed, 150)]));
const everyHistory = () => [...histories.values()];

describe('the campaign generator', () => {
  it('gives the same history for the same seed, and a longer run starts with the shorter one', () => {
    for (const seed of SEEDS.slice(0, 10)) {
      expect(generate(seed, 150)).toEqual(histories.get(seed));
      expect(histories.get(seed)!.slice(0, 60)).toEqual(generate(seed, 60));
      expect(generate(seed, 150)).toHaveLength(150);
    }
    // Seeds differ: no two of these histories are the same.
    expect(new Set(everyHistory().map((h) => JSON.stringify(h))).size).toBe(SEEDS.length);
  });

  it('draws only specs that the core validates and the CRD schema takes', () => {
    const schema = webServiceSpecSchema();
    const specs = everyHistory().flatMap(drawnSpecs);
    expect(specs.length).toBeGreaterThan(500);
    for (const { name, spec } of specs) {
      expect(() => parseSyncInput({ parent: { metadata: { name }, spec } })).not.toThrow();
      expect(schemaViolations(schema, spec)).toEqual([]);
    }
  });

  it('draws every field the CRD defines', () => {
    const wanted = ownFieldPaths(webServiceSpecSchema(), new Set(embeddedFieldPaths()));
    const drawn = new Set(
      everyHistory()
        .flatMap(drawnSpecs)
        .flatMap(({ spec }) => setFieldPaths(spec)),
    );
    expect(wanted.filter((field) => !drawn.has(field))).toEqual([]);
  });

  it('draws the values the server rewrites in more than one spelling: quantities, disruption bounds', () => {
    const specs = everyHistory().flatMap(drawnSpecs);
    const workloads = specs.flatMap(({ spec }) => (spec.workload ? [spec.workload as Record<string, any>] : []));
    // One quantity, several spellings: a number and strings for CPU, suffixes for memory.
    const byValue = new Map<number, Set<string>>();
    for (const w of workloads) {
      for (const list of [w.resources?.requests, w.resources?.limits]) {
        if (list?.cpu === undefined) continue;
        const millis = cpuMillis(list.cpu);
        byValue.set(millis, (byValue.get(millis) ?? new Set()).add(JSON.stringify(list.cpu)));
      }
    }
    expect([...byValue.values()].some((spellings) => spellings.size > 1)).toBe(true);
    // Disruption bounds: counts and percentages, each bound.
    const bounds = workloads.flatMap((w) => Object.entries((w.disruption ?? {}) as Record<string, unknown>));
    for (const field of ['maxUnavailable', 'minAvailable']) {
      const values = bounds.filter(([key]) => key === field).map(([, value]) => value);
      expect(values.some((v) => typeof v === 'number')).toBe(true);
      expect(values.some((v) => typeof v === 'string' && v.endsWith('%'))).toBe(true);
    }
  });

  it('never draws a limit below its request', () => {
    for (const { spec } of everyHistory().flatMap(drawnSpecs)) {
      const resources = (spec.workload as { resources?: Record<string, Record<string, string | number>> } | undefined)
        ?.resources;
      const [requests, limits] = [resources?.requests, resources?.limits];
      if (requests?.cpu !== undefined && limits?.cpu !== undefined)
        expect(cpuMillis(limits.cpu)).toBeGreaterThanOrEqual(cpuMillis(requests.cpu));
    }
  });

  it('draws, for its invalid steps, changes that admission refuses', () => {
    const schema = webServiceSpecSchema();
    const invalid = everyHistory().flatMap((history) => {
      const live = new Map<string, Record<string, unknown>>();
      return history.flatMap((step) => {
        if (step.step === 'delete') live.delete(step.name);
        if (step.step === 'scale') live.set(step.name, { ...live.get(step.name), replicas: step.replicas });
        for (const { name, spec } of drawnSpecs([step])) live.set(name, spec);
        if (step.step === 'invalidCreate') return [{ what: step.what, name: step.name, spec: step.spec }];
        if (step.step !== 'invalid') return [];
        return [{ what: step.what, name: step.name, spec: patched(live.get(step.name)!, step.patch) }];
      });
    });
    const whats = new Set(invalid.map((i) => i.what));
    expect(whats.size).toBeGreaterThan(10);
    for (const { what, name, spec } of invalid) {
      const refusals = [
        ...schemaViolations(schema, spec),
        ...refused(() => parseSyncInput({ parent: { metadata: { name }, spec } })),
        ...(isValidName(name) ? [] : ['an invalid name']),
        // The CRD's CEL rules, which only the API server runs (the integration run checks them there).
        ...(celOnly(name, spec) ? ['a CEL rule of the CRD'] : []),
      ];
      expect({ what, refusals: refusals.length > 0 }).toEqual({ what, refusals: true });
    }
  });

  it('sets specs back to ones they had (reversibility), within the same object', () => {
    let reverts = 0;
    for (const history of everyHistory()) {
      const past = new Map<string, string[]>();
      for (const step of history) {
        if (step.step === 'create' || step.step === 'recreate') past.set(step.name, []);
        if (step.step === 'delete') past.delete(step.name);
        if (step.step === 'setSpec' && step.what.startsWith('back to')) {
          reverts++;
          expect(past.get(step.name)).toContain(JSON.stringify(step.spec));
          expect(past.get(step.name)!.at(-1)).not.toEqual(JSON.stringify(step.spec));
        }
        for (const { name, spec } of drawnSpecs([step])) past.get(name)?.push(JSON.stringify(spec));
        if (step.step === 'scale' && past.has(step.name)) {
          const last = JSON.parse(past.get(step.name)!.at(-1)!) as Record<string, unknown>;
          past.get(step.name)!.push(JSON.stringify({ ...last, replicas: step.replicas }));
        }
      }
    }
    expect(reverts).toBeGreaterThan(20);
  });

  it('draws every kind of step over the seeds', () => {
    // Every kind of step there is (steps.ts, checked by the compiler): one the generator stopped drawing shows here.
    const kinds = new Set(everyHistory().flatMap((history) => history.map((s) => s.step)));
    expect(STEP_KINDS.filter((kind) => !kinds.has(kind))).toEqual([]);
  });

  it('edits only what the history has made, and never makes a name twice', () => {
    for (const history of everyHistory()) {
      const live = new Set<string>();
      for (const step of history) {
        if (step.step === 'create') {
          expect(live.has(step.name)).toBe(false);
          live.add(step.name);
        } else if (step.step === 'delete') {
          expect(live.delete(step.name)).toBe(true);
        } else if (['setSpec', 'recreate', 'tamper', 'scale', 'invalid', 'killInWrite'].includes(step.step)) {
          expect(live.has((step as { name: string }).name)).toBe(true);
        }
      }
    }
  });

  it('draws numbers in range, the same for the same seed', () => {
    const a = new Random(9);
    const b = new Random(9);
    for (let i = 0; i < 1000; i++) {
      const x = a.int(0, 4);
      expect(x).toBe(b.int(0, 4));
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(4);
    }
  });
});

function cpuMillis(cpu: string | number): number {
  if (typeof cpu === 'number') return cpu * 1000;
  return cpu.endsWith('m') ? Number(cpu.slice(0, -1)) : Number(cpu) * 1000;
}

/** A JSON patch of add, replace and remove at /spec/FIELD, on a spec: what the server would store. */
function patched(spec: Record<string, unknown>, patch: Record<string, unknown>[]): Record<string, unknown> {
  const result = structuredClone(spec);
  for (const op of patch) {
    const field = String(op.path).replace(/^\/spec\//, '');
    if (op.op === 'remove') delete result[field];
    else result[field] = op.value;
  }
  return result;
}

function refused(check: () => unknown): string[] {
  try {
    check();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/** The refusals only the CRD's CEL rules make: a dependency on itself, a name too long for its workload's children. */
function celOnly(name: string, spec: Record<string, unknown>): boolean {
  const deps = spec.dependsOn as string[] | undefined;
  return (deps?.includes(name) ?? false) || (spec.workload !== undefined && name.length > 63);
}

describe('shrinking', () => {
  it('finds the two steps that fail together, in order', async () => {
    const steps = Array.from({ length: 40 }, (_, i) => i);
    const fails = async (list: number[]) => list.includes(7) && list.includes(31);
    const { items } = await shrink(steps, fails, 1000);
    expect(items).toEqual([7, 31]);
  });

  it('stops at its budget with a list that still fails', async () => {
    const steps = Array.from({ length: 40 }, (_, i) => i);
    const fails = async (list: number[]) => list.includes(3);
    const { items, tries } = await shrink(steps, fails, 3);
    expect(tries).toBe(3);
    expect(items).toContain(3);
    expect(items.length).toBeLessThan(40);
  });
});

describe('reversibility', () => {
  const deployment = (uid: string, image: string, foreignEnv: string) => ({
    kind: 'Deployment',
    metadata: {
      name: 'alpha',
      ownerReferences: [{ controller: true, uid }],
      managedFields: [
        {
          manager: MANAGED_BY_VALUE,
          operation: 'Apply',
          fieldsV1: {
            'f:spec': {
              'f:template': {
                'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
              },
            },
          },
        },
        {
          manager: 'kubectl-set',
          operation: 'Update',
          fieldsV1: {
            'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:env': {} } } } } },
          },
        },
      ],
    },
    spec: {
      replicas: 1,
      template: { spec: { containers: [{ name: 'web', image, env: [{ name: 'X', value: foreignEnv }] }] } },
    },
  });
  const state = (spec: Record<string, unknown>, image: string, foreignEnv = 'a', ready = true) => ({
    webServices: [
      {
        metadata: { name: 'alpha', uid: 'u1', generation: 2 },
        spec,
        status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', observedGeneration: 2 }] },
      },
    ],
    children: [deployment('u1', image, foreignEnv)],
  });

  it('takes only the fields our managers own', () => {
    expect(ownedFields(deployment('u1', 'nginx:1', 'a'))).toEqual({
      spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } },
    });
    expect(ownedFields({ metadata: { managedFields: [] }, data: { owner: 'someone-else' } })).toEqual({});
  });

  it("a spec set back whose children are not as they were: reported; others' fields make no difference", () => {
    const oracle = new Reversibility();
    const a = { image: 'nginx:1' };
    const b = { image: 'nginx:2' };
    expect(oracle.check(state(a, 'nginx:1'), 3)).toEqual([]);
    expect(oracle.check(state(b, 'nginx:2'), 7)).toEqual([]);
    // Back to a, and the world holds what a made: nothing to say, though someone else's env moved.
    expect(oracle.check(state(a, 'nginx:1', 'b'), 9)).toEqual([]);
    expect(oracle.compared).toBe(1);
    // Back to a, but the Deployment kept b's image: a broken world.
    expect(oracle.check(state(a, 'nginx:2'), 12)).toEqual([
      expect.stringMatching(
        /^webservice\/alpha: its spec is back to the one it had at step 3, but deployment\/alpha is not as it was then/,
      ),
    ]);
    // One that cannot converge (Ready False) keeps what it had: not compared.
    expect(oracle.check(state(a, 'nginx:2', 'a', false), 13)).toEqual([]);
    // Another object of that name (a new uid) starts afresh.
    const recreated = state(a, 'nginx:2');
    recreated.webServices[0].metadata.uid = 'u2';
    recreated.children[0].metadata.ownerReferences[0].uid = 'u2';
    expect(oracle.check(recreated, 14)).toEqual([]);
  });

  it('the same spec over other config is another state; revisions and snapshots, which are history, are not compared', () => {
    const oracle = new Reversibility();
    const a = { image: 'nginx:1' };
    const withConfig = (password: string, image: string, revisions: string[]) => {
      const world = state(a, image);
      (world.children as Record<string, unknown>[]).push(
        { kind: 'Secret', metadata: { name: 'db' }, data: { password } },
        ...revisions.map((name) => ({
          kind: 'ControllerRevision',
          metadata: {
            name,
            labels: { 'webservice.labhub.io/role': 'revision' },
            ownerReferences: [{ controller: true, uid: 'u1' }],
          },
          revision: 1,
        })),
      );
      return world;
    };
    expect(oracle.check(withConfig('czM=', 'nginx:1', ['alpha-1']), 3)).toEqual([]);
    // The Secret rotated: the pods rolled, so their Deployment moved; not a spec set back.
    expect(oracle.check(withConfig('czQ=', 'nginx:2', ['alpha-1', 'alpha-2']), 5)).toEqual([]);
    expect(oracle.compared).toBe(0);
    // Back to the first content: the Deployment as it was, and one more revision kept.
    expect(oracle.check(withConfig('czM=', 'nginx:1', ['alpha-1', 'alpha-2', 'alpha-3']), 7)).toEqual([]);
    expect(oracle.compared).toBe(1);
  });
});

describe('status never moves backwards', () => {
  const line = (uid: string, rv: number, observed: string, gens: string) =>
    `${uid}   alpha   ${rv}   ${observed}   ${gens === '<none>' ? '<none>' : 'Ready,Reconciling'}   ${gens}`;

  it('a status for an older generation after a newer one: reported', () => {
    expect(
      statusRegressions([
        line('u1', 10, '<none>', '<none>'),
        line('u1', 11, '1', '1,1'),
        line('u1', 14, '2', '2,2'),
        line('u1', 15, '2', '2,2'),
        // A new object of the same name starts again at 1.
        line('u2', 20, '1', '1,1'),
      ]),
    ).toEqual([]);
    expect(statusRegressions([line('u1', 11, '3', '3,3'), line('u1', 12, '2', '3,2')])).toEqual([
      'webservice/alpha: status.observedGeneration went back from 3 (resourceVersion 11) to 2 (resourceVersion 12)',
      'webservice/alpha: condition Reconciling went back from 3 (resourceVersion 11) to 2 (resourceVersion 12)',
    ]);
  });
});

describe('which WebServices cannot converge', () => {
  const ws = (name: string, spec: Record<string, unknown>) => ({
    metadata: { name },
    spec: { image: 'nginx', ...spec },
  });
  const world = (keys: string[] = []) => ({ foreign: new Map(keys.map((k) => [k, {} as never])) });

  it('a cycle, what depends on it, a missing dependency, a foreign object on a wanted child', () => {
    const state = {
      webServices: [
        ws('alpha', { dependsOn: ['bravo'] }),
        ws('bravo', { dependsOn: ['alpha'] }),
        ws('charlie', { dependsOn: ['alpha'] }),
        ws('delta', { dependsOn: ['zulu'] }),
        ws('echo', { workload: { port: 80 } }),
        ws('foxtrot', {}),
        ws('golf', { dependsOn: ['foxtrot'] }),
      ],
      children: [],
    };
    const blocked = blockers(state, world(['service/echo', 'deployment/foxtrot']));
    expect(Object.fromEntries(blocked)).toEqual({
      alpha: 'DependencyCycle',
      bravo: 'DependencyCycle',
      charlie: 'DependencyNotReady',
      delta: 'DependencyNotReady',
      echo: 'ChildConflict',
      // A foreign Deployment is no conflict for a WebService without a workload.
      foxtrot: null,
      golf: null,
    });
  });

  it('uses names from the pool', () => {
    const history: Step[] = generate(3, 50);
    for (const step of history) {
      if ('name' in step && step.step !== 'invalidCreate') expect(NAMES).toContain(step.name);
    }
  });
});

// The correctness campaign's pure parts: its histories are a function of the seed, its
// shrinking finds a minimal failing list, and its oracle says why a WebService cannot converge.
import { generate, NAMES } from '../campaign/generate';
import { blockers } from '../campaign/oracles';
import { Random } from '../campaign/random';
import { shrink } from '../campaign/shrink';
import type { Step } from '../campaign/steps';

describe('the campaign generator', () => {
  it('gives the same history for the same seed, and another for another seed', () => {
    expect(generate(42, 60)).toEqual(generate(42, 60));
    expect(generate(42, 60)).not.toEqual(generate(43, 60));
    // A prefix: the first steps of a longer run are the shorter run.
    expect(generate(7, 80).slice(0, 40)).toEqual(generate(7, 40));
  });

  it('draws every kind of step over a few long histories', () => {
    const kinds = new Set([1, 2, 3, 4, 5].flatMap((seed) => generate(seed, 300).map((s) => s.step)));
    expect([...kinds].sort()).toEqual(
      [
        'applyAll',
        'check',
        'create',
        'delete',
        'foreign',
        'invalid',
        'invalidCreate',
        'kill',
        'killInWrite',
        'pause',
        'recreate',
        'scale',
        'setSpec',
        'start',
        'tamper',
        'unforeign',
      ].sort(),
    );
  });

  it('edits only what the history has made, and never makes a name twice', () => {
    for (const seed of [11, 12, 13]) {
      const live = new Set<string>();
      for (const step of generate(seed, 200)) {
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

  it('writes quantities in several spellings, limits never below requests', () => {
    const specs = generate(5, 400).flatMap((s) => ('spec' in s && s.step !== 'invalidCreate' ? [s.spec] : []));
    type Quantities = Partial<Record<'cpu' | 'memory', string | number>>;
    type Resources = { requests?: Quantities; limits?: Quantities };
    const resources = specs.flatMap((spec) => {
      const r = (spec.workload as { resources?: Resources } | undefined)?.resources;
      return r ? [r] : [];
    });
    const cpus = new Set(resources.flatMap((r) => [r.requests?.cpu, r.limits?.cpu]).filter((v) => v !== undefined));
    expect(cpus).toContain('0.5');
    expect(cpus).toContain('500m');
    const millis = (cpu: string | number) =>
      typeof cpu === 'number' ? cpu * 1000 : cpu.endsWith('m') ? Number(cpu.slice(0, -1)) : Number(cpu) * 1000;
    for (const r of resources) {
      if (r.requests?.cpu !== undefined && r.limits?.cpu !== undefined) {
        expect(millis(r.limits.cpu)).toBeGreaterThanOrEqual(millis(r.requests.cpu));
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

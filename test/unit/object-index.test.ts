// The object index: each WebService's sync input holds only what concerns it, so a
// pass is linear in the number of objects. Growth is checked by counting the objects
// observe would visit, not by timing.
import { ConfigMap, WebService } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { controllerOf } from '../../src/core/ownership';
import {
  addChild,
  controllerKeyOf,
  dependentsOf,
  emptyIndex,
  indexObjects,
  removeChild,
  removeParent,
  setParent,
  syncInputFor,
  syncInputs,
} from '../../src/core/object-index';

function parent(name: string, namespace = 'ns', dependsOn?: string[]): WebService {
  return {
    metadata: { name, namespace, uid: `uid-${namespace}-${name}`, generation: 1 },
    spec: { image: 'nginx:1.27', ...(dependsOn ? { dependsOn } : {}) },
  };
}

function child(of: WebService, name = `${of.metadata.name}-desired`): ConfigMap {
  return {
    metadata: {
      name,
      namespace: of.metadata.namespace,
      labels: { 'app.kubernetes.io/managed-by': 'webservice-controller' },
      ownerReferences: [
        {
          apiVersion: 'apps.labhub.io/v1',
          kind: 'WebService',
          name: of.metadata.name,
          uid: of.metadata.uid!,
          controller: true,
        },
      ],
    },
    data: { image: 'nginx:1.27', replicas: '1', tier: 'dev' },
  };
}

type Shape = 'shared-base' | 'chain';

/** Every WebService but the first depends on the first (shared-base), or on the one before it (chain). */
function namespaceOf(size: number, shape: Shape): { parents: WebService[]; children: ConfigMap[] } {
  const dependency = (i: number) => (shape === 'chain' ? `ws-${i - 1}` : 'ws-0');
  const parents = Array.from({ length: size }, (_, i) => parent(`ws-${i}`, 'ns', i > 0 ? [dependency(i)] : undefined));
  return { parents, children: parents.map((p) => child(p)) };
}

/** Objects observe() scans over a whole pass: every child and related WebService handed to it. */
function visits(size: number, shape: Shape = 'shared-base'): number {
  const { parents, children } = namespaceOf(size, shape);
  return syncInputs(parents, children).reduce((sum, input) => sum + input.children.length + input.related.length, 0);
}

describe('syncInputs', () => {
  it('grows linearly: ten times the objects, ten times the visits (not a hundred)', () => {
    expect(visits(100)).toBe(199);
    expect(visits(1000)).toBe(1999);
    expect(visits(1000) / visits(100)).toBeLessThan(11);
  });

  it('hands each WebService everything it reaches, so a chain costs its depth (cycles of any length are seen)', () => {
    // ws-i reaches ws-(i-1) … ws-0: 0 + 1 + … + 99 related, plus one child each.
    expect(visits(100, 'chain')).toBe(100 + (99 * 100) / 2);
    const { parents, children } = namespaceOf(5, 'chain');
    expect(syncInputs(parents, children)[4].related.map((r) => r.metadata.name)).toEqual([
      'ws-3',
      'ws-2',
      'ws-1',
      'ws-0',
    ]);
  });

  it('follows dependsOn through every WebService once, even around a cycle, and not through one being deleted', () => {
    const a = parent('a', 'ns', ['b']);
    const b = parent('b', 'ns', ['c', 'a']);
    const c = parent('c', 'ns', ['a', 'd']);
    const d = parent('d', 'ns', ['e']);
    d.metadata.deletionTimestamp = '2026-11-29T09:00:00Z';
    const e = parent('e');
    const [input] = syncInputs([a, b, c, d, e], []);
    expect(input.related.map((r) => r.metadata.name)).toEqual(['b', 'c', 'd']);
    expect(observe(input).dependencyCycle).toEqual(['a', 'b', 'a']);
  });

  it('hands each WebService its own child, the ConfigMaps it controls, and its dependencies', () => {
    const a = parent('a');
    const b = parent('b', 'ns', ['a', 'missing']);
    const extra = child(b, 'b-old');
    const foreign: ConfigMap = { metadata: { name: 'b-desired', namespace: 'other' } };
    const [inputA, inputB] = syncInputs([a, b], [child(a), child(b), extra, foreign]);
    expect(inputA.children.map((c) => c.metadata.name)).toEqual(['a-desired']);
    expect(inputA.related).toEqual([]);
    expect(inputB.children.map((c) => c.metadata.name)).toEqual(['b-desired', 'b-old']);
    expect(inputB.related.map((r) => r.metadata.name)).toEqual(['a']);
    expect(observe(inputB).dependencies.map((d) => d.state)).toEqual(['NotReady', 'NotFound']);
  });

  it('keeps namespaces apart with -A', () => {
    const here = parent('web', 'one');
    const there = parent('web', 'two');
    const input = syncInputFor(here, indexObjects([here, there], [child(there)]));
    expect(input.children).toEqual([]);
    expect(observe(input).children.ConfigMap).toBeNull();
  });

  it('a foreign object on the child name is still found, so the core can refuse it', () => {
    const a = parent('a');
    const foreign: ConfigMap = { metadata: { name: 'a-desired', namespace: 'ns', labels: {} } };
    expect(observe(syncInputs([a], [foreign])[0]).children.ConfigMap?.managedByUs).toBe(false);
  });

  it('addChild replaces and removeChild forgets, for the controller cache', () => {
    const a = parent('a');
    const index = indexObjects([a], []);
    const first = child(a);
    addChild(index, first);
    const edited = { ...first, data: { image: 'changed' } };
    addChild(index, edited);
    expect(syncInputFor(a, index).children).toEqual([edited]);
    removeChild(index, edited);
    expect(syncInputFor(a, index).children).toEqual([]);
    expect(index.childrenByOwner.size).toBe(0);
  });
});

describe('controllerOf', () => {
  const ref = (kind: string, name: string, controller?: boolean) => ({
    apiVersion: kind === 'WebService' ? 'apps.labhub.io/v1' : 'apps/v1',
    kind,
    name,
    uid: `uid-${name}`,
    ...(controller === undefined ? {} : { controller }),
  });

  it("finds the controller reference to a WebService, and that WebService's key in the child's namespace", () => {
    const owned: ConfigMap = {
      metadata: {
        name: 'web-desired',
        namespace: 'ns',
        ownerReferences: [
          ref('WebService', 'other', false),
          ref('ReplicaSet', 'rs', true),
          ref('WebService', 'web', true),
        ],
      },
    };
    expect(controllerOf(owned)?.uid).toBe('uid-web');
    expect(controllerKeyOf(owned)).toBe('ns/web');
  });

  it('finds none without a controller reference, or when the controller is of another kind', () => {
    const cases: ConfigMap[] = [
      { metadata: { name: 'a', namespace: 'ns' } },
      { metadata: { name: 'b', namespace: 'ns', ownerReferences: [ref('WebService', 'web')] } },
      { metadata: { name: 'c', namespace: 'ns', ownerReferences: [ref('WebService', 'web', false)] } },
      { metadata: { name: 'd', namespace: 'ns', ownerReferences: [ref('Deployment', 'web', true)] } },
    ];
    expect(cases.map((c) => [controllerOf(c), controllerKeyOf(c)])).toEqual(cases.map(() => [undefined, undefined]));
  });
});

describe('dependents', () => {
  const sorted = (keys: ReadonlySet<string>) => [...keys].sort();

  it('files each WebService under what its dependsOn names, in its own namespace, present or not', () => {
    const index = indexObjects(
      [
        parent('db'),
        parent('api', 'ns', ['db', 'cache']),
        parent('web', 'ns', ['api', 'db']),
        parent('api', 'other', ['db']),
      ],
      [],
    );
    expect(sorted(dependentsOf(index, 'ns/db'))).toEqual(['ns/api', 'ns/web']);
    expect(sorted(dependentsOf(index, 'ns/cache'))).toEqual(['ns/api']);
    expect(sorted(dependentsOf(index, 'ns/api'))).toEqual(['ns/web']);
    expect(sorted(dependentsOf(index, 'other/db'))).toEqual(['other/api']);
    expect(sorted(dependentsOf(index, 'ns/web'))).toEqual([]);
  });

  it('follows a changed dependsOn, and forgets a removed WebService but not those that depend on it', () => {
    const index = emptyIndex();
    setParent(index, parent('db'));
    setParent(index, parent('web', 'ns', ['db']));
    setParent(index, parent('web', 'ns', ['cache']));
    expect(sorted(dependentsOf(index, 'ns/db'))).toEqual([]);
    expect(sorted(dependentsOf(index, 'ns/cache'))).toEqual(['ns/web']);
    removeParent(index, parent('db'));
    setParent(index, parent('worker', 'ns', ['web']));
    removeParent(index, parent('web'));
    expect(index.parentsByKey.has('ns/web')).toBe(false);
    expect(sorted(dependentsOf(index, 'ns/cache'))).toEqual([]);
    expect(sorted(dependentsOf(index, 'ns/web'))).toEqual(['ns/worker']);
    removeParent(index, parent('worker'));
    expect(index.dependentsByKey.size).toBe(0);
  });

  it('always equals a scan of every WebService for one whose dependsOn names the key', () => {
    const index = emptyIndex();
    const names = ['a', 'b', 'c', 'd'];
    let seed = 7;
    const next = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    for (let step = 0; step < 200; step++) {
      const name = names[next(names.length)];
      if (next(4) === 0) removeParent(index, parent(name));
      else
        setParent(
          index,
          parent(
            name,
            'ns',
            names.filter(() => next(3) === 0),
          ),
        );
      for (const target of names) {
        const scanned = [...index.parentsByKey]
          .filter(([, ws]) => ws.spec.dependsOn?.includes(target))
          .map(([key]) => key)
          .sort();
        expect(sorted(dependentsOf(index, `ns/${target}`))).toEqual(scanned);
      }
    }
  });
});

// The per-pass index: each WebService's sync input holds only what concerns it, so a
// pass is linear in the number of objects. Growth is checked by counting the objects
// observe would visit, not by timing.
import { ConfigMap, WebService } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { addChild, indexObjects, removeChild, syncInputFor, syncInputs } from '../../src/core/pass';

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
        { apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name: of.metadata.name, uid: of.metadata.uid!, controller: true },
      ],
    },
    data: { image: 'nginx:1.27', replicas: '1', tier: 'dev' },
  };
}

function namespaceOf(size: number): { parents: WebService[]; children: ConfigMap[] } {
  const parents = Array.from({ length: size }, (_, i) => parent(`ws-${i}`, 'ns', i > 0 ? [`ws-${i - 1}`] : undefined));
  return { parents, children: parents.map((p) => child(p)) };
}

/** Objects observe() scans over a whole pass: every child and related WebService handed to it. */
function visits(size: number): number {
  const { parents, children } = namespaceOf(size);
  return syncInputs(parents, children).reduce((sum, input) => sum + input.children.length + input.related.length, 0);
}

describe('syncInputs', () => {
  it('grows linearly: ten times the objects, ten times the visits (not a hundred)', () => {
    expect(visits(100)).toBe(199);
    expect(visits(1000)).toBe(1999);
    expect(visits(1000) / visits(100)).toBeLessThan(11);
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
    expect(observe(input).child).toBeNull();
  });

  it('a foreign object on the child name is still found, so the core can refuse it', () => {
    const a = parent('a');
    const foreign: ConfigMap = { metadata: { name: 'a-desired', namespace: 'ns', labels: {} } };
    expect(observe(syncInputs([a], [foreign])[0]).child?.managedByUs).toBe(false);
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

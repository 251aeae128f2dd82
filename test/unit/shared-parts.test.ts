// withSharedParts: a new version of a cached object keeps the old version's unchanged parts;
// and the parts it has in common with another object of its kind.
import { withSharedParts } from '../../src/core/shared-parts';

const version = (resourceVersion: string, ready: number) => ({
  metadata: { name: 'web', resourceVersion, labels: { app: 'web' } },
  spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } },
  status: { readyReplicas: ready, conditions: [{ type: 'Available', status: 'True' }] },
});

describe('withSharedParts', () => {
  it('keeps the old parts that did not change, and the new ones that did', () => {
    const [was, is] = [version('1', 1), version('2', 2)];
    const kept = withSharedParts(was, is);
    expect(kept).toEqual(version('2', 2));
    expect(kept.spec).toBe(was.spec);
    expect(kept.metadata.labels).toBe(was.metadata.labels);
    expect(kept.status.conditions).toBe(was.status.conditions);
    expect(kept.metadata).not.toBe(was.metadata);
    expect(kept.status).not.toBe(was.status);
  });

  it('is the old version itself when nothing changed', () => {
    const was = version('1', 1);
    expect(withSharedParts(was, version('1', 1))).toBe(was);
  });

  it('sees a key added, a key removed and an item added as changes', () => {
    const was: { a: Record<string, number>; list: { x: number }[] } = { a: { b: 1 }, list: [{ x: 1 }] };
    expect(withSharedParts(was, { a: { b: 1, c: 2 }, list: [{ x: 1 }] }).a).toEqual({ b: 1, c: 2 });
    expect(withSharedParts(was, { a: {}, list: [{ x: 1 }] }).a).toEqual({});
    const longer = withSharedParts(was, { a: { b: 1 }, list: [{ x: 1 }, { x: 2 }] });
    expect(longer.list).toEqual([{ x: 1 }, { x: 2 }]);
    expect(longer.list[0]).toBe(was.list[0]);
    expect(longer.a).toBe(was.a);
  });

  it('tells a list from an object, null from an object, and a number from its string', () => {
    const was: Record<string, unknown> = { a: [1], b: { c: 1 }, d: 1 };
    expect(withSharedParts(was, { a: { 0: 1 }, b: null, d: '1' })).toEqual({ a: { 0: 1 }, b: null, d: '1' });
  });

  it('is the new version when there is no old one', () => {
    const is = version('1', 1);
    expect(withSharedParts(undefined, is)).toBe(is);
  });
});

describe('withSharedParts with another object of the kind', () => {
  const named = (name: string, image: string) => ({
    metadata: { name, labels: { team: 'shop' } },
    spec: {
      template: {
        spec: {
          containers: [{ name: 'web', image, ports: [{ containerPort: 80 }], terminationMessagePath: '/dev/log' }],
        },
      },
    },
  });

  it("keeps the other's equal parts, and its own where they differ", () => {
    const [other, next] = [named('a', 'nginx:1.27'), named('b', 'nginx:1.28')];
    const kept = withSharedParts(undefined, next, other);
    expect(kept).toBe(next);
    expect(kept).toEqual(named('b', 'nginx:1.28'));
    expect(kept.metadata).not.toBe(other.metadata);
    expect(kept.metadata.labels).toBe(other.metadata.labels);
    const [mine, theirs] = [kept.spec.template.spec.containers[0], other.spec.template.spec.containers[0]];
    expect(mine).not.toBe(theirs);
    expect(mine.ports).toBe(theirs.ports);
  });

  it('is never the other object, even when all is equal', () => {
    const other = named('a', 'nginx:1.27');
    const kept = withSharedParts(undefined, named('a', 'nginx:1.27'), other);
    expect(kept).not.toBe(other);
    expect(kept.spec).toBe(other.spec);
    expect(kept.metadata).toBe(other.metadata);
  });

  it('is the new object when there is no other', () => {
    const next = named('a', 'nginx:1.27');
    expect(withSharedParts(undefined, next, undefined)).toBe(next);
    expect(withSharedParts(undefined, next, next)).toBe(next);
  });

  it("takes other's equal parts before the old version's, and writes neither", () => {
    const freeze = <T>(value: T): T => {
      if (typeof value === 'object' && value !== null) Object.values(value).forEach(freeze);
      return Object.freeze(value);
    };
    const [was, other] = [freeze(named('b', 'nginx:1.27')), freeze(named('a', 'nginx:1.27'))];
    const kept = withSharedParts(was, named('b', 'nginx:1.28'), other);
    expect(kept).toEqual(named('b', 'nginx:1.28'));
    expect(kept.metadata.labels).toBe(other.metadata.labels);
    expect(kept.metadata.name).toBe(was.metadata.name);
    expect(kept.spec.template.spec.containers[0].ports).toBe(other.spec.template.spec.containers[0].ports);
    expect(withSharedParts(was, named('b', 'nginx:1.27'), other).spec).toBe(other.spec);
  });
});

// jsonEqual and firstDifference: what a stale saved decision reports.
import { firstDifference, jsonEqual } from '../../src/core/equal';

describe('jsonEqual', () => {
  it('ignores key order and undefined keys, not array order', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1, c: undefined })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });
});

describe('firstDifference', () => {
  it('is undefined for equal values', () => {
    expect(firstDifference({ a: { b: 1 } }, { a: { b: 1 } })).toBeUndefined();
  });

  it('names the deepest path where the values part', () => {
    const saved = { action: 'update', ops: [{ op: 'patchChild', patch: { data: { image: 'nginx:1.30' } } }] };
    const now = { action: 'update', ops: [{ op: 'patchChild', patch: { data: { image: 'nginx:1.31' } } }] };
    expect(firstDifference(saved, now)).toEqual({
      path: 'ops[0].patch.data.image',
      was: 'nginx:1.30',
      is: 'nginx:1.31',
    });
  });

  it('reports a key or an item that only one side has', () => {
    expect(firstDifference({ a: 1 }, { a: 1, after_seconds: 10 })).toEqual({
      path: 'after_seconds',
      was: undefined,
      is: 10,
    });
    expect(firstDifference({ ops: [1] }, { ops: [1, 2] })).toEqual({ path: 'ops[1]', was: undefined, is: 2 });
  });

  it('stops at a change of type', () => {
    expect(firstDifference({ a: [1] }, { a: { 0: 1 } })).toEqual({ path: 'a', was: [1], is: { 0: 1 } });
    expect(firstDifference(1, 2)).toEqual({ path: '.', was: 1, is: 2 });
  });
});

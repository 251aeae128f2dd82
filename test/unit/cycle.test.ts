// Dependency cycles: found whatever their length, reported as Ready=False DependencyCycle
// once, and never put on a timer.
import { retryAfterSeconds } from '../../src/core/backoff';
import { describeCycle, findCycle } from '../../src/core/cycle';
import { decide } from '../../src/core/decide';
import { eventsFor } from '../../src/core/events';
import { observe } from '../../src/core/observe';
import { buildReport, exitCodeOf } from '../../src/core/report';
import { computeStatus, readyOf } from '../../src/core/status';
import { decideFixture } from '../support/decide-fixtures';

const NOW = '2026-11-29T10:00:00Z';

function graph(edges: Record<string, string[]>): (name: string) => string[] | undefined {
  return (name) => edges[name];
}

describe('findCycle', () => {
  it('finds none in a graph without one, or where the loop does not pass through the start', () => {
    expect(findCycle('a', graph({ a: ['b', 'c'], b: ['c'], c: [] }))).toBeNull();
    expect(findCycle('a', graph({ a: ['b'], b: ['c'], c: ['b'] }))).toBeNull();
    expect(findCycle('a', graph({ a: ['missing'] }))).toBeNull();
  });

  it('names a self-dependency and a two-cycle', () => {
    expect(findCycle('a', graph({ a: ['a'] }))).toEqual(['a', 'a']);
    expect(findCycle('a', graph({ a: ['b'], b: ['a'] }))).toEqual(['a', 'b', 'a']);
  });

  it('finds a cycle of any length, here 500', () => {
    const edges: Record<string, string[]> = {};
    for (let i = 0; i < 500; i++) edges[`n${i}`] = [`n${(i + 1) % 500}`];
    const cycle = findCycle('n0', graph(edges));
    expect(cycle).toHaveLength(501);
    expect(cycle?.[0]).toBe('n0');
    expect(cycle?.[499]).toBe('n499');
    expect(cycle?.[500]).toBe('n0');
  });

  it('returns the shortest cycle, the same one on every call', () => {
    const edges = graph({ a: ['b', 'c'], b: ['d'], d: ['a'], c: ['a'] });
    expect(findCycle('a', edges)).toEqual(['a', 'c', 'a']);
    expect(findCycle('a', edges)).toEqual(findCycle('a', edges));
  });

  it('reads as a → b → a', () => {
    expect(describeCycle(['a', 'b', 'a'])).toBe('a → b → a');
  });
});

describe('a CR in a dependency cycle', () => {
  const obs = observe(decideFixture('requeue-dependency-cycle-long'));
  const decision = decide(obs);

  it('is a requeue with no after_seconds, not an error, naming the cycle', () => {
    expect(decision).toMatchObject({
      action: 'requeue',
      is_error: false,
      cycle: ['checkout', 'payments', 'auth', 'checkout'],
    });
    expect(decision.after_seconds).toBeUndefined();
    expect(decision.reason).toContain('checkout → payments → auth → checkout');
  });

  it('is Ready=False with reason DependencyCycle and the cycle in the message', () => {
    const ready = readyOf(computeStatus(obs, decision, { kind: 'applied' }, NOW).status ?? undefined);
    expect(ready).toMatchObject({ status: 'False', reason: 'DependencyCycle' });
    expect(ready?.message).toContain('checkout → payments → auth → checkout');
  });

  it('reports one Warning event when the cycle starts, and none while it lasts', () => {
    const after = { status: 'False' as const, reason: 'DependencyCycle', message: decision.reason };
    const first = eventsFor(decision, { kind: 'applied' }, undefined, after);
    expect(first).toEqual([{ type: 'Warning', reason: 'DependencyCycle', action: 'Wait', note: decision.reason }]);
    const before = {
      type: 'Ready',
      status: 'False' as const,
      reason: 'DependencyCycle',
      message: 'm',
      lastTransitionTime: NOW,
    };
    expect(eventsFor(decision, { kind: 'applied' }, before, after)).toEqual([]);
  });

  it('is never retried on a timer, and leaves apply pending (exit 2), not failed', () => {
    const { action, reason, target } = decision;
    const item = { name: 'checkout', namespace: 'crd-lab', action, reason, target, converged: false };
    expect(retryAfterSeconds(item, 0, 0.5)).toBeNull();
    expect(exitCodeOf(buildReport([item]))).toBe(2);
  });

  it('wins over a dependency that is merely not Ready, and over one being Ready', () => {
    expect(decide(observe(decideFixture('requeue-dependency-cycle-between-ready'))).cycle).toEqual([
      'checkout',
      'payments',
      'checkout',
    ]);
  });

  it('a CR that only reaches a cycle waits for its dependency on a timer, like any other', () => {
    const reaching = decide(observe(decideFixture('requeue-dependency-reaches-cycle')));
    expect(reaching.cycle).toBeUndefined();
    expect(reaching.after_seconds).toBe(10);
  });
});

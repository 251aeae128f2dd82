// spec.workload.disruption, in the core: the kind table's PodDisruptionBudget row builds the
// budget over the pods' selector, validation refuses what admission refuses, and its health
// reads the disruption controller's counts.
import { podDisruptionBudgetHealth } from '../../src/core/health';
import { NAMED_KINDS } from '../../src/core/kinds';
import { Disruption, WebService } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { parseSyncInput } from '../../src/core/validate';

const row = NAMED_KINDS.find((r) => r.kind === 'PodDisruptionBudget')!;
const desiredOf = (ws: WebService) => observe({ parent: ws, children: [], related: [] }).desired;

function parent(disruption?: Disruption): WebService {
  return {
    apiVersion: 'apps.labhub.io/v1',
    kind: 'WebService',
    metadata: { name: 'shop', namespace: 'ns', uid: 'uid-1', generation: 1 },
    spec: { image: 'nginx:1.27', replicas: 3, workload: { port: 8080, ...(disruption ? { disruption } : {}) } },
  };
}

describe('the PodDisruptionBudget row', () => {
  it('is wanted only when the workload sets a budget', () => {
    expect(row.wanted(parent())).toBe(false);
    expect(row.wanted(parent({ maxUnavailable: 1 }))).toBe(true);
  });

  it.each([{ maxUnavailable: 1 }, { minAvailable: '50%' }])('builds %j over the pods of the WebService', (d) => {
    const object = row.build!({ name: 'shop' }, { name: 'shop', desired: desiredOf(parent(d)) });
    expect(object).toEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'shop' },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/instance': 'shop' } },
        ...d,
      },
    });
  });

  it('builds nothing without a budget', () => {
    expect(row.build!({ name: 'shop' }, { name: 'shop', desired: desiredOf(parent()) })).toBeNull();
  });
});

describe('validating a budget', () => {
  const input = (disruption: unknown) => ({ parent: parent(disruption as Disruption), children: [], related: [] });

  it.each([
    [{ maxUnavailable: 1, minAvailable: 1 }, 'must set one of maxUnavailable or minAvailable'],
    [{}, 'must set one of maxUnavailable or minAvailable'],
    [{ minAvailable: -1 }, 'minAvailable must be a count of pods or a percentage'],
    [{ maxUnavailable: 'half' }, 'maxUnavailable must be a count of pods or a percentage'],
    [{ maxUnavailable: 1.5 }, 'maxUnavailable must be a count of pods or a percentage'],
  ])('refuses %j', (disruption, message) => {
    expect(() => parseSyncInput(input(disruption))).toThrow(message);
  });

  it.each([{ maxUnavailable: 0 }, { minAvailable: '100%' }])('accepts %j', (disruption) => {
    expect(() => parseSyncInput(input(disruption))).not.toThrow();
  });
});

describe('the health of a budget', () => {
  const pdb = (status?: Record<string, unknown>, generation = 1) => ({
    metadata: { name: 'shop', generation },
    spec: {},
    ...(status ? { status } : {}),
  });

  it('is not counted yet until the disruption controller has seen its spec', () => {
    expect(podDisruptionBudgetHealth(pdb()).state).toBe('Progressing');
    expect(podDisruptionBudgetHealth(pdb({ observedGeneration: 1, desiredHealthy: 2 }, 2)).state).toBe('Progressing');
  });

  it('is Ready with as many healthy pods as it wants, and says how many evictions it allows', () => {
    const status = { observedGeneration: 1, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1 };
    expect(podDisruptionBudgetHealth(pdb(status))).toEqual({
      state: 'Ready',
      info: '3/2 healthy, 1 disruption allowed',
    });
    const short = { observedGeneration: 1, currentHealthy: 1, desiredHealthy: 2, disruptionsAllowed: 0 };
    expect(podDisruptionBudgetHealth(pdb(short))).toEqual({
      state: 'Progressing',
      info: '1/2 healthy, 0 disruptions allowed',
    });
  });
});

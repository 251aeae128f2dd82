// spec.workload.progressDeadlineSeconds: carried into the Deployment when set, and compared
// like our other fields, with "unset" meaning the Kubernetes default on either side.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decide } from '../../src/core/decide';
import { Deployment, SyncInput } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { parseSyncInput } from '../../src/core/validate';
import { DEFAULT_PROGRESS_DEADLINE_SECONDS } from '../../src/core/workload';

function fixture(name: string): SyncInput {
  const file = path.join(__dirname, '../fixtures/decide', name, 'input.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SyncInput;
}

/** The converged fixture, with the spec's deadline and the live Deployment's set as given. */
function converged(specDeadline: number | undefined, liveDeadline: number | undefined): SyncInput {
  const input = fixture('noop-workload-converged');
  const workload = { ...input.parent.spec.workload };
  if (specDeadline !== undefined) workload.progressDeadlineSeconds = specDeadline;
  const children = input.children.map((c) => {
    if (c.kind !== 'Deployment') return c;
    const d = c as Deployment;
    const spec = { ...d.spec };
    if (liveDeadline !== undefined) spec.progressDeadlineSeconds = liveDeadline;
    return { ...d, spec };
  });
  return { ...input, parent: { ...input.parent, spec: { ...input.parent.spec, workload } }, children };
}

const decisionOf = (input: SyncInput) => decide(observe(parseSyncInput(input)));

describe('spec.workload.progressDeadlineSeconds', () => {
  it('unset in the spec and the server default on the Deployment: nothing to do', () => {
    expect(decisionOf(converged(undefined, DEFAULT_PROGRESS_DEADLINE_SECONDS)).action).toBe('noop');
    expect(decisionOf(converged(undefined, undefined)).action).toBe('noop');
  });

  it('set and equal on the Deployment: nothing to do', () => {
    expect(decisionOf(converged(45, 45)).action).toBe('noop');
  });

  it('hand-edited on the Deployment: put back to the spec', () => {
    const decision = decisionOf(converged(45, 900));
    expect(decision.changes).toEqual([
      { child: 'deployment/checkout', field: 'spec.progressDeadlineSeconds', from: '900', to: '45' },
    ]);
  });

  it('removed from the spec: the Deployment gets the default again', () => {
    const decision = decisionOf(converged(undefined, 45));
    expect(decision.action).toBe('update');
    expect(decision.ops).toEqual([
      expect.objectContaining({
        op: 'patchChild',
        kind: 'Deployment',
        patch: expect.objectContaining({ spec: { progressDeadlineSeconds: 600 } }),
      }),
    ]);
  });

  it('a new Deployment carries it only when the spec sets it', () => {
    const created = (deadline: number | undefined) => {
      const input = fixture('create-workload');
      const workload = { ...input.parent.spec.workload };
      if (deadline !== undefined) workload.progressDeadlineSeconds = deadline;
      const decision = decisionOf({ ...input, parent: { ...input.parent, spec: { ...input.parent.spec, workload } } });
      const op = decision.ops.find((o) => o.op === 'createChild' && o.object.kind === 'Deployment');
      if (op?.op !== 'createChild') throw new Error('no Deployment created');
      return (op.object as Deployment).spec;
    };
    expect(created(20)?.progressDeadlineSeconds).toBe(20);
    expect(created(undefined)).not.toHaveProperty('progressDeadlineSeconds');
  });

  it('an input file with a deadline that is not a positive int32 is refused, naming the field', () => {
    for (const bad of [0, -1, 1.5, '30', 2 ** 31]) {
      const input = converged(undefined, undefined) as unknown as { parent: { spec: { workload: object } } };
      input.parent.spec.workload = { port: 8080, progressDeadlineSeconds: bad };
      expect(() => parseSyncInput(input)).toThrow(/spec\.workload\.progressDeadlineSeconds must be an integer/);
    }
  });
});

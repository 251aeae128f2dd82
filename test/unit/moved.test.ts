// A hand edit of a key of ours in a Service (its port): the moved port is taken over in the
// managedFields and removed by the apply that puts ours back; what the takeover writes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Service, SyncInput } from '../../src/core/model';
import { ManagedFieldsEntry, takeOverEntries } from '../../src/core/moved';
import { decisionOf } from '../support/decide-fixtures';

const input: SyncInput = JSON.parse(
  fs.readFileSync(path.join(__dirname, '../fixtures/decide/noop-workload-converged/input.json'), 'utf8'),
) as SyncInput;

/** The converged fixture with its Service edited as `edit` says. */
function withService(edit: (service: Service) => void): SyncInput {
  const copy = structuredClone(input);
  edit(copy.children.find((c) => c.kind === 'Service') as Service);
  return copy;
}

describe("a Service's port changed by hand (kubectl patch … replace /spec/ports/0/port)", () => {
  it('takes the moved port over, then applies ours, which removes it: one write adds ours and drops it', () => {
    const decision = decisionOf(withService((s) => (s.spec!.ports![0].port = 9999)));
    expect(decision.action).toBe('update');
    expect(decision.ops).toEqual([
      {
        op: 'takeOverChild',
        kind: 'Service',
        name: 'checkout',
        entries: [
          {
            path: 'spec.ports[9999/TCP]',
            steps: ['spec', 'ports', { entry: { name: 'http', port: 9999, targetPort: 8080, protocol: 'TCP' } }],
          },
        ],
        uid: 'svc-uid-1',
        resourceVersion: '4004',
      },
      expect.objectContaining({ op: 'applyChild', kind: 'Service', uid: 'svc-uid-1' }),
    ]);
    expect(decision.reason).toBe(
      'service/checkout differs from the spec: spec.ports[8080/TCP]; spec.ports[9999/TCP] stands where ours was (a key changed by hand): removing it',
    );
  });

  it('leaves a port alone that stands beside ours', () => {
    const decision = decisionOf(
      withService((s) => s.spec!.ports!.push({ name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' })),
    );
    expect(decision.action).toBe('noop');
  });
});

/** The Service's managedFields after `kubectl patch service … replace /spec/ports/0/port 9999`. */
const MOVED = { port: 9999, protocol: 'TCP', targetPort: 8080 };
const STEPS = [['spec', 'ports', { entry: MOVED }]];
const OWNED_BY_US: ManagedFieldsEntry = {
  manager: 'webservice-controller',
  operation: 'Apply',
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:selector': {}, 'f:type': {} } },
};
/** The moved port's fields, as kubectl-patch's Update entry holds them. */
const PORTS = { 'k:{"port":9999,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} } };
const PATCHED: ManagedFieldsEntry = {
  manager: 'kubectl-patch',
  operation: 'Update',
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:ports': PORTS } },
};

describe('takeOverEntries', () => {
  it("moves the entry's fields from the manager that holds them to our Apply entry; a manager left with none goes", () => {
    expect(takeOverEntries([OWNED_BY_US, PATCHED], STEPS, 'webservice-controller', 'v1')).toEqual([
      {
        ...OWNED_BY_US,
        fieldsV1: {
          'f:spec': {
            'f:selector': {},
            'f:type': {},
            'f:ports': PORTS,
          },
        },
      },
    ]);
  });

  it('keeps what else that manager holds, and prunes only what the entry leaves empty', () => {
    const alsoLabel: ManagedFieldsEntry = {
      ...PATCHED,
      fieldsV1: { ...PATCHED.fieldsV1, 'f:metadata': { 'f:labels': { 'f:team': {} } } },
    };
    const [, theirs] = takeOverEntries([OWNED_BY_US, alsoLabel], STEPS, 'webservice-controller', 'v1')!;
    expect(theirs).toEqual({ ...PATCHED, fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} } } } });
  });

  it('makes our Apply entry when there is none, and changes nothing when no other manager holds the entry', () => {
    const made = takeOverEntries([PATCHED], STEPS, 'webservice-controller', 'v1')!;
    expect(made).toEqual([
      {
        manager: 'webservice-controller',
        operation: 'Apply',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: PATCHED.fieldsV1,
      },
    ]);
    expect(takeOverEntries(made, STEPS, 'webservice-controller', 'v1')).toBeNull();
    expect(takeOverEntries([OWNED_BY_US], STEPS, 'webservice-controller', 'v1')).toBeNull();
  });
});

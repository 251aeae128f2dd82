// The ports the probes reach, in the core: a name no port has is refused as admission refuses
// it; a number no container declares is a warning, in the decision every time and in one Warning
// Event, with the write that brings it.
import { Decision } from '../../src/core/decide';
import { eventsFor } from '../../src/core/events';
import { Deployment, SyncInput, WorkloadSpec } from '../../src/core/model';
import { parseSyncInput } from '../../src/core/validate';
import { decideFixture, decisionOf } from '../support/decide-fixtures';
import { afterWrites } from '../support/writes';

const created = decideFixture('create-workload');
const withWorkload = (input: SyncInput, workload: WorkloadSpec): SyncInput => ({
  ...input,
  parent: { ...input.parent, spec: { ...input.parent.spec, workload } },
});
const warningEvents = (decision: Decision) =>
  eventsFor(decision, { kind: 'applied' }, undefined, undefined).filter((event) => event.type === 'Warning');

describe('a probe port by name', () => {
  it.each<[string, WorkloadSpec, string]>([
    [
      'a name no port has',
      { port: 8080, readinessProbe: { httpGet: { path: '/', port: 'metrics' } } },
      'parent.spec.workload.readinessProbe.httpGet.port "metrics" names no port: ' +
        "the container's one port, spec.workload.port, is named http",
    ],
    [
      'http without a port',
      { livenessProbe: { tcpSocket: { port: 'http' } } },
      'parent.spec.workload.livenessProbe.tcpSocket.port "http" names no port: ' +
        'the pod has no port (spec.workload.port would be named http)',
    ],
    [
      'a number in a string, which is a name',
      { port: 8080, startupProbe: { httpGet: { path: '/', port: '8080' } } },
      'parent.spec.workload.startupProbe.httpGet.port "8080" names no port',
    ],
  ])('is refused: %s', (_what, workload, message) => {
    expect(() => parseSyncInput(withWorkload(created, workload))).toThrow(message);
  });

  it('http, with a port, is the container port of that name', () => {
    const input = withWorkload(created, {
      port: 8080,
      readinessProbe: { httpGet: { path: '/', port: 'http' } },
      livenessProbe: { tcpSocket: { port: 'http' } },
    });
    const decision = decisionOf(input);
    expect(decision.warnings).toBeUndefined();
    const deployment = decision.ops.find((op) => op.op === 'applyChild' && op.kind === 'Deployment');
    const [web] =
      (deployment?.op === 'applyChild' && (deployment.object as Deployment).spec?.template?.spec?.containers) || [];
    expect(web).toMatchObject({
      ports: [{ name: 'http', containerPort: 8080 }],
      readinessProbe: { httpGet: { port: 'http' } },
    });
  });
});

describe('a probe port by number that no container declares', () => {
  const MESSAGE =
    'readinessProbe.httpGet.port 9090 is not a port of the pod (its ports: 8080): ' +
    'the probe fails unless a container listens on it';
  const input = withWorkload(created, { port: 8080, readinessProbe: { httpGet: { path: '/', port: 9090 } } });

  it('is a warning, new with the write that brings it, and one Warning Event', () => {
    const decision = decisionOf(input);
    expect(decision.action).toBe('create');
    expect(decision.warnings).toEqual([{ reason: 'UndeclaredProbePort', message: MESSAGE, new: true }]);
    expect(warningEvents(decision)).toEqual([
      { type: 'Warning', reason: 'UndeclaredProbePort', action: 'Check', note: MESSAGE },
    ]);
  });

  it('stays in the decision while it stays, with no Event: not at a noop, nor with another write', () => {
    const live = afterWrites(input, decisionOf(input));
    const noop = decisionOf(live);
    expect(noop).toMatchObject({ action: 'noop', warnings: [{ reason: 'UndeclaredProbePort', message: MESSAGE }] });
    expect(noop.warnings?.[0]).not.toHaveProperty('new');
    expect(warningEvents(noop)).toEqual([]);
    const image = { ...live, parent: { ...live.parent, spec: { ...live.parent.spec, image: 'nginx:1.28' } } };
    const update = decisionOf(image);
    expect(update.action).toBe('update');
    expect(update.warnings).toEqual([{ reason: 'UndeclaredProbePort', message: MESSAGE }]);
    expect(warningEvents(update)).toEqual([]);
  });

  it("is none when another container of the live pod declares it (a sidecar's port)", () => {
    const live = afterWrites(input, decisionOf(input));
    const deployment = live.children.find((c) => c.kind === 'Deployment') as Deployment;
    deployment.spec!.template!.spec!.containers!.push({ name: 'sidecar', ports: [{ containerPort: 9090 }] });
    expect(decisionOf(live).warnings).toBeUndefined();
  });

  it('says so when the pod declares no port, and says nothing of a probe on its port', () => {
    const bare = decisionOf(withWorkload(created, { livenessProbe: { tcpSocket: { port: 8080 } } }));
    expect(bare.warnings?.map((w) => w.message)).toEqual([
      'livenessProbe.tcpSocket.port 8080 is not a port of the pod (it declares none): ' +
        'the probe fails unless a container listens on it',
    ]);
    const fine = withWorkload(created, { port: 8080, readinessProbe: { grpc: { port: 8080 } } });
    expect(decisionOf(fine).warnings).toBeUndefined();
  });
});

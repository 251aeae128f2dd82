// The autoscaler changes replicas while run is down: run SIGKILLed, every Deployment scaled
// through /scale as the HPA controller does, run started again. The new process starts from a
// fresh list and must take the autoscaler's counts as they are: no write of replicas, the
// pods ready at the new count, and silence after. Needs a plane that runs pods and the HPA
// controller (see workloadsPlane).
import {
  AuditWindow,
  MUTATING,
  createNamespace,
  describeEvent,
  eventually,
  getJson,
  scaleAsAutoscaler,
} from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { checkInvariants } from '../support/invariants';
import { CONTROLLER_USER, cleanNamespace, createWebServices, numbered, recordResult, workloadsPlane } from './support';

const plane = workloadsPlane();
const withPods = plane ? describe : describe.skip;

withPods('autoscaling (a plane that runs pods)', () => {
  let ns: string;
  let kubeconfig: string;
  const controllers: ControllerProcess[] = [];
  beforeAll(() => {
    plane!.up();
    ns = createNamespace('faults-autoscaling');
    kubeconfig = controllerKubeconfig();
  }, 180_000);
  afterAll(async () => {
    await Promise.all(controllers.map((c) => c.stop()));
    // ns is unset when beforeAll failed before creating it.
    if (ns) cleanNamespace(ns);
    plane!.down();
  });

  const startController = async () => {
    const ctl = new ControllerProcess(['-n', ns, '--kubeconfig', kubeconfig]);
    controllers.push(ctl);
    await ctl.waitForLog(/controller working/);
    return ctl;
  };
  const names = numbered('scaled', 4);
  const autoscalingReason = (name: string) =>
    getJson<{ status?: { conditions?: { type: string; reason: string }[] } }>([
      'get',
      'webservice',
      name,
      '-n',
      ns,
    ]).status?.conditions?.find((c) => c.type === 'Autoscaling')?.reason;
  const replicasOf = (name: string) =>
    getJson<{ spec: { replicas: number } }>(['get', 'deployment', name, '-n', ns]).spec.replicas;

  it('the autoscaler scales while run is killed; restarted, run writes no replicas back', async () => {
    const first = await startController();
    createWebServices(ns, names, () => ({
      image: 'nginx:1.27',
      replicas: 2,
      workload: { port: 8080, autoscaling: { maxReplicas: 6 } },
    }));
    // The autoscaler first raises each Deployment to its minimum, and only on its next look
    // finds it has no metrics: the WebServices say so (a status write each), then all is quiet.
    await eventually(() => names.every((name) => autoscalingReason(name) === 'FailedGetResourceMetric'), 180_000);
    const before = await checkInvariants({ namespace: ns, live: names, workloads: true, withinMs: 180_000 });
    expect(before.violations).toEqual([]);
    expect(names.map(replicasOf)).toEqual(names.map(() => 2));

    first.signal('SIGKILL');
    await first.exited;
    const counts = names.map((_, i) => 3 + (i % 3));
    for (const [i, name] of names.entries()) expect(scaleAsAutoscaler(ns, name, counts[i]).status).toBe(0);

    const audit = new AuditWindow(ns);
    audit.mark();
    await startController();
    const report = await checkInvariants({
      namespace: ns,
      live: names,
      workloads: true,
      withinMs: 180_000,
      steadyWindowMs: 10_000,
    });
    recordResult('run SIGKILLed while the autoscaler scaled, then restarted (workloads)', 'run', report, {
      scaled: names.length,
    });
    expect(first.exit?.signal).toBe('SIGKILL');
    expect(report.violations).toEqual([]);
    expect(names.map(replicasOf)).toEqual(counts);
    // The restarted run wrote statuses (the new counts, ready) and nothing else.
    const writes = (await audit.events()).filter((e) => e.user.username === CONTROLLER_USER && MUTATING.has(e.verb));
    expect(writes.filter((e) => e.objectRef?.subresource !== 'status').map(describeEvent)).toEqual([]);
    expect(writes.length).toBeGreaterThan(0);
  }, 600_000);
});

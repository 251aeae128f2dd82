// Faults of the machinery that runs a workload's pods, while run follows the rollouts:
// kube-controller-manager restarted in the middle of a rollout, kube-scheduler stopped and
// started again, and a simulated Node deleted with its pods. These need a plane that runs
// pods; the rest of the suite does not, so this file brings its own (see workloadsPlane)
// unless the suite's plane already has workloads.
import { createNamespace, eventually, getJson, kubectl, sleep } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { checkInvariants } from '../support/invariants';
import { cleanNamespace, createWebServices, numbered, planeCommand, recordResult, workloadsPlane } from './support';

const plane = workloadsPlane();
const withPods = plane ? describe : describe.skip;

interface WebServiceView {
  metadata: { name: string };
  status?: { conditions?: { type: string; status: string; reason: string; lastTransitionTime: string }[] };
}

const readyOf = (ws: WebServiceView) => ws.status?.conditions?.find((c) => c.type === 'Ready');
const webServices = (ns: string) => getJson<{ items: WebServiceView[] }>(['get', 'webservices', '-n', ns]).items;
const notReady = (ns: string) => webServices(ns).filter((ws) => readyOf(ws)?.status !== 'True');

/** Polls until some WebService is not Ready; returns how long that took and which ones. */
async function untilNotReady(ns: string, timeoutMs: number): Promise<{ ms: number; names: string[] }> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const names = notReady(ns).map((ws) => ws.metadata.name);
    if (names.length > 0) return { ms: Date.now() - started, names };
    await sleep(200);
  }
  throw new Error(`every WebService stayed Ready for ${timeoutMs}ms`);
}

/** The WebServices whose Ready turned RolloutInProgress after t (ms), by their RolloutStarted Events. */
function rolloutStartedSince(ns: string, t: number): { name: string; at: number }[] {
  const events = getJson<{ items: { involvedObject: { name: string }; eventTime: string }[] }>([
    'get',
    'events',
    '-n',
    ns,
    '--field-selector',
    'involvedObject.kind=WebService,reason=RolloutStarted',
  ]).items;
  // eventTime is kept to the second.
  return events
    .map((e) => ({ name: e.involvedObject.name, at: Date.parse(e.eventTime) }))
    .filter((e) => e.at >= Math.floor(t / 1000) * 1000);
}

withPods('workloads (a plane that runs pods)', () => {
  let ns: string;
  let ctl: ControllerProcess;
  beforeAll(async () => {
    plane!.up();
    ns = createNamespace('faults-workloads');
    ctl = new ControllerProcess(['-n', ns, '--kubeconfig', controllerKubeconfig()]);
    await ctl.waitForLog(/controller working/);
  }, 180_000);
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
    await ctl?.stop();
    // ns is unset when beforeAll failed before creating it.
    if (ns) cleanNamespace(ns);
    plane!.down();
  });

  const names = numbered('web', 10);
  const invariants = (withinMs: number) =>
    checkInvariants({ namespace: ns, live: names, workloads: true, withinMs, steadyWindowMs: 10_000 });

  it('kube-controller-manager restarted in the middle of a rollout: the rollout finishes, Ready again', async () => {
    createWebServices(ns, names, () => ({ image: 'nginx:1.27', replicas: 3, workload: { port: 8080 } }));
    const first = await invariants(120_000);
    expect(first.violations).toEqual([]);

    for (const name of names) {
      kubectl(['patch', 'webservice', name, '-n', ns, '--type=merge', '-p', '{"spec":{"image":"nginx:1.28"}}']);
    }
    // The rollout has begun (some WebService says so) when the controllers go away.
    const rolling = await untilNotReady(ns, 30_000);
    const restarted = Date.now();
    planeCommand('restart-component', 'kube-controller-manager');
    const restartMs = Date.now() - restarted;
    const report = await invariants(180_000);
    recordResult('kube-controller-manager restarted mid-rollout (workloads)', 'run', report, {
      notReadyAtRestart: rolling.names.length,
      restartMs,
    });
    expect(rolling.names.length).toBeGreaterThan(0);
    expect(ctl.exit).toBeNull();
    expect(report.violations).toEqual([]);
  }, 600_000);

  it('kube-scheduler stopped: new pods wait and Ready is False; started again: Ready True', async () => {
    planeCommand('stop-component', 'kube-scheduler');
    let stopped = true;
    try {
      for (const name of names.slice(0, 3)) {
        kubectl(['patch', 'webservice', name, '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":5}}']);
      }
      const waiting = await untilNotReady(ns, 30_000);
      // Nothing schedules the new pods: they stay Pending, and the WebServices say why.
      await sleep(5_000);
      const pending = getJson<{ items: unknown[] }>([
        'get',
        'pods',
        '-n',
        ns,
        '--field-selector',
        'status.phase=Pending',
      ]).items.length;
      const stillWaiting = notReady(ns);
      expect(pending).toBe(6);
      expect(stillWaiting.map((ws) => ws.metadata.name).sort()).toEqual(names.slice(0, 3));
      expect(stillWaiting.map((ws) => readyOf(ws)?.reason)).toEqual(Array(3).fill('RolloutInProgress'));

      planeCommand('start-component', 'kube-scheduler');
      stopped = false;
      const report = await invariants(120_000);
      recordResult('kube-scheduler stopped and started (workloads)', 'run', report, {
        notReadyAfterMs: waiting.ms,
        pendingPods: pending,
      });
      expect(ctl.exit).toBeNull();
      expect(report.violations).toEqual([]);
    } finally {
      if (stopped) planeCommand('start-component', 'kube-scheduler');
    }
  }, 600_000);

  it('a simulated Node deleted with its pods: Ready False, then True once they are rescheduled', async () => {
    const node = 'kwok-node-2';
    const saved = getJson<{ metadata: Record<string, unknown>; status: Record<string, unknown> }>([
      'get',
      'node',
      node,
    ]);
    const onNode = getJson<{ items: { metadata: { labels: Record<string, string> } }[] }>([
      'get',
      'pods',
      '-n',
      ns,
      '--field-selector',
      `spec.nodeName=${node}`,
    ]).items;
    const hit = [...new Set(onNode.map((pod) => pod.metadata.labels['app.kubernetes.io/instance']))].sort();
    expect(hit.length).toBeGreaterThan(0);
    const deleted = Date.now();
    kubectl(['delete', 'node', node]);
    try {
      // The pod garbage collector deletes the pods of a Node that is gone; their ReplicaSets
      // make new ones, which the scheduler puts on the Node that is left. Ready is False only
      // until they are ready, which can be a moment: the RolloutStarted Event (one each time
      // Ready turns to RolloutInProgress) is the record that it went False.
      const started = await eventually(() => {
        const since = rolloutStartedSince(ns, deleted);
        const names = new Set(since.map((e) => e.name));
        return hit.every((name) => names.has(name)) ? since : null;
      }, 180_000);
      const report = await invariants(240_000);
      const recoveredMs = Date.now() - deleted;
      const remaining = getJson<{ items: { spec: { nodeName?: string } }[] }>(['get', 'pods', '-n', ns]).items;
      const notReadyAfterMs = Math.min(...started.map((e) => e.at)) - deleted;
      recordResult('a simulated Node deleted with its pods (workloads)', 'run', report, {
        podsOnNode: onNode.length,
        webServicesHit: hit.length,
        notReadyEvents: started.length,
        notReadyAfterMs,
        readyAgainAfterMs: recoveredMs,
      });
      // Each WebService that had pods there went not Ready (some more than once, as the pods
      // went in more than one round), and no other did.
      expect([...new Set(started.map((e) => e.name))].sort()).toEqual(hit);
      expect(remaining).toHaveLength(names.length * 3 + 6);
      expect(remaining.every((pod) => pod.spec.nodeName !== node)).toBe(true);
      expect(ctl.exit).toBeNull();
      expect(report.violations).toEqual([]);
    } finally {
      // The plane as it was: the Node back, with the capacity it had, Ready and schedulable.
      const { name, labels, annotations } = saved.metadata as { name: string; labels: object; annotations: object };
      const status = saved.status as { allocatable: object; capacity: object };
      kubectl(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name, labels, annotations },
          status: { allocatable: status.allocatable, capacity: status.capacity },
        }),
      );
      kubectl(['wait', '--for=condition=Ready', `node/${node}`, '--timeout=60s']);
    }
  }, 600_000);
});

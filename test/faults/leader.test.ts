// Two run --leader-elect replicas under the shipped RBAC and leader fence, each as deploy/
// runs it: a pod's identity and a token bound to that pod. The leader is SIGKILLed; then
// the leader is SIGSTOPped (as if cut off from the network) until the other takes over,
// and resumed. Every write in the audit log must come from the holder of the Lease at the
// moment the apiserver received it, or have been refused by the apiserver: a replica
// stopped between its write gate and the socket sends on resume, and the fence
// (deploy/15-leader-fence.yaml) is what keeps that write from landing.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AuditWindow, MUTATING, ROOT, createNamespace, eventually, kubectl, sleep } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig, podReplica } from '../support/controller';
import { LeaseHistory, checkInvariants, parseMicroTime } from '../support/invariants';
import { cleanNamespace, createWebServices, installLeaderFence, numbered, recordResult } from './support';

const FENCE = path.join(ROOT, 'deploy/15-leader-fence.yaml');
const LEASE = ['lease', 'webservice-controller', '-n', 'webservice-system'];

const pods: string[] = [];
beforeAll(() => {
  controllerKubeconfig(); // the namespace, ServiceAccount and RBAC of deploy/
  installLeaderFence();
});
afterAll(() => {
  kubectl(['delete', '-f', FENCE, '--ignore-not-found']);
  if (pods.length) kubectl(['delete', 'pod', ...pods, '-n', 'webservice-system', '--ignore-not-found', '--wait=false']);
});

function replicaPod(name: string): { kubeconfig: string; env: NodeJS.ProcessEnv } {
  pods.push(name);
  return podReplica(name);
}

function replica(
  ns: string,
  replicas: ControllerProcess[],
  podName: string,
  extraArgs: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): ControllerProcess {
  const { kubeconfig, env } = replicaPod(podName);
  const ctl = new ControllerProcess(
    [
      '-n',
      ns,
      '--kubeconfig',
      kubeconfig,
      '--leader-elect',
      '--leader-elect-namespace',
      'webservice-system',
      ...extraArgs,
    ],
    { ...env, ...extraEnv },
  );
  replicas.push(ctl);
  return ctl;
}

const identityOf = (ctl: ControllerProcess) => String(ctl.entries.find((e) => e.identity)?.identity);

/** The Lease's terms for the results, with the two replicas named by their roles. */
const termsOf = (history: LeaseHistory, first: ControllerProcess, second: ControllerProcess) =>
  history.terms.map((t) => ({
    holder:
      t.holder === identityOf(first) ? 'first' : t.holder === identityOf(second) ? 'second' : t.holder || '(released)',
    start: new Date(t.start).toISOString(),
  }));

/** Stops a scenario's replicas (a stopped one is resumed first) and its Lease watch; cleans its namespace. */
async function tearDown(ns: string, replicas: ControllerProcess[], history: LeaseHistory | undefined): Promise<void> {
  history?.stop();
  for (const r of replicas) r.signal('SIGCONT');
  await Promise.all(replicas.map((r) => r.stop()));
  cleanNamespace(ns);
}
const leaderAmong = (candidates: ControllerProcess[], timeoutMs = 40_000) =>
  eventually(() => candidates.find((c) => !c.exit && c.entries.some((e) => /became leader/.test(e.msg))), timeoutMs);

/** Starts from no lease at all, so a previous scenario's holder cannot delay this one. */
function freshLease(): void {
  kubectl(['delete', ...LEASE, '--ignore-not-found']);
}

/** Sets the Lease's holder by hand (an admin's write), as a replica would have. */
function holdLease(holderIdentity: string): void {
  const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  const lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'webservice-controller', namespace: 'webservice-system' },
    spec: { holderIdentity, leaseDurationSeconds: 15, acquireTime: now, renewTime: now },
  };
  kubectl(
    ['apply', '--server-side', '--force-conflicts', '--field-manager=fault-test', '-f', '-'],
    JSON.stringify(lease),
  );
}

describe('the leader fence (deploy/15-leader-fence.yaml)', () => {
  let ns: string;
  beforeAll(() => {
    ns = createNamespace('fence');
  });
  afterAll(() => {
    freshLease();
    cleanNamespace(ns);
  });

  const patchAs = (kubeconfig: string, value: string) =>
    spawnSync(
      'kubectl',
      [
        '--kubeconfig',
        kubeconfig,
        'patch',
        'configmap',
        'probe',
        '-n',
        ns,
        '--type=merge',
        '-p',
        JSON.stringify({ data: { by: value } }),
      ],
      {
        encoding: 'utf8',
      },
    );
  const data = () => JSON.parse(kubectl(['get', 'configmap', 'probe', '-n', ns, '-o', 'json'])).data ?? {};

  it("admits a pod replica's write while there is no Lease or the Lease names that pod, and refuses it otherwise; others and a token bound to no pod are not fenced", async () => {
    const a = replicaPod('fence-a');
    const b = replicaPod('fence-b');
    const audit = new AuditWindow(ns);
    audit.mark();

    // No Lease: nobody leads, and the fence admits. It is consulted for everyone's ConfigMaps
    // and Events before it asks who writes, so refusing here would refuse the whole cluster's.
    freshLease();
    kubectl(['create', 'configmap', 'probe', '-n', ns]);
    kubectl(['create', 'configmap', 'someone-elses', '-n', ns, '--from-literal=k=v']);
    await eventually(() => patchAs(a.kubeconfig, 'no lease').status === 0, 20_000); // once its cache has the deletion

    holdLease('fence-a_0000abcd');
    // The apiserver reads the Lease through its own cache: wait until it has this version.
    await eventually(() => patchAs(b.kubeconfig, 'b').status !== 0 && patchAs(a.kubeconfig, 'a').status === 0, 20_000);
    const refused = patchAs(b.kubeconfig, 'b');
    expect(refused.stderr).toContain(
      'not the leader: pod fence-b does not hold the Lease webservice-system/webservice-controller',
    );
    expect(refused.stderr).toMatch(/forbidden/i);
    expect(data().by).toBe('a');
    kubectl(['patch', 'configmap', 'someone-elses', '-n', ns, '--type=merge', '-p', '{"data":{"k":"w"}}']); // not a replica: admitted

    // Not fenced: a token of the same ServiceAccount that no pod is bound to (a replica run by hand).
    expect(patchAs(controllerKubeconfig(), 'unbound').status).toBe(0);

    // Released (no holder), then taken by b: a is refused now.
    holdLease('');
    await eventually(() => patchAs(a.kubeconfig, 'a2').status !== 0, 20_000);
    holdLease('fence-b_0000abcd');
    await eventually(() => patchAs(b.kubeconfig, 'b2').status === 0, 20_000);
    const late = patchAs(a.kubeconfig, 'a3');
    expect(late.stderr).toContain('not the leader: pod fence-a does not hold the Lease');
    expect(data().by).toBe('b2');

    // In the audit log: each write of the ServiceAccount was admitted (200) or refused at
    // admission (403), nothing in between.
    const codes = (await audit.all())
      .filter(
        (e) =>
          MUTATING.has(e.verb) && e.user.username === 'system:serviceaccount:webservice-system:webservice-controller',
      )
      .map((e) => e.responseStatus?.code);
    expect(codes).toContain(200);
    expect(codes).toContain(403);
    expect(codes.filter((code) => code !== 200 && code !== 403)).toEqual([]);
  }, 90_000);
});

describe.each(['SIGKILL', 'SIGSTOP'] as const)('the leader %s-ed', (signal) => {
  let ns: string;
  const replicas: ControllerProcess[] = [];
  let history: LeaseHistory;
  beforeAll(() => {
    ns = createNamespace(`leader-${signal.toLowerCase()}`);
    freshLease();
  });
  afterAll(async () => {
    await tearDown(ns, replicas, history);
  });

  it('the other takes over, converges what changed, and the apiserver takes writes from the leader only', async () => {
    const audit = new AuditWindow(ns);
    audit.mark();
    const tag = signal.toLowerCase();
    const [a, b] = [replica(ns, replicas, `${tag}-a`), replica(ns, replicas, `${tag}-b`)];
    const first = await leaderAmong([a, b]);
    const second = first === a ? b : a;
    await second.waitForLog(/waiting to lead/);
    expect(identityOf(first)).toMatch(new RegExp(`^${tag}-[ab]_[0-9a-f]{8}$`)); // POD_NAME, as the fence expects
    history = new LeaseHistory();

    const before = numbered('before', 30);
    createWebServices(ns, before);
    const settled = await checkInvariants({ namespace: ns, live: before, withinMs: 60_000, steadyWindowMs: 1_000 });
    expect(settled.violations).toEqual([]);

    // Work the leader has in hand when it goes: spec changes it may have read but not acted on.
    for (const name of before.slice(0, 10))
      kubectl(['patch', 'webservice', name, '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":2}}']);
    first.signal(signal);
    const during = numbered('during', 30);
    createWebServices(ns, during);
    await second.waitForLog(/became leader/, 40_000);

    if (signal === 'SIGSTOP') {
      // Resumed after losing the lease: its renew fails, and it exits; anything it sent on
      // resume (stopped between its gate and the socket) is refused by the fence.
      await sleep(2_000);
      first.signal('SIGCONT');
      await first.exited;
      expect(first.exit?.code).toBe(1);
      expect(first.entries.map((e) => e.msg)).toContain(
        `leader election lost (lease webservice-system/webservice-controller); exiting`,
      );
    }

    const report = await checkInvariants({
      namespace: ns,
      live: [...before, ...during],
      withinMs: 90_000,
      steadyWindowMs: 10_000,
      leader: { history, audit },
    });
    const refusedByGate = first.entries.filter((e) => /not the leader: refusing to write/.test(String(e.error))).length;
    recordResult(
      `two run --leader-elect replicas, the leader ${signal === 'SIGKILL' ? 'SIGKILLed' : 'SIGSTOPped then resumed'}`,
      'run',
      report,
      {
        terms: termsOf(history, first, second),
        writesRefusedByDeposedLeader: refusedByGate,
        writesRefusedByApiserver: report.figures.nonLeaderWritesRefused,
      },
    );
    expect(history.terms.map((t) => t.holder)).toEqual(expect.arrayContaining([identityOf(first), identityOf(second)]));
    expect(report.figures.writesChecked).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});

describe('the leader stopped inside a write, between its gate and the socket', () => {
  let ns: string;
  const replicas: ControllerProcess[] = [];
  let history: LeaseHistory;
  const triggers = fs.mkdtempSync(path.join(os.tmpdir(), 'stop-in-write-'));
  beforeAll(() => {
    ns = createNamespace('leader-in-write');
    freshLease();
  });
  afterAll(async () => {
    await tearDown(ns, replicas, history);
    fs.rmSync(triggers, { recursive: true, force: true });
  });

  it('sends that write on resume, after the takeover; the fence refuses it, and the replica logs so before it exits', async () => {
    const audit = new AuditWindow(ns);
    audit.mark();
    // Short terms, so the takeover comes within seconds (same ratios as the defaults).
    const terms = [
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=500ms',
    ];
    const start = (pod: string) =>
      replica(ns, replicas, pod, terms, {
        NODE_OPTIONS: `--require ${path.join(ROOT, 'test/support/stop-in-write.cjs')}`,
        STOP_IN_WRITE: path.join(triggers, pod),
        // The Event about web-000's update: a create carries no resourceVersion, so once past the
        // gate only the fence can refuse it. (A stale patch meets a 409 first: the new leader
        // has written that object since.)
        STOP_IN_WRITE_MATCH: `^POST \\S+/namespaces/${ns}/events `,
      });
    const [a, b] = [start('in-write-a'), start('in-write-b')];
    const first = await leaderAmong([a, b]);
    const second = first === a ? b : a;
    await second.waitForLog(/waiting to lead/);
    history = new LeaseHistory();
    const names = numbered('web', 10);
    createWebServices(ns, names);
    expect(
      (await checkInvariants({ namespace: ns, live: names, withinMs: 60_000, steadyWindowMs: 1_000 })).violations,
    ).toEqual([]);

    // Arm the leader: its next Event stops it inside the socket write, past its gate.
    const pod = identityOf(first).split('_')[0];
    fs.writeFileSync(path.join(triggers, pod), '');
    kubectl(['patch', 'webservice', 'web-000', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":3}}']);
    await second.waitForLog(/became leader/, 30_000);
    await sleep(1_000);
    first.signal('SIGCONT');
    await first.exited;
    expect(first.exit?.code).toBe(1);

    const report = await checkInvariants({
      namespace: ns,
      live: names,
      withinMs: 60_000,
      steadyWindowMs: 5_000,
      leader: { history, audit },
    });
    recordResult(
      'two run --leader-elect replicas, the leader stopped inside a write (past its gate) then resumed',
      'run',
      report,
      {
        terms: termsOf(history, first, second),
        writesRefusedByApiserver: report.figures.nonLeaderWritesRefused,
      },
    );
    expect(report.violations).toEqual([]);
    // The stopped write did reach the apiserver, after the takeover, and was refused there.
    const late = (await audit.all()).filter(
      (e) =>
        MUTATING.has(e.verb) &&
        e.userAgent?.includes(`run/${identityOf(first)}`) &&
        history.holderAt(parseMicroTime((e as { requestReceivedTimestamp?: string }).requestReceivedTimestamp)) !==
          identityOf(first),
    );
    expect(
      late.map((e) => `${e.verb} ${e.objectRef?.apiGroup}/${e.objectRef?.resource} ${e.responseStatus?.code}`),
    ).toEqual(['create events.k8s.io/events 403']);
    expect(report.figures.nonLeaderWritesRefused).toBe(1);
    expect(first.entries.some((e) => /does not hold the Lease/.test(String(e.error)))).toBe(true);
  }, 180_000);
});

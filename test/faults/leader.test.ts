// Two run --leader-elect replicas under the shipped RBAC. The leader is SIGKILLed; then
// the leader is SIGSTOPped (as if cut off from the network) until the other takes over,
// and resumed. Every write in the audit log must come from the holder of the Lease at
// the moment the apiserver received it: a deposed leader must not write after its term.
import { AuditWindow, createNamespace, eventually, kubectl, sleep } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { LeaseHistory, checkInvariants } from '../support/invariants';
import { cleanNamespace, createWebServices, numbered, recordResult } from './support';

let kubeconfig: string;
beforeAll(() => {
  kubeconfig = controllerKubeconfig();
});

function replica(ns: string, replicas: ControllerProcess[]): ControllerProcess {
  const ctl = new ControllerProcess(['-n', ns, '--kubeconfig', kubeconfig, '--leader-elect', '--leader-elect-namespace', 'webservice-system']);
  replicas.push(ctl);
  return ctl;
}

const identityOf = (ctl: ControllerProcess) => String(ctl.entries.find((e) => e.identity)?.identity);
const leaderAmong = (candidates: ControllerProcess[], timeoutMs = 40_000) =>
  eventually(() => candidates.find((c) => !c.exit && c.entries.some((e) => /became leader/.test(e.msg))), timeoutMs);

/** Starts from no lease at all, so a previous scenario's holder cannot delay this one. */
function freshLease(): void {
  kubectl(['delete', 'lease', 'webservice-controller', '-n', 'webservice-system', '--ignore-not-found']);
}

describe.each(['SIGKILL', 'SIGSTOP'] as const)('the leader %s-ed', (signal) => {
  let ns: string;
  const replicas: ControllerProcess[] = [];
  let history: LeaseHistory;
  beforeAll(() => {
    ns = createNamespace(`leader-${signal.toLowerCase()}`);
    freshLease();
  });
  afterAll(async () => {
    history?.stop();
    for (const r of replicas) r.signal('SIGCONT');
    await Promise.all(replicas.map((r) => r.stop()));
    cleanNamespace(ns);
  });

  it('the other takes over, converges what changed, and no write ever comes from a non-leader', async () => {
    const audit = new AuditWindow(ns);
    audit.mark();
    const [a, b] = [replica(ns, replicas), replica(ns, replicas)];
    const first = await leaderAmong([a, b]);
    const second = first === a ? b : a;
    await second.waitForLog(/waiting to lead/);
    history = new LeaseHistory();

    const before = numbered('before', 30);
    createWebServices(ns, before);
    const settled = await checkInvariants({ namespace: ns, live: before, withinMs: 60_000, steadyWindowMs: 1_000 });
    expect(settled.violations).toEqual([]);

    // Work the leader has in hand when it goes: spec changes it may have read but not acted on.
    for (const name of before.slice(0, 10)) kubectl(['patch', 'webservice', name, '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":2}}']);
    first.signal(signal);
    const during = numbered('during', 30);
    createWebServices(ns, during);
    await second.waitForLog(/became leader/, 40_000);

    if (signal === 'SIGSTOP') {
      // Resumed after losing the lease: its renew fails, and it must exit without writing.
      await sleep(2_000);
      first.signal('SIGCONT');
      await first.exited;
      expect(first.exit?.code).toBe(1);
      expect(first.entries.map((e) => e.msg)).toContain(`leader election lost (lease webservice-system/webservice-controller); exiting`);
    }

    const report = await checkInvariants({
      namespace: ns,
      live: [...before, ...during],
      withinMs: 90_000,
      steadyWindowMs: 10_000,
      leader: { history, audit },
    });
    const refused = first.entries.filter((e) => /not the leader: refusing to write/.test(String(e.error))).length;
    recordResult(`two run --leader-elect replicas, the leader ${signal === 'SIGKILL' ? 'SIGKILLed' : 'SIGSTOPped then resumed'}`, 'run', report, {
      terms: history.terms.map((t) => ({ holder: t.holder === identityOf(first) ? 'first' : t.holder === identityOf(second) ? 'second' : t.holder || '(released)', start: new Date(t.start).toISOString() })),
      writesRefusedByDeposedLeader: refused,
    });
    expect(history.terms.map((t) => t.holder)).toEqual(expect.arrayContaining([identityOf(first), identityOf(second)]));
    expect(report.figures.writesChecked).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});

// A real network partition between a run --leader-elect replica and the apiserver: the
// replica runs in its own network namespace (test/faults/netns.ts) and every packet across
// the veth is dropped, no socket closed. Two replicas run as deploy/ runs them (a pod's
// identity, a token bound to that pod, the leader fence), with short terms (4 s lease, 3 s
// renew deadline, 500 ms retry period: the ratios of the defaults).
// - The leader is cut off while it writes: it must stop writing within its renew deadline, the
//   other must take over, and after the heal it must exit 1 with no write of its admitted
//   after the takeover (the audit log against the Lease history).
// - A replica that does not lead is cut off, and the leader dies meanwhile: its watchdog must
//   notice the silent watches, and after the heal it must take over and converge what changed.
// Where no network namespace can be made (not root, no ip or tc), the file is skipped and says why.
import * as path from 'node:path';
import {
  AuditEvent,
  AuditWindow,
  MUTATING,
  ROOT,
  createNamespace,
  eventually,
  kubectl,
  sleep,
} from '../support/cluster';
import { ControllerProcess, LogEntry, controllerKubeconfig, podReplica } from '../support/controller';
import { LeaseHistory, checkInvariants, parseMicroTime } from '../support/invariants';
import { NetworkPartition, partitionUnavailable } from './netns';
import {
  AuditTail,
  apiServerUrl,
  cleanNamespace,
  createWebServices,
  installLeaderFence,
  numbered,
  recordResult,
} from './support';

const FENCE = path.join(ROOT, 'deploy/15-leader-fence.yaml');
const LEASE = ['lease', 'webservice-controller', '-n', 'webservice-system'];
const RENEW_DEADLINE_MS = 3_000;
const TERMS = [
  '--leader-elect-lease-duration=4s',
  `--leader-elect-renew-deadline=${RENEW_DEADLINE_MS / 1000}s`,
  '--leader-elect-retry-period=500ms',
];
const IDLE_TIMEOUT_S = 5;

const unavailable = partitionUnavailable();
if (unavailable) console.warn(`partition.test.ts skipped: no network partition can be made here: ${unavailable}`);
const withPartition = unavailable ? describe.skip : describe;

const identityOf = (ctl: ControllerProcess) => String(ctl.entries.find((e) => e.identity)?.identity);
const at = (ts: unknown) => Date.parse(String(ts));
const received = (e: AuditEvent) =>
  parseMicroTime((e as AuditEvent & { requestReceivedTimestamp?: string }).requestReceivedTimestamp);

withPartition('a network partition (network namespace, veth, every packet dropped)', () => {
  const partition = new NetworkPartition();
  const pods: string[] = [];
  const replicas: ControllerProcess[] = [];
  const histories: LeaseHistory[] = [];
  const namespaces: string[] = [];

  beforeAll(async () => {
    controllerKubeconfig(); // the namespace, ServiceAccount and RBAC of deploy/
    installLeaderFence();
    await partition.create(apiServerUrl());
  });
  afterAll(async () => {
    for (const h of histories) h.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    partition.destroy();
    kubectl(['delete', '-f', FENCE, '--ignore-not-found']);
    kubectl(['delete', ...LEASE, '--ignore-not-found']);
    if (pods.length)
      kubectl(['delete', 'pod', ...pods, '-n', 'webservice-system', '--ignore-not-found', '--wait=false']);
    for (const ns of namespaces) cleanNamespace(ns);
  });

  /** A replica as deploy/ runs it; `inside`: in the network namespace, across the veth. */
  function replica(ns: string, pod: string, inside: boolean, extraArgs: string[] = []): ControllerProcess {
    pods.push(pod);
    const { kubeconfig, env } = podReplica(pod);
    const ctl = new ControllerProcess(
      [
        '-n',
        ns,
        '--kubeconfig',
        inside ? partition.kubeconfig(kubeconfig) : kubeconfig,
        '--leader-elect',
        '--leader-elect-namespace',
        'webservice-system',
        ...TERMS,
        ...extraArgs,
      ],
      env,
      inside ? partition.exec() : [],
    );
    replicas.push(ctl);
    return ctl;
  }

  /** A namespace for one scenario, with no replica of an earlier one left and no Lease to wait out. */
  async function scenarioNamespace(prefix: string): Promise<string> {
    partition.healIfCut();
    await Promise.all(replicas.map((r) => r.stop()));
    const ns = createNamespace(prefix);
    namespaces.push(ns);
    kubectl(['delete', ...LEASE, '--ignore-not-found']);
    return ns;
  }

  it('the leader cut off stops writing within its renew deadline, the other takes over, and after the heal it exits 1 with no write admitted', async () => {
    const ns = await scenarioNamespace('partition-leader');
    const audit = new AuditWindow(ns);
    audit.mark();
    const first = replica(ns, 'cut-leader-a', true);
    await first.waitForLog(/became leader/, 60_000);
    const second = replica(ns, 'cut-leader-b', false);
    await second.waitForLog(/waiting to lead/);
    await second.waitForLog(/caches synced/);
    const history = new LeaseHistory();
    histories.push(history);

    const before = numbered('before', 30);
    createWebServices(ns, before);
    const settled = await checkInvariants({ namespace: ns, live: before, withinMs: 60_000, steadyWindowMs: 1_000 });
    expect(settled.violations).toEqual([]);

    // Work in hand when the link goes: 500 creates, each a child and a status to write.
    const firstId = identityOf(first);
    const writesOfFirst = new AuditTail(
      (e) => MUTATING.has(e.verb) && e.userAgent?.includes(`run/${firstId}`) === true,
    );
    const writesBefore = writesOfFirst.count();
    const during = numbered('during', 500);
    createWebServices(ns, during);
    const writesUntilCut = writesOfFirst.count() - writesBefore;
    partition.cut();
    const cutAt = Date.now();

    const lost = await first.waitForLog(/leader election lost/, 30_000);
    const gateClosedMs = at(lost.ts) - cutAt;
    const tookOver = await second.waitForLog(/became leader/, 30_000);
    const takeoverMs = at(tookOver.ts) - cutAt;
    const dropped = partition.dropped();
    partition.heal();
    const healedAfterMs = Date.now() - cutAt;
    await eventually(() => first.exit, 60_000);
    expect(first.exit?.code).toBe(1);

    const report = await checkInvariants({
      namespace: ns,
      live: [...before, ...during],
      withinMs: 120_000,
      steadyWindowMs: 5_000,
      leader: { history, audit },
    });
    // What the apiserver received from the cut-off leader after its renew deadline had passed.
    const late = (await audit.all()).filter(
      (e) =>
        MUTATING.has(e.verb) &&
        e.userAgent?.includes(`run/${firstId}`) === true &&
        received(e) > cutAt + RENEW_DEADLINE_MS,
    );
    const lateAdmitted = late.filter((e) => (e.responseStatus?.code ?? 0) < 400);
    const lastAdmitted = Math.max(
      ...(await audit.all())
        .filter(
          (e) =>
            MUTATING.has(e.verb) &&
            e.objectRef?.resource !== 'leases' &&
            e.userAgent?.includes(`run/${firstId}`) === true &&
            (e.responseStatus?.code ?? 0) < 400,
        )
        .map(received),
    );
    const figures = {
      writesUntilCut,
      gateClosedAfterCutMs: gateClosedMs,
      lastAdmittedWriteAfterCutMs: Math.round(lastAdmitted - cutAt),
      takeoverAfterCutMs: takeoverMs,
      healedAfterCutMs: healedAfterMs,
      packetsDropped: dropped.host + dropped.namespace,
      lateWritesReceived: late.length,
      lateWritesAdmitted: lateAdmitted.length,
      exitCode: first.exit?.code,
    };
    console.log(`partition, leader cut off: ${JSON.stringify(figures)}`);
    recordResult(
      'two run --leader-elect replicas, the leader cut off by a network partition, then healed',
      'run',
      report,
      {
        ...figures,
        writesRefusedByApiserver: report.figures.nonLeaderWritesRefused,
      },
    );

    expect(writesUntilCut).toBeGreaterThan(0);
    expect(dropped.host + dropped.namespace).toBeGreaterThan(0);
    // Its gate shuts at its last renew plus the renew deadline (the last renew came before the cut).
    expect(gateClosedMs).toBeLessThanOrEqual(RENEW_DEADLINE_MS + 500);
    expect(
      lateAdmitted.map((e) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name} ${e.responseStatus?.code}`),
    ).toEqual([]);
    expect(history.terms.map((t) => t.holder)).toEqual(expect.arrayContaining([firstId, identityOf(second)]));
    expect(first.entries.map((e) => e.msg)).toContain(
      'leader election lost (lease webservice-system/webservice-controller); exiting',
    );
    expect(report.figures.writesChecked).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  }, 300_000);

  it('a replica that does not lead, cut off: its watchdog notices the silence; after the heal it takes over and converges what changed', async () => {
    const ns = await scenarioNamespace('partition-follower');
    const audit = new AuditWindow(ns);
    audit.mark();
    const leader = replica(ns, 'cut-follower-a', false);
    await leader.waitForLog(/became leader/, 60_000);
    const follower = replica(ns, 'cut-follower-b', true, [
      `--watch-idle-timeout=${IDLE_TIMEOUT_S}s`,
      // A request on a connection the cut left hanging must not wait the default 30 s.
      '--request-timeout=5',
    ]);
    await follower.waitForLog(/caches synced/, 60_000);
    await follower.waitForLog(/waiting to lead/);
    const history = new LeaseHistory();
    histories.push(history);

    const before = numbered('before', 20);
    createWebServices(ns, before);
    const settled = await checkInvariants({ namespace: ns, live: before, withinMs: 60_000, steadyWindowMs: 1_000 });
    if (settled.violations.length) console.log(leader.stderr.slice(-3000)); // e.g. the fence refusing it
    expect(settled.violations).toEqual([]);

    const isIdle = (e: LogEntry) => /no event or bookmark/.test(String(e.error));
    const failuresBefore = follower.entries.filter((e) => /list\/watch failed/.test(e.msg)).length;
    partition.cut();
    const cutAt = Date.now();
    // Nobody can reconcile what changes now: the leader is gone and the follower is cut off.
    leader.signal('SIGKILL');
    await leader.exited;
    const during = numbered('during', 20);
    createWebServices(ns, during);
    for (const name of before.slice(0, 5))
      kubectl(['patch', 'webservice', name, '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":3}}']);
    const deleted = before[19];
    kubectl(['delete', 'webservice', deleted, '-n', ns, '--wait=false']);

    const idle = await eventually(
      () => follower.entries.find((e) => e.ts && at(e.ts) > cutAt && isIdle(e)),
      60_000,
    ).catch((err) => {
      console.log(
        JSON.stringify(
          follower.entries.filter((e) => at(e.ts) > cutAt - 2000),
          null,
          1,
        ),
      );
      throw err;
    });
    const watchdogAfterMs = at(idle.ts) - cutAt;
    await sleep(2_000); // a retry or two fail while cut off
    const dropped = partition.dropped();
    partition.heal();
    const healedAt = Date.now();
    const tookOver = await follower.waitForLog(/became leader/, 60_000).catch((err) => {
      console.log(follower.stderr.slice(-4000));
      throw err;
    });

    const report = await checkInvariants({
      namespace: ns,
      live: [...before.slice(0, 19), ...during],
      deleted: [deleted],
      withinMs: 120_000,
      steadyWindowMs: 5_000,
      leader: { history, audit },
    });
    const convergedAfterHealMs = Date.now() - healedAt;
    const afterCut = follower.entries.filter((e) => e.ts && at(e.ts) > cutAt);
    const figures = {
      watchdogAfterCutMs: watchdogAfterMs,
      idleTimeouts: afterCut.filter(isIdle).length,
      watchFailuresLogged: follower.entries.filter((e) => /list\/watch failed/.test(e.msg)).length - failuresBefore,
      relistsOnGone: afterCut.filter((e) => /relisting/.test(e.msg)).length,
      packetsDropped: dropped.host + dropped.namespace,
      tookOverAfterHealMs: at(tookOver.ts) - healedAt,
      convergedAfterHealMs,
    };
    console.log(`partition, follower cut off: ${JSON.stringify(figures)}`);
    recordResult(
      'two run --leader-elect replicas, one that does not lead cut off by a network partition, the leader killed, then healed',
      'run',
      report,
      figures,
    );
    // The changes made during the cut were reconciled by the replica that was cut off: its
    // cache caught up after the heal (the leader was dead by then).
    const followerId = identityOf(follower);
    const byFollower = (await audit.all()).filter(
      (e) =>
        MUTATING.has(e.verb) &&
        e.userAgent?.includes(`run/${followerId}`) === true &&
        e.objectRef?.name?.startsWith('during-') === true &&
        (e.responseStatus?.code ?? 0) < 400,
    );
    expect(byFollower.length).toBeGreaterThanOrEqual(during.length);
    // Its watches were restarted by the watchdog during the cut. (A quiet watch also meets the
    // watchdog at 5 s; what the cut adds is that the restarted watch brings nothing either.)
    expect(figures.idleTimeouts).toBeGreaterThan(0);
    expect(watchdogAfterMs).toBeLessThan(IDLE_TIMEOUT_S * 1000 + 5_000);
    expect(dropped.host + dropped.namespace).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  }, 300_000);
});

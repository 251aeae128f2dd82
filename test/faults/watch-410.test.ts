// A watch resumed from a resourceVersion that is gone: run is frozen (SIGSTOP) while many
// writes happen, etcd compacts its history at the current revision (through etcd's own
// API), and the apiserver restarts, so neither etcd nor the new apiserver's watch cache
// holds the version run last saw. On SIGCONT its watch must get 410 Gone, and the
// reflector must relist rather than miss what changed while it slept.
import { createNamespace, kubectl } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { checkInvariants } from '../support/invariants';
import {
  cleanNamespace,
  compactEtcd,
  createWebServices,
  numbered,
  onLocalPlane,
  recordResult,
  restartApiserver,
} from './support';

const localPlane = onLocalPlane ? it : it.skip;

let ns: string;
let ctl: ControllerProcess;
beforeAll(async () => {
  ns = createNamespace('gone');
  ctl = new ControllerProcess(['-n', ns, '--kubeconfig', controllerKubeconfig(), '--watch-idle-timeout', '20s']);
  await ctl.waitForLog(/controller working/);
});
afterAll(async () => {
  ctl.signal('SIGCONT');
  await ctl.stop();
  cleanNamespace(ns);
});

localPlane('after compaction and an apiserver restart, run relists on 410 and misses nothing', async () => {
  const first = numbered('first', 30);
  createWebServices(ns, first);
  const settled = await checkInvariants({ namespace: ns, live: first, withinMs: 60_000, steadyWindowMs: 1_000 });
  expect(settled.violations).toEqual([]);

  ctl.signal('SIGSTOP');
  const whileFrozen = numbered('frozen', 100);
  createWebServices(ns, whileFrozen);
  for (const name of first.slice(0, 10)) {
    kubectl(['patch', 'webservice', name, '-n', ns, '--type=merge', '-p', '{"spec":{"tier":"prod"}}']);
  }
  kubectl(['delete', 'webservice', first[10], '-n', ns, '--wait=false']);
  const revision = await compactEtcd();
  restartApiserver();
  const relistsBefore = ctl.entries.filter((e) => /410 Gone/.test(e.msg)).length;
  ctl.signal('SIGCONT');

  await ctl.waitForLog(/watch expired \(410 Gone\); relisting/, 60_000, 0);
  const report = await checkInvariants({
    namespace: ns,
    live: [...first.slice(0, 10), ...first.slice(11), ...whileFrozen],
    deleted: [first[10]],
    withinMs: 120_000,
    steadyWindowMs: 10_000,
  });
  const relists = ctl.entries.filter((e) => /410 Gone/.test(e.msg)).map((e) => e.reflector);
  recordResult('watch resumed after etcd compaction + apiserver restart (410 Gone)', 'run', report, {
    compactedAtRevision: revision,
    relistsOnGone: relists.length - relistsBefore,
    reflectors: relists,
  });
  expect(relists.length).toBeGreaterThan(relistsBefore);
  expect(report.violations).toEqual([]);
});

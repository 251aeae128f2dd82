// kube-apiserver stopped and started again: while run is up (its watches break, its next
// watch asks for a version the new apiserver's cache may not have), and in the middle of
// apply --all --wait (its requests fail for a while).
import { applyYaml, createNamespace, kubectl, sleep, webService } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { checkInvariants } from '../support/invariants';
import {
  PluginProcess,
  cleanNamespace,
  createWebServices,
  numbered,
  onLocalPlane,
  recordResult,
  restartApiserver,
} from './support';

const localPlane = onLocalPlane ? describe : describe.skip;

localPlane('kube-apiserver restarted while run is up', () => {
  let ns: string;
  let ctl: ControllerProcess;
  beforeAll(async () => {
    ns = createNamespace('restart-run');
    ctl = new ControllerProcess(['-n', ns, '--kubeconfig', controllerKubeconfig()]);
    await ctl.waitForLog(/controller working/);
  });
  afterAll(async () => {
    await ctl.stop();
    cleanNamespace(ns);
  });

  it('changes made around the restart converge, and nothing is lost or left behind', async () => {
    const before = numbered('before', 50);
    createWebServices(ns, before);
    // Spec changes in flight when the apiserver goes away.
    for (const name of before.slice(0, 10)) {
      kubectl(['patch', 'webservice', name, '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":4}}']);
    }
    restartApiserver();
    const after = numbered('after', 50);
    createWebServices(ns, after);
    kubectl(['delete', 'webservice', before[10], before[11], '-n', ns, '--wait=false']);

    const report = await checkInvariants({
      namespace: ns,
      live: [...before.slice(0, 10), ...before.slice(12), ...after],
      deleted: before.slice(10, 12),
      withinMs: 120_000,
      steadyWindowMs: 10_000,
    });
    const failures = ctl.entries.filter((e) => /list\/watch failed/.test(e.msg)).length;
    recordResult('kube-apiserver restarted while run is up', 'run', report, { watchFailuresLogged: failures });
    expect(ctl.exit).toBeNull();
    expect(report.violations).toEqual([]);
  });
});

localPlane('kube-apiserver restarted during apply --all --wait', () => {
  let ns: string;
  beforeAll(() => {
    ns = createNamespace('restart-apply');
  });
  afterAll(() => cleanNamespace(ns));

  it('apply keeps waiting through the outage, then converges once the dependency appears', async () => {
    const names = numbered('app', 100);
    createWebServices(ns, names, () => ({ image: 'nginx:1.27', dependsOn: ['base'] }));
    const waiting = new PluginProcess(['apply', '--all', '--wait=4m', '--requeue-after', '2', '-n', ns, '-o', 'json']);
    await sleep(3_000); // a first pass has requeued everything on the missing dependency
    restartApiserver();
    applyYaml(ns, webService('base', { image: 'nginx:1.27' }));
    const exit = await waiting.exited;

    const report = await checkInvariants({
      namespace: ns,
      live: [...names, 'base'],
      withinMs: 60_000,
      steadyWindowMs: 5_000,
    });
    recordResult('kube-apiserver restarted during apply --all --wait', 'apply', report, {
      applyExit: exit.code,
      applyStderr: waiting.stderr.trim().split('\n').slice(0, 3),
    });
    expect(waiting.stderr).toBe('');
    expect(exit.code).toBe(0);
    expect(report.violations).toEqual([]);
  });
});

// A watch that goes silent without closing: run talks to the apiserver through a loopback
// TCP proxy that, on cue, stops forwarding bytes on every open connection but keeps them
// open. Nothing errors; only the watchdog (--watch-idle-timeout) can notice. Changes made
// meanwhile must still converge, soon after the idle timeout.
import { createNamespace, eventually, kubectl } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { checkInvariants } from '../support/invariants';
import {
  SilenceableProxy,
  apiServerUrl,
  cleanNamespace,
  createWebServices,
  kubeconfigVia,
  numbered,
  recordResult,
} from './support';

const IDLE_TIMEOUT_S = 8;

let ns: string;
let proxy: SilenceableProxy;
let ctl: ControllerProcess;
beforeAll(async () => {
  ns = createNamespace('silent');
  proxy = new SilenceableProxy(apiServerUrl());
  const server = await proxy.listen();
  ctl = new ControllerProcess([
    '-n',
    ns,
    '--kubeconfig',
    kubeconfigVia(controllerKubeconfig(), server),
    '--watch-idle-timeout',
    `${IDLE_TIMEOUT_S}s`,
    // A request on a silenced pooled connection must not hang for the default 30 s.
    '--request-timeout',
    '5',
  ]);
  await ctl.waitForLog(/controller working/);
});
afterAll(async () => {
  await ctl.stop();
  proxy.close();
  cleanNamespace(ns);
});

it('the watchdog restarts the silent watches, and what changed meanwhile converges', async () => {
  const before = numbered('before', 20);
  createWebServices(ns, before);
  const settled = await checkInvariants({ namespace: ns, live: before, withinMs: 60_000, steadyWindowMs: 1_000 });
  expect(settled.violations).toEqual([]);

  const idleBefore = ctl.entries.filter((e) => /no event or bookmark/.test(String(e.error))).length;
  const silenced = proxy.silence();
  const changedAt = Date.now();
  const during = numbered('during', 20);
  createWebServices(ns, during);
  kubectl(['patch', 'webservice', before[0], '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":3}}']);

  // Within the idle timeout plus a retry, not the watch's 5-10 minute timeoutSeconds.
  await eventually(() => {
    const cm = JSON.parse(
      kubectl(['get', 'configmap', `${during[19]}-desired`, '-n', ns, '-o', 'json', '--ignore-not-found']) || 'null',
    );
    return cm !== null;
  }, 60_000);
  const convergedAfterMs = Date.now() - changedAt;
  const report = await checkInvariants({
    namespace: ns,
    live: [...before, ...during],
    withinMs: 60_000,
    steadyWindowMs: 10_000,
  });
  const idleTimeouts = ctl.entries.filter((e) => /no event or bookmark/.test(String(e.error))).length - idleBefore;
  recordResult('a watch that goes silent without closing (loopback proxy stops forwarding)', 'run', report, {
    connectionsSilenced: silenced,
    idleTimeouts,
    convergedAfterMs,
    idleTimeoutSeconds: IDLE_TIMEOUT_S,
  });
  expect(silenced).toBeGreaterThan(0);
  expect(idleTimeouts).toBeGreaterThan(0);
  expect(convergedAfterMs).toBeLessThan(3 * IDLE_TIMEOUT_S * 1000 + 15_000);
  expect(report.violations).toEqual([]);
});

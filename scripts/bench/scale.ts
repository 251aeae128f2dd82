// The scale run (issue 19), `npm run bench -- --scale`: N = 100 000 WebServices, on its own
// because it takes over an hour. A cold `apply --all`, the no-op pass beside the raw
// floor, then `run` from a cold start over N more to all Ready and at steady state, with its
// peak RSS.
import { Audit, figures } from './audit';
import { applyAll, measure, rawFloor } from './cases';
import { createNamespace, createWebServices, deleteNamespace } from './cluster';
import { ControllerProcess, ReadySet, steadyWindow } from './controller';
import { progress } from './proc';

export const SCALE_N = 100_000;
/** A case that has not finished in this long is stopped: the issue allows an hour per case. */
const CASE_TIMEOUT_MS = 60 * 60_000;

/** A case in a namespace of its own holding N new WebServices, deleted afterwards. */
async function withWebServices<T>(namespace: string, n: number, body: () => Promise<T>): Promise<T> {
  await createNamespace(namespace);
  try {
    progress(`scale: creating ${n} WebServices`);
    await createWebServices(namespace, n);
    return await body();
  } finally {
    progress(`scale: deleting namespace ${namespace}`);
    await deleteNamespace(namespace, CASE_TIMEOUT_MS);
  }
}

/** The plugin's passes over N: one cold pass, then no-op passes beside the raw floor. */
async function pluginPasses(audit: Audit | undefined, namespace: string, n: number) {
  const timeout = { timeoutMs: CASE_TIMEOUT_MS };
  progress(`scale: apply --all, cold (${n} creates)`);
  const cold = await measure(audit, 'plugin', 1, () => applyAll(namespace, { create: n }, timeout));
  progress('scale: apply --all, no-op (3 runs)');
  const noop = await measure(audit, 'plugin', 3, () => applyAll(namespace, { noop: n }, timeout));
  progress('scale: raw floor (3 runs)');
  const floor = await measure(audit, 'kubectl', 3, () => rawFloor(namespace));
  return { cold, noop, floor };
}

/** `run` started over N WebServices that none has reconciled, until all are Ready; then steady state. */
async function controllerColdStart(audit: Audit | undefined, namespace: string, n: number) {
  const ready = new ReadySet(namespace);
  let controller: ControllerProcess | undefined;
  try {
    progress(`scale: run from a cold start over ${n}`);
    const since = audit?.mark() ?? 0;
    controller = await ControllerProcess.start(namespace, {}, CASE_TIMEOUT_MS);
    const syncedMs = Math.round(await controller.waitForLog(/^caches synced/));
    await ready.all(n, CASE_TIMEOUT_MS, 200);
    const readyMs = Math.round(performance.now() - controller.startedAt);
    const count = audit ? await audit.count(since, 'controller') : null;
    const [cpuMs, peakRssMiB] = [await controller.cpuMs(), controller.peakRssMiB()];
    const result = { n, syncedMs, readyMs, ...figures(count), cpuMs, peakRssMiB };
    const steady = await steadyWindow(audit, controller, n, 60);
    controller.mustHaveNoErrors();
    return { controller: result, steady };
  } finally {
    await controller?.stop();
    await ready.watch.stop();
  }
}

export async function scaleRun(audit: Audit | undefined, n: number, tag: string) {
  const passes = await withWebServices(`bench-scale-apply-${tag}`, n, () =>
    pluginPasses(audit, `bench-scale-apply-${tag}`, n),
  );
  const run = await withWebServices(`bench-scale-run-${tag}`, n, () =>
    controllerColdStart(audit, `bench-scale-run-${tag}`, n),
  );
  return { n, ...passes, ...run };
}

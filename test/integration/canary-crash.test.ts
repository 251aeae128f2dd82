// A canary outlives its controller: `run` is killed (SIGKILL, no chance to clean up) during a
// timed pause, and a new `run` started a few seconds later ends the pause when its recorded
// start says, not counted again from the restart, then completes the canary; every step is
// taken once, the steps only go forward, and the restarted controller writes nothing until the
// pause ends.
import {
  AuditWindow,
  type AuditEvent,
  Background,
  applyYaml,
  describeWorkloads,
  eventually,
  getJson,
  patchWebService,
  sleep,
  tryGetJson,
  webService,
} from '../support/cluster';
import {
  CONTROLLER_USER,
  ControllerProcess,
  controlledNamespace,
  controllerKubeconfig,
  endControlled,
} from '../support/controller';
import { REMOVAL_TIMEOUT_MS, installGatewayApi, removeGatewayApi } from '../support/gateway-api';

const PAUSE_SECONDS = 20;
const SPEC = {
  image: 'nginx:1.27',
  replicas: 2,
  workload: { port: 8080 },
  expose: { host: 'shop.example.com', gateway: { name: 'public' } },
  rollout: { canary: { steps: [{ weight: 50 }, { pause: { duration: `${PAUSE_SECONDS}s` } }, { weight: 100 }] } },
};
/** When the controller dies, and when the new one starts, counted from the pause's start. */
const KILL_AFTER_MS = 4_000;
const RESTART_AFTER_MS = 8_000;
/**
 * How late the pause may end. The restarted controller's first pass requeues the WebService
 * after the pause's remaining seconds, rounded up (after_seconds is whole): up to 1 s late;
 * then one pass (observe, decide, one status write) on a loaded two-core machine. A pause
 * counted again from the restart would end RESTART_AFTER_MS late at the least.
 */
const TOLERANCE_MS = 5_000;

/** One version of the WebService, as a watch sees it, and when the test saw it. */
interface Version {
  resourceVersion: string;
  step?: number;
  phase?: string;
  stepStartedAt?: string;
  seenAt: number;
}
const VERSION_FIELDS =
  '{.metadata.resourceVersion}|{.status.rollout.step}|{.status.rollout.phase}|{.status.rollout.stepStartedAt}{"\\n"}';

function parseVersion(line: string): Version {
  const [resourceVersion, step, phase, stepStartedAt] = line.split('|');
  return {
    resourceVersion,
    ...(step ? { step: Number(step) } : {}),
    ...(phase ? { phase } : {}),
    ...(stepStartedAt ? { stepStartedAt } : {}),
    seenAt: Date.now(),
  };
}

const receivedAt = (e: AuditEvent) =>
  Date.parse((e as AuditEvent & { requestReceivedTimestamp: string }).requestReceivedTimestamp);

/** `verb resource[/subresource]/name`. */
const describeWrite = (e: AuditEvent) =>
  `${e.verb} ${e.objectRef?.resource}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}/${e.objectRef?.name ?? ''}`;

describeWorkloads('a canary when its controller is killed during a pause', () => {
  let ns: string | undefined;
  let ctl: ControllerProcess | undefined;
  let watch: Background | undefined;
  let kubeconfig = '';
  const namespace = () => ns!;
  const audit = new AuditWindow(namespace);
  const status = () => getJson(['get', 'webservice', 'shop', '-n', namespace()]).status;

  beforeAll(async () => {
    installGatewayApi();
    kubeconfig = controllerKubeconfig();
    ({ ns, ctl } = await controlledNamespace('canary-crash', kubeconfig));
    applyYaml(ns, webService('shop', SPEC));
    await eventually(() => {
      const s = status();
      return s?.currentRevision === 1 && s.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
    }, 60_000);
  }, 90_000);
  afterAll(async () => {
    await watch?.end('SIGTERM', 5_000);
    await endControlled(ns, ctl);
    // The plane as this file found it: the Gateway API is absent unless a file installs it.
    await removeGatewayApi();
  }, REMOVAL_TIMEOUT_MS + 30_000);

  it('ends the pause on time after a kill -9 and a restart, and takes no step twice', async () => {
    // Every version of the WebService from here on: the steps the controllers wrote, in order.
    const versions: Version[] = [];
    watch = new Background(
      'kubectl',
      ['get', 'webservice', 'shop', '-n', namespace(), '-w', '-o', `jsonpath=${VERSION_FIELDS}`],
      { onStdoutLine: (line) => versions.push(parseVersion(line)) },
    );
    await eventually(() => versions.length > 0);
    audit.mark();
    patchWebService(namespace(), 'shop', { spec: { image: 'nginx:1.28' } });

    const paused = await eventually(() => {
      const rollout = status().rollout;
      return rollout?.step === 1 && rollout.pauseEndsAt ? rollout : null;
    }, 60_000);
    expect(paused.phase).toBe('Paused');
    const pauseStart = Date.parse(paused.stepStartedAt);
    const pauseEnd = Date.parse(paused.pauseEndsAt);
    expect(pauseEnd - pauseStart).toBe(PAUSE_SECONDS * 1000);

    await sleep(pauseStart + KILL_AFTER_MS - Date.now());
    const killed = ctl!;
    killed.signal('SIGKILL');
    expect(await killed.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const killedAt = Date.now();
    await sleep(pauseStart + RESTART_AFTER_MS - Date.now());
    ctl = new ControllerProcess(['-n', namespace(), '--kubeconfig', kubeconfig]);
    await ctl.waitForLog(/controller working/);
    const restartedAt = Date.now();
    // The restart came well within the pause: its end, from the restart, would come late.
    expect(pauseEnd - restartedAt).toBeGreaterThan(5_000);

    const resumed = await eventually(() => versions.find((v) => (v.step ?? 0) >= 2), 40_000).catch((err: Error) => {
      throw new Error(`the pause did not end: ${err.message}; status.rollout: ${JSON.stringify(status().rollout)}`);
    });
    // The canary completes: all on the new revision, the canary's Deployment gone.
    await eventually(() => {
      const s = status();
      return s.rollout === undefined && s.currentRevision === 2;
    }, 60_000);
    await eventually(() => tryGetJson(['get', 'deployment', 'shop-canary', '-n', namespace()]) === null, 30_000);
    await watch.end('SIGTERM', 5_000);

    const byController = (await audit.mutating()).filter((e) => e.user.username === CONTROLLER_USER);
    const before = new Set(byController.filter((e) => receivedAt(e) < killedAt).map((e) => e.userAgent));
    const after = byController.filter((e) => receivedAt(e) >= killedAt);

    // The pause ended on time: the pass that ended it recorded its time (to the second, as
    // every time in status) as the next step's start; the API server received that write,
    // the restarted controller's first, and the watch saw it, no earlier than pauseEndsAt
    // and within the tolerance.
    const stepped = versions.filter((v) => v.step !== undefined);
    const firstWrite = Math.min(...after.map(receivedAt));
    const nextStepAt = Date.parse(resumed.stepStartedAt!);
    const timing = {
      pauseEndsAt: paused.pauseEndsAt,
      restartedAfterMs: restartedAt - pauseStart,
      nextStepStartedAt: resumed.stepStartedAt,
      firstWriteLateMs: firstWrite - pauseEnd,
      seenLateMs: resumed.seenAt - pauseEnd,
      versions: stepped.map((v) => `${v.step} ${v.phase} ${v.stepStartedAt}`),
    };
    console.log(`a canary's pause after a restart: ${JSON.stringify(timing)}`);
    for (const at of [nextStepAt, firstWrite, resumed.seenAt]) {
      expect(at).toBeGreaterThanOrEqual(pauseEnd);
      expect(at - pauseEnd).toBeLessThanOrEqual(TOLERANCE_MS);
    }

    // The restarted controller (its own user agent) wrote nothing, not even an Event, until
    // the pause ended: its first pass found the pause recorded and had nothing to add.
    expect(after.filter((e) => before.has(e.userAgent)).map(describeWrite)).toEqual([]);
    const early = after.filter((e) => receivedAt(e) < pauseEnd);
    expect(early.map((e) => `${describeWrite(e)} ${receivedAt(e) - pauseEnd} ms after pauseEndsAt`)).toEqual([]);

    // The steps only go forward, each entered once: a step taken again would start anew.
    const steps = stepped.map((v) => v.step!);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    const starts = new Map<number, Set<string>>();
    for (const v of stepped) starts.set(v.step!, (starts.get(v.step!) ?? new Set()).add(v.stepStartedAt!));
    expect([...starts.keys()]).toEqual([0, 1, 2, 3]);
    for (const [step, at] of starts) expect({ step, starts: [...at] }).toEqual({ step, starts: [expect.any(String)] });
  }, 150_000);
});

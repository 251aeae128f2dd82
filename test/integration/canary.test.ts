// A canary (spec.rollout.canary) on the plane with pods, carried out by apply's passes: the new
// revision's pods beside the stable ones, the HTTPRoute's weights step by step, a pause until
// promote and one that ends by itself, the stable pods rolled only at the end; an abort by hand,
// ones by the canary's own pods (never ready, or restarting: the plane's faulty images) and one
// by the API server's refusal (a quota), each sending the traffic back to pods that were never
// restarted; promote and abort as dry runs that write nothing.
import {
  AuditWindow,
  MUTATING,
  applyYaml,
  describeEvent,
  fromPlugin,
  describeWorkloads,
  eventually,
  getJson,
  kubectl,
  patchWebService,
  plugin,
  tryGetJson,
  useNamespace,
  webService,
} from '../support/cluster';
import { appliedQuietly, pluginMutations } from '../support/commands';
import { CRASH_LOOP_IMAGE, NEVER_READY_IMAGE } from '../support/faulty-images';
import { REMOVAL_TIMEOUT_MS, installGatewayApi, removeGatewayApi } from '../support/gateway-api';
import { MetricsApiStub, startMetricsApi } from '../support/metrics-api';

const STEPS = [{ weight: 25 }, { pause: {} }, { weight: 50 }, { pause: { duration: '2s' } }];
const SPEC = {
  image: 'nginx:1.27',
  replicas: 4,
  workload: { port: 8080 },
  expose: { host: 'shop.example.com', gateway: { name: 'public' } },
  rollout: { canary: { steps: STEPS } },
};

describeWorkloads('a canary', () => {
  const namespace = useNamespace('canary');
  const audit = new AuditWindow(namespace);
  const get = (kind: string, name: string) => tryGetJson(['get', kind, name, '-n', namespace()]);
  const status = () => getJson(['get', 'webservice', 'shop', '-n', namespace()]).status;
  const weights = () =>
    (get('httproute', 'shop')?.spec.rules[0].backendRefs as { name: string; weight?: number }[]).map(
      (ref) => `${ref.name}:${ref.weight ?? 1}`,
    );
  const stablePodList = () =>
    getJson(['get', 'pods', '-n', namespace(), '-l', 'webservice.labhub.io/track=stable']).items as {
      metadata: { name: string };
      status: { containerStatuses?: { restartCount: number }[] };
    }[];
  const stablePods = () =>
    stablePodList()
      .map((pod) => pod.metadata.name)
      .sort();
  /** The restarts of the stable pods' containers, all of them together. */
  const stableRestarts = () =>
    stablePodList()
      .flatMap((pod) => pod.status.containerStatuses ?? [])
      .reduce((sum, container) => sum + container.restartCount, 0);
  const persistedMutations = async () =>
    (await audit.events())
      .filter((e) => fromPlugin(e) && MUTATING.has(e.verb) && !/[?&]dryRun=All(&|$)/.test(e.requestURI ?? ''))
      .map(describeEvent);
  /** One pass of apply: converged (0), a canary aborted (1: someone must act), or still under way (2). */
  const pass = () => {
    const result = plugin(['apply', 'shop', '-n', namespace(), '-o', 'json']);
    expect(result.stderr).toBe('');
    const aborted = status()?.rollout?.phase === 'Aborted';
    expect(result.status).toBe(aborted ? 1 : result.status === 0 ? 0 : 2);
  };
  /** apply passes until the check holds: each pass takes one step at most. */
  const passUntil = <T>(check: () => T | null | undefined | false, timeoutMs = 90_000) =>
    eventually(() => {
      pass();
      return check();
    }, timeoutMs);

  beforeAll(() => {
    installGatewayApi();
    applyYaml(namespace(), webService('shop', SPEC));
    appliedQuietly(namespace(), 'shop', '3m');
  });
  // The plane as this file found it: the Gateway API is absent unless a file installs it.
  afterAll(() => removeGatewayApi(), REMOVAL_TIMEOUT_MS + 10_000);

  it('rolls the first revision as before, its pods labelled as the stable ones', () => {
    const template = get('deployment', 'shop').spec.template.metadata.labels;
    expect(template['webservice.labhub.io/track']).toBe('stable');
    expect(status().currentRevision).toBe(1);
    expect(status().rollout).toBeUndefined();
    expect(weights()).toEqual(['shop:1']);
    expect(get('deployment', 'shop-canary')).toBeNull();
    expect(get('service', 'shop-stable').spec.selector['webservice.labhub.io/track']).toBe('stable');
    expect(get('service', 'shop-canary').spec.selector['webservice.labhub.io/track']).toBe('canary');
  });

  it('takes a new image step by step, and rolls the stable pods only at the end', async () => {
    const before = stablePods();
    patchWebService(namespace(), 'shop', { spec: { image: 'nginx:1.28' } });
    // Step 0: one canary pod of four (25%), then 25% of the traffic; the stable pods go to three.
    await passUntil(() => status().rollout?.phase === 'Paused');
    expect(status().rollout).toMatchObject({ step: 1, weight: 25, phase: 'Paused' });
    expect(weights()).toEqual(['shop-stable:75', 'shop-canary:25']);
    expect(get('deployment', 'shop-canary').spec.replicas).toBe(1);
    expect(get('deployment', 'shop-canary').spec.template.spec.containers[0].image).toBe('nginx:1.28');
    expect(get('deployment', 'shop').spec.replicas).toBe(3);
    expect(get('deployment', 'shop').spec.template.spec.containers[0].image).toBe('nginx:1.27');
    expect(status().conditions.find((c: any) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'CanaryPaused',
    });
    // The pause holds: once the status has caught up with the pods, passes write nothing.
    pass();
    audit.mark();
    pass();
    pass();
    expect(await pluginMutations(audit)).toEqual([]);

    // promote as a dry run writes nothing; promote ends the pause.
    audit.mark();
    const dry = plugin(['promote', 'shop', '-n', namespace(), '--dry-run=client', '-o', 'json']);
    expect(dry.status).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ value: `${status().rollout.revision}/1`, dryRun: 'client' });
    const server = plugin(['promote', 'shop', '-n', namespace(), '--dry-run=server']);
    expect(server.status).toBe(0);
    // A server dry run sends its write with dryRun=All: the server persists nothing.
    expect(await persistedMutations()).toEqual([]);
    expect(getJson(['get', 'webservice', 'shop', '-n', namespace()]).metadata.annotations ?? {}).not.toHaveProperty(
      'webservice.labhub.io/promote',
    );
    expect(plugin(['promote', 'shop', '-n', namespace()]).status).toBe(0);

    // Step 2: 50%, then a pause of 2s that ends by itself, then the promotion.
    await passUntil(() => status().rollout?.step === 3);
    expect(weights()).toEqual(['shop-stable:50', 'shop-canary:50']);
    expect(get('deployment', 'shop').spec.replicas).toBe(2);
    // Until the promotion the stable pods are the ones of before (fewer of them), never restarted.
    expect(before).toEqual(expect.arrayContaining(stablePods()));
    await passUntil(() => get('deployment', 'shop-canary') === null, 120_000);
    expect(weights()).toEqual(['shop:1']);
    expect(status().rollout).toBeUndefined();
    expect(status().currentRevision).toBe(2);
    const stable = get('deployment', 'shop');
    expect(stable.spec.replicas).toBe(4);
    expect(stable.spec.template.spec.containers[0].image).toBe('nginx:1.28');
    // Converged: nothing more to write.
    audit.mark();
    appliedQuietly(namespace(), 'shop', false);
    expect(await pluginMutations(audit)).toEqual([]);
  });

  it('aborts by hand: all traffic back to the stable pods, untouched, and the canary scaled down', async () => {
    patchWebService(namespace(), 'shop', { spec: { image: 'nginx:1.29' } });
    await passUntil(() => status().rollout?.phase === 'Paused');
    const before = stablePods();
    audit.mark();
    expect(plugin(['abort', 'shop', '-n', namespace(), '--dry-run=client']).status).toBe(0);
    expect(await pluginMutations(audit)).toEqual([]);
    expect(plugin(['abort', 'shop', '-n', namespace()]).status).toBe(0);
    await passUntil(() => status().rollout?.phase === 'Aborted');
    expect(weights()).toEqual(['shop-stable:100', 'shop-canary:0']);
    expect(get('deployment', 'shop-canary').spec.replicas).toBe(0);
    expect(get('deployment', 'shop').spec.replicas).toBe(4);
    expect(status().conditions.find((c: any) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'CanaryAborted',
    });
    await eventually(() => stablePods().length === 4);
    expect(stablePods()).toEqual(expect.arrayContaining(before));
    expect(plugin(['promote', 'shop', '-n', namespace()]).stderr).toMatch(/has no canary running to promote/);
  });

  it("aborts by itself when the canary's pods are not ready within the deadline, the stable pods untouched", async () => {
    patchWebService(namespace(), 'shop', { spec: { image: 'nginx:1.28' } });
    await passUntil(() => get('deployment', 'shop-canary') === null && status().rollout === undefined);
    const before = stablePods();
    // A revision whose pods run but never become ready.
    patchWebService(namespace(), 'shop', {
      spec: { image: NEVER_READY_IMAGE, rollout: { canary: { steps: STEPS, readyDeadlineSeconds: 5 } } },
    });
    await passUntil(() => status().rollout?.phase === 'Aborted', 60_000);
    expect(status().rollout.message).toBe("the canary's pods were not ready within 5s: 0/1 ready");
    expect(weights()).toEqual(['shop-stable:100', 'shop-canary:0']);
    expect(stablePods()).toEqual(before);
    expect(stableRestarts()).toBe(0);
    patchWebService(namespace(), 'shop', {
      spec: { rollout: { canary: { steps: STEPS, readyDeadlineSeconds: null } } },
    });
  });

  it("aborts by itself when a canary's pod restarts more than maxRestarts, the stable pods untouched", async () => {
    patchWebService(namespace(), 'shop', { spec: { image: 'nginx:1.28' } });
    await passUntil(() => get('deployment', 'shop-canary') === null && status().rollout === undefined);
    const before = stablePods();
    // A revision whose container keeps restarting; its pods are never ready, and the default
    // deadline (600s) is far off.
    patchWebService(namespace(), 'shop', { spec: { image: CRASH_LOOP_IMAGE } });
    await passUntil(() => status().rollout?.phase === 'Aborted');
    // The count is the one a pass saw: more than 3, however many restarts the pass missed.
    const restarts = /^a pod of the canary restarted (\d+) times \(more than 3\)$/.exec(status().rollout.message);
    expect(restarts).not.toBeNull();
    expect(Number(restarts![1])).toBeGreaterThan(3);
    expect(weights()).toEqual(['shop-stable:100', 'shop-canary:0']);
    expect(stablePods()).toEqual(before);
    expect(stableRestarts()).toBe(0);
  });

  it('aborts by itself when the API server refuses the canary its pods, in the server words', async () => {
    // Back to the stable revision's spec: the aborted canary goes.
    patchWebService(namespace(), 'shop', { spec: { image: 'nginx:1.28' } });
    await passUntil(() => get('deployment', 'shop-canary') === null && status().rollout === undefined);
    kubectl(['create', 'quota', 'pods', '-n', namespace(), '--hard=pods=4']);
    patchWebService(namespace(), 'shop', { spec: { image: 'nginx:1.30' } });
    await passUntil(() => status().rollout?.phase === 'Aborted', 120_000).catch((err: Error) => {
      const deployments = getJson(['get', 'deployments', '-n', namespace()]).items.map((d: any) => d.status);
      throw new Error(`${err.message}: ${JSON.stringify({ status: status(), deployments })}`);
    });
    expect(status().rollout.message).toMatch(/exceeded quota/);
    expect(weights()).toEqual(['shop-stable:100', 'shop-canary:0']);
    kubectl(['delete', 'quota', 'pods', '-n', namespace()]);
  });

  describe('with a check against a metrics API', () => {
    let api: MetricsApiStub;
    const CHECKED = {
      image: 'nginx:1.27',
      replicas: 2,
      workload: { port: 8080 },
      expose: { host: 'api.example.com', gateway: { name: 'public' } },
      rollout: {
        canary: {
          steps: [{ weight: 50 }, { pause: { duration: '1s' } }],
          check: { query: 'sum(rate(http_errors_total{job="api-canary"}[1m]))', max: 1 },
        },
      },
    };
    const apiStatus = () => getJson(['get', 'webservice', 'api', '-n', namespace()]).status;
    const passApi = () => {
      const result = plugin(['apply', 'api', '-n', namespace(), `--prometheus-url=${api.url}`, '-o', 'json']);
      expect(result.stderr).toBe('');
    };

    beforeAll(async () => {
      api = await startMetricsApi();
      applyYaml(namespace(), webService('api', CHECKED));
      appliedQuietly(namespace(), 'api', '3m');
    });
    afterAll(() => api.stop());

    it('a passing query lets the canary through', async () => {
      api.answer('0.5');
      patchWebService(namespace(), 'api', { spec: { image: 'nginx:1.28' } });
      await eventually(
        () => (passApi(), apiStatus().rollout === undefined && apiStatus().currentRevision === 2),
        90_000,
      );
      expect(api.queries()).toContain(CHECKED.rollout.canary.check.query);
    });

    it('a failing one aborts, saying what it gave', async () => {
      api.answer('7');
      patchWebService(namespace(), 'api', { spec: { image: 'nginx:1.29' } });
      await eventually(() => (passApi(), apiStatus().rollout?.phase === 'Aborted'), 90_000);
      expect(apiStatus().rollout.message).toBe(
        `the check failed: ${CHECKED.rollout.canary.check.query} gave 7 (max 1)`,
      );
      expect(get('deployment', 'api-canary').spec.replicas).toBe(0);
    });
  });

  describe('with autoscaling', () => {
    const AUTOSCALED = {
      image: 'nginx:1.27',
      replicas: 4,
      workload: { port: 8080, autoscaling: { minReplicas: 2, maxReplicas: 10 } },
      expose: { host: 'auto.example.com', gateway: { name: 'public' } },
      rollout: { canary: { steps: [{ weight: 25 }, { pause: {} }] } },
    };
    const autoStatus = () => getJson(['get', 'webservice', 'auto', '-n', namespace()]).status;
    const passAuto = () => {
      const result = plugin(['apply', 'auto', '-n', namespace(), '-o', 'json']);
      expect(result.stderr).toBe('');
    };

    beforeAll(() => {
      applyYaml(namespace(), webService('auto', AUTOSCALED));
      appliedQuietly(namespace(), 'auto', '3m');
    });

    it('aims the autoscaler at the WebService, whose count the canary splits, and never sets it back', async () => {
      const hpa = getJson(['get', 'hpa', 'auto', '-n', namespace()]);
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name: 'auto' });
      patchWebService(namespace(), 'auto', { spec: { image: 'nginx:1.28' } });
      await eventually(() => (passAuto(), autoStatus().rollout?.phase === 'Paused'), 90_000);
      expect(autoStatus().rollout).toMatchObject({ weight: 25, stableReplicas: 3, canaryReplicas: 1 });
      // The autoscaler's way: the scale subresource of what it targets.
      kubectl(['scale', 'webservice', 'auto', '-n', namespace(), '--replicas=8']);
      await eventually(() => (passAuto(), get('deployment', 'auto-canary')?.spec.replicas === 2), 60_000);
      expect(get('deployment', 'auto').spec.replicas).toBe(6);
      expect(autoStatus().rollout).toMatchObject({ stableReplicas: 6, canaryReplicas: 2 });
      passAuto();
      expect(getJson(['get', 'webservice', 'auto', '-n', namespace()]).spec.replicas).toBe(8);
      // The scale subresource reads what the autoscaler measures: the stable and the canary pods.
      const scale = JSON.parse(
        kubectl(['get', '--raw', `/apis/apps.labhub.io/v1/namespaces/${namespace()}/webservices/auto/scale`]),
      );
      expect(scale.status.selector).toBe('app.kubernetes.io/name=auto,app.kubernetes.io/instance=auto');
    });

    it('promote --full skips every step left: the stable pods roll to the new revision at the full count', async () => {
      const dry = plugin(['promote', 'auto', '-n', namespace(), '--full', '--dry-run=client', '-o', 'json']);
      expect(JSON.parse(dry.stdout)).toMatchObject({ value: `${autoStatus().rollout.revision}/full`, written: false });
      expect(plugin(['promote', 'auto', '-n', namespace(), '--full']).status).toBe(0);
      await eventually(
        () => (passAuto(), autoStatus().rollout === undefined && get('deployment', 'auto-canary') === null),
        90_000,
      );
      expect(get('deployment', 'auto').spec.replicas).toBe(8);
      expect(get('deployment', 'auto').spec.template.spec.containers[0].image).toBe('nginx:1.28');
    });
  });
});

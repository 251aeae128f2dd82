// spec.workload.autoscaling: a HorizontalPodAutoscaler named after the WebService, aimed at its
// Deployment, a row of the kind table. On a plane that runs pods and the HPA controller (and
// no metrics server): the autoscaler is made and owned; the Deployment's replicas are handed
// over to it without a reset to 1, and after that the count it writes through /scale is never
// written back, by apply or by run; the WebService shows the autoscaler's missing metrics in
// its Autoscaling condition while Ready stays True; turning autoscaling off gives the count
// back to spec.replicas; and admission refuses a minimum above the maximum.
import {
  AUTOSCALER_MANAGER,
  AuditEvent,
  AuditWindow,
  Background,
  MUTATING,
  applyYaml,
  describeEvent,
  describeWorkloads,
  eventually,
  fromPlugin,
  getJson,
  kubectl,
  plugin,
  run,
  scaleAsAutoscaler as scaleDeploymentAsAutoscaler,
  sleep,
  useNamespace,
  webService,
} from '../support/cluster';
import { CONTROLLER_USER, ControllerProcess, controllerKubeconfig } from '../support/controller';
import { pluginMutations } from '../support/commands';

type Json = Record<string, any>;

/** The writes that are not a status: what must never follow an autoscaler's change of replicas. */
const specWrites = (events: AuditEvent[]) =>
  events.filter((e) => MUTATING.has(e.verb) && e.objectRef?.subresource !== 'status').map(describeEvent);

describeWorkloads('autoscaling', () => {
  const ns = useNamespace('autoscaling');
  const audit = new AuditWindow(ns);

  const deployment = (name: string) =>
    getJson(['get', 'deployment', name, '-n', ns(), '-o', 'json', '--show-managed-fields']);
  const autoscaler = (name: string) => getJson(['get', 'horizontalpodautoscaler', name, '-n', ns()]);
  const webservice = (name: string) => getJson(['get', 'webservice', name, '-n', ns()]);
  const condition = (name: string, type: string) =>
    (webservice(name).status?.conditions ?? []).find((c: Json) => c.type === type);
  /** The field managers that own the Deployment's spec.replicas. */
  const replicasOwners = (name: string): string[] =>
    (deployment(name).metadata.managedFields as Json[])
      .filter((entry) => entry.fieldsV1?.['f:spec']?.['f:replicas'] !== undefined)
      .map((entry) => entry.manager as string)
      .sort();
  const setSpec = (name: string, replicas: number, autoscaling: Json | undefined) =>
    applyYaml(
      ns(),
      webService(name, {
        image: 'nginx:1.27',
        replicas,
        workload: { port: 80, resources: { requests: { cpu: '100m' } }, ...(autoscaling ? { autoscaling } : {}) },
      }),
    );
  const converge = (name: string) => {
    const result = plugin(['apply', name, '-n', ns(), '--wait=3m']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  };
  const scaleAsAutoscaler = (name: string, replicas: number) => {
    const result = scaleDeploymentAsAutoscaler(ns(), name, replicas);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  };
  /** Apply again until the status has caught up with the children (the autoscaler's conditions, the pods). */
  const settled = (name: string, test: () => boolean) =>
    eventually(() => {
      converge(name);
      return test();
    }, 90_000);

  it('is made, owned by the WebService, aimed at the Deployment, which it raises to its minimum', async () => {
    setSpec('shop', 2, { minReplicas: 2, maxReplicas: 6, targetCPUUtilizationPercentage: 70 });
    converge('shop');
    const ws = webservice('shop');
    const hpa = autoscaler('shop');
    expect(hpa.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'WebService', name: 'shop', uid: ws.metadata.uid, controller: true }),
    ]);
    expect(hpa.spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
      minReplicas: 2,
      maxReplicas: 6,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      ],
    });
    // Created at the autoscaler's minimum, a count that is the handover's from the start.
    expect(deployment('shop').spec.replicas).toBe(2);
    expect(replicasOwners('shop')).toEqual(['webservice-controller-handover']);
  });

  it('shows in Autoscaling that the autoscaler has no metrics, in its words, while Ready stays True', async () => {
    await settled('shop', () => condition('shop', 'Autoscaling')?.reason === 'FailedGetResourceMetric');
    const active = (autoscaler('shop').status.conditions as Json[]).find((c) => c.type === 'ScalingActive');
    expect(active).toMatchObject({ status: 'False', reason: 'FailedGetResourceMetric' });
    expect(condition('shop', 'Autoscaling')).toMatchObject({
      status: 'False',
      reason: 'FailedGetResourceMetric',
      message: active?.message,
    });
    expect(condition('shop', 'Ready')).toMatchObject({ status: 'True' });
    expect(webservice('shop').status.ready).toBe('2/2');
  });

  it('a count the autoscaler writes through /scale is never written back: apply --all twice, then 20 s of run', async () => {
    scaleAsAutoscaler('shop', 4);
    await settled('shop', () => webservice('shop').status.ready === '4/4');
    audit.mark();
    for (let pass = 0; pass < 2; pass++) {
      const result = plugin(['apply', '--all', '-n', ns()]);
      expect(result.stdout).toMatch(/^shop\s+noop\s/m);
    }
    expect(await pluginMutations(audit)).toEqual([]);

    const ctl = new ControllerProcess(['-n', ns(), '--kubeconfig', controllerKubeconfig()]);
    try {
      await ctl.waitForLog(/controller working/);
      audit.mark();
      await sleep(20_000);
      const controller = (await audit.events()).filter((e) => e.user.username === CONTROLLER_USER);
      expect(controller.filter((e) => MUTATING.has(e.verb)).map(describeEvent)).toEqual([]);
    } finally {
      await ctl.stop();
    }
    expect(deployment('shop').spec.replicas).toBe(4);
  });

  it('turning autoscaling on hands the replicas over without a reset to 1', async () => {
    setSpec('cart', 3, undefined);
    converge('cart');
    expect(replicasOwners('cart')).toEqual(['webservice-controller']);
    // A minimum of 1 and no metrics: the autoscaler leaves any count from 1 to 5 alone, so a
    // reset to 1 in the handover would stay for all to see.
    setSpec('cart', 3, { minReplicas: 1, maxReplicas: 5 });
    audit.mark();
    converge('cart');
    const writes = (await audit.events()).filter(
      (e) => fromPlugin(e) && MUTATING.has(e.verb) && e.objectRef?.resource === 'deployments',
    );
    expect(deployment('cart').spec.replicas).toBe(3);
    // The handover, then our apply without replicas.
    expect(writes.map(describeEvent)).toEqual(['patch deployments/cart', 'patch deployments/cart']);
    expect(replicasOwners('cart')).toEqual(['webservice-controller-handover']);
    // The autoscaler has looked at it (it has conditions) and left the count alone.
    await eventually(() => (autoscaler('cart').status?.conditions ?? []).length > 0, 60_000);
    await sleep(6_000);
    expect(deployment('cart').spec.replicas).toBe(3);
    // Its first change takes the field whole, and the handover's manager is gone.
    scaleAsAutoscaler('cart', 4);
    expect(replicasOwners('cart')).toEqual([AUTOSCALER_MANAGER]);
    expect(deployment('cart').metadata.managedFields.map((e: Json) => e.manager)).not.toContain(
      'webservice-controller-handover',
    );
    audit.mark();
    converge('cart');
    expect(specWrites((await audit.events()).filter(fromPlugin))).toEqual([]);
  });

  it('turning it off gives the count back to spec.replicas and deletes the autoscaler', async () => {
    setSpec('cart', 3, undefined);
    converge('cart');
    expect(run('kubectl', ['get', 'horizontalpodautoscaler', 'cart', '-n', ns()]).stderr).toMatch(/NotFound|not found/);
    expect(deployment('cart').spec.replicas).toBe(3);
    expect(replicasOwners('cart')).toEqual(['webservice-controller']);
    expect(condition('cart', 'Autoscaling')).toBeUndefined();
    expect(condition('cart', 'Ready')).toMatchObject({ status: 'True' });
  });

  it('a new Deployment starts at the minimum, and Ready (kubectl wait) never comes below it', async () => {
    setSpec('floor4', 4, { maxReplicas: 8 });
    // Every version of the WebService, from before any pass: its pods, and whether it is Ready.
    const versions = new Background('kubectl', [
      ...['get', 'webservice', 'floor4', '-n', ns(), '-w'],
      '-o',
      'jsonpath={.status.ready} {.status.conditions[?(@.type=="Ready")].status}{"\\n"}',
    ]);
    const waiting = new Background('kubectl', [
      ...['wait', '--for=condition=Ready', 'webservice/floor4', '-n', ns(), '--timeout=3m'],
    ]);
    const ctl = new ControllerProcess(['-n', ns(), '--kubeconfig', controllerKubeconfig()]);
    try {
      expect(await waiting.exited).toEqual({ code: 0, signal: null });
      expect(deployment('floor4').status.readyReplicas).toBeGreaterThanOrEqual(4);
      await sleep(2_000);
    } finally {
      await ctl.stop();
      await versions.end('SIGTERM', 5_000);
    }
    const readyAt = versions.stdout
      .split('\n')
      .filter((line) => line.endsWith(' True'))
      .map((line) => line.split(' ')[0]);
    expect(readyAt.length).toBeGreaterThan(0);
    for (const pods of readyAt) expect(pods).toMatch(/^([4-8])\/\1$/);
  });

  it('a Deployment deleted by hand comes back at the minimum, with no RolloutComplete below it', async () => {
    kubectl(['delete', 'deployment', 'floor4', '-n', ns()]);
    const applied = plugin(['apply', 'floor4', '-n', ns()]);
    expect(applied.status).toBe(0);
    expect(deployment('floor4').spec.replicas).toBe(4);
    expect(replicasOwners('floor4')).toEqual(['webservice-controller-handover']);
    converge('floor4');
    expect(webservice('floor4').status.ready).toBe('4/4');
    const completions = getJson<{ items: { reason: string; note: string }[] }>([
      ...['get', 'events.events.k8s.io', '-n', ns()],
      ...['--field-selector', 'regarding.kind=WebService,regarding.name=floor4'],
    ])
      .items.filter((event) => event.reason === 'RolloutComplete')
      .map((event) => event.note);
    expect(completions.length).toBeGreaterThan(0);
    for (const note of completions) expect(note).toMatch(/deployment\/floor4: ([4-8])\/\1 ready/);
    // A new spec is applied without the count: the handover's manager keeps it, nothing resets it to 1.
    audit.mark();
    applyYaml(
      ns(),
      webService('floor4', {
        image: 'nginx:1.28',
        replicas: 4,
        workload: { port: 80, resources: { requests: { cpu: '100m' } }, autoscaling: { maxReplicas: 8 } },
      }),
    );
    converge('floor4');
    expect(deployment('floor4').spec.replicas).toBe(4);
    const deploymentWrites = specWrites((await audit.events()).filter(fromPlugin)).filter((write) =>
      write.includes('deployments/'),
    );
    expect(deploymentWrites).toEqual(['patch deployments/floor4']);
  });

  it('describe shows the autoscaler among the children', () => {
    const { stdout } = plugin(['describe', 'shop', '-n', ns()]);
    expect(stdout).toMatch(/HorizontalPodAutoscaler\/shop\s+Failed\s+\S+\s+\d+\/\d+ replicas, 2 to 6/);
  });

  it('kubectl scale moves the floor when minReplicas is unset, and is refused above maxReplicas', () => {
    setSpec('floor', 2, { maxReplicas: 3 });
    converge('floor');
    expect(autoscaler('floor').spec.minReplicas).toBe(2);
    const scale = (replicas: number) =>
      run('kubectl', ['scale', 'webservice', 'floor', '-n', ns(), `--replicas=${replicas}`]);
    const refused = scale(5);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/spec.replicas is the autoscaler's minimum: it must be\s+from 1 to maxReplicas/);
    expect(scale(3).status).toBe(0);
    converge('floor');
    expect(autoscaler('floor').spec.minReplicas).toBe(3);
  });

  it('metrics and behavior, spelled otherwise than the server stores them: then noop; dropped, gone', async () => {
    const metrics = [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '0.25Gi' } } },
    ];
    const behavior = {
      scaleDown: { stabilizationWindowSeconds: 60 },
      scaleUp: { policies: [{ type: 'Percent', value: 50, periodSeconds: 30 }] },
    };
    setSpec('metered', 2, { minReplicas: 2, maxReplicas: 4, metrics, behavior });
    converge('metered');
    const stored = autoscaler('metered').spec;
    expect(stored.metrics[1].resource.target.averageValue).toBe('256Mi');
    // The server's defaults: the rest of each direction, which are not ours.
    expect(stored.behavior.scaleDown).toMatchObject({ stabilizationWindowSeconds: 60, selectPolicy: 'Max' });
    expect(stored.behavior.scaleUp).toMatchObject({ selectPolicy: 'Max', stabilizationWindowSeconds: 0 });
    audit.mark();
    for (let pass = 0; pass < 2; pass++) expect(plugin(['apply', 'metered', '-n', ns()]).stdout).toMatch(/noop/);
    expect(await pluginMutations(audit)).toEqual([]);

    // Another's update (here a label) makes the server hand the list to them: ours still replaces it.
    expect(run('kubectl', ['label', 'hpa', 'metered', '-n', ns(), 'team=shop']).status).toBe(0);
    setSpec('metered', 2, { minReplicas: 2, maxReplicas: 4 });
    converge('metered');
    const dropped = autoscaler('metered').spec;
    expect(dropped.metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);
    expect(dropped.behavior).toBeUndefined();
  });

  it.each([
    [
      { maxReplicas: 2, targetCPUUtilizationPercentage: 50, metrics: [{ type: 'Resource' }] },
      2,
      /targetCPUUtilizationPercentage and metrics exclude each other/,
    ],
    [{ minReplicas: 5, maxReplicas: 2 }, 2, /minReplicas must not exceed maxReplicas/],
    [{ maxReplicas: 2 }, 3, /spec.replicas is the autoscaler's minimum: it must be\s+from 1 to maxReplicas/],
    [{ minReplicas: 0, maxReplicas: 2 }, 2, /minReplicas: Invalid value: 0: .*greater than or equal to 1/],
    [{ minReplicas: 1 }, 2, /maxReplicas: Required value/],
  ])('admission refuses %j with %d replicas, and nothing changes', (autoscaling, replicas, message) => {
    const before = webservice('shop').metadata.resourceVersion;
    const refused = run('kubectl', ['apply', '-n', ns(), '-f', '-'], {
      input: webService('shop', { image: 'nginx:1.27', replicas, workload: { port: 80, autoscaling } }),
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(message);
    expect(webservice('shop').metadata.resourceVersion).toBe(before);
  });
});

// spec.workload end to end: the bundled plugin against a control plane that schedules pods
// and marks them Ready, so a Deployment really rolls out. Without such a plane these tests
// cannot pass, so they are skipped, and the skip says why.
import {
  describeWorkloads,
  AuditWindow,
  describeEvent,
  MUTATING,
  applyYaml,
  eventually,
  fromPlugin,
  getJson,
  kubectl,
  patchWebService,
  plugin,
  sleep,
  tryGetJson,
  useNamespace,
  webService,
} from '../support/cluster';
import { useControlledNamespace } from '../support/controller';
import { isDiscoveryProbe } from '../support/gateway-api';

const title = 'spec.workload';

describeWorkloads(title, () => {
  const ns = useNamespace('workload');
  const audit = new AuditWindow(ns);

  const get = (kind: string, name: string) => tryGetJson(['get', kind, name, '-n', ns()]);
  const applyWait = (name: string) => plugin(['apply', name, '-n', ns(), '--wait=3m', '-o', 'json']);
  const converge = (name: string) => {
    const result = applyWait(name);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout);
  };

  it('refuses names a Deployment or Service could not take, and says why', () => {
    expect(() => applyYaml(ns(), webService('a.b', { image: 'nginx:1.27', workload: {} }))).toThrow(
      /at most 63 characters and no dots/,
    );
    expect(() => applyYaml(ns(), webService('1web', { image: 'nginx:1.27', workload: { port: 80 } }))).toThrow(
      /DNS-1035 label/,
    );
    // Without a workload, the same names are fine.
    applyYaml(ns(), webService('a.b', { image: 'nginx:1.27' }));
    kubectl(['delete', 'webservice', 'a.b', '-n', ns(), '--wait=false']);
  });

  it('creates the ConfigMap, Deployment and Service, and is Ready once the rollout is done', () => {
    applyYaml(ns(), webService('web', { image: 'nginx:1.27', replicas: 2, workload: { port: 8080 } }));
    converge('web');
    const ws = getJson(['get', 'webservice', 'web', '-n', ns()]);
    const deployment = get('deployment', 'web');
    const service = get('service', 'web');
    expect(deployment.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'WebService', name: 'web', uid: ws.metadata.uid, controller: true }),
    ]);
    expect(deployment.spec.selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'web',
      'app.kubernetes.io/instance': 'web',
    });
    const [container] = deployment.spec.template.spec.containers;
    expect(container).toMatchObject({
      image: 'nginx:1.27',
      ports: [expect.objectContaining({ name: 'http', containerPort: 8080 })],
    });
    // The app's environment is its own: nothing of ours (image, replicas, tier) is in it.
    expect(container.envFrom).toBeUndefined();
    expect(service.spec).toMatchObject({
      type: 'ClusterIP',
      ports: [expect.objectContaining({ name: 'http', port: 8080 })],
    });
    expect(ws.status).toMatchObject({
      replicas: 2,
      ready: '2/2',
      selector: 'app.kubernetes.io/name=web,app.kubernetes.io/instance=web',
    });
    expect(kubectl(['wait', '--for=condition=Ready', 'webservice/web', '-n', ns(), '--timeout=10s'])).toContain(
      'condition met',
    );
  });

  it('a converged pass makes no write, whatever the server defaulted', async () => {
    audit.mark();
    const result = plugin(['apply', 'web', '-n', ns(), '-o', 'json']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).decision.action).toBe('noop');
    expect((await audit.events()).filter((e) => fromPlugin(e) && MUTATING.has(e.verb))).toEqual([]);
  });

  it('puts hand-edited replicas back and leaves labels others added', () => {
    kubectl(['label', 'deployment', 'web', '-n', ns(), 'team=payments']);
    kubectl(['scale', 'deployment', 'web', '-n', ns(), '--replicas=4']);
    converge('web');
    const deployment = get('deployment', 'web');
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.metadata.labels.team).toBe('payments');
  });

  it("a hand edit of a key of ours (the Service's port, the container's port, an env var's name) is put back, and the moved entry goes", () => {
    const patch = (ref: string, type: 'json' | 'merge', body: unknown) =>
      kubectl(['patch', ref, '-n', ns(), `--type=${type}`, '-p', JSON.stringify(body)]);
    const moveKey = (ref: string, path: string, value: unknown) => patch(ref, 'json', [{ op: 'replace', path, value }]);
    const ready = () =>
      getJson(['get', 'webservice', 'web', '-n', ns()]).status.conditions.find(
        (c: { type: string }) => c.type === 'Ready',
      );
    // The three commands: a Service with two ports of one name would be invalid, for good.
    moveKey('service/web', '/spec/ports/0/port', 9999);
    expect(converge('web').decision.reason).toContain(
      'spec.ports[9999/TCP] stands where ours was (a key changed by hand): removing it',
    );
    expect(get('service', 'web').spec.ports).toEqual([{ name: 'http', port: 8080, targetPort: 8080, protocol: 'TCP' }]);
    expect(ready()).toMatchObject({ status: 'True', reason: 'Reconciled' });
    // No field of the moved port is left to anyone.
    const managers = getJson(['get', 'service', 'web', '-n', ns(), '--show-managed-fields']).metadata.managedFields.map(
      (m: { manager: string }) => m.manager,
    );
    expect(managers).not.toContain('kubectl-patch');

    // In the Deployment: the container's port, and an env var's name, beside one someone added.
    const env = [{ name: 'LOG_LEVEL', value: 'info' }];
    patch('webservice/web', 'merge', { spec: { workload: { port: 8080, env } } });
    converge('web');
    kubectl(['set', 'env', 'deployment/web', '-n', ns(), '-c', 'web', 'ADDED=1']);
    moveKey('deployment/web', '/spec/template/spec/containers/0/ports/0/containerPort', 9999);
    moveKey('deployment/web', '/spec/template/spec/containers/0/env/0/name', 'MOVED');
    converge('web');
    const [container] = get('deployment', 'web').spec.template.spec.containers;
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    // Ours is added again after what is there (server-side apply keeps the live order).
    expect(container.env).toEqual([{ name: 'ADDED', value: '1' }, ...env]);
    expect(ready()).toMatchObject({ status: 'True', reason: 'Reconciled' });
    // Back to the spec the tests below expect: without env, and ADDED goes with kubectl.
    patch('webservice/web', 'merge', { spec: { workload: { port: 8080 } } });
    kubectl(['set', 'env', 'deployment/web', '-n', ns(), '-c', 'web', 'ADDED-']);
    converge('web');
  });

  it("observe shows the image the Deployment runs, and its pods as kubectl's READY does", () => {
    kubectl(['set', 'image', 'deployment/web', '-n', ns(), 'web=nginx:9.9']);
    const table = plugin(['observe', 'web', '-n', ns()]);
    expect(table.stdout.split('\n')[0]).toMatch(/DESIRED IMAGE\s+ACTUAL IMAGE\s+REPLICAS\s+READY\s+CHILD/);
    expect(table.stdout).toMatch(/^web\s+nginx:1\.27\s+nginx:9\.9 \(configmap: nginx:1\.27\)\s+2\s+\d\/2\s+owned/m);
    converge('web');
    expect(plugin(['observe', 'web', '-n', ns()]).stdout).toMatch(
      /^web\s+nginx:1\.27\s+nginx:1\.27\s+2\s+2\/2\s+owned/m,
    );
  });

  it('a new image rolls the pods; Ready again once they are all new', () => {
    const before = get('deployment', 'web').metadata.generation;
    patchWebService(ns(), 'web', { spec: { image: 'nginx:1.28' } });
    converge('web');
    const deployment = get('deployment', 'web');
    expect(deployment.spec.template.spec.containers[0].image).toBe('nginx:1.28');
    expect(deployment.metadata.generation).toBe(before + 1);
    expect(getJson(['get', 'webservice', 'web', '-n', ns()]).status.ready).toBe('2/2');
  });

  it('removing the port deletes the Service; removing the workload deletes the Deployment', () => {
    patchWebService(ns(), 'web', [{ op: 'remove', path: '/spec/workload/port' }]);
    converge('web');
    expect(get('service', 'web')).toBeNull();
    expect(get('deployment', 'web')).not.toBeNull();
    patchWebService(ns(), 'web', [{ op: 'remove', path: '/spec/workload' }]);
    converge('web');
    expect(get('deployment', 'web')).toBeNull();
    const configMap = get('configmap', 'web-desired');
    expect(configMap.metadata.annotations?.['webservice.labhub.io/workload']).toBeUndefined();
    const ws = getJson(['get', 'webservice', 'web', '-n', ns()]);
    expect(ws.status.selector).toBeUndefined();
    expect(ws.status.replicas).toBe(2);
  });

  it('a Deployment of that name that is not ours is a conflict, left untouched', () => {
    kubectl(['create', 'deployment', 'theirs', '-n', ns(), '--image=nginx:1.25']);
    const before = get('deployment', 'theirs');
    applyYaml(ns(), webService('theirs', { image: 'nginx:1.27', workload: {} }));
    const result = plugin(['apply', 'theirs', '-n', ns(), '-o', 'json']);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).decision).toMatchObject({ action: 'conflict', target: 'deployment/theirs' });
    expect(get('deployment', 'theirs').metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });
});

describeWorkloads(`${title}: run follows the rollout`, () => {
  const { ns } = useControlledNamespace('workload-run');
  const audit = new AuditWindow(ns);

  const ws = () => getJson(['get', 'webservice', 'shop', '-n', ns()]);
  const readyIs = (ready: string) => () => {
    const status = ws().status ?? {};
    const condition = (status.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
    return status.ready === ready && condition?.status === 'True';
  };

  it('Ready only once the pods are, with status.replicas following readyReplicas: 3, then 5, then 0', async () => {
    applyYaml(ns(), webService('shop', { image: 'nginx:1.27', replicas: 3, workload: { port: 8080 } }));
    await eventually(readyIs('3/3'), 60_000);
    expect(getJson(['get', 'deployment', 'shop', '-n', ns()]).status.readyReplicas).toBe(3);
    expect(ws().status.replicas).toBe(3);
    kubectl(['scale', 'webservice', 'shop', '-n', ns(), '--replicas=5']);
    await eventually(readyIs('5/5'), 60_000);
    kubectl(['scale', 'webservice', 'shop', '-n', ns(), '--replicas=0']);
    await eventually(readyIs('0/0'), 60_000);
    expect(ws().status.replicas).toBe(0);
  });

  it('a Deployment deleted by hand is made again', async () => {
    const uid = getJson(['get', 'deployment', 'shop', '-n', ns()]).metadata.uid;
    kubectl(['delete', 'deployment', 'shop', '-n', ns()]);
    await eventually(() => {
      const again = tryGetJson(['get', 'deployment', 'shop', '-n', ns()]);
      return again && again.metadata.uid !== uid;
    }, 30_000);
  });

  it('at steady state makes no request but its watches', async () => {
    await eventually(readyIs('0/0'), 60_000);
    await sleep(2_000);
    audit.mark();
    await sleep(10_000);
    const requests = (await audit.all()).filter(fromPlugin);
    // Besides, at most one discovery probe of an absent optional API (every 30 s).
    expect(requests.filter((e) => e.verb !== 'watch' && !isDiscoveryProbe(e))).toEqual([]);
    expect(requests.filter(isDiscoveryProbe).length).toBeLessThanOrEqual(1);
  }, 60_000);

  it('a delete takes every child with the WebService', async () => {
    kubectl(['delete', 'webservice', 'shop', '-n', ns(), '--timeout=30s']);
    await eventually(
      () =>
        tryGetJson(['get', 'deployment', 'shop', '-n', ns()]) === null &&
        tryGetJson(['get', 'service', 'shop', '-n', ns()]) === null &&
        tryGetJson(['get', 'configmap', 'shop-desired', '-n', ns()]) === null,
      60_000,
    );
  });
});

describeWorkloads(`${title}: run at steady state with 50 of them`, () => {
  const COUNT = 50;
  const { ns, ctl } = useControlledNamespace('workload-many');
  const audit = new AuditWindow(ns);

  it('all Ready, then no request but its watches over 20 s, counted in the audit log', async () => {
    audit.mark();
    const started = Date.now();
    const items = Array.from({ length: COUNT }, (_, i) =>
      JSON.parse(webService(`web-${i}`, { image: 'nginx:1.27', replicas: 1, workload: { port: 8080 } })),
    );
    applyYaml(ns(), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    await eventually(() => {
      const list = getJson<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>([
        'get',
        'webservices',
        '-n',
        ns(),
      ]);
      const ready = list.items.filter((ws) =>
        (ws.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === COUNT;
    }, 180_000);
    const convergedMs = Date.now() - started;
    // The window sees the controller: while converging it wrote every child and status.
    const converging = (await audit.all()).filter(fromPlugin);
    expect(converging.filter((e) => MUTATING.has(e.verb)).length).toBeGreaterThanOrEqual(COUNT * 4);

    await sleep(2_000);
    audit.mark();
    await sleep(20_000);
    const requests = (await audit.all()).filter(fromPlugin);
    // Where an optional kind's API is absent (the plane has no Gateway API), run asks discovery
    // about it again every 30 s: a read, and rare.
    const probes = requests.filter(isDiscoveryProbe);
    expect(probes.length).toBeLessThanOrEqual(1);
    const others = requests.filter((e) => e.verb !== 'watch' && !isDiscoveryProbe(e));
    process.stdout.write(
      `${COUNT} workload WebServices: all Ready in ${convergedMs} ms (${converging.length} requests); ` +
        `over 20 s at steady state: ${requests.length - others.length} watch, ${others.length} other requests\n`,
    );
    expect(others.map(describeEvent)).toEqual([]);
    expect(ctl().exit).toBeNull();
  }, 300_000);
});

describeWorkloads(`${title}: a rollout that cannot finish`, () => {
  const { ns } = useControlledNamespace('workload-stall');

  // Long enough that creating and starting the first pods on a busy machine counts as progress.
  const DEADLINE = 30;
  const ws = () => getJson(['get', 'webservice', 'big', '-n', ns()]);
  const conditionOf = (type: string) =>
    ((ws().status?.conditions ?? []) as { type: string; status: string; reason: string }[]).find(
      (c) => c.type === type,
    );
  const events = (reason: string) =>
    getJson<{ items: { count?: number; series?: unknown }[] }>([
      'get',
      'events',
      '-n',
      ns(),
      '--field-selector',
      `involvedObject.kind=WebService,involvedObject.name=big,reason=${reason}`,
    ]).items;

  it('more pods than the nodes hold: Stalled after its progress deadline, one stall Event; Ready once scaled down', async () => {
    // Every pod the simulated nodes can hold, and ten more: the rollout can never finish.
    const nodes = getJson<{ items: { status: { allocatable: { pods: string } } }[] }>(['get', 'nodes']).items;
    const capacity = nodes.reduce((sum, node) => sum + Number(node.status.allocatable.pods), 0);
    expect(capacity).toBeGreaterThan(0);
    const replicas = capacity + 10;
    const started = Date.now();
    applyYaml(
      ns(),
      webService('big', { image: 'nginx:1.27', replicas, workload: { progressDeadlineSeconds: DEADLINE } }),
    );
    // Each time Stalled turns True (its lastTransitionTime) is one stall, and must bring one Event.
    const stalls = new Set<string>();
    const watching = { on: true };
    const watch = (async () => {
      while (watching.on) {
        const stalled = conditionOf('Stalled') as { status: string; lastTransitionTime: string } | undefined;
        if (stalled?.status === 'True') stalls.add(stalled.lastTransitionTime);
        await sleep(250);
      }
    })();
    // Its failure, if any, is thrown where it is awaited below, not as an unhandled rejection.
    watch.catch(() => undefined);
    // Stalled with every pod the nodes hold ready: the stall that lasts.
    await eventually(() => {
      const status = ws().status ?? {};
      const stalled = (status.conditions ?? []).find((c: { type: string }) => c.type === 'Stalled');
      const pods = getJson(['get', 'deployment', 'big', '-n', ns()]).status?.readyReplicas ?? 0;
      return stalled?.status === 'True' && pods > 0 && status.ready === `${pods}/${replicas}`;
    }, 300_000);
    const stalledMs = Date.now() - started;
    const deployment = getJson(['get', 'deployment', 'big', '-n', ns()]);
    expect(deployment.spec.progressDeadlineSeconds).toBe(DEADLINE);
    expect(deployment.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Progressing', reason: 'ProgressDeadlineExceeded' }),
    );
    expect(conditionOf('Stalled')).toMatchObject({ status: 'True', reason: 'ProgressDeadlineExceeded' });
    expect(conditionOf('Ready')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
    expect(conditionOf('Reconciling')).toMatchObject({ status: 'False' });
    const readyPods = Number(String(ws().status.ready).split('/')[0]);
    expect(readyPods).toBeLessThan(replicas);

    // check lists it, from the Deployment as read.
    const checked = plugin(['check', '-n', ns(), '--lease', `${ns()}/none`]);
    expect(checked.status).toBe(1);
    expect(checked.stdout).toMatch(
      new RegExp(
        `✗ 1 rollout has stalled: no progress within the progress deadline\n` +
          `    ${ns()}/big: deployment/big \\d+/${replicas} ready, no progress for ${DEADLINE}s\n` +
          `    hint: kubectl describe deployment big -n ${ns()} says why`,
      ),
    );

    // Stalled for a while (reconciles come and go): no Event but the one of each stall.
    await sleep(5_000);
    expect(events('RolloutStalled')).toHaveLength(stalls.size);

    const scaled = Date.now();
    kubectl(['scale', 'webservice', 'big', '-n', ns(), '--replicas=2']);
    await eventually(() => {
      const status = ws().status ?? {};
      const ready = (status.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
      return status.ready === '2/2' && ready?.status === 'True';
    }, 180_000);
    const recoveredMs = Date.now() - scaled;
    watching.on = false;
    await watch;
    expect(conditionOf('Stalled')).toMatchObject({ status: 'False', reason: 'RolloutComplete' });
    // The stall stood through the scale-down, though the Deployment took a while to drop its
    // ProgressDeadlineExceeded: one stall, one Event.
    expect(stalls.size).toBe(1);
    expect(events('RolloutStalled')).toHaveLength(1);
    expect(events('RolloutComplete')).toHaveLength(1);
    expect(plugin(['check', '-n', ns(), '--lease', `${ns()}/none`]).stdout).toContain(
      `✓ no stalled rollouts in namespace ${ns()}`,
    );
    process.stdout.write(
      `rollout of ${replicas} pods on ${capacity} slots, deadline ${DEADLINE}s: Stalled after ${stalledMs} ms ` +
        `(${readyPods} ready; ${stalls.size} stall(s), as many Events); scaled to 2: Ready after ${recoveredMs} ms\n`,
    );
  }, 600_000);
});

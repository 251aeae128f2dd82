// spec.workload end to end: the bundled plugin against a control plane that schedules pods
// and marks them Ready, so a Deployment really rolls out. Without such a plane these tests
// cannot pass, so they are skipped, and the skip says why.
import {
  AuditWindow,
  MUTATING,
  applyYaml,
  createNamespace,
  deleteNamespace,
  eventually,
  fromPlugin,
  getJson,
  kubectl,
  plugin,
  sleep,
  tryGetJson,
  webService,
} from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';

const WORKLOADS = process.env.WEBSERVICE_CP_WORKLOADS === 'true';
const describeWorkloads = WORKLOADS ? describe : describe.skip;
const title = WORKLOADS
  ? 'spec.workload'
  : 'spec.workload (skipped: needs a control plane that runs pods; set WEBSERVICE_CP_WORKLOADS=true)';

describeWorkloads(title, () => {
  let ns: string;
  let audit: AuditWindow;
  beforeAll(() => {
    ns = createNamespace('workload');
    audit = new AuditWindow(ns);
  });
  afterAll(() => deleteNamespace(ns));

  const get = (kind: string, name: string) => tryGetJson(['get', kind, name, '-n', ns]);
  const applyWait = (name: string) => plugin(['apply', name, '-n', ns, '--wait=3m', '-o', 'json']);
  const converge = (name: string) => {
    const result = applyWait(name);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout);
  };

  it('refuses names a Deployment or Service could not take, and says why', () => {
    expect(() => applyYaml(ns, webService('a.b', { image: 'nginx:1.27', workload: {} }))).toThrow(
      /at most 63 characters and no dots/,
    );
    expect(() => applyYaml(ns, webService('1web', { image: 'nginx:1.27', workload: { port: 80 } }))).toThrow(
      /DNS-1035 label/,
    );
    // Without a workload, the same names are fine.
    applyYaml(ns, webService('a.b', { image: 'nginx:1.27' }));
    kubectl(['delete', 'webservice', 'a.b', '-n', ns, '--wait=false']);
  });

  it('creates the ConfigMap, Deployment and Service, and is Ready once the rollout is done', () => {
    applyYaml(ns, webService('web', { image: 'nginx:1.27', replicas: 2, workload: { port: 8080 } }));
    converge('web');
    const ws = getJson(['get', 'webservice', 'web', '-n', ns]);
    const deployment = get('deployment', 'web');
    const service = get('service', 'web');
    expect(deployment.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'WebService', name: 'web', uid: ws.metadata.uid, controller: true }),
    ]);
    expect(deployment.spec.selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'webservice',
      'app.kubernetes.io/instance': 'web',
    });
    const [container] = deployment.spec.template.spec.containers;
    expect(container).toMatchObject({
      image: 'nginx:1.27',
      ports: [expect.objectContaining({ containerPort: 8080 })],
      envFrom: [{ configMapRef: { name: 'web-desired' } }],
    });
    expect(service.spec).toMatchObject({ type: 'ClusterIP', ports: [expect.objectContaining({ port: 8080 })] });
    expect(ws.status).toMatchObject({
      replicas: 2,
      ready: '2/2',
      selector: 'app.kubernetes.io/name=webservice,app.kubernetes.io/instance=web',
    });
    expect(kubectl(['wait', '--for=condition=Ready', 'webservice/web', '-n', ns, '--timeout=10s'])).toContain(
      'condition met',
    );
  });

  it('a converged pass makes no write, whatever the server defaulted', async () => {
    audit.mark();
    const result = plugin(['apply', 'web', '-n', ns, '-o', 'json']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).decision.action).toBe('noop');
    expect((await audit.events()).filter((e) => fromPlugin(e) && MUTATING.has(e.verb))).toEqual([]);
  });

  it('puts hand-edited replicas back and leaves labels others added', () => {
    kubectl(['label', 'deployment', 'web', '-n', ns, 'team=payments']);
    kubectl(['scale', 'deployment', 'web', '-n', ns, '--replicas=4']);
    converge('web');
    const deployment = get('deployment', 'web');
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.metadata.labels.team).toBe('payments');
  });

  it('a new image rolls the pods; Ready again once they are all new', () => {
    const before = get('deployment', 'web').spec.template.metadata.annotations['webservice.labhub.io/config-hash'];
    kubectl(['patch', 'webservice', 'web', '-n', ns, '--type=merge', '-p', '{"spec":{"image":"nginx:1.28"}}']);
    converge('web');
    const deployment = get('deployment', 'web');
    expect(deployment.spec.template.spec.containers[0].image).toBe('nginx:1.28');
    expect(deployment.spec.template.metadata.annotations['webservice.labhub.io/config-hash']).not.toBe(before);
    expect(getJson(['get', 'webservice', 'web', '-n', ns]).status.ready).toBe('2/2');
  });

  it('removing the port deletes the Service; removing the workload deletes the Deployment', () => {
    kubectl([
      'patch',
      'webservice',
      'web',
      '-n',
      ns,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/spec/workload/port"}]',
    ]);
    converge('web');
    expect(get('service', 'web')).toBeNull();
    expect(get('deployment', 'web')).not.toBeNull();
    kubectl(['patch', 'webservice', 'web', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/spec/workload"}]']);
    converge('web');
    expect(get('deployment', 'web')).toBeNull();
    const configMap = get('configmap', 'web-desired');
    expect(configMap.metadata.annotations?.['webservice.labhub.io/workload']).toBeUndefined();
    const ws = getJson(['get', 'webservice', 'web', '-n', ns]);
    expect(ws.status.selector).toBeUndefined();
    expect(ws.status.replicas).toBe(2);
  });

  it('a Deployment of that name that is not ours is a conflict, left untouched', () => {
    kubectl(['create', 'deployment', 'theirs', '-n', ns, '--image=nginx:1.25']);
    const before = get('deployment', 'theirs');
    applyYaml(ns, webService('theirs', { image: 'nginx:1.27', workload: {} }));
    const result = plugin(['apply', 'theirs', '-n', ns, '-o', 'json']);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).decision).toMatchObject({ action: 'conflict', target: 'deployment/theirs' });
    expect(get('deployment', 'theirs').metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });
});

describeWorkloads(`${title}: run follows the rollout`, () => {
  let ns: string;
  let ctl: ControllerProcess;
  let audit: AuditWindow;
  beforeAll(async () => {
    ns = createNamespace('workload-run');
    audit = new AuditWindow(ns);
    ctl = new ControllerProcess(['-n', ns, '--kubeconfig', controllerKubeconfig()]);
    await ctl.waitForLog(/controller working/);
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
    await ctl?.stop();
    deleteNamespace(ns);
  });

  const ws = () => getJson(['get', 'webservice', 'shop', '-n', ns]);
  const readyIs = (ready: string) => () => {
    const status = ws().status ?? {};
    const condition = (status.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
    return status.ready === ready && condition?.status === 'True';
  };

  it('Ready only once the pods are, with status.replicas following readyReplicas: 3, then 5, then 0', async () => {
    applyYaml(ns, webService('shop', { image: 'nginx:1.27', replicas: 3, workload: { port: 8080 } }));
    await eventually(readyIs('3/3'), 60_000);
    expect(getJson(['get', 'deployment', 'shop', '-n', ns]).status.readyReplicas).toBe(3);
    expect(ws().status.replicas).toBe(3);
    kubectl(['scale', 'webservice', 'shop', '-n', ns, '--replicas=5']);
    await eventually(readyIs('5/5'), 60_000);
    kubectl(['scale', 'webservice', 'shop', '-n', ns, '--replicas=0']);
    await eventually(readyIs('0/0'), 60_000);
    expect(ws().status.replicas).toBe(0);
  });

  it('a Deployment deleted by hand is made again', async () => {
    const uid = getJson(['get', 'deployment', 'shop', '-n', ns]).metadata.uid;
    kubectl(['delete', 'deployment', 'shop', '-n', ns]);
    await eventually(() => {
      const again = tryGetJson(['get', 'deployment', 'shop', '-n', ns]);
      return again && again.metadata.uid !== uid;
    }, 30_000);
  });

  it('at steady state makes no request but its watches', async () => {
    await eventually(readyIs('0/0'), 60_000);
    await sleep(2_000);
    audit.mark();
    await sleep(10_000);
    const requests = (await audit.all()).filter(fromPlugin);
    expect(requests.filter((e) => e.verb !== 'watch')).toEqual([]);
  }, 60_000);

  it('a delete takes every child with the WebService', async () => {
    kubectl(['delete', 'webservice', 'shop', '-n', ns, '--timeout=30s']);
    await eventually(
      () =>
        tryGetJson(['get', 'deployment', 'shop', '-n', ns]) === null &&
        tryGetJson(['get', 'service', 'shop', '-n', ns]) === null &&
        tryGetJson(['get', 'configmap', 'shop-desired', '-n', ns]) === null,
      60_000,
    );
  });
});

// An app made by the release before the recommended labels, upgraded on a plane that runs pods:
// its Deployment keeps its selector and rolls once (one new ReplicaSet), its pods get no variable
// of ours, and the pass after writes nothing. Then probes by the port's name: admitted and rolled
// out where the name exists, refused where it cannot; and a probe on a port no container declares
// is a warning in plan and apply, and one Warning Event.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  AuditWindow,
  ROOT,
  applyYaml,
  describeWorkloads,
  getJson,
  kubectl,
  plugin,
  useNamespace,
  webService,
} from '../support/cluster';
import { run } from '../support/process';
import { pluginMutations } from '../support/commands';

type Json = Record<string, any>;

/** The spec the previous release's objects (test/fixtures/upgrade) were built from. */
const SHOP = {
  image: 'nginx:1.27',
  replicas: 2,
  tier: 'dev',
  workload: { port: 8080, readinessProbe: { httpGet: { path: '/', port: 8080 } } },
};
const LEGACY_SELECTOR = { 'app.kubernetes.io/name': 'webservice', 'app.kubernetes.io/instance': 'shop' };

/** The ConfigMap, Deployment and Service the previous release made for SHOP, for this namespace and owner. */
function previousRelease(namespace: string, uid: string): Json[] {
  const text = fs.readFileSync(path.join(ROOT, 'test/fixtures/upgrade/shop-before-app-labels.json'), 'utf8');
  return JSON.parse(text.replaceAll('NAMESPACE', namespace).replaceAll('WEBSERVICE-UID', uid)) as Json[];
}

describeWorkloads('upgrading an app made before the recommended labels', () => {
  const namespace = useNamespace('upgrade');
  const audit = new AuditWindow(namespace);
  const get = (kind: string, name: string) => getJson(['get', kind, name, '-n', namespace()]);
  const replicaSets = () =>
    (getJson(['get', 'replicasets', '-n', namespace(), '-l', 'app.kubernetes.io/instance=shop']).items as Json[])
      .map((rs) => rs.metadata.name as string)
      .sort();
  const applyWait = (name: string) => {
    const result = plugin(['apply', name, '-n', namespace(), '--wait=3m', '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout);
  };
  const pluginWrites = () => pluginMutations(audit);
  let before: string[];

  beforeAll(() => {
    const ns = namespace();
    applyYaml(ns, webService('shop', SHOP));
    const uid = get('webservice', 'shop').metadata.uid as string;
    const [configMap, ...applied] = previousRelease(ns, uid);
    kubectl(['create', '-f', '-'], JSON.stringify(configMap));
    // As that release wrote them: server-side apply, by the field manager that still writes them.
    for (const object of applied) {
      kubectl(
        ['apply', '--server-side', '--force-conflicts', '--field-manager=webservice-controller', '-f', '-'],
        JSON.stringify(object),
      );
    }
    kubectl(['rollout', 'status', 'deployment/shop', '-n', ns, '--timeout=2m']);
    before = replicaSets();
  });

  it('the previous release ran it with our variables in its environment', () => {
    expect(before).toHaveLength(1);
    const [container] = get('deployment', 'shop').spec.template.spec.containers;
    expect(container.envFrom).toEqual([{ configMapRef: { name: 'shop-desired' } }]);
  });

  it('its first pass records its first revision, writes the Deployment and the Service once, and the pods roll once', async () => {
    const configMap = get('configmap', 'shop-desired').metadata.resourceVersion;
    audit.mark();
    expect(applyWait('shop').decision).toMatchObject({ action: 'update', target: 'deployment/shop' });
    const writes = (await pluginWrites()).filter((w) => !w.includes('webservices') && !w.includes('events'));
    expect(writes).toEqual([
      expect.stringMatching(/^create controllerrevisions\//),
      'patch deployments/shop',
      'patch services/shop',
    ]);
    expect(replicaSets().filter((rs) => !before.includes(rs))).toHaveLength(1);
    expect(get('configmap', 'shop-desired').metadata.resourceVersion).toBe(configMap);
  });

  it('keeps the selector, which cannot change, and names the rest after the app', () => {
    const deployment = get('deployment', 'shop');
    expect(deployment.spec.selector.matchLabels).toEqual(LEGACY_SELECTOR);
    expect(deployment.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'shop' });
    expect(deployment.spec.template.metadata.labels).toMatchObject({
      ...LEGACY_SELECTOR,
      'app.kubernetes.io/managed-by': 'webservice-controller',
    });
    expect(deployment.spec.template.metadata.annotations?.['webservice.labhub.io/config-hash']).toBeUndefined();
    const service = get('service', 'shop');
    expect(service.spec.selector).toEqual(LEGACY_SELECTOR);
    expect(service.spec.ports).toEqual([expect.objectContaining({ name: 'http', port: 8080, targetPort: 8080 })]);
    expect(get('webservice', 'shop').status).toMatchObject({
      ready: '2/2',
      selector: 'app.kubernetes.io/name=webservice,app.kubernetes.io/instance=shop',
    });
    // The lab's ConfigMap is as it was, labels and all.
    expect(get('configmap', 'shop-desired').metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'webservice' });
  });

  it('its new pods get no image, replicas or tier from us', () => {
    const hash = get('deployment', 'shop').spec.template.metadata.labels['pod-template-hash'];
    const selector = `app.kubernetes.io/instance=shop${hash ? `,pod-template-hash=${hash}` : ''}`;
    const [newest] = replicaSets().filter((rs) => !before.includes(rs));
    const pods = (getJson(['get', 'pods', '-n', namespace(), '-l', selector]).items as Json[]).filter((pod) =>
      (pod.metadata.ownerReferences as Json[]).some((ref) => ref.name === newest),
    );
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      const [web] = pod.spec.containers;
      expect(web.envFrom).toBeUndefined();
      expect(web.env).toBeUndefined();
      expect(web.ports).toEqual([expect.objectContaining({ name: 'http', containerPort: 8080 })]);
    }
  });

  it('the pass after it writes nothing', async () => {
    audit.mark();
    expect(applyWait('shop').decision.action).toBe('noop');
    expect(await pluginWrites()).toEqual([]);
    expect(replicaSets().filter((rs) => !before.includes(rs))).toHaveLength(1);
  });
});

describeWorkloads('probes and the port name', () => {
  const namespace = useNamespace('probe-ports');
  const audit = new AuditWindow(namespace);
  const warningEvents = (name: string) =>
    getJson([
      'get',
      'events',
      '-n',
      namespace(),
      '--field-selector',
      `involvedObject.kind=WebService,involvedObject.name=${name},reason=UndeclaredProbePort`,
    ]).items as Json[];

  it('a probe by the port name rolls out and is Ready', () => {
    const workload = {
      port: 8080,
      readinessProbe: { httpGet: { path: '/', port: 'http' } },
      livenessProbe: { tcpSocket: { port: 'http' } },
    };
    applyYaml(namespace(), webService('named', { image: 'nginx:1.27', workload }));
    const result = plugin(['apply', 'named', '-n', namespace(), '--wait=3m']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const [web] = getJson(['get', 'deployment', 'named', '-n', namespace()]).spec.template.spec.containers;
    expect(web.ports).toEqual([expect.objectContaining({ name: 'http', containerPort: 8080 })]);
    expect(web.readinessProbe.httpGet.port).toBe('http');
    expect(getJson(['get', 'service', 'named', '-n', namespace()]).spec.ports[0].name).toBe('http');
  });

  it.each<[string, Json, RegExp]>([
    [
      'a name no port has',
      { port: 8080, readinessProbe: { httpGet: { path: '/', port: 'metrics' } } },
      /spec\.workload\.readinessProbe: Invalid value: .*a port by name names no port/,
    ],
    [
      'the port name without a port',
      { startupProbe: { tcpSocket: { port: 'http' } } },
      /spec\.workload\.startupProbe: Invalid value: .*without spec\.workload\.port it has none/,
    ],
  ])('admission refuses %s, and so does plan -f', (_what, workload, message) => {
    const manifest = webService('unnamed', { image: 'nginx:1.27', workload });
    const refused = run('kubectl', ['apply', '-n', namespace(), '-f', '-'], { input: manifest });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(message);
    expect(run('kubectl', ['get', 'webservice', 'unnamed', '-n', namespace()]).status).not.toBe(0);
    const planned = plugin(['plan', '-f', '-'], { input: manifest });
    expect(planned.status).toBe(1);
    expect(planned.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: .*names no port/)]);
  });

  it('a probe on a port no container declares: a warning in plan and apply, one Warning Event', async () => {
    const ns = namespace();
    const workload = { port: 8080, readinessProbe: { httpGet: { path: '/', port: 9090 } } };
    applyYaml(ns, webService('elsewhere', { image: 'nginx:1.27', workload }));
    const warning =
      'warning: webservice ' +
      `${ns}/elsewhere: readinessProbe.httpGet.port 9090 is not a port of the pod (its ports: 8080): ` +
      'the probe fails unless a container listens on it';
    const planned = plugin(['plan', 'elsewhere', '-n', ns]);
    expect(planned.stderr.trim()).toBe(warning);
    const created = plugin(['apply', 'elsewhere', '-n', ns, '--wait=3m']);
    expect(created.status).toBe(0);
    expect(created.stderr.trim()).toBe(warning);
    expect(JSON.parse(plugin(['plan', 'elsewhere', '-n', ns, '-o', 'json']).stdout).warnings).toEqual([
      { reason: 'UndeclaredProbePort', message: expect.stringContaining('9090 is not a port of the pod') },
    ]);
    expect(warningEvents('elsewhere')).toEqual([expect.objectContaining({ type: 'Warning' })]);
    // Steady state: the warning stays in the output, and nothing is written, no Event either.
    audit.mark();
    const again = plugin(['apply', 'elsewhere', '-n', ns]);
    expect(again.stderr.trim()).toBe(warning);
    expect(again.stdout).toMatch(/noop/);
    expect(await pluginMutations(audit)).toEqual([]);
    expect(warningEvents('elsewhere')).toHaveLength(1);
  });
});

// spec.expose: a public endpoint for the workload's Service, two rows of the kind table. On the
// plane (which runs no ingress controller and no gateway controller): an Ingress is made, owned,
// sent to the Service, changed, put back after a drift, keeps a foreign label, goes when expose
// does and with its WebService, and a foreign Ingress on the name is left alone and reported.
// The HTTPRoute's API is absent at first (the plane has no Gateway API): the WebService says so
// in Exposed, and nothing writes, neither apply nor run; once the CRDs are installed while run is
// up, the HTTPRoute appears without a restart, and Exposed turns True only when a gateway
// controller's status accepts it; removed while run is up, the API is absent again, and back, the
// route is made again. At steady state with every child, nothing writes. Admission
// refuses what cannot be exposed. While the CRDs are there, HTTPRoute's keyed lists in the
// generated table are checked against them.
import {
  AuditWindow,
  MUTATING,
  applyYaml,
  describeEvent,
  describeWorkloads,
  eventually,
  getJson,
  kubectl,
  patchWebService,
  plugin,
  run,
  sleep,
  tryGetJson,
  useNamespace,
  webService,
} from '../support/cluster';
import { CONTROLLER_USER, ControllerProcess, controllerKubeconfig } from '../support/controller';
import { REMOVAL_TIMEOUT_MS, installGatewayApi, removeGatewayApi, served } from '../support/gateway-api';
import { expectKeyedListsOfServer } from '../support/keyed-lists';
import { OPTIONAL_KINDS } from '../../src/core/kinds';
import { pluginMutations } from '../support/commands';

type Json = Record<string, any>;

const HTTP_ROUTES = { apiVersion: 'gateway.networking.k8s.io/v1', resource: 'httproutes' };
const GATEWAY_CONTROLLER = 'example.net/gateway-controller';

describeWorkloads('exposure', () => {
  const ns = useNamespace('exposure');
  const audit = new AuditWindow(ns);
  // This file says when the Gateway API is there: absent first.
  beforeAll(() => removeGatewayApi(), REMOVAL_TIMEOUT_MS + 10_000);
  afterAll(() => removeGatewayApi(), REMOVAL_TIMEOUT_MS + 10_000);

  const webservice = (name: string) => getJson(['get', 'webservice', name, '-n', ns()]);
  const ingress = (name: string) => getJson(['get', 'ingress', name, '-n', ns()]);
  const condition = (name: string, type: string) =>
    (webservice(name).status?.conditions ?? []).find((c: Json) => c.type === type);
  const setSpec = (name: string, spec: Json) => applyYaml(ns(), webService(name, { image: 'nginx:1.27', ...spec }));
  const converge = (name: string) => {
    const result = plugin(['apply', name, '-n', ns(), '--wait=3m']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return result.stdout;
  };
  const pluginWrites = () => pluginMutations(audit);
  const backend = (object: Json) => object.spec.rules[0].http.paths[0];
  /** Writes what a gateway controller writes once its Gateway infra/public accepts the route: its status. */
  const acceptAsGateway = (name: string) => {
    const generation = getJson(['get', 'httproute', name, '-n', ns()]).metadata.generation;
    const accepted = {
      type: 'Accepted',
      status: 'True',
      reason: 'Accepted',
      message: 'Route is accepted',
      observedGeneration: generation,
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    const parentRef = { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public', namespace: 'infra' };
    kubectl([
      'patch',
      'httproute',
      name,
      '-n',
      ns(),
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({
        status: { parents: [{ parentRef, controllerName: GATEWAY_CONTROLLER, conditions: [accepted] }] },
      }),
    ]);
  };

  describe('an Ingress', () => {
    it('is made for the host, owned by the WebService, sending to its Service on the port', () => {
      setSpec('shop', { workload: { port: 80 }, expose: { host: 'shop.example.com', ingressClassName: 'nginx' } });
      converge('shop');
      const ws = webservice('shop');
      const made = ingress('shop');
      expect(made.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'WebService', name: 'shop', uid: ws.metadata.uid, controller: true }),
      ]);
      expect(made.spec.ingressClassName).toBe('nginx');
      expect(made.spec.rules[0].host).toBe('shop.example.com');
      expect(backend(made)).toEqual({
        path: '/',
        pathType: 'Prefix',
        backend: { service: { name: 'shop', port: { number: 80 } } },
      });
      expect(getJson(['get', 'service', 'shop', '-n', ns()]).spec.ports[0].port).toBe(80);
      // No ingress controller runs here: nothing published an address, so nothing is claimed.
      expect(condition('shop', 'Exposed')).toMatchObject({
        status: 'False',
        reason: 'AddressPending',
        message: 'ingress/shop has no address yet: no ingress controller of class "nginx" has published one',
      });
      expect(condition('shop', 'Ready')).toMatchObject({ status: 'True' });
    });

    it('follows a change of host and path, and writes nothing once converged', async () => {
      setSpec('shop', {
        workload: { port: 80 },
        expose: { host: 'store.example.com', path: '/store', ingressClassName: 'nginx' },
      });
      converge('shop');
      const changed = ingress('shop');
      expect(changed.spec.rules[0].host).toBe('store.example.com');
      expect(backend(changed).path).toBe('/store');
      audit.mark();
      expect(converge('shop')).toMatch(/noop/);
      expect(await pluginWrites()).toEqual([]);
    });

    it('serves several hosts, with TLS and annotations, reports status.url, and removes only its own', async () => {
      const expose = {
        host: 'shop.example.com',
        additionalHosts: ['www.example.com'],
        ingressClassName: 'nginx',
        tls: { secretName: 'shop-tls' },
        annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
      };
      setSpec('hosts', { workload: { port: 80 }, expose });
      converge('hosts');
      const made = ingress('hosts');
      expect(made.spec.rules.map((r: Json) => r.host)).toEqual(['shop.example.com', 'www.example.com']);
      expect(made.spec.tls).toEqual([{ hosts: ['shop.example.com', 'www.example.com'], secretName: 'shop-tls' }]);
      expect(made.metadata.annotations['cert-manager.io/cluster-issuer']).toBe('letsencrypt');
      expect(webservice('hosts').status.url).toBe('https://shop.example.com');
      audit.mark();
      expect(converge('hosts')).toMatch(/noop/);
      expect(await pluginWrites()).toEqual([]);

      kubectl(['annotate', 'ingress', 'hosts', '-n', ns(), 'example.com/theirs=yes']);
      setSpec('hosts', { workload: { port: 80 }, expose: { host: 'shop.example.com', ingressClassName: 'nginx' } });
      converge('hosts');
      const after = ingress('hosts');
      expect(after.spec.rules.map((r: Json) => r.host)).toEqual(['shop.example.com']);
      expect(after.spec.tls).toBeUndefined();
      expect(after.metadata.annotations['cert-manager.io/cluster-issuer']).toBeUndefined();
      expect(after.metadata.annotations['example.com/theirs']).toBe('yes');
      expect(webservice('hosts').status.url).toBe('http://shop.example.com');

      setSpec('hosts', { workload: { port: 80 } });
      converge('hosts');
      expect(webservice('hosts').status.url).toBeUndefined();
      kubectl(['delete', 'webservice', 'hosts', '-n', ns()]);
    });

    it('is put back after a drift, and keeps a label someone else added', async () => {
      kubectl([
        'patch',
        'ingress',
        'shop',
        '-n',
        ns(),
        '--type=json',
        '-p',
        JSON.stringify([{ op: 'replace', path: '/spec/rules/0/http/paths/0/path', value: '/elsewhere' }]),
      ]);
      kubectl(['label', 'ingress', 'shop', '-n', ns(), 'team=storefront']);
      audit.mark();
      converge('shop');
      // The Ingress is put back (and the update reported in an Event): nothing else is written.
      expect((await pluginWrites()).filter((w) => !w.startsWith('create events/'))).toEqual(['patch ingresses/shop']);
      const back = ingress('shop');
      expect(backend(back).path).toBe('/store');
      expect(back.metadata.labels.team).toBe('storefront');
      audit.mark();
      converge('shop');
      expect(await pluginWrites()).toEqual([]);
    });

    it('makes Exposed True once an ingress controller publishes an address', () => {
      kubectl([
        'patch',
        'ingress',
        'shop',
        '-n',
        ns(),
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } } }),
      ]);
      converge('shop');
      expect(condition('shop', 'Exposed')).toMatchObject({
        status: 'True',
        reason: 'AddressAssigned',
        message: 'ingress/shop: store.example.com at 203.0.113.7',
      });
      const { stdout } = plugin(['describe', 'shop', '-n', ns()]);
      expect(stdout).toMatch(/Ingress\/shop\s+Ready\s+\S+\s+store\.example\.com at 203\.0\.113\.7/);
    });

    it('is deleted when expose is removed, and Exposed goes with it', () => {
      setSpec('shop', { workload: { port: 80 } });
      converge('shop');
      expect(tryGetJson(['get', 'ingress', 'shop', '-n', ns()])).toBeNull();
      expect(condition('shop', 'Exposed')).toBeUndefined();
      expect(condition('shop', 'Ready')).toMatchObject({ status: 'True' });
    });

    it('is deleted with its WebService', async () => {
      setSpec('gone', { workload: { port: 80 }, expose: { host: 'gone.example.com' } });
      converge('gone');
      // No class named: the cluster's default IngressClass takes it.
      expect(ingress('gone').spec.ingressClassName).toBeUndefined();
      kubectl(['delete', 'webservice', 'gone', '-n', ns(), '--wait=true']);
      await eventually(() => tryGetJson(['get', 'ingress', 'gone', '-n', ns()]) === null, 60_000);
    });

    it('leaves a foreign Ingress on the name alone, and reports it', async () => {
      kubectl(['create', 'ingress', 'taken', '-n', ns(), '--rule=taken.example.com/=other:80']);
      const before = ingress('taken').metadata.resourceVersion;
      setSpec('taken', { workload: { port: 80 }, expose: { host: 'taken.example.com' } });
      audit.mark();
      const result = plugin(['apply', 'taken', '-n', ns()]);
      expect(result.stdout).toMatch(/^taken\s+conflict\s+ingress\/taken /m);
      expect(await pluginWrites()).not.toContain('patch ingresses/taken');
      expect(ingress('taken').metadata.resourceVersion).toBe(before);
      expect(condition('taken', 'Ready')).toMatchObject({ status: 'False', reason: 'ChildConflict' });
      kubectl(['delete', 'webservice', 'taken', '-n', ns()]);
      kubectl(['delete', 'ingress', 'taken', '-n', ns()]);
    });
  });

  describe('an HTTPRoute', () => {
    let ctl: ControllerProcess | undefined;
    afterAll(async () => ctl?.stop());

    it('where the Gateway API is absent: none is made, Exposed says why, and nothing writes', async () => {
      expect(served(HTTP_ROUTES)).toBe(false);
      setSpec('route', {
        workload: { port: 80 },
        expose: { host: 'route.example.com', gateway: { name: 'public', namespace: 'infra' } },
      });
      converge('route');
      expect(condition('route', 'Exposed')).toMatchObject({
        status: 'False',
        reason: 'APINotInstalled',
        message:
          'httproute/route cannot be made: the cluster does not serve httproutes.gateway.networking.k8s.io ' +
          '(gateway.networking.k8s.io/v1); install its API',
      });
      expect(condition('route', 'Ready')).toMatchObject({ status: 'True' });

      audit.mark();
      for (let pass = 0; pass < 2; pass++) {
        const result = plugin(['apply', '--all', '-n', ns()]);
        expect(result.stderr).toBe('');
        expect(result.stdout).toMatch(/^route\s+noop\s/m);
      }
      expect(await pluginWrites()).toEqual([]);

      const check = plugin(['check', '-n', ns()]);
      expect(check.stderr).toBe('');
      expect(check.stdout).toMatch(/no orphaned ConfigMaps, .*HTTPRoutes in namespace/);
    });

    it('run makes no write over 20 s while the API is absent', async () => {
      ctl = new ControllerProcess(['-n', ns(), '--kubeconfig', controllerKubeconfig(), '--api-probe-interval=2s']);
      await ctl.waitForLog(/controller working/);
      audit.mark();
      await sleep(20_000);
      const controller = (await audit.all()).filter((e) => e.user.username === CONTROLLER_USER);
      expect(controller.filter((e) => MUTATING.has(e.verb)).map(describeEvent)).toEqual([]);
      // Discovery was asked again while it waited: reads only, every 2 s here (30 s by default).
      const probes = controller.filter((e) => e.requestURI === '/apis/gateway.networking.k8s.io/v1');
      expect(probes.length).toBeGreaterThanOrEqual(5);
    });

    it('appears once the CRDs are installed, without restarting run; Exposed waits for a Gateway', async () => {
      installGatewayApi();
      await eventually(() => tryGetJson(['get', 'httproute', 'route', '-n', ns()]) !== null, 60_000);
      // The same process: run was not restarted.
      expect(ctl?.exit).toBeNull();
      const route = getJson(['get', 'httproute', 'route', '-n', ns()]);
      expect(route.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'WebService', name: 'route', controller: true }),
      ]);
      expect(route.spec.parentRefs).toEqual([expect.objectContaining({ name: 'public', namespace: 'infra' })]);
      expect(route.spec.hostnames).toEqual(['route.example.com']);
      expect(route.spec.rules[0].backendRefs).toEqual([expect.objectContaining({ name: 'route', port: 80 })]);
      await eventually(() => condition('route', 'Exposed')?.reason === 'NotAccepted', 30_000);
      expect(condition('route', 'Exposed')).toMatchObject({
        status: 'False',
        message:
          'httproute/route is not accepted yet: no gateway controller has reported on it for gateway infra/public ' +
          '(none ever does for a Gateway that does not exist, or that no controller runs)',
      });
    });

    it("has HTTPRoute's keyed lists as the Gateway API's CRD has them (npm run crd:generate writes them)", () => {
      expectKeyedListsOfServer(OPTIONAL_KINDS);
    });

    it("turns Exposed True when the gateway controller's status accepts it", async () => {
      acceptAsGateway('route');
      await eventually(() => condition('route', 'Exposed')?.status === 'True', 30_000);
      expect(condition('route', 'Exposed')).toMatchObject({
        reason: 'Accepted',
        message: `httproute/route accepted by gateway infra/public (${GATEWAY_CONTROLLER}): Route is accepted`,
      });
      const { stdout } = plugin(['describe', 'route', '-n', ns()]);
      expect(stdout).toMatch(/HTTPRoute\/route\s+Ready\s/);
    });

    it(
      'says so when the Gateway API is removed while run is up, and makes the route again once it is back',
      async () => {
        const from = ctl?.entries.length ?? 0;
        await removeGatewayApi();
        await eventually(() => condition('route', 'Exposed')?.reason === 'APINotInstalled', 60_000);
        expect(condition('route', 'Exposed')).toMatchObject({ status: 'False' });
        expect(condition('route', 'Ready')).toMatchObject({ status: 'True' });
        await ctl?.waitForLog(/an API is no longer served/, 30_000, from);
        // Absent again is a steady state like the first one: no write, and no failing watch retried.
        audit.mark();
        const failures = () =>
          (ctl?.entries ?? [])
            .slice(from)
            .filter((e) => e.msg.startsWith('list/watch failed') && e.reflector === 'httproutes');
        const failedBefore = failures().length;
        await sleep(10_000);
        const controller = (await audit.all()).filter((e) => e.user.username === CONTROLLER_USER);
        expect(controller.filter((e) => MUTATING.has(e.verb)).map(describeEvent)).toEqual([]);
        expect(failures().length).toBe(failedBefore);
        expect(ctl?.exit).toBeNull();

        installGatewayApi();
        await eventually(() => tryGetJson(['get', 'httproute', 'route', '-n', ns()]) !== null, 60_000);
        acceptAsGateway('route');
        await eventually(() => condition('route', 'Exposed')?.status === 'True', 30_000);
        // The removal's own limit, then the waits above (190 s at most; 15 s when all goes well).
      },
      REMOVAL_TIMEOUT_MS + 200_000,
    );

    it('writes nothing at steady state with expose, autoscaling and disruption: 20 s of run, apply --all twice', async () => {
      setSpec('route', {
        replicas: 2,
        workload: {
          port: 80,
          resources: { requests: { cpu: '100m' } },
          disruption: { maxUnavailable: 1 },
          autoscaling: { minReplicas: 2, maxReplicas: 4 },
        },
        expose: {
          host: 'route.example.com',
          additionalHosts: ['www.example.com'],
          annotations: { 'example.com/team': 'shop' },
          path: '/api',
          gateway: { name: 'public', namespace: 'infra' },
        },
      });
      await eventually(() => {
        const ws = webservice('route');
        const ready = (ws.status?.conditions ?? []).find((c: Json) => c.type === 'Ready');
        const autoscaling = (ws.status?.conditions ?? []).find((c: Json) => c.type === 'Autoscaling');
        return (
          ws.status?.observedGeneration === ws.metadata.generation &&
          ready?.status === 'True' &&
          autoscaling?.reason === 'FailedGetResourceMetric' &&
          getJson(['get', 'httproute', 'route', '-n', ns()]).spec.rules[0].matches[0].path.value === '/api'
        );
      }, 120_000);
      // The route's spec changed, so did its generation: what the Gateway accepted is an older route.
      await eventually(() => condition('route', 'Exposed')?.reason === 'Pending', 30_000);
      expect(condition('route', 'Exposed')).toMatchObject({ status: 'Unknown' });
      acceptAsGateway('route');
      await eventually(() => condition('route', 'Exposed')?.status === 'True', 30_000);
      audit.mark();
      await sleep(20_000);
      const controller = (await audit.events()).filter((e) => e.user.username === CONTROLLER_USER);
      expect(controller.filter((e) => MUTATING.has(e.verb)).map(describeEvent)).toEqual([]);
      await ctl?.stop();
      ctl = undefined;

      audit.mark();
      for (let pass = 0; pass < 2; pass++) {
        const result = plugin(['apply', '--all', '-n', ns()]);
        expect(result.stdout).toMatch(/^route\s+noop\s/m);
      }
      expect(await pluginWrites()).toEqual([]);
      // The server's defaults (a backendRef's group, kind and weight; a parentRef's group and kind) are there, and no write was about them.
      const route = getJson(['get', 'httproute', 'route', '-n', ns()]);
      expect(route.spec.rules[0].backendRefs[0]).toMatchObject({ group: '', kind: 'Service', weight: 1 });
      expect(route.spec.parentRefs[0]).toMatchObject({ group: 'gateway.networking.k8s.io', kind: 'Gateway' });
      expect(route.spec.hostnames).toEqual(['route.example.com', 'www.example.com']);
      expect(route.metadata.annotations['example.com/team']).toBe('shop');
      expect(webservice('route').status.url).toBe('http://route.example.com/api');
    });

    it('is deleted by finalize with the rest', () => {
      patchWebService(ns(), 'route', { metadata: { finalizers: ['webservice.labhub.io/cleanup'] } });
      kubectl(['delete', 'webservice', 'route', '-n', ns(), '--wait=false']);
      const result = plugin(['finalize', 'route', '-n', ns()]);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/httproute\/route/);
      expect(run('kubectl', ['get', 'httproute', 'route', '-n', ns()]).stderr).toMatch(/NotFound|not found/);
    });
  });

  it.each([
    [{ workload: {}, expose: { host: 'a.example.com' } }, /expose needs spec.workload.port/],
    [
      { workload: { port: 80 }, expose: { host: 'a.example.com', ingressClassName: 'nginx', gateway: { name: 'g' } } },
      /ingressClassName and gateway exclude each other/,
    ],
    [
      { workload: { port: 80 }, expose: { host: 'a.example.com', tls: { secretName: 's' }, gateway: { name: 'g' } } },
      /tls cannot go with a gateway/,
    ],
    [{ workload: { port: 80 }, expose: { host: 'a.example.com', path: 'api' } }, /spec.expose.path/],
    [
      { workload: { port: 80 }, expose: { host: 'a.example.com', additionalHosts: ['a.example.com'] } },
      /additionalHosts repeats host/,
    ],
  ])('admission refuses %j, and nothing is made', (spec, message) => {
    const refused = run('kubectl', ['apply', '-n', ns(), '-f', '-'], {
      input: webService('refused', { image: 'nginx:1.27', ...spec }),
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(message);
    expect(tryGetJson(['get', 'webservice', 'refused', '-n', ns()])).toBeNull();
  });
});

// spec.expose, in the core: the kind table's Ingress and HTTPRoute rows send the host's traffic
// to the Service, validation refuses what admission refuses, the Exposed condition claims only
// what an ingress controller or a Gateway reported, and where the HTTPRoute's API is absent the
// decision leaves it out while the condition says why.
import { decide } from '../../src/core/decide';
import { describeWebService } from '../../src/core/description';
import {
  exposedUrl,
  httpRouteCondition,
  httpRouteHealth,
  ingressCondition,
  ingressHealth,
} from '../../src/core/expose';
import { NAMED_KINDS, OPTIONAL_KINDS } from '../../src/core/kinds';
import { Expose, SyncInput, WebService } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { API_NOT_INSTALLED, computeStatus, readyOf, statusPatch } from '../../src/core/status';
import { parseObservation, parseSyncInput } from '../../src/core/validate';
import { decideFixture } from '../support/decide-fixtures';

const INGRESS = NAMED_KINDS.find((r) => r.kind === 'Ingress')!;
const HTTP_ROUTE = NAMED_KINDS.find((r) => r.kind === 'HTTPRoute')!;
const T0 = '2026-12-02T09:00:00Z';
const T1 = '2026-12-02T10:00:00Z';

function parent(expose?: Expose, port: number | null = 8080): WebService {
  return {
    apiVersion: 'apps.labhub.io/v1',
    kind: 'WebService',
    metadata: { name: 'shop', namespace: 'ns', uid: 'uid-1', generation: 1 },
    spec: { image: 'nginx:1.27', workload: port === null ? {} : { port }, ...(expose ? { expose } : {}) },
  };
}
const desiredOf = (ws: WebService) => observe({ parent: ws, children: [], related: [] }).desired;
const build = (row: typeof INGRESS, expose?: Expose, port?: number | null) =>
  row.build!({ name: 'shop' }, { name: 'shop', desired: desiredOf(parent(expose, port)) });

describe('the exposure rows', () => {
  it('want an Ingress without a gateway, an HTTPRoute with one, and neither without a port', () => {
    const host = 'shop.example.com';
    expect([INGRESS.wanted(parent({ host })), HTTP_ROUTE.wanted(parent({ host }))]).toEqual([true, false]);
    const viaGateway = parent({ host, gateway: { name: 'public' } });
    expect([INGRESS.wanted(viaGateway), HTTP_ROUTE.wanted(viaGateway)]).toEqual([false, true]);
    expect(INGRESS.wanted(parent({ host }, null))).toBe(false);
    expect(INGRESS.wanted(parent())).toBe(false);
  });

  it('say the HTTPRoute alone is served only where its API is installed', () => {
    expect(OPTIONAL_KINDS.map((row) => row.kind)).toEqual(['HTTPRoute']);
    expect(HTTP_ROUTE).toMatchObject({ apiVersion: 'gateway.networking.k8s.io/v1', resource: 'httproutes' });
    expect(INGRESS).toMatchObject({ apiVersion: 'networking.k8s.io/v1', resource: 'ingresses' });
    expect(INGRESS.optional).toBeUndefined();
  });

  it('build an Ingress for the host and path prefix to the Service, with its class and TLS', () => {
    const expose = {
      host: 'shop.example.com',
      path: '/shop',
      tls: { secretName: 'shop-tls' },
      ingressClassName: 'nginx',
    };
    expect(build(INGRESS, expose)).toEqual({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'shop' },
      spec: {
        ingressClassName: 'nginx',
        tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
        rules: [
          {
            host: 'shop.example.com',
            http: {
              paths: [
                {
                  path: '/shop',
                  pathType: 'Prefix',
                  backend: { service: { name: 'shop', port: { number: 8080 } } },
                },
              ],
            },
          },
        ],
      },
    });
  });

  it("leave the class to the cluster's default and route / when the spec names neither", () => {
    const spec = build(INGRESS, { host: 'shop.example.com' })!.spec as any;
    expect(spec).not.toHaveProperty('ingressClassName');
    expect(spec).not.toHaveProperty('tls');
    expect(spec.rules[0].http.paths[0].path).toBe('/');
  });

  it('build an HTTPRoute attached to the Gateway, to the Service on the port', () => {
    expect(build(HTTP_ROUTE, { host: 'shop.example.com', gateway: { name: 'public', namespace: 'infra' } })).toEqual({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'shop' },
      spec: {
        parentRefs: [{ name: 'public', namespace: 'infra' }],
        hostnames: ['shop.example.com'],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/' } }],
            backendRefs: [{ name: 'shop', port: 8080 }],
          },
        ],
      },
    });
    const sameNamespace = build(HTTP_ROUTE, { host: 'shop.example.com', gateway: { name: 'public' } })!.spec as any;
    expect(sameNamespace.parentRefs).toEqual([{ name: 'public' }]);
  });

  it('give every host a rule of the Ingress, all of them to its TLS, and to the route its hostnames', () => {
    const hosts = { host: 'shop.example.com', additionalHosts: ['www.example.com', 'shop.example.org'] };
    const ingress = build(INGRESS, { ...hosts, tls: { secretName: 'shop-tls' } })!.spec as any;
    const all = ['shop.example.com', 'www.example.com', 'shop.example.org'];
    expect(ingress.rules.map((r: { host: string }) => r.host)).toEqual(all);
    expect(ingress.rules[2].http).toEqual(ingress.rules[0].http);
    expect(ingress.tls).toEqual([{ hosts: all, secretName: 'shop-tls' }]);
    const route = build(HTTP_ROUTE, { ...hosts, gateway: { name: 'public' } })!.spec as any;
    expect(route.hostnames).toEqual(all);
  });

  it("put the spec's annotations on the Ingress and on the HTTPRoute, ours over theirs", () => {
    const annotations = { 'cert-manager.io/cluster-issuer': 'letsencrypt', 'webservice.labhub.io/x': 'theirs' };
    const metadata = { name: 'shop', annotations: { 'webservice.labhub.io/x': 'ours' } };
    const desired = desiredOf(parent({ host: 'shop.example.com', annotations }));
    expect(INGRESS.build!(metadata, { name: 'shop', desired })!.metadata.annotations).toEqual({
      'cert-manager.io/cluster-issuer': 'letsencrypt',
      'webservice.labhub.io/x': 'ours',
    });
    const viaGateway = desiredOf(parent({ host: 'shop.example.com', annotations, gateway: { name: 'public' } }));
    expect(HTTP_ROUTE.build!({ name: 'shop' }, { name: 'shop', desired: viaGateway })!.metadata.annotations).toEqual(
      annotations,
    );
    expect(build(INGRESS, { host: 'shop.example.com' })!.metadata).toEqual({ name: 'shop' });
  });

  it.each([
    [{ host: 'shop.example.com' }, 'http://shop.example.com'],
    [{ host: 'shop.example.com', path: '/', tls: { secretName: 's' } }, 'https://shop.example.com'],
    [{ host: 'shop.example.com', additionalHosts: ['www.example.com'], path: '/api' }, 'http://shop.example.com/api'],
    [{ host: 'shop.example.com', gateway: { name: 'public' } }, 'http://shop.example.com'],
  ])('report %j at %s', (expose, url) => {
    expect(exposedUrl(desiredOf(parent(expose as Expose)))).toBe(url);
  });

  it('build nothing the spec does not ask for', () => {
    expect(build(INGRESS)).toBeNull();
    expect(build(HTTP_ROUTE, { host: 'shop.example.com' })).toBeNull();
    expect(build(INGRESS, { host: 'shop.example.com', gateway: { name: 'public' } })).toBeNull();
  });
});

describe('validating spec.expose', () => {
  const input = (expose: unknown, port: number | null = 8080) => ({
    parent: parent(expose as Expose, port),
    children: [],
    related: [],
  });

  it.each([
    [{ host: 'shop.example.com' }, null, 'needs spec.workload.port'],
    [{ host: 'Shop Example' }, 8080, 'host must be a DNS name'],
    [{ host: 'shop.example.com', path: 'shop' }, 8080, 'path must start with /'],
    [{ host: 'shop.example.com', ingressClassName: 'nginx', gateway: { name: 'public' } }, 8080, 'exclude each other'],
    [
      { host: 'shop.example.com', tls: { secretName: 'x' }, gateway: { name: 'public' } },
      8080,
      'TLS is set on the Gateway',
    ],
    [{ host: 'shop.example.com', gateway: {} }, 8080, "gateway.name must be a Gateway's name"],
    ['shop', 8080, 'expose must be an object'],
    [{ host: 'shop.example.com', additionalHosts: ['Not A Host'] }, 8080, 'additionalHosts must be a list of DNS'],
    [{ host: 'shop.example.com', additionalHosts: ['shop.example.com'] }, 8080, 'additionalHosts repeats host'],
    [{ host: 'shop.example.com', annotations: { a: 1 } }, 8080, 'annotations must map strings to strings'],
  ])('refuses %j (port %s)', (expose, port, message) => {
    expect(() => parseSyncInput(input(expose, port))).toThrow(message);
  });

  it('accepts an Ingress with TLS, and an HTTPRoute', () => {
    expect(() => parseSyncInput(input({ host: 'a.example.com', tls: { secretName: 'a' } }))).not.toThrow();
    expect(() =>
      parseSyncInput(input({ host: 'a.example.com', gateway: { name: 'g', namespace: 'n' } })),
    ).not.toThrow();
  });

  it('takes absentKinds only of optional kinds', () => {
    expect(parseSyncInput({ ...input(undefined), absentKinds: ['HTTPRoute'] }).absentKinds).toEqual(['HTTPRoute']);
    expect(() => parseSyncInput({ ...input(undefined), absentKinds: ['Deployment'] })).toThrow(
      'absentKinds must be a list of kinds whose API may be absent (HTTPRoute)',
    );
    const obs = observe({ ...input(undefined), absentKinds: ['HTTPRoute'] });
    expect(() => parseObservation({ ...obs, absentKinds: 'HTTPRoute' })).toThrow('observation.absentKinds');
  });
});

describe("the Ingress's condition", () => {
  const ingress = (status?: Record<string, unknown>, ingressClassName?: string) => ({
    metadata: { name: 'shop' },
    spec: { ...(ingressClassName ? { ingressClassName } : {}), rules: [{ host: 'shop.example.com' }] },
    ...(status ? { status } : {}),
  });

  it('is False until an ingress controller publishes an address', () => {
    expect(ingressCondition(ingress(undefined, 'nginx'))).toEqual({
      status: 'False',
      reason: 'AddressPending',
      message: 'ingress/shop has no address yet: no ingress controller of class "nginx" has published one',
    });
    expect(ingressCondition(ingress({ loadBalancer: { ingress: [{}] } })).status).toBe('False');
    expect(ingressHealth(ingress()).state).toBe('Pending');
  });

  it('is True with the published address', () => {
    const published = ingress({ loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } });
    expect(ingressCondition(published)).toEqual({
      status: 'True',
      reason: 'AddressAssigned',
      message: 'ingress/shop: shop.example.com at 203.0.113.7',
    });
    expect(ingressHealth(published)).toEqual({ state: 'Ready', info: 'shop.example.com at 203.0.113.7' });
  });
});

describe("the HTTPRoute's condition", () => {
  const CONTROLLER = 'example.net/gateway-controller';
  const route = (parents?: unknown[]) => ({
    metadata: { name: 'shop', namespace: 'ns' },
    spec: { parentRefs: [{ name: 'public', namespace: 'infra' }], hostnames: ['shop.example.com'] },
    ...(parents ? { status: { parents } } : {}),
  });
  const parentStatus = (ref: unknown, conditions: unknown[]) => ({
    parentRef: ref,
    controllerName: CONTROLLER,
    conditions,
  });
  const ours = { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public', namespace: 'infra' };
  const accepted = { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'Route is accepted' };

  it('is False while no gateway controller has said anything about it, never claiming the Gateway exists', () => {
    expect(httpRouteCondition(route())).toEqual({
      status: 'False',
      reason: 'NotAccepted',
      message:
        'httproute/shop is not accepted yet: no gateway controller has reported on it for gateway infra/public ' +
        '(none ever does for a Gateway that does not exist, or that no controller runs)',
    });
    expect(httpRouteHealth(route()).state).toBe('Pending');
  });

  it('is True only when a parent status for our parentRef says Accepted', () => {
    expect(httpRouteCondition(route([parentStatus(ours, [accepted])]))).toEqual({
      status: 'True',
      reason: 'Accepted',
      message: `httproute/shop accepted by gateway infra/public (${CONTROLLER}): Route is accepted`,
    });
    // Another Gateway's acceptance is not ours.
    const other = { ...ours, name: 'internal' };
    expect(httpRouteCondition(route([parentStatus(other, [accepted])])).status).toBe('False');
    expect(httpRouteHealth(route([parentStatus(ours, [accepted])])).state).toBe('Ready');
  });

  it('is not True on an acceptance of an older generation of the route', () => {
    const old = { ...accepted, observedGeneration: 1 };
    const changed = {
      ...route([parentStatus(ours, [old])]),
      metadata: { name: 'shop', namespace: 'ns', generation: 2 },
    };
    expect(httpRouteCondition(changed)).toEqual({
      status: 'Unknown',
      reason: 'Pending',
      message: `httproute/shop: gateway infra/public (${CONTROLLER}) has not looked at generation 2 yet (its status is of generation 1)`,
    });
    expect(httpRouteHealth(changed).state).toBe('Pending');
    const current = { ...changed, status: { parents: [parentStatus(ours, [{ ...accepted, observedGeneration: 2 }])] } };
    expect(httpRouteCondition(current).status).toBe('True');
  });

  it("says why not in the gateway controller's words", () => {
    const refused = {
      type: 'Accepted',
      status: 'False',
      reason: 'NotAllowedByListeners',
      message: 'no listener allows it',
    };
    expect(httpRouteCondition(route([parentStatus(ours, [refused])]))).toEqual({
      status: 'False',
      reason: 'NotAllowedByListeners',
      message: `httproute/shop not taken up by gateway infra/public (${CONTROLLER}): no listener allows it`,
    });
    const unresolved = { type: 'ResolvedRefs', status: 'False', reason: 'BackendNotFound', message: 'no Service' };
    expect(httpRouteCondition(route([parentStatus(ours, [accepted, unresolved])]))).toMatchObject({
      status: 'False',
      reason: 'BackendNotFound',
    });
    expect(httpRouteHealth(route([parentStatus(ours, [refused])])).state).toBe('Failed');
  });
});

describe('exposure where the HTTPRoute API is absent', () => {
  const absent = decideFixture('create-workload-expose-gateway-api-absent');
  const statusOf = (input: SyncInput, now: string) => {
    const obs = observe(input);
    return computeStatus(obs, decide(obs), { kind: 'applied' }, now);
  };

  it('writes no HTTPRoute, and Exposed says the API is not installed, naming it', () => {
    const decision = decide(observe(absent));
    expect(decision.ops.map((op) => ('kind' in op ? op.kind : undefined))).not.toContain('HTTPRoute');
    const { status } = statusOf(absent, T0);
    expect(status?.conditions?.find((c) => c.type === 'Exposed')).toEqual({
      type: 'Exposed',
      status: 'False',
      observedGeneration: absent.parent.metadata.generation,
      lastTransitionTime: T0,
      reason: API_NOT_INSTALLED,
      message:
        'httproute/checkout cannot be made: the cluster does not serve httproutes.gateway.networking.k8s.io ' +
        '(gateway.networking.k8s.io/v1); install its API',
    });
  });

  it('makes a noop once the rest has converged, and no status write on a second pass', () => {
    const present = decideFixture('create-workload-expose-gateway');
    const obs = observe(present);
    // The children as the server stores them after the create, with the rollout of its 3 pods done.
    const written = decide(obs).ops.flatMap((op) =>
      op.op === 'applyChild' || op.op === 'createChild' ? [op.object as { kind?: string; metadata: object }] : [],
    );
    const children = written
      .filter((c) => c.kind !== 'HTTPRoute')
      .map((c) =>
        c.kind === 'Deployment'
          ? {
              ...c,
              metadata: { ...c.metadata, generation: 1 },
              status: {
                observedGeneration: 1,
                replicas: 3,
                updatedReplicas: 3,
                readyReplicas: 3,
                availableReplicas: 3,
              },
            }
          : c,
      );
    const converged = { ...absent, children: children as SyncInput['children'] };
    expect(decide(observe(converged)).action).toBe('noop');
    const first = statusOf(converged, T0);
    expect(readyOf(first.status!)?.status).toBe('True');
    const again = statusOf({ ...converged, parent: { ...converged.parent, status: first.status! } }, T1);
    expect(again.changed).toBe(false);
    expect(statusPatch(again, '1')).toBeNull();
  });

  it('leaves an Ingress exposure alone: its condition comes from the Ingress', () => {
    const input = decideFixture('create-workload-expose-ingress');
    const { status } = statusOf({ ...input, absentKinds: ['HTTPRoute'] }, T0);
    expect(status?.conditions?.find((c) => c.type === 'Exposed')).toMatchObject({
      status: 'Unknown',
      reason: 'ChildMissing',
      message: 'ingress/checkout does not exist yet',
    });
  });

  it('drops Exposed once the spec stops asking', () => {
    const { status } = statusOf(absent, T0);
    const { expose: _gone, ...spec } = absent.parent.spec;
    const after = statusOf({ ...absent, parent: { ...absent.parent, spec, status: status! } }, T1);
    expect(after.status?.conditions?.map((c) => c.type)).not.toContain('Exposed');
  });

  it('reports status.url with spec.expose, and removes it without', () => {
    const { status } = statusOf(absent, T0);
    expect(status?.url).toBe(exposedUrl(observe(absent).desired));
    expect(status?.url).toMatch(/^http:\/\//);
    const { expose: _gone, ...spec } = absent.parent.spec;
    const after = statusOf({ ...absent, parent: { ...absent.parent, spec, status: status! } }, T1);
    expect(after.status?.url).toBeUndefined();
    expect(statusPatch(after, '1')?.status).toMatchObject({ url: null });
  });
});

describe('describe, where the HTTPRoute API is absent', () => {
  it('shows the route the spec asks for as missing, and why', () => {
    const input = decideFixture('create-workload-expose-gateway-api-absent');
    const observation = observe(input);
    const { tree } = describeWebService({
      input,
      observation,
      decision: decide(observation),
      related: {},
      events: [],
      unread: [],
      now: T1,
    });
    expect(tree.children.find((node) => node.kind === 'HTTPRoute')).toEqual({
      kind: 'HTTPRoute',
      name: 'checkout',
      state: 'Missing',
      info: 'its API is not installed',
      message: 'the cluster does not serve httproutes.gateway.networking.k8s.io (gateway.networking.k8s.io/v1)',
      children: [],
    });
  });
});

describe('switching from an Ingress to an HTTPRoute', () => {
  it('makes the route before it deletes the Ingress, so traffic never finds neither', () => {
    const input = decideFixture('create-workload-expose-ingress');
    // The first pass's children, as made: the ConfigMap (created) and the applied ones.
    const made = decide(observe(input)).ops.flatMap((op, i) =>
      op.op === 'createChild' || op.op === 'applyChild'
        ? [{ ...op.object, metadata: { ...op.object.metadata, uid: `uid-${i}`, resourceVersion: '7' } }]
        : [],
    );
    const expose = { host: 'shop.example.com', gateway: { name: 'public' } };
    const switched = { ...input, parent: { ...input.parent, spec: { ...input.parent.spec, expose } }, children: made };
    const ops = decide(observe(switched)).ops.map((op) => `${op.op} ${'kind' in op ? op.kind : 'ConfigMap'}`);
    expect(ops).toContain('applyChild HTTPRoute');
    expect(ops.indexOf('applyChild HTTPRoute')).toBeLessThan(ops.indexOf('deleteChild Ingress'));
  });
});

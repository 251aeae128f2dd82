// The public endpoint of a WebService with spec.expose: an Ingress (networking.k8s.io/v1), or
// with a gateway an HTTPRoute (gateway.networking.k8s.io/v1) attached to it, both named after
// the WebService and sending the host's traffic to its Service on the workload's port. Pure:
// their desired objects, whole, as server-side apply sends them; and whether anything in the
// cluster has taken the endpoint up (the WebService's Exposed condition).
import type { Health, ChildCondition, LiveObject } from './health';
import type { Expose, Json, ObjectMeta } from './model';
import { trackName } from './canary-requests';
import type { CanaryPlan, DesiredState } from './observation';
import type { DesiredObject } from './workload';

/** The path an exposure routes when its spec names none: everything under the host. */
const DEFAULT_EXPOSE_PATH = '/';

interface ExposeWanted {
  name: string;
  expose: Expose;
  port: number;
}

/** Every host the endpoint answers to: host first, then additionalHosts. */
function hostsOf(expose: Expose): string[] {
  return [expose.host, ...(expose.additionalHosts ?? [])];
}

/** The spec's annotations of the endpoint, beside the ones the metadata already has (ours win). */
function annotated(metadata: ObjectMeta, expose: Expose): ObjectMeta {
  if (!expose.annotations) return metadata;
  return { ...metadata, annotations: { ...expose.annotations, ...metadata.annotations } };
}

/**
 * The address users reach (status.url), as Knative reports it: the first host; https with an
 * Ingress with tls, else http (a Gateway's listeners, which may terminate TLS, are not read);
 * the path when it is not /. Undefined without an exposure.
 */
export function exposedUrl(desired: DesiredState): string | undefined {
  const want = exposeWanted('', desired);
  if (!want) return undefined;
  const { host, path, tls, gateway } = want.expose;
  const scheme = tls && !gateway ? 'https' : 'http';
  return `${scheme}://${host}${path && path !== DEFAULT_EXPOSE_PATH ? path : ''}`;
}

/** What the endpoint is made from, or null: no spec.expose, or no port to send traffic to. */
function exposeWanted(name: string, desired: DesiredState): ExposeWanted | null {
  const port = desired.workload?.port;
  if (!desired.expose || port === undefined) return null;
  return { name, expose: desired.expose, port };
}

/**
 * An Ingress for the hosts (a rule each) and path (a prefix) to the Service, with the spec's
 * annotations; with tls, HTTPS on the hosts with that Secret's certificate. Without ingressClassName, the cluster's default IngressClass takes
 * it. Null unless the spec asks for an exposure without a gateway.
 */
export function desiredIngress(
  metadata: ObjectMeta,
  parent: { name: string; desired: DesiredState },
): DesiredObject | null {
  const want = exposeWanted(parent.name, parent.desired);
  if (!want || want.expose.gateway) return null;
  const { tls, ingressClassName } = want.expose;
  const hosts = hostsOf(want.expose);
  const spec: Json = {};
  if (ingressClassName !== undefined) spec.ingressClassName = ingressClassName;
  if (tls) spec.tls = [{ hosts, secretName: tls.secretName }];
  spec.rules = hosts.map((host) => ({
    host,
    http: {
      paths: [
        {
          path: want.expose.path ?? DEFAULT_EXPOSE_PATH,
          pathType: 'Prefix',
          backend: { service: { name: want.name, port: { number: want.port } } },
        },
      ],
    },
  }));
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: annotated(metadata, want.expose), spec };
}

/**
 * An HTTPRoute attached to the spec's Gateway, for the hosts and path (a prefix) to the
 * Service, with the spec's annotations. TLS is the Gateway's listener's business, so the spec has none here (admission
 * refuses tls with a gateway). Null unless the spec asks for an exposure through a gateway.
 */
export function desiredHttpRoute(
  metadata: ObjectMeta,
  parent: { name: string; desired: DesiredState },
): DesiredObject | null {
  const want = exposeWanted(parent.name, parent.desired);
  const gateway = want?.expose.gateway;
  if (!want || !gateway) return null;
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: annotated(metadata, want.expose),
    spec: {
      parentRefs: [
        { name: gateway.name, ...(gateway.namespace !== undefined ? { namespace: gateway.namespace } : {}) },
      ],
      hostnames: hostsOf(want.expose),
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: want.expose.path ?? DEFAULT_EXPOSE_PATH } }],
          backendRefs: backendRefs(want.name, want.port, parent.desired.canary),
        },
      ],
    },
  };
}

/** The route's Service; while a canary runs, the stable pods' and the canary's, by the canary's weight. */
function backendRefs(name: string, port: number, canary: CanaryPlan | undefined): Json[] {
  if (!canary?.split) return [{ name, port }];
  const { weight } = canary.status;
  return [
    { name: trackName(name, 'stable'), port, weight: 100 - weight },
    { name: trackName(name, 'canary'), port, weight },
  ];
}

interface StatusCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

const listOf = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** The addresses an ingress controller published on the Ingress (status.loadBalancer.ingress). */
function ingressAddresses(live: LiveObject): string[] {
  const loadBalancer = (live.status?.loadBalancer ?? {}) as { ingress?: unknown };
  return listOf<{ ip?: string; hostname?: string }>(loadBalancer.ingress)
    .map((entry) => entry.hostname || entry.ip || '')
    .filter((address) => address !== '');
}

function ingressHost(live: LiveObject): string {
  const rules = listOf<{ host?: string }>(live.spec?.rules);
  return rules[0]?.host ?? '';
}

/**
 * Whether the Ingress is taken up: True once an ingress controller has published an address
 * for it; until then False, since nothing says that any controller serves it.
 */
export function ingressCondition(live: LiveObject): ChildCondition {
  const target = `ingress/${live.metadata.name}`;
  const addresses = ingressAddresses(live);
  if (addresses.length > 0) {
    return {
      status: 'True',
      reason: 'AddressAssigned',
      message: `${target}: ${ingressHost(live)} at ${addresses.join(', ')}`,
    };
  }
  const className = typeof live.spec?.ingressClassName === 'string' ? ` of class "${live.spec.ingressClassName}"` : '';
  return {
    status: 'False',
    reason: 'AddressPending',
    message: `${target} has no address yet: no ingress controller${className} has published one`,
  };
}

interface ParentRef {
  group?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  sectionName?: string;
  port?: number;
}

/** The same Gateway (the API's defaults: group gateway.networking.k8s.io, kind Gateway, the route's namespace). */
function sameParent(a: ParentRef, b: ParentRef, routeNamespace: string | undefined): boolean {
  const group = (ref: ParentRef) => ref.group ?? 'gateway.networking.k8s.io';
  const kind = (ref: ParentRef) => ref.kind ?? 'Gateway';
  const namespace = (ref: ParentRef) => ref.namespace ?? routeNamespace;
  return (
    group(a) === group(b) &&
    kind(a) === kind(b) &&
    a.name === b.name &&
    namespace(a) === namespace(b) &&
    a.sectionName === b.sectionName &&
    a.port === b.port
  );
}

const describeParent = (ref: ParentRef, routeNamespace: string | undefined) =>
  `gateway ${ref.namespace ?? routeNamespace ?? ''}/${ref.name ?? ''}`;

/**
 * Whether the HTTPRoute is taken up, in the gateway controller's own words: True only when a
 * parent status for our parentRef says Accepted=True of the route's current generation (and its
 * backends resolve); False with the controller's reason and message when it says otherwise;
 * Unknown while what it said is about an older generation; False while no gateway controller
 * has said anything about it (which cannot tell a Gateway that is missing from one not yet looked at).
 */
export function httpRouteCondition(live: LiveObject): ChildCondition {
  const target = `httproute/${live.metadata.name}`;
  const namespace = live.metadata.namespace;
  const wanted = listOf<ParentRef>(live.spec?.parentRefs);
  const parents = listOf<{ parentRef?: ParentRef; controllerName?: string; conditions?: unknown }>(
    live.status?.parents,
  ).filter((p) => p.parentRef && wanted.some((ref) => sameParent(ref, p.parentRef as ParentRef, namespace)));
  const generation = live.metadata.generation;
  for (const parent of parents) {
    const conditions = listOf<StatusCondition>(parent.conditions);
    const accepted = conditions.find((c) => c.type === 'Accepted');
    const resolved = conditions.find((c) => c.type === 'ResolvedRefs');
    const by = `${describeParent(parent.parentRef as ParentRef, namespace)} (${parent.controllerName ?? 'no controller named'})`;
    // What it said is about an older spec: the route as it is now is not accepted yet.
    if (
      accepted?.observedGeneration !== undefined &&
      generation !== undefined &&
      accepted.observedGeneration < generation
    ) {
      return {
        status: 'Unknown',
        reason: 'Pending',
        message: `${target}: ${by} has not looked at generation ${generation} yet (its status is of generation ${accepted.observedGeneration})`,
      };
    }
    if (accepted?.status === 'True' && resolved?.status !== 'False') {
      return {
        status: 'True',
        reason: accepted.reason || 'Accepted',
        message: `${target} accepted by ${by}${said(accepted)}`,
      };
    }
    const refusal = accepted?.status === 'True' ? resolved : accepted;
    if (refusal) {
      return {
        status: 'False',
        reason: refusal.reason || refusal.type,
        message: `${target} not taken up by ${by}${said(refusal)}`,
      };
    }
  }
  // Silence is all the route's status can show: nothing in it says whether the Gateway exists.
  const gateways = wanted.map((ref) => describeParent(ref, namespace)).join(', ');
  return {
    status: 'False',
    reason: 'NotAccepted',
    message:
      `${target} is not accepted yet: no gateway controller has reported on it for ${gateways || 'any parent'} ` +
      '(none ever does for a Gateway that does not exist, or that no controller runs)',
  };
}

const said = (c: StatusCondition) => (c.message ? `: ${c.message}` : '');

/** An Ingress: Ready once an ingress controller published its address. */
export function ingressHealth(live: LiveObject): Health {
  const condition = ingressCondition(live);
  const addresses = ingressAddresses(live);
  const info = `${ingressHost(live)}${addresses.length > 0 ? ` at ${addresses.join(', ')}` : ', no address yet'}`;
  return condition.status === 'True'
    ? { state: 'Ready', info }
    : { state: 'Pending', info, message: condition.message };
}

/** An HTTPRoute: Ready once its Gateway accepted it; why not, in the gateway controller's words. */
export function httpRouteHealth(live: LiveObject): Health {
  const condition = httpRouteCondition(live);
  const hosts = listOf<string>(live.spec?.hostnames).join(', ');
  if (condition.status === 'True') return { state: 'Ready', info: `${hosts}, accepted` };
  const state = condition.status === 'Unknown' || condition.reason === 'NotAccepted' ? 'Pending' : 'Failed';
  return { state, info: `${hosts}, not accepted`, message: `${condition.reason}: ${condition.message}` };
}

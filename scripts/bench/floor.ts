// The write floor (issue 19): a burst's writes, sent by the barest client there is at a fixed
// number in flight, with no reads, no cache and no decisions: N WebService creates, then each
// one's child, status patch and Events, as the core makes them before the clock starts. What
// `run` does beyond this in a burst is what it costs to be a controller.
import { decide } from '../../src/core/decide';
import { REPORTING_CONTROLLER, eventsFor } from '../../src/core/events';
import { API_VERSION, KIND, WebService } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { emptyIndex, syncInputFor } from '../../src/core/object-index';
import { computeStatus, readyOf, statusPatch } from '../../src/core/status';
import { Audit, figures } from './audit';
import { BareClient } from './bare-client';
import { webService } from './cluster';
import { BurstCreator } from './controller';
import { pool, progress, round } from './proc';

/** READY_FIELDS of a WebService, as `kubectl get -o jsonpath` prints them ('' where absent). */
function readyFieldsOf(object: Record<string, unknown>): string[] {
  const ws = object as unknown as WebService;
  const ready = ws.status?.conditions?.find((c) => c.type === 'Ready');
  return [
    ws.metadata.name,
    String(ws.metadata.generation ?? ''),
    String(ws.status?.observedGeneration ?? ''),
    ready?.status ?? '',
    ws.spec.image,
  ];
}

interface Bodies {
  webService: WebService;
  /** The child ConfigMap, its ownerReference's uid to fill in. */
  child: { metadata: { ownerReferences: { uid: string }[] } } & Record<string, unknown>;
  status: { metadata: { resourceVersion?: string } } & Record<string, unknown>;
  events: Record<string, unknown>[];
}

const PLACEHOLDER_UID = '00000000-0000-0000-0000-000000000000';

/** What the plugin writes for a new WebService, worked out by the core ahead of time. */
function bodiesFor(namespace: string, index: number, now: string): Bodies {
  const created = webService(index) as unknown as WebService;
  const parent: WebService = {
    ...created,
    metadata: { ...created.metadata, namespace, uid: PLACEHOLDER_UID, generation: 1, resourceVersion: '1' },
  };
  const observation = observe(syncInputFor(parent, emptyIndex()));
  const decision = decide(observation);
  const create = decision.ops[0];
  if (decision.ops.length !== 1 || create.op !== 'createChild')
    throw new Error(`the core did not decide a lone child create for a new WebService: ${JSON.stringify(decision)}`);
  const outcome = { kind: 'applied' } as const;
  const status = computeStatus(observation, decision, outcome, now);
  const patch = statusPatch(status, '1');
  if (!patch) throw new Error('the core wrote no status for a new WebService');
  const events = eventsFor(decision, outcome, undefined, readyOf(status.status ?? undefined)).map((event, i) => ({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: `${parent.metadata.name}.floor${i}.${Date.now().toString(16)}`, namespace },
    eventTime: now.replace(/Z$/, '.000000Z'), // a MicroTime; `now` has whole seconds
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: 'bench-floor',
    action: event.action,
    reason: event.reason,
    note: event.note,
    type: event.type,
    regarding: { apiVersion: API_VERSION, kind: KIND, name: parent.metadata.name, namespace, uid: PLACEHOLDER_UID },
  }));
  return {
    webService: created,
    child: create.object as unknown as Bodies['child'],
    status: patch as unknown as Bodies['status'],
    events,
  };
}

function webServicesPath(namespace: string): string {
  return `/apis/${API_VERSION}/namespaces/${encodeURIComponent(namespace)}/webservices`;
}

/** Creates every WebService with at most `inFlight` requests at once; the created objects, in order. */
async function createAll(client: BareClient, namespace: string, bodies: WebService[], inFlight: number) {
  const created = new Array<WebService>(bodies.length);
  const creates = bodies.map((body, i) => async () => {
    created[i] = await client.request<WebService>('POST', webServicesPath(namespace), body);
  });
  await pool(inFlight, creates);
  return created;
}

/** The floor's concurrencies, most first. */
export const FLOOR_IN_FLIGHT = [16, 4] as const;
const CREATOR_IN_FLIGHT = FLOOR_IN_FLIGHT[0];

/** The bursts beside the floor: its client creates the WebServices and watches them. */
export const FLOOR_CREATOR: BurstCreator = {
  createdBy: `the floor's client, ${CREATOR_IN_FLIGHT} in flight`,
  create: async (namespace, count) => {
    const [client, started] = [new BareClient(CREATOR_IN_FLIGHT), performance.now()];
    const bodies = Array.from({ length: count }, (_, i) => webService(i) as unknown as WebService);
    await createAll(client, namespace, bodies, CREATOR_IN_FLIGHT).finally(() => client.close());
    return Math.round(performance.now() - started);
  },
  watch: (namespace, onLine) =>
    new BareClient(1).watch(webServicesPath(namespace), (object, atMs) =>
      onLine({ atMs, fields: readyFieldsOf(object) }),
    ),
};

/**
 * The floor at one concurrency, on an empty namespace: all N creates first (as a burst
 * arrives), then each CR's child, status and Events, every request in one pool of
 * `inFlight`. Timed from the first create to the last response.
 */
export async function writeFloor(audit: Audit | undefined, namespace: string, n: number, inFlight: number) {
  progress(`write floor: ${n} WebServices at ${inFlight} in flight`);
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const bodies = Array.from({ length: n }, (_, i) => bodiesFor(namespace, i, now));
  const client = new BareClient(inFlight);
  const ns = encodeURIComponent(namespace);
  const since = audit?.mark() ?? 0;
  const [cpuBefore, started] = [process.cpuUsage(), performance.now()];
  try {
    const created = await createAll(
      client,
      namespace,
      bodies.map((b) => b.webService),
      inFlight,
    );
    const createsMs = Math.round(performance.now() - started);
    // Each CR's writes in order (the status patch names the create's resourceVersion), CRs side by side.
    const rest = bodies.map((b, i) => async () => {
      const { uid, resourceVersion, name } = created[i].metadata;
      b.child.metadata.ownerReferences[0].uid = uid!;
      await client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, b.child);
      b.status.metadata.resourceVersion = resourceVersion;
      const status = `${webServicesPath(namespace)}/${name}/status`;
      await client.request('PATCH', status, b.status, 'application/merge-patch+json');
      for (const event of b.events) {
        (event.regarding as { uid: string }).uid = uid!;
        await client.request('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, event);
      }
    });
    await pool(inFlight, rest);
    const wallMs = Math.round(performance.now() - started);
    const cpu = process.cpuUsage(cpuBefore);
    const count = audit ? await audit.count(since, 'floor') : null;
    return { n, inFlight, wallMs, createsMs, ...figures(count), clientCpuMs: round((cpu.user + cpu.system) / 1000) };
  } finally {
    client.close();
  }
}

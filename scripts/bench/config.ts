// Issue 38: N WebServices, each reading its own Secret (workload.ts' burst). Every Secret rotated
// at once must roll each Deployment once, then leave a steady state without a write; single
// rotations are timed from the Secret's watch event to the new pod template's. Then `run` again
// over them through the counting proxy, without and with 10 unreferenced Secrets each beside
// them: its peak RSS, and what it received of them.
import { randomBytes } from 'node:crypto';
import { CONFIG_DIGEST_ANNOTATION } from '../../src/core/config';
import { Audit, AuditEvent } from './audit';
import { WatchLine, WatchStream, sendLists, until, webServiceName } from './cluster';
import { ControllerProcess, latencies, steadyWindow } from './controller';
import type { ProxyCounts } from '../../harness/proxy-kubeconfig';
import { CountingProxy } from './proxy';
import { kubectl, progress, round, sleep } from './proc';
import { ownSecret, ownSecretName, steadyState, workloadBurst } from './workload';

/** Unreferenced Secrets per WebService, and the bytes of each one's value. */
const UNREFERENCED_EACH = 10;
const UNREFERENCED_BYTES = 4096;
const UNREFERENCED_PREFIX = 'unreferenced-';
/** Every unreferenced value begins with these 30 bytes, so that its base64 begins with MARKER. */
const VALUE_HEAD = 'unreferenced-bench-secret-data';
const MARKER = Buffer.from(VALUE_HEAD).toString('base64');

/** 1000 rollouts at once, throttled by kube-controller-manager, one surge pod each. */
const ROTATION_TIMEOUT_MS = 30 * 60_000;

const DIGEST_FIELD = `.spec.template.metadata.annotations.${CONFIG_DIGEST_ANNOTATION.replace(/\./g, '\\.')}`;
/** The watches here count the objects they list. */
const EACH = { listEach: true };
const REVISION_FIELDS = [
  '.metadata.name',
  '.status.conditions[?(@.type=="Ready")].status',
  '.status.currentRevision',
  '.status.updateRevision',
];

/** Each Deployment's config digest on a watch, and how often it changed since the watch began. */
class Templates {
  private readonly digests = new Map<string, string>();
  readonly changes = new Map<string, number>();
  /** When each one last changed, on the bench's clock. */
  readonly changedAt = new Map<string, number>();
  readonly stream: WatchStream;

  constructor(namespace: string) {
    const onLine = ({ atMs, fields }: WatchLine) => {
      const [name, digest = ''] = fields;
      const was = this.digests.get(name);
      this.digests.set(name, digest);
      if (was === undefined || was === digest) return;
      this.changes.set(name, (this.changes.get(name) ?? 0) + 1);
      this.changedAt.set(name, atMs);
    };
    this.stream = new WatchStream('deployments', namespace, ['.metadata.name', DIGEST_FIELD], onLine, EACH);
  }

  get seen(): number {
    return this.digests.size;
  }
}

/** Each WebService's revisions on a watch: which are Ready with every pod on their newest one, and on one past the first seen. */
class Revisions {
  private readonly first = new Map<string, string>();
  readonly settled = new Set<string>();
  readonly moved = new Set<string>();
  readonly stream: WatchStream;

  constructor(namespace: string) {
    const onLine = ({ fields }: WatchLine) => {
      const [name, ready, current, update] = fields;
      if (!this.first.has(name)) this.first.set(name, current);
      const settled = ready === 'True' && current === update;
      mark(this.settled, name, settled);
      mark(this.moved, name, settled && current !== this.first.get(name));
    };
    this.stream = new WatchStream('webservices', namespace, REVISION_FIELDS, onLine, EACH);
  }

  get seen(): number {
    return this.first.size;
  }
}

/** Waits until each watch has listed n objects: 1000 Deployments take kubectl seconds on a busy machine. */
async function listed(n: number, ...watches: [WatchStream, () => number][]): Promise<void> {
  await until(
    `the watches to list ${n} objects each`,
    () => {
      const failure = watches.map(([stream]) => stream.failure).find(Boolean);
      if (failure) throw new Error(failure);
      return watches.every(([, seen]) => seen() >= n);
    },
    120_000,
    50,
  );
}

function mark(set: Set<string>, name: string, member: boolean): void {
  if (member) set.add(name);
  else set.delete(name);
}

function countsOf(values: Iterable<number>): Record<string, number> {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return Object.fromEntries([...counts].sort(([a], [b]) => a - b));
}

/** Deployments by how many ReplicaSets they own. */
async function replicaSetsPerDeployment(namespace: string): Promise<Record<string, number>> {
  const owner = 'jsonpath={range .items[*]}{.metadata.ownerReferences[0].name}{"\\n"}{end}';
  const { stdout } = await kubectl(['get', 'replicasets', '-n', namespace, '-o', owner], { capture: true });
  const perOwner = new Map<string, number>();
  for (const name of stdout.split('\n').filter(Boolean)) perOwner.set(name, (perOwner.get(name) ?? 0) + 1);
  return countsOf(perOwner.values());
}

/** Every Secret rotated at once, until each WebService is Ready on a new revision; then a steady state. */
async function rotateAll(
  audit: Audit | undefined,
  namespace: string,
  n: number,
  steadySeconds: number,
  templates: Templates,
  revisions: Revisions,
) {
  await listed(n, [templates.stream, () => templates.seen], [revisions.stream, () => revisions.seen]);
  progress(`rotation: all ${n} Secrets at once`);
  const started = performance.now();
  const replaceMs = await sendLists('replace', namespace, n, (index) => ownSecret(index, 'rotated'));
  await until(
    `${n} WebServices Ready on a new revision`,
    () => {
      const failure = revisions.stream.failure ?? templates.stream.failure;
      if (failure) throw new Error(failure);
      return revisions.moved.size >= n && templates.changes.size >= n;
    },
    ROTATION_TIMEOUT_MS,
    100,
  );
  const templatesMs = round(Math.max(...templates.changedAt.values()) - started);
  const readyMs = round(performance.now() - started);
  const steady = await steadyState(audit, namespace, steadySeconds);
  return {
    replaceMs,
    templatesMs,
    readyMs,
    rolled: countsOf([...Array(n).keys()].map((i) => templates.changes.get(webServiceName(i)) ?? 0)),
    replicaSets: await replicaSetsPerDeployment(namespace),
    steady,
  };
}

/** Single rotations, one at a time: from the Secret's watch event to its Deployment's new template's. */
async function rotationLatency(
  audit: Audit | undefined,
  namespace: string,
  n: number,
  samples: number,
  templates: Templates,
) {
  progress(`${samples} single rotations, one at a time`);
  type Rotation = { secret: string; value: string; writtenAt?: number };
  let current: Rotation | undefined;
  const names = new Set<string>();
  const onLine = ({ atMs, fields }: WatchLine) => {
    names.add(fields[0]);
    if (current && fields[0] === current.secret && fields[1] === current.value) current.writtenAt ??= atMs;
  };
  const secrets = new WatchStream('secrets', namespace, ['.metadata.name', '.data.password'], onLine, EACH);
  try {
    await listed(n, [secrets, () => names.size]);
    const since = audit?.mark() ?? 0;
    const latenciesMs: number[] = [];
    for (let i = 0; i < samples; i++) {
      const index = (i * 37) % n;
      const name = webServiceName(index);
      const password = `latency-${i}`;
      const rotation: Rotation = { secret: ownSecretName(index), value: Buffer.from(password).toString('base64') };
      current = rotation;
      const changes = templates.changes.get(name) ?? 0;
      await kubectl([
        'patch',
        'secret',
        rotation.secret,
        '-n',
        namespace,
        '-p',
        JSON.stringify({ stringData: { password } }),
      ]);
      await until(
        `rotation ${i} (${rotation.secret}) to reach the pod template of ${name}`,
        () => {
          const failure = secrets.failure ?? templates.stream.failure;
          if (failure) throw new Error(failure);
          return rotation.writtenAt !== undefined && (templates.changes.get(name) ?? 0) > changes;
        },
        30_000,
        2,
      );
      latenciesMs.push(round(templates.changedAt.get(name)! - rotation.writtenAt!, 1));
    }
    current = undefined;
    return latencies(n, latenciesMs, audit ? await audit.count(since, 'controller') : null);
  } finally {
    await secrets.stop();
  }
}

/** The unreferenced Secrets, each value VALUE_HEAD first; each `version` has a value of its own. */
function unreferencedSecret(version: number): (index: number) => Record<string, unknown> {
  const value = Buffer.concat([Buffer.from(VALUE_HEAD), randomBytes(UNREFERENCED_BYTES - VALUE_HEAD.length)]);
  return (index) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${UNREFERENCED_PREFIX}${String(index).padStart(5, '0')}`, labels: { version: String(version) } },
    data: { value: value.toString('base64') },
  });
}

/** The controller's requests about Secrets in the audit log: GETs by name, LISTs and WATCHes. */
function secretRequests(events: AuditEvent[]) {
  const secrets = events.filter((e) => e.objectRef?.resource === 'secrets');
  const gets = secrets.filter((e) => e.verb === 'get');
  return {
    gets: gets.length,
    unreferencedGets: gets.filter((e) => e.objectRef?.name?.startsWith(UNREFERENCED_PREFIX)).length,
    lists: secrets.filter((e) => e.verb === 'list').length,
    watches: secrets.filter((e) => e.verb === 'watch').length,
  };
}

function received(counts: ProxyCounts) {
  return {
    read: counts.secretsRead.length,
    unreferencedRead: counts.secretsRead.filter((name) => name.startsWith(UNREFERENCED_PREFIX)).length,
    lists: counts.secretLists,
    metadataLists: counts.secretMetadataLists,
    bytes: counts.secretBytes,
    marked: counts.marked,
  };
}

/**
 * `run` started over the N converged WebServices, through the counting proxy: until every key
 * is reconciled, then `meanwhile`, then a window of steady state.
 */
async function controllerOverConfig(
  audit: Audit | undefined,
  namespace: string,
  n: number,
  seconds: number,
  meanwhile?: () => Promise<unknown>,
) {
  const proxy = await CountingProxy.start(MARKER);
  const since = audit?.mark() ?? 0;
  let controller: ControllerProcess | undefined;
  let measured;
  let counts: ProxyCounts;
  try {
    controller = await ControllerProcess.start(namespace, { KUBECONFIG: proxy.kubeconfig });
    const reconciledMs = round(await controller.waitReconciled(n, 10 * 60_000));
    await meanwhile?.();
    const steady = await steadyWindow(audit, controller, n, seconds);
    controller.mustHaveNoErrors();
    const secrets = audit ? secretRequests(await audit.requests(since, 'controller')) : null;
    measured = { reconciledMs, peakRssMiB: controller.peakRssMiB(), steady, secrets };
  } finally {
    await controller?.stop();
    counts = await proxy.stop(); // its last count, once the controller is gone
  }
  return { ...measured, received: received(counts) };
}

async function unreferencedSecrets(audit: Audit | undefined, namespace: string, n: number, seconds: number) {
  const count = UNREFERENCED_EACH * n;
  progress(`run over ${n} converged WebServices, without unreferenced Secrets`);
  const without = await controllerOverConfig(audit, namespace, n, seconds);
  progress(`creating ${count} unreferenced Secrets of ${UNREFERENCED_BYTES} bytes`);
  await sendLists('create', namespace, count, unreferencedSecret(1));
  progress(`run over ${n} converged WebServices and ${count} unreferenced Secrets, rewritten meanwhile`);
  const withThem = await controllerOverConfig(audit, namespace, n, seconds, () =>
    sendLists('replace', namespace, count, unreferencedSecret(2)),
  );
  return { count, bytes: UNREFERENCED_BYTES, without, with: withThem };
}

/** After the burst, on its controller: every Secret rotated at once, then single rotations, until all are at rest. */
async function rotations(
  audit: Audit | undefined,
  controller: ControllerProcess,
  namespace: string,
  n: number,
  steadySeconds: number,
  samples: number,
) {
  const templates = new Templates(namespace);
  const revisions = new Revisions(namespace);
  try {
    const rotation = await rotateAll(audit, namespace, n, steadySeconds, templates, revisions);
    const rotationPeak = controller.peakRssMiB();
    const latency = await rotationLatency(audit, namespace, n, samples, templates);
    // The last single rotations still roll out: `run` starts again over WebServices at rest.
    await sleep(2000);
    const settled = () => revisions.settled.size >= n;
    await until(`${n} WebServices Ready on their newest revision`, settled, ROTATION_TIMEOUT_MS, 100);
    controller.mustHaveNoErrors();
    const peakRssMiB = { rotation: rotationPeak, whole: controller.peakRssMiB() };
    await controller.stop();
    return { rotation, latency, peakRssMiB };
  } finally {
    await Promise.all([templates.stream.stop(), revisions.stream.stop()]);
  }
}

/**
 * The config case at N: `port` is the port-only burst of N that the run already made (the
 * every-field case's); without one, this case makes its own.
 */
export async function configCase(
  audit: Audit | undefined,
  tag: string,
  n: number,
  steadySeconds: number,
  samples: number,
  port?: Awaited<ReturnType<typeof workloadBurst>>,
) {
  const portBurst = port ?? (await workloadBurst(audit, `bench-workload-${n}-${tag}`, n, steadySeconds));
  const namespace = `bench-config-${tag}`;
  let after:
    | (Awaited<ReturnType<typeof rotations>> & { unreferenced: Awaited<ReturnType<typeof unreferencedSecrets>> })
    | undefined;
  const burst = await workloadBurst(audit, namespace, n, steadySeconds, 'own secret', async (controller) => {
    const rotated = await rotations(audit, controller, namespace, n, steadySeconds, samples);
    after = { ...rotated, unreferenced: await unreferencedSecrets(audit, namespace, n, steadySeconds) };
  });
  return { n, burst, portBurst, portBurstBy: port ? 'every-field' : 'config', ...after! };
}

// Issue 38: N WebServices, each reading its own Secret (workload.ts' burst). Every Secret rotated
// at once must roll each Deployment once, then leave a steady state without a write; single
// rotations are timed from the Secret's watch event to the new pod template's. Then `run` again
// over them through the counting proxy, without and with 10 unreferenced Secrets each beside
// them: its peak RSS, and what it received of them.
import { randomBytes } from 'node:crypto';
import { CONFIG_DIGEST_ANNOTATION } from '../../src/core/config';
import { AuditEvent } from './audit';
import { WatchLine, WatchStream, sendLists, webServiceName } from './cluster';
import { ControllerProcess, oneAtATime, steadyWindow } from './controller';
import { countingProxy } from './proxy';
import { kubectl, progress, round, sleep, until } from './proc';
import { WorkloadCase, WorkloadRun, ownSecret, ownSecretName, steadyState, workloadBurst } from './workload';
import type { WorkloadBurst } from './results';

type Templates = ReturnType<typeof watchTemplates>;

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
const REVISION_FIELDS = [
  '.metadata.name',
  '.status.conditions[?(@.type=="Ready")].status',
  '.status.currentRevision',
  '.status.updateRevision',
];

/** A watch that counts the objects it lists (a line per object), and the names it has seen. */
function watchEach(resource: string, namespace: string, fields: string[], onLine: (line: WatchLine) => void) {
  const seen = new Set<string>();
  const record = (line: WatchLine) => {
    seen.add(line.fields[0]);
    onLine(line);
  };
  return Object.assign(new WatchStream(resource, namespace, fields, record, { listEach: true }), { seen });
}

/** Waits until each watch has listed n objects: 1000 Deployments take kubectl seconds on a busy machine. */
async function listed(n: number, ...watches: ReturnType<typeof watchEach>[]): Promise<void> {
  const all = () => watches.every((w) => w.seen.size >= n);
  await until(`the watches to list ${n} objects each`, all, { timeoutMs: 120_000, everyMs: 50, watches });
}

/** Each Deployment's config digest on a watch, how often it changed since the watch began, and when last. */
function watchTemplates(namespace: string) {
  const [digests, changes, changedAt] = [
    new Map<string, string>(),
    new Map<string, number>(),
    new Map<string, number>(),
  ];
  const stream = watchEach('deployments', namespace, ['.metadata.name', DIGEST_FIELD], ({ atMs, fields }) => {
    const [name, digest = ''] = fields;
    const was = digests.get(name);
    digests.set(name, digest);
    if (was === undefined || was === digest) return;
    changes.set(name, (changes.get(name) ?? 0) + 1);
    changedAt.set(name, atMs);
  });
  return Object.assign(stream, { changes, changedAt });
}

/** Each WebService's revisions on a watch: which are Ready with every pod on their newest one, and on one past the first seen. */
function watchRevisions(namespace: string) {
  const [first, settled, moved] = [new Map<string, string>(), new Set<string>(), new Set<string>()];
  const mark = (set: Set<string>, name: string, member: boolean) => (member ? set.add(name) : set.delete(name));
  const stream = watchEach('webservices', namespace, REVISION_FIELDS, ({ fields: [name, ready, current, update] }) => {
    if (!first.has(name)) first.set(name, current);
    const isSettled = ready === 'True' && current === update;
    mark(settled, name, isSettled);
    mark(moved, name, isSettled && current !== first.get(name));
  });
  return Object.assign(stream, { settled, moved });
}

/** How many of `values` have each value. */
function countsOf(values: Iterable<number | string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Every Secret rotated at once, until each WebService is Ready on a new revision; then a steady state. */
async function rotateAll(run: WorkloadRun, templates: Templates, revisions: ReturnType<typeof watchRevisions>) {
  const { namespace, n } = run;
  await listed(n, templates, revisions);
  progress(`rotation: all ${n} Secrets at once`);
  const started = performance.now();
  const replaceMs = await sendLists('replace', namespace, n, (index) => ownSecret(index, 'rotated'));
  const rolled = () => revisions.moved.size >= n && templates.changes.size >= n;
  const watches = [templates, revisions];
  await until(`${n} WebServices Ready on a new revision`, rolled, {
    timeoutMs: ROTATION_TIMEOUT_MS,
    everyMs: 100,
    watches,
  });
  const readyMs = round(performance.now() - started);
  const steady = await steadyState(run);
  // Deployments by how many ReplicaSets they own.
  const owner = 'jsonpath={range .items[*]}{.metadata.ownerReferences[0].name}{"\\n"}{end}';
  const { stdout } = await kubectl(['get', 'replicasets', '-n', namespace, '-o', owner], { capture: true });
  return {
    replaceMs,
    readyMs,
    rolled: countsOf([...Array(n).keys()].map((i) => templates.changes.get(webServiceName(i)) ?? 0)),
    replicaSets: countsOf(Object.values(countsOf(stdout.split('\n').filter(Boolean)))),
    steady,
  };
}

/** Single rotations, one at a time: from the Secret's watch event to its Deployment's new template's. */
async function rotationLatency({ audit, namespace, n }: WorkloadRun, samples: number, templates: Templates) {
  progress(`${samples} single rotations, one at a time`);
  type Rotation = { secret: string; value: string; writtenAt?: number };
  let current: Rotation | undefined;
  const secrets = watchEach('secrets', namespace, ['.metadata.name', '.data.password'], ({ atMs, fields }) => {
    if (current && fields[0] === current.secret && fields[1] === current.value) current.writtenAt ??= atMs;
  });
  try {
    await listed(n, secrets);
    return await oneAtATime(audit, n, samples, [secrets, templates], async (i, index) => {
      const [name, password] = [webServiceName(index), `latency-${i}`];
      const rotation: Rotation = { secret: ownSecretName(index), value: Buffer.from(password).toString('base64') };
      current = rotation;
      const changes = templates.changes.get(name) ?? 0;
      const patch = JSON.stringify({ stringData: { password } });
      await kubectl(['patch', 'secret', rotation.secret, '-n', namespace, '-p', patch]);
      return () =>
        rotation.writtenAt !== undefined && (templates.changes.get(name) ?? 0) > changes
          ? templates.changedAt.get(name)! - rotation.writtenAt
          : undefined;
    });
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

/**
 * `run` started over the N converged WebServices, through the counting proxy: until every key
 * is reconciled, then `meanwhile`, then a window of steady state. What it read of Secrets: by
 * the audit log, its GETs of unreferenced ones; by the proxy, what it received.
 */
async function controllerOverConfig(
  { audit, namespace, n, steadySeconds }: WorkloadRun,
  meanwhile?: () => Promise<unknown>,
) {
  const proxy = await countingProxy(MARKER);
  const since = audit?.mark() ?? 0;
  let controller: ControllerProcess | undefined;
  try {
    controller = await ControllerProcess.start(namespace, { KUBECONFIG: proxy.kubeconfig });
    const reconciledMs = round(await controller.waitReconciled(n, 10 * 60_000));
    await meanwhile?.();
    const steady = await steadyWindow(audit, controller, n, steadySeconds);
    controller.mustHaveNoErrors();
    const peakRssMiB = controller.peakRssMiB();
    const unreferenced = (e: AuditEvent) => e.objectRef?.name?.startsWith(UNREFERENCED_PREFIX);
    const gets = audit && (await audit.requests(since, 'controller')).filter((e) => e.verb === 'get');
    const unreferencedGets = gets?.filter((e) => e.objectRef?.resource === 'secrets' && unreferenced(e)).length;
    const secrets = unreferencedGets === undefined ? null : { unreferencedGets };
    await controller.stop();
    const counts = await proxy.stop(); // its last count, once the controller is gone
    const received = {
      unreferencedRead: counts.secretsRead.filter((name) => name.startsWith(UNREFERENCED_PREFIX)).length,
      lists: counts.secretLists,
      metadataLists: counts.secretMetadataLists,
      marked: counts.marked,
    };
    return { reconciledMs, peakRssMiB, steady, secrets, received };
  } finally {
    await controller?.stop();
    await proxy.stop().catch(() => undefined);
  }
}

async function unreferencedSecrets(run: WorkloadRun) {
  const { namespace, n } = run;
  const count = UNREFERENCED_EACH * n;
  progress(`run over ${n} converged WebServices, without unreferenced Secrets`);
  const without = await controllerOverConfig(run);
  progress(`creating ${count} unreferenced Secrets of ${UNREFERENCED_BYTES} bytes`);
  await sendLists('create', namespace, count, unreferencedSecret(1));
  progress(`run over ${n} converged WebServices and ${count} unreferenced Secrets, rewritten meanwhile`);
  const withThem = await controllerOverConfig(run, () => sendLists('replace', namespace, count, unreferencedSecret(2)));
  return { count, bytes: UNREFERENCED_BYTES, without, with: withThem };
}

/** After the burst, on its controller: every Secret rotated at once, then single rotations, until all are at rest. */
async function rotations(run: WorkloadRun, controller: ControllerProcess, samples: number) {
  const { namespace, n } = run;
  const [templates, revisions] = [watchTemplates(namespace), watchRevisions(namespace)];
  try {
    const rotation = await rotateAll(run, templates, revisions);
    const rotationPeak = controller.peakRssMiB();
    const latency = await rotationLatency(run, samples, templates);
    // The last single rotations still roll out: `run` starts again over WebServices at rest.
    await sleep(2000);
    const settled = () => revisions.settled.size >= n;
    const what = `${n} WebServices Ready on their newest revision`;
    await until(what, settled, { timeoutMs: ROTATION_TIMEOUT_MS, everyMs: 100, watches: [revisions] });
    controller.mustHaveNoErrors();
    const peakRssMiB = { rotation: rotationPeak, whole: controller.peakRssMiB() };
    await controller.stop();
    return { rotation, latency, peakRssMiB };
  } finally {
    await Promise.all([templates.stop(), revisions.stop()]);
  }
}

/**
 * The config case at N: `port` is the port-only burst of N that the run already made (the
 * every-field case's); without one, this case makes its own.
 */
export async function configCase({ tag, samples, ...each }: WorkloadCase, port?: WorkloadBurst) {
  const portBurst = port ?? (await workloadBurst({ ...each, namespace: `bench-workload-${each.n}-${tag}` }));
  const run = { ...each, namespace: `bench-config-${tag}` };
  let after:
    | (Awaited<ReturnType<typeof rotations>> & { unreferenced: Awaited<ReturnType<typeof unreferencedSecrets>> })
    | undefined;
  const burst = await workloadBurst(run, 'own secret', async (controller) => {
    const rotated = await rotations(run, controller, samples);
    after = { ...rotated, unreferenced: await unreferencedSecrets(run) };
  });
  return { n: run.n, burst, portBurst, portBurstBy: port ? 'every-field' : 'config', ...after! };
}

// Bursts of workload WebServices on the workloads plane (kube-scheduler and KWOK beside the
// core plane): `run` on an empty namespace, N WebServices created at once, until each is Ready
// (its Deployment rolled out on fake pods); then a window of steady state, which must hold no
// write of ours. A port only (issue 17), every field (issues 27, 41), a Secret of its own
// (issue 38, config.ts), or behind an HTTPRoute with a canary (issue 40, canary.ts).
import { Audit } from './audit';
import { createNamespace, createWebServices, deleteNamespace, sendLists, webService, webServiceName } from './cluster';
import { ControllerProcess, ReadySet } from './controller';
import { Quiet } from './results';
import { DEFAULT_REQUEUE_AFTER_SECONDS } from '../../src/core/model';
import { EVERY_POD_FIELD, POD_FIELD_OBJECTS, POD_FIELD_PRIORITY_CLASS } from '../../harness/every-pod-field';
import { kubectl, progress, sleep } from './proc';

/** A port only, every field, a Secret of its own, one replica behind an HTTPRoute, or with a canary. */
type WorkloadFields = 'port' | 'every field' | 'own secret' | 'gateway' | 'canary';

const WORKLOAD_REPLICAS = 3;
const WORKLOAD_PORT = 8080;

/** The replicas of a burst's WebServices: one behind a route, to keep a canary's pods few. */
function replicasOf(fields: WorkloadFields): number {
  return fields === 'gateway' || fields === 'canary' ? 1 : WORKLOAD_REPLICAS;
}

/** The canary's steps: each WebService stops at the first pause, and a promote moves it from 10% to 50%. */
export const CANARY_STEPS = [{ weight: 10 }, { pause: {} }, { weight: 50 }, { pause: {} }] as const;

/** How long a burst may take to be all Ready. */
const BURST_TIMEOUT_SECONDS = 15 * 60;

/**
 * Every pod field, in the spellings the server rewrites, with requests small enough for the
 * fake Nodes. The progress deadline is the burst's own limit: kube-controller-manager's throttled
 * clients take minutes over 1000 rollouts, and the default would mark some stalled.
 */
const EVERY_FIELD_WORKLOAD = {
  ...EVERY_POD_FIELD,
  port: WORKLOAD_PORT,
  progressDeadlineSeconds: BURST_TIMEOUT_SECONDS,
  resources: { requests: { cpu: '0.01', memory: '0.0625Gi' }, limits: { cpu: 1, memory: '2Gi' } },
  // Issue 41's fields beside the pod's: the ones of the workload's other children.
  priorityClassName: POD_FIELD_PRIORITY_CLASS.metadata.name,
  networkPolicy: { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }] },
  autoscaling: {
    maxReplicas: 5,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '0.25Gi' } } },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
  },
};

/** The endpoint of WebService `index`: an Ingress with more hosts and annotations, or an HTTPRoute. */
function exposeOf(fields: WorkloadFields, index: number): Record<string, unknown> | undefined {
  const host = `${webServiceName(index)}.bench.example`;
  if (fields === 'every field') {
    return { host, additionalHosts: [`www.${host}`], annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' } };
  }
  return fields === 'gateway' || fields === 'canary' ? { host, gateway: { name: 'bench' } } : undefined;
}

/** The Secret that WebService `index` of an 'own secret' burst reads: its `password` is `value`. */
export function ownSecret(index: number, value: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: ownSecretName(index) },
    stringData: { password: value },
  };
}

export function ownSecretName(index: number): string {
  return `${webServiceName(index)}-db`;
}

/** With the every-field burst's progress deadline, for the same reason: its rotation rolls 1000 at once. */
function ownSecretWorkload(index: number): Record<string, unknown> {
  const env = [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: ownSecretName(index), key: 'password' } } }];
  return { port: WORKLOAD_PORT, progressDeadlineSeconds: BURST_TIMEOUT_SECONDS, env };
}

/** WebService `index` of a burst; `image`: another than webService's (a canary's new revision). */
export function workloadWebService(fields: WorkloadFields, image?: string): (index: number) => Record<string, unknown> {
  return (index) => {
    const workload =
      fields === 'every field'
        ? EVERY_FIELD_WORKLOAD
        : fields === 'own secret'
          ? ownSecretWorkload(index)
          : { port: WORKLOAD_PORT };
    const base = webService(index) as { spec: Record<string, unknown> };
    const expose = exposeOf(fields, index);
    return {
      ...base,
      spec: {
        ...base.spec,
        ...(image ? { image } : {}),
        replicas: replicasOf(fields),
        workload,
        ...(expose ? { expose } : {}),
        ...(fields === 'canary' ? { rollout: { canary: { steps: CANARY_STEPS } } } : {}),
      },
    };
  };
}

/** What a burst's WebServices read, created in the namespace before them. */
async function createReadObjects(namespace: string, n: number, fields: WorkloadFields): Promise<void> {
  if (fields === 'every field') {
    await kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(POD_FIELD_PRIORITY_CLASS) });
    const list = { apiVersion: 'v1', kind: 'List', items: POD_FIELD_OBJECTS };
    await kubectl(['create', '-n', namespace, '-f', '-'], { input: JSON.stringify(list) });
  } else if (fields === 'own secret') {
    await sendLists('create', namespace, n, (index) => ownSecret(index, 'initial'));
  }
}

/**
 * The pods a burst of N needs: with its own Secret, while all of them roll at once, one pod more
 * each (the Deployment's default surge of 25% of 3 replicas rounds up to 1); with a canary, its
 * one pod beside the stable one.
 */
export function podsNeeded(n: number, fields: WorkloadFields = 'port'): number {
  return n * (replicasOf(fields) + (fields === 'own secret' || fields === 'canary' ? 1 : 0));
}

/** The Ready, schedulable Nodes and the pods they hold in all; throws unless that is `wanted` or more. */
export async function checkWorkloadCapacity(wanted: number): Promise<{ nodes: number; pods: number }> {
  type Node = {
    spec?: { unschedulable?: boolean };
    status?: { allocatable?: { pods?: string }; conditions?: { type: string; status: string }[] };
  };
  const { items } = JSON.parse((await kubectl(['get', 'nodes', '-o', 'json'], { capture: true })).stdout) as {
    items: Node[];
  };
  const ready = (node: Node) => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  const usable = items.filter((node) => !node.spec?.unschedulable && ready(node));
  // A quantity: the server writes 1000 as `1k`.
  const pods = usable.reduce(
    (sum, node) => sum + Number((node.status?.allocatable?.pods ?? '0').replace(/k$/, '000')),
    0,
  );
  if (usable.length === 0 || !(pods >= wanted)) {
    throw new Error(
      `the workload cases need ${wanted} pods, the plane's ${usable.length} Ready Node(s) hold ${pods}: ` +
        'start it with WEBSERVICE_CP_WORKLOADS=true WEBSERVICE_CP_NODES=4 WEBSERVICE_CP_NODE_PODS=1000 (after control-plane.sh down)',
    );
  }
  return { nodes: usable.length, pods };
}

/** What a workload case runs with: the audit log, its namespace, its N and its window of steady state. */
export interface WorkloadRun {
  audit: Audit | undefined;
  namespace: string;
  n: number;
  steadySeconds: number;
}

/** A workload case of the run: its tag for namespaces, and how many single changes it times. */
export type WorkloadCase = Omit<WorkloadRun, 'namespace'> & { tag: string; samples: number };

/**
 * Quiet for longer than this, the controller is done with the burst. A burst's tail is
 * requeue-driven (a rollout is looked at again after the requeue period) and had lulls of 5 s:
 * a window opened after one quiet second took in the tail's last status patches (29 in a run).
 */
const SETTLED_QUIET_MS = (DEFAULT_REQUEUE_AFTER_SECONDS + 1) * 1000;

/**
 * A window of steady state, once a burst's last status patches and rollouts settled (5 s, and
 * our controller quiet for longer than its requeue period): our controller's requests about
 * the namespace.
 */
export async function steadyState({ audit, namespace, steadySeconds: seconds }: WorkloadRun): Promise<Quiet> {
  progress(`steady state for ${seconds}s`);
  const settling = audit?.mark() ?? 0;
  await sleep(5000);
  // Not quiet within two minutes: the window shows what it still sends.
  await audit?.countSettled(settling, 'controller', SETTLED_QUIET_MS, 120_000).catch(() => undefined);
  const since = audit?.mark() ?? 0;
  await sleep(seconds * 1000);
  return { seconds, byClient: audit ? { controller: await audit.count(since, 'controller', namespace) } : {} };
}

/**
 * The burst, from the creates to all Ready, then a window of steady state; `then` goes on with
 * the same controller and namespace before they go (a rotation after the burst).
 */
export async function workloadBurst(
  run: WorkloadRun,
  fields: WorkloadFields = 'port',
  then?: (controller: ControllerProcess) => Promise<void>,
) {
  const { namespace, n } = run;
  const capacity = await checkWorkloadCapacity(podsNeeded(n, fields));
  await createNamespace(namespace);
  await createReadObjects(namespace, n, fields);
  const controller = await ControllerProcess.start(namespace);
  const ready = new ReadySet(namespace);
  try {
    await sleep(1000); // the watch is open before the first create
    progress(
      `workload burst (${fields}): ${n} WebServices × ${replicasOf(fields)} replicas on ${capacity.nodes} fake Nodes`,
    );
    const started = performance.now();
    const createMs = await createWebServices(namespace, n, workloadWebService(fields));
    await ready.all(n, BURST_TIMEOUT_SECONDS * 1000);
    const readyMs = Math.round(performance.now() - started);
    const steady = await steadyState(run);
    controller.mustHaveNoErrors();
    const result = {
      n,
      fields,
      replicas: replicasOf(fields),
      nodes: capacity.nodes,
      podCapacity: capacity.pods,
      readyMs,
      createMs,
      peakRssMiB: controller.peakRssMiB(),
      steady,
    };
    await then?.(controller);
    return result;
  } finally {
    await ready.watch.stop();
    await controller.stop();
    progress(`deleting namespace ${namespace}`);
    await deleteNamespace(namespace);
  }
}

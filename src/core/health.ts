// How healthy an object of each kind is, in a word and a few facts: what describe's tree
// shows, and the kind table's and the descendant table's health column. Pure: an object in,
// its state out.
import type { ConditionStatus, Deployment, ObjectMeta } from './model';
import { rolloutOf } from './rollout';

/** A node's state in one word, which the printer colours. */
export type NodeState =
  | 'Ready'
  | 'Progressing'
  | 'Pending'
  | 'OutOfDate'
  | 'Missing'
  | 'Conflict'
  | 'Unwanted'
  | 'Failed'
  | 'Completed'
  | 'ScaledDown'
  | 'Terminating'
  | 'Unknown';

/** An object's state and the facts behind it. */
export interface Health {
  state: NodeState;
  /** The facts behind the state, in a few words: "2/2 ready", "Running, 1/1 ready, 0 restarts". */
  info: string;
  /** Why it is not Ready, in the words of whoever said so (the API server, a controller, decide). */
  message?: string;
  /** A pod's phase, its ready containers and their restarts. */
  pod?: { phase: string; ready: string; restarts: number };
  /** An EndpointSlice's or a Service's endpoints: how many are ready, of how many, and where. */
  endpoints?: { ready: number; total: number; addresses: string[] };
}

/** What a child's health may depend on besides the object: the spec, and what lies under it. */
export interface HealthContext {
  /** The replicas the WebService asks for. */
  desiredReplicas: number;
  /** The health of the objects under it (a Service's EndpointSlices). */
  descendants: Health[];
}

/** Any object describe reads: metadata, and whatever spec and status its kind has. */
export interface LiveObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
}

export function configMapHealth(live: LiveObject): Health {
  const data = (live.data ?? {}) as Record<string, string>;
  const info = Object.entries(data)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
  return { state: 'Ready', info: info || 'no data' };
}

interface StatusCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const conditionsOf = (object: LiveObject): StatusCondition[] =>
  Array.isArray(object.status?.conditions) ? (object.status.conditions as StatusCondition[]) : [];

const failureOf = (object: LiveObject): StatusCondition | undefined =>
  conditionsOf(object).find((c) => c.type === 'ReplicaFailure' && c.status === 'True');

const said = (c: StatusCondition) => `${c.type} ${c.reason ?? ''}: ${c.message ?? ''}`.replace(' :', ':');

export function deploymentHealth(live: LiveObject, { desiredReplicas: desired }: HealthContext): Health {
  const deployment = live as unknown as Deployment;
  const rollout = rolloutOf(deployment, desired, false);
  const status = deployment.status ?? {};
  const info =
    `${rollout.ready}/${desired} ready, ${status.updatedReplicas ?? 0} up to date, ` +
    `${status.availableReplicas ?? 0} available`;
  if (rollout.complete) return { state: 'Ready', info };
  const failure = failureOf(live);
  if (failure) return { state: 'Failed', info, message: said(failure) };
  if (rollout.stalled) {
    const progressing = conditionsOf(live).find((c) => c.type === 'Progressing');
    return { state: 'Failed', info, message: progressing ? said(progressing) : 'its progress deadline was exceeded' };
  }
  return { state: 'Progressing', info };
}

export function serviceHealth(live: LiveObject, { descendants: children }: HealthContext): Health {
  const spec = live.spec ?? {};
  const ports = ((spec.ports as { port?: number }[] | undefined) ?? []).map((p) => p.port).join(',');
  const where = `${textOr(spec.type, 'ClusterIP')} ${textOr(spec.clusterIP, '')}`.trim();
  const slices = children.filter((c) => c.endpoints);
  const ready = slices.reduce((sum, c) => sum + (c.endpoints?.ready ?? 0), 0);
  const total = slices.reduce((sum, c) => sum + (c.endpoints?.total ?? 0), 0);
  const addresses = slices.flatMap((c) => c.endpoints?.addresses ?? []);
  const info = `${where}${ports ? ` port ${ports}` : ''}; ${ready} ready endpoint${ready === 1 ? '' : 's'}`;
  return { state: ready > 0 ? 'Ready' : 'Progressing', info, endpoints: { ready, total, addresses } };
}

/**
 * A PodDisruptionBudget, from what the disruption controller reports: Ready once it has seen
 * the current spec and as many pods are healthy as it wants; how many evictions it allows now.
 */
export function podDisruptionBudgetHealth(live: LiveObject): Health {
  const status = live.status ?? {};
  const healthy = Number(status.currentHealthy ?? 0);
  const wanted = Number(status.desiredHealthy ?? 0);
  const allowed = Number(status.disruptionsAllowed ?? 0);
  const observed = Number(status.observedGeneration ?? 0) >= Number(live.metadata.generation ?? 0);
  const info = `${healthy}/${wanted} healthy, ${allowed} disruption${allowed === 1 ? '' : 's'} allowed`;
  if (!observed || status.desiredHealthy === undefined) return { state: 'Progressing', info: 'not yet counted' };
  return { state: healthy >= wanted ? 'Ready' : 'Progressing', info };
}

/**
 * A NetworkPolicy has no status: what it allows is enforced (or not) by the network plugin,
 * which reports nothing on it. Ready once it exists; what it admits, in a few words.
 */
export function networkPolicyHealth(live: LiveObject): Health {
  const ingress = (live.spec as { ingress?: { from?: unknown[] }[] } | undefined)?.ingress ?? [];
  const peers = ingress.reduce((sum, rule) => sum + (rule.from?.length ?? 0), 0);
  return { state: 'Ready', info: `ingress from ${peers} peer${peers === 1 ? '' : 's'}, the app's pods among them` };
}

/** A condition a child gives its WebService (the kind table's condition column), without its type and times. */
export interface ChildCondition {
  status: ConditionStatus;
  reason: string;
  message: string;
}

/**
 * Whether a HorizontalPodAutoscaler can do its work, in its own words: False with the reason
 * and message of its first condition that says it cannot (AbleToScale, then ScalingActive: no
 * metrics, say); True once it scales on a metric; Unknown before its controller has looked.
 */
export function autoscalerCondition(live: LiveObject): ChildCondition {
  const conditions = conditionsOf(live);
  const failing = ['AbleToScale', 'ScalingActive']
    .map((type) => conditions.find((c) => c.type === type))
    .find((c) => c !== undefined && c.status === 'False');
  if (failing) return { status: 'False', reason: failing.reason || failing.type, message: failing.message ?? '' };
  const active = conditions.find((c) => c.type === 'ScalingActive' && c.status === 'True');
  if (active) return { status: 'True', reason: active.reason || active.type, message: active.message ?? '' };
  return {
    status: 'Unknown',
    reason: 'NotEvaluated',
    message: `horizontalpodautoscaler/${live.metadata.name} has not been evaluated by its controller yet`,
  };
}

/** A HorizontalPodAutoscaler: Ready while it scales on its metrics; why not, in its own words. */
export function horizontalPodAutoscalerHealth(live: LiveObject): Health {
  const spec = live.spec ?? {};
  const status = live.status ?? {};
  const info =
    `${Number(status.currentReplicas ?? 0)}/${Number(status.desiredReplicas ?? 0)} replicas, ` +
    `${Number(spec.minReplicas ?? 1)} to ${Number(spec.maxReplicas ?? 0)}`;
  const condition = autoscalerCondition(live);
  if (condition.status === 'True') return { state: 'Ready', info };
  if (condition.status === 'Unknown') return { state: 'Progressing', info: 'not yet evaluated' };
  return { state: 'Failed', info, message: `${condition.reason}: ${condition.message}` };
}

export function replicaSetHealth(object: LiveObject): Health {
  const desired = Number(object.spec?.replicas ?? 0);
  const status = object.status ?? {};
  const ready = Number(status.readyReplicas ?? 0);
  const current = Number(status.replicas ?? 0);
  const revision = object.metadata.annotations?.['deployment.kubernetes.io/revision'];
  const info = `${revision ? `revision ${revision}, ` : ''}${ready}/${desired} ready`;
  const failure = failureOf(object);
  if (failure) return { state: 'Failed', info, message: said(failure) };
  if (desired === 0 && current === 0) return { state: 'ScaledDown', info };
  return { state: ready === desired && current === desired ? 'Ready' : 'Progressing', info };
}

interface ContainerStatus {
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string; message?: string }; terminated?: { reason?: string; message?: string } };
}

/** Waiting reasons that need someone to act: a pod in one is failing, not starting. */
const FAILING_WAIT_REASONS = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

export function podHealth(object: LiveObject): Health {
  const status = object.status ?? {};
  const phase = textOr(status.phase, 'Unknown');
  const containers = (object.spec?.containers as unknown[] | undefined)?.length ?? 0;
  const statuses = (status.containerStatuses as ContainerStatus[] | undefined) ?? [];
  const readyCount = statuses.filter((s) => s.ready === true).length;
  const restarts = statuses.reduce((sum, s) => sum + (s.restartCount ?? 0), 0);
  const pod = { phase, ready: `${readyCount}/${containers}`, restarts };
  const info = `${phase}, ${pod.ready} ready, ${restarts} restart${restarts === 1 ? '' : 's'}`;
  const base = { info, pod };
  if (object.metadata.deletionTimestamp) return { ...base, state: 'Terminating' };
  if (phase === 'Failed') return { ...base, state: 'Failed', message: podMessage(status) };
  if (phase === 'Succeeded') return { ...base, state: 'Completed' };
  const waiting = statuses.map((s) => s.state?.waiting).find((w) => w?.reason && FAILING_WAIT_REASONS.has(w.reason));
  if (waiting) return { ...base, state: 'Failed', message: `${waiting.reason}: ${waiting.message ?? ''}`.trim() };
  const conditions = conditionsOf(object);
  if (conditions.some((c) => c.type === 'Ready' && c.status === 'True')) return { ...base, state: 'Ready' };
  if (phase === 'Pending') {
    const unscheduled = conditions.find((c) => c.type === 'PodScheduled' && c.status === 'False');
    return { ...base, state: 'Pending', ...(unscheduled ? { message: said(unscheduled) } : {}) };
  }
  return { ...base, state: 'Progressing' };
}

function podMessage(status: Record<string, unknown>): string {
  return [status.reason, status.message].filter((part) => typeof part === 'string' && part !== '').join(': ');
}

interface Endpoint {
  addresses?: string[];
  conditions?: { ready?: boolean };
}

export function endpointSliceHealth(object: LiveObject): Health {
  const endpoints = (object.endpoints as Endpoint[] | undefined) ?? [];
  const ports = ((object.ports as { port?: number }[] | undefined) ?? []).map((p) => p.port).filter(Boolean);
  // An endpoint whose ready condition is unset counts as ready (the API's own rule).
  const ready = endpoints.filter((e) => e.conditions?.ready !== false);
  const addresses = ready.flatMap((e) => e.addresses ?? []).map((a) => (ports.length > 0 ? `${a}:${ports[0]}` : a));
  const shown = addresses.slice(0, MAX_ADDRESSES).join(', ') + (addresses.length > MAX_ADDRESSES ? ', …' : '');
  const info = `${ready.length}/${endpoints.length} ready${shown ? `: ${shown}` : ''}`;
  return {
    state: ready.length > 0 ? 'Ready' : 'Progressing',
    info,
    endpoints: { ready: ready.length, total: endpoints.length, addresses },
  };
}

/** Addresses listed on a line before it says "…". */
const MAX_ADDRESSES = 3;

/** A string field of a loosely typed object, or the fallback. */
function textOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

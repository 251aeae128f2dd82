// The workload children of a WebService with spec.workload: a Deployment, with a port a
// ClusterIP Service, with a disruption budget a PodDisruptionBudget, with autoscaling a
// HorizontalPodAutoscaler, all named after the WebService. Pure: their desired objects, whole,
// as server-side apply sends them.
import { podSelector } from './labels';
import { API_VERSION, Child, Deployment, Json, KIND, ObjectMeta } from './model';
import type { DesiredState } from './observation';
import { podTemplate, spreadsByDefault, workloadPorts } from './pod';
import type { PodWanted } from './pod';
import { TRACK_LABEL, Track } from './canary-requests';

/**
 * On a Deployment whose replica count its HorizontalPodAutoscaler owns: our apply leaves
 * spec.replicas out, and the count was handed over (see replicasHandover) before it did.
 */
export const REPLICAS_ANNOTATION = 'webservice.labhub.io/replicas';
const REPLICAS_FROM_AUTOSCALER = 'autoscaler';

/** On the ConfigMap: this WebService has (or had) workload children, so readers look for them. */
export const WORKLOAD_ANNOTATION = 'webservice.labhub.io/workload';

/** A desired child as server-side apply sends it. */
export interface DesiredObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: Json;
}

export interface WorkloadWanted extends PodWanted {
  replicas: number;
  /**
   * With autoscaling and a rollout: the autoscaler scales the WebService (its scale
   * subresource sets spec.replicas, the total of stable and canary pods), not the Deployment,
   * whose count is then ours, split by the canary.
   */
  scalesWebService?: true;
  /** With spec.rollout: which pods these are, on the template (not in the selector, which cannot change). */
  track?: Track;
}

/** The lab's ConfigMap data: what the spec says, as strings. The lab reads it; the pods do not. */
export function desiredData(desired: DesiredState): Record<string, string> {
  return { image: desired.image, replicas: String(desired.replicas), tier: desired.tier };
}

/** What the workload's children are made from, or null without spec.workload. */
export function workloadWanted(name: string, desired: DesiredState): WorkloadWanted | null {
  if (!desired.workload) return null;
  return {
    name,
    image: desired.image,
    tier: desired.tier,
    // With a rollout, the autoscaler's count within its bounds (totalReplicas).
    replicas: totalReplicas(desired),
    workload: desired.workload,
    ...(desired.rollout && desired.workload.autoscaling ? { scalesWebService: true as const } : {}),
    selector: podSelector(name, desired.legacySelector === true),
    ...(desired.configDigest !== undefined ? { configDigest: desired.configDigest } : {}),
    ...(desired.configSnapshots ? { configSnapshots: desired.configSnapshots } : {}),
    ...(spreadsByDefault(desired.workload, desired.replicas) ? { spread: true as const } : {}),
  };
}

/**
 * With autoscaling, spec.replicas is the HorizontalPodAutoscaler's: our apply leaves it out,
 * and the annotation says so, which is how a pass knows a handover is due. A new Deployment is
 * created at the autoscaler's minimum, its count handed over from the start (replicasHandover).
 */
export function desiredDeployment(metadata: ObjectMeta, want: WorkloadWanted): DesiredObject {
  const { workload } = want;
  const spec: Json = {};
  if (workload.autoscaling && !want.scalesWebService) {
    metadata.annotations = { ...metadata.annotations, [REPLICAS_ANNOTATION]: REPLICAS_FROM_AUTOSCALER };
  } else {
    spec.replicas = want.replicas;
  }
  // Sent only when the spec sets it: otherwise the server's default, which is the same.
  if (workload.progressDeadlineSeconds !== undefined) spec.progressDeadlineSeconds = workload.progressDeadlineSeconds;
  if (workload.strategy !== undefined) spec.strategy = workload.strategy;
  spec.selector = { matchLabels: want.selector };
  spec.template = tracked(podTemplate(want), want.track);
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec };
}

/** A pod template with the track label: outside podTemplate, so that it is no part of a revision. */
function tracked(template: Json, track: Track | undefined): Json {
  if (!track) return template;
  const metadata = template.metadata as { labels: Record<string, string> };
  return { ...template, metadata: { ...metadata, labels: { ...metadata.labels, [TRACK_LABEL]: track } } };
}

/**
 * The Deployment to apply first when the desired one switches to the Recreate strategy and the
 * live one still holds `spec.strategy.rollingUpdate`; null otherwise. The server defaults
 * rollingUpdate, and the default belongs to no field manager once an apply of ours has left
 * it out; server-side apply never removes a field it does not own, so an apply of
 * `{type: Recreate}` alone keeps it, and is refused ("may not be specified when strategy type
 * is 'Recreate'") for as long as it stays. Applying the live rollingUpdate as ours first makes
 * it ours; the apply that follows, without it, then removes it. A rollingUpdate that another
 * field manager set stays theirs: that apply is still refused, and says so.
 */
export function rollingUpdateTakeover(want: DesiredObject, live: Child): DesiredObject | null {
  const strategy = want.spec.strategy as { type?: string } | undefined;
  const liveStrategy = (live as { spec?: { strategy?: { rollingUpdate?: unknown } } }).spec?.strategy;
  if (strategy?.type !== 'Recreate' || liveStrategy?.rollingUpdate === undefined) return null;
  return {
    ...want,
    spec: { ...want.spec, strategy: { type: 'RollingUpdate', rollingUpdate: liveStrategy.rollingUpdate } },
  };
}

/** A ClusterIP Service on the container's ports, named as they are; null without spec.workload.port. */
export function desiredService(metadata: ObjectMeta, want: WorkloadWanted): DesiredObject | null {
  const { port } = want.workload;
  if (port === undefined) return null;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata,
    spec: {
      type: 'ClusterIP',
      selector: want.selector,
      ports: workloadPorts(want.workload).map(({ name, port, protocol }) => ({
        name,
        port,
        targetPort: port,
        protocol,
      })),
    },
  };
}

/**
 * A NetworkPolicy over the workload's pods: only its own pods and the spec's peers may reach
 * the container's ports (all of them, where it names none); null without
 * spec.workload.networkPolicy. Ingress only: what the pods reach is theirs to say.
 */
export function desiredNetworkPolicy(metadata: ObjectMeta, want: WorkloadWanted): DesiredObject | null {
  const policy = want.workload.networkPolicy;
  if (!policy) return null;
  const from = [{ podSelector: { matchLabels: want.selector } }, ...(policy.from ?? [])];
  const ports = workloadPorts(want.workload).map(({ port, protocol }) => ({ port, protocol }));
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata,
    spec: {
      podSelector: { matchLabels: want.selector },
      policyTypes: ['Ingress'],
      ingress: [{ from, ...(ports.length > 0 ? { ports } : {}) }],
    },
  };
}

/**
 * A PodDisruptionBudget over the workload's pods (the Deployment's selector), so that a node
 * drain leaves as many running as the spec asks; null without spec.workload.disruption.
 */
export function desiredPodDisruptionBudget(metadata: ObjectMeta, want: WorkloadWanted): DesiredObject | null {
  const { disruption } = want.workload;
  if (!disruption) return null;
  const spec: Json = { selector: { matchLabels: want.selector } };
  if (disruption.maxUnavailable !== undefined) spec.maxUnavailable = disruption.maxUnavailable;
  if (disruption.minAvailable !== undefined) spec.minAvailable = disruption.minAvailable;
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata, spec };
}

/**
 * The replicas handover (Kubernetes' Server-Side Apply, "Transferring ownership"): before our
 * apply first leaves spec.replicas to the autoscaler, an apply of spec.replicas alone, at its
 * live value, by a field manager of its own. Were we its only owner, our apply without it
 * would make the server reset it to 1; co-owned, it keeps its value until the autoscaler's
 * first update through /scale takes it over whole. Null when no handover is due: no
 * autoscaling, or the live Deployment was applied for the autoscaler already.
 *
 * A live count below the autoscaler's minimum is handed over at the minimum. The autoscaler
 * would raise it there itself, except from 0: a target at 0 replicas is one it leaves alone
 * ("scaling is disabled since the replica count of the target is zero"), so a WebService
 * scaled to 0 before it asked for autoscaling would keep no pod at all.
 *
 * No live Deployment (a new one, or one deleted by hand): it is created at the minimum, and
 * the handover's manager owns that count from the start. Created without it, it would start
 * at the server's default of 1, and run (and look rolled out) below its floor until the
 * autoscaler's first look; created with it as ours, our next apply would reset it to 1.
 */
export function replicasHandover(live: Deployment | null, want: WorkloadWanted): DesiredObject | null {
  const { autoscaling } = want.workload;
  if (!autoscaling || want.scalesWebService) return null;
  const minimum = autoscalerMinimum(autoscaling, want.replicas);
  if (!live) return replicasAt({ name: want.name }, minimum);
  if (live.metadata.annotations?.[REPLICAS_ANNOTATION] === REPLICAS_FROM_AUTOSCALER) return null;
  const replicas = live.spec?.replicas;
  if (replicas === undefined) return null;
  const { name, namespace } = live.metadata;
  return replicasAt({ name, namespace }, Math.max(replicas, minimum));
}

export function replicasAt(metadata: ObjectMeta, replicas: number): DesiredObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec: { replicas } };
}

/**
 * With a rollout, the autoscaler's count: spec.replicas, which it sets through the WebService's
 * scale subresource, within its bounds (a count outside them is one it has yet to correct).
 */
function autoscaledTotal(autoscaling: { minReplicas?: number; maxReplicas: number }, replicas: number): number {
  return Math.min(autoscaling.maxReplicas, Math.max(replicas, autoscalerMinimum(autoscaling, replicas)));
}

/** How many pods the stable and the canary Deployments have together: a canary splits this. */
export function totalReplicas(desired: DesiredState): number {
  const autoscaling = desired.workload?.autoscaling;
  return autoscaling && desired.rollout ? autoscaledTotal(autoscaling, desired.replicas) : desired.replicas;
}

/** The autoscaler's minReplicas: the spec's minReplicas, else spec.replicas (see docs/webservice.md, Autoscaling). */
function autoscalerMinimum(autoscaling: { minReplicas?: number }, replicas: number): number {
  return autoscaling.minReplicas ?? replicas;
}

/** The API server's default target of an autoscaler: 80% of the pods' CPU request. */
const DEFAULT_CPU_TARGET = 80;

/**
 * A HorizontalPodAutoscaler aimed at the Deployment (with a rollout, at the WebService),
 * between minReplicas (unset: spec.replicas) and maxReplicas; with the spec's behavior, when
 * it has one. Its metrics are the spec's, or the CPU target (admission refuses both), else the
 * API server's default (80% CPU), always sent: the list is atomic and wholly ours. The server hands an autoscaler's
 * metrics other than a CPU utilisation to whoever last updated the object by any other means
 * than an apply (even a label), so a list we left out would stay theirs; applied with force,
 * ours replaces it. Null without spec.workload.autoscaling.
 */
export function desiredHorizontalPodAutoscaler(metadata: ObjectMeta, want: WorkloadWanted): DesiredObject | null {
  const { autoscaling } = want.workload;
  if (!autoscaling) return null;
  // With a rollout, the WebService: the autoscaler measures the stable and the canary pods (its
  // status.selector), and its count is the total that the canary splits.
  const target = want.scalesWebService
    ? { apiVersion: API_VERSION, kind: KIND, name: want.name }
    : { apiVersion: 'apps/v1', kind: 'Deployment', name: want.name };
  const cpu = autoscaling.targetCPUUtilizationPercentage ?? DEFAULT_CPU_TARGET;
  const spec: Json = {
    scaleTargetRef: target,
    minReplicas: autoscalerMinimum(autoscaling, want.replicas),
    maxReplicas: autoscaling.maxReplicas,
    metrics: autoscaling.metrics ?? [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: cpu } } },
    ],
  };
  if (autoscaling.behavior !== undefined) spec.behavior = autoscaling.behavior;
  return { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata, spec };
}

/**
 * How many pods the Deployment should have: spec.replicas; with autoscaling, the count its
 * autoscaler set on the live Deployment, and never fewer than the autoscaler's minimum (a
 * count below it is one the autoscaler has yet to raise: its pods are not all there yet).
 */
export function podsWanted(desired: DesiredState, deployment: Deployment | null): number {
  const autoscaling = desired.workload?.autoscaling;
  if (!autoscaling) return desired.replicas;
  if (desired.rollout) return totalReplicas(desired);
  const minimum = autoscalerMinimum(autoscaling, desired.replicas);
  return Math.max(deployment?.spec?.replicas ?? minimum, minimum);
}

// The workload children of a WebService with spec.workload: a Deployment and, with a port,
// a ClusterIP Service, both named after the WebService. Pure: desired objects, and the
// comparison of only the fields we set, so server defaults never cause a write.
import {
  Container,
  Deployment,
  INSTANCE_LABEL,
  NAME_LABEL,
  Service,
  ServicePort,
  childName,
  fnv1a32,
  instanceLabelValue,
} from './model';

/** Rolls the pods when the ConfigMap they read (envFrom) changes. */
const CONFIG_HASH_ANNOTATION = 'webservice.labhub.io/config-hash';
/** On the ConfigMap: this WebService has (or had) workload children, so readers look for them. */
export const WORKLOAD_ANNOTATION = 'webservice.labhub.io/workload';
const TIER_LABEL = 'webservice.labhub.io/tier';
const CONTAINER_NAME = 'web';
/**
 * A Deployment's progressDeadlineSeconds when its spec leaves it out: the default of
 * Kubernetes' apps/v1 (k8s.io/api apps/v1 DeploymentSpec). Unset in our spec means this.
 */
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
/** How soon `apply --wait` looks at a rollout again. */
export const ROLLOUT_POLL_SECONDS = 5;

export interface WorkloadChange {
  field: string;
  from: string | null;
  to: string | null;
}

/** The pods' selector: labels that never change for a WebService (never the tier). */
function selectorLabels(parentName: string): Record<string, string> {
  return { [NAME_LABEL]: 'webservice', [INSTANCE_LABEL]: instanceLabelValue(parentName) };
}

export function selectorString(parentName: string): string {
  return Object.entries(selectorLabels(parentName))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** Keys of the ConfigMap's data that do not roll the pods when they change. */
const UNHASHED_KEYS = new Set(['replicas']);

/**
 * A deterministic hash of the ConfigMap's desired data: the same data, the same pods.
 * Not of replicas: scaling (kubectl scale, an HPA) must not restart every pod; the pods'
 * replicas variable is as of their start, like any environment read from a ConfigMap.
 */
export function configHash(data: Record<string, string>): string {
  const keys = Object.keys(data)
    .filter((key) => !UNHASHED_KEYS.has(key))
    .sort();
  return fnv1a32(JSON.stringify(keys.map((key) => [key, data[key]])));
}

export interface WorkloadWanted {
  name: string;
  namespace: string;
  image: string;
  replicas: number;
  tier: string;
  port?: number;
  progressDeadlineSeconds?: number;
  configData: Record<string, string>;
}

function desiredContainer(want: WorkloadWanted): Container {
  const container: Container = { name: CONTAINER_NAME, image: want.image };
  if (want.port !== undefined) container.ports = [{ containerPort: want.port }];
  container.envFrom = [{ configMapRef: { name: childName(want.name) } }];
  return container;
}

function podLabels(want: WorkloadWanted): Record<string, string> {
  return { ...selectorLabels(want.name), [TIER_LABEL]: want.tier };
}

export function desiredDeploymentSpec(want: WorkloadWanted): NonNullable<Deployment['spec']> {
  return {
    replicas: want.replicas,
    // Sent only when the spec sets it: otherwise the server's default, which is the same.
    ...(want.progressDeadlineSeconds === undefined ? {} : { progressDeadlineSeconds: want.progressDeadlineSeconds }),
    selector: { matchLabels: selectorLabels(want.name) },
    template: {
      metadata: {
        labels: podLabels(want),
        annotations: { [CONFIG_HASH_ANNOTATION]: configHash(want.configData) },
      },
      spec: { containers: [desiredContainer(want)] },
    },
  };
}

export function desiredServiceSpec(want: WorkloadWanted & { port: number }): NonNullable<Service['spec']> {
  return {
    type: 'ClusterIP',
    selector: selectorLabels(want.name),
    ports: [{ port: want.port, targetPort: want.port }],
  };
}

/** The patch of a Deployment's spec for the fields that differ; empty when none do. */
export function deploymentSpecChanges(
  want: WorkloadWanted,
  have: Deployment,
): { changes: WorkloadChange[]; spec?: Record<string, unknown> } {
  const changes: WorkloadChange[] = [];
  const spec = desiredDeploymentSpec(want);
  const template: Record<string, unknown> = {};
  const templateMeta: Record<string, unknown> = {};
  const patch: Record<string, unknown> = {};

  const replicas = have.spec?.replicas;
  if (replicas !== want.replicas) {
    changes.push({
      field: 'spec.replicas',
      from: replicas === undefined ? null : String(replicas),
      to: String(want.replicas),
    });
    patch.replicas = want.replicas;
  }
  // Unset on either side is the server's default: removing it from the spec puts the default back.
  const wantDeadline = want.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
  const haveDeadline = have.spec?.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
  if (haveDeadline !== wantDeadline) {
    changes.push({
      field: 'spec.progressDeadlineSeconds',
      from: String(haveDeadline),
      to: String(wantDeadline),
    });
    patch.progressDeadlineSeconds = wantDeadline;
  }
  // Labels and annotations others put on the pod template stay: only our keys are compared and sent.
  const labels = diffMap(
    'spec.template.metadata.labels',
    podLabels(want),
    have.spec?.template?.metadata?.labels,
    changes,
  );
  if (labels) templateMeta.labels = labels;
  const annotations = diffMap(
    'spec.template.metadata.annotations',
    spec.template?.metadata?.annotations ?? {},
    have.spec?.template?.metadata?.annotations,
    changes,
  );
  if (annotations) templateMeta.annotations = annotations;
  if (Object.keys(templateMeta).length > 0) template.metadata = templateMeta;

  const wantContainer = desiredContainer(want);
  const containers = listOf(have.spec?.template?.spec?.containers);
  const differs = containerDiffers(wantContainer, containers);
  if (differs) {
    changes.push({ field: 'spec.template.spec.containers', from: differs.from, to: describeContainer(wantContainer) });
    // A merge patch replaces the whole list: the container goes as we want it, which drops
    // fields others set on it. It is the container we own; the pod spec's other fields stay.
    template.spec = { containers: [wantContainer] };
  }
  if (Object.keys(template).length > 0) patch.template = template;
  return Object.keys(patch).length > 0 ? { changes, spec: patch } : { changes };
}

/** Our container's fields against the live list: only what we set (image, ports, envFrom). */
function containerDiffers(want: Container, have: Container[]): { from: string | null } | null {
  if (have.length !== 1 || have[0].name !== want.name) {
    return { from: have.length === 0 ? null : have.map((c) => c.name).join(',') };
  }
  const live = have[0];
  const sameImage = live.image === want.image;
  const samePorts = portsOf(live).join(',') === portsOf(want).join(',');
  const sameEnv = envFromOf(live).join(',') === envFromOf(want).join(',');
  return sameImage && samePorts && sameEnv ? null : { from: describeContainer(live) };
}

function portsOf(container: Container): string[] {
  // Input from outside (a file, a hand-edited object) may have any shape: a non-list is none.
  return listOf(container.ports).map((p) => String(p.containerPort));
}

function envFromOf(container: Container): string[] {
  return listOf(container.envFrom).map((e) =>
    e.configMapRef ? `configmap:${e.configMapRef.name ?? ''}` : e.secretRef ? `secret:${e.secretRef.name ?? ''}` : '?',
  );
}

function listOf<T>(value: T[] | undefined): T[] {
  return Array.isArray(value) ? value : [];
}

function describeContainer(container: Container): string {
  const ports = portsOf(container);
  const env = envFromOf(container);
  return `${container.name} image=${container.image ?? ''} ports=[${ports.join(',')}] envFrom=[${env.join(',')}]`;
}

/** The patch of a Service's spec for the fields that differ; empty when none do. */
export function serviceSpecChanges(
  want: WorkloadWanted & { port: number },
  have: Service,
): { changes: WorkloadChange[]; spec?: Record<string, unknown> } {
  const changes: WorkloadChange[] = [];
  const patch: Record<string, unknown> = {};
  const spec = desiredServiceSpec(want);
  // The server defaults type to ClusterIP; any other type someone set is put back.
  const type = have.spec?.type ?? 'ClusterIP';
  if (type !== 'ClusterIP') {
    changes.push({ field: 'spec.type', from: type, to: 'ClusterIP' });
    patch.type = 'ClusterIP';
  }
  const selector = diffMap('spec.selector', spec.selector ?? {}, have.spec?.selector, changes);
  if (selector) patch.selector = selector;
  const wantPorts = describePorts(spec.ports ?? []);
  const havePorts = describePorts(listOf(have.spec?.ports));
  if (wantPorts !== havePorts) {
    changes.push({ field: 'spec.ports', from: havePorts || null, to: wantPorts });
    // A merge patch replaces the list; protocol and the like are defaulted again by the server.
    patch.ports = spec.ports;
  }
  return Object.keys(patch).length > 0 ? { changes, spec: patch } : { changes };
}

/** Only port and targetPort: protocol, name and the like are server defaults or others'. */
function describePorts(ports: ServicePort[]): string {
  return ports.map((p) => `${p.port}->${String(p.targetPort ?? p.port)}`).join(',');
}

/** Our keys of a map against the live one; the patch of the keys that differ, or null. */
function diffMap(
  field: string,
  want: Record<string, string>,
  have: Record<string, string> | undefined,
  changes: WorkloadChange[],
): Record<string, string> | null {
  let patch: Record<string, string> | null = null;
  for (const [key, value] of Object.entries(want)) {
    const current = have && Object.hasOwn(have, key) ? have[key] : null;
    if (current !== value) {
      changes.push({ field: `${field}.${key}`, from: current, to: value });
      patch = { ...(patch ?? {}), [key]: value };
    }
  }
  return patch;
}

/** Where a Deployment's rollout stands, from its status. */
export interface Rollout {
  desired: number;
  ready: number;
  /** The Deployment controller has seen the current spec, and every pod is new, available and ready. */
  complete: boolean;
  /** Its Progressing condition says ProgressDeadlineExceeded. */
  stalled: boolean;
}

/** specChanged: this pass writes the Deployment's spec, so its status is about the old one. */
export function rolloutOf(deployment: Deployment | null, desired: number, specChanged: boolean): Rollout {
  const status = deployment?.status ?? {};
  const ready = status.readyReplicas ?? 0;
  if (!deployment || specChanged) return { desired, ready, complete: false, stalled: false };
  const observed = (status.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0);
  const complete =
    observed &&
    (status.updatedReplicas ?? 0) === desired &&
    (status.availableReplicas ?? 0) === desired &&
    ready === desired &&
    (status.replicas ?? 0) === desired;
  const stalled =
    !complete &&
    listOf(status.conditions).some((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded');
  return { desired, ready, complete, stalled };
}

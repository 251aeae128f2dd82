// The pod template a WebService's workload runs: its container `web`, its sidecars and init
// containers, and the pod around them, built from spec.workload. Every pod field is written
// here once; the CRD carries the Kubernetes types' own schemas for them, and the comparison
// (compare.ts) knows how the server stores them. Pure.
import { CONFIG_DIGEST_ANNOTATION, ConfigSnapshot } from './config';
import { appLabels } from './labels';
import {
  ConfigKind,
  FileMount,
  INSTANCE_LABEL,
  Json,
  MANAGED_BY_LABEL,
  NAME_LABEL,
  WorkloadSpec,
  fnv1a32,
} from './model';

export const CONTAINER_NAME = 'web';
/** The name of the container's port and of the Service's: probes may name it. */
export const PORT_NAME = 'http';
const TIER_LABEL = 'webservice.labhub.io/tier';

/** What the pod template is made from: the spec, and the pods' selector (labels.ts). */
export interface PodWanted {
  name: string;
  image: string;
  tier: string;
  workload: WorkloadSpec;
  selector: Record<string, string>;
  /** The digest of the Secrets' and ConfigMaps' content the pods read (config.ts); unset: none rolls them. */
  configDigest?: string;
  /** The snapshots the pods read instead of their sources (config.ts): each source's name becomes its snapshot's. */
  configSnapshots?: ConfigSnapshot[];
  /** The pods get the default spread over hosts and zones (spreadsByDefault). */
  spread?: true;
}

/** The name the pods read a Secret or ConfigMap by: its snapshot's, where it has one. */
type ConfigNames = (kind: ConfigKind, name: unknown) => unknown;

function configNames(want: PodWanted): ConfigNames {
  const snapshots = want.configSnapshots ?? [];
  if (snapshots.length === 0) return (_, name) => name;
  return (kind, name) => snapshots.find((s) => s.kind === kind && s.source === name)?.name ?? name;
}

/**
 * The restricted Pod Security Standard's requirements, set by `podSecurity: restricted`
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted).
 * Fields the spec sets itself win over these.
 */
const RESTRICTED_CONTAINER: Json = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  runAsNonRoot: true,
  seccompProfile: { type: 'RuntimeDefault' },
};
const RESTRICTED_POD: Json = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

const PROBES = ['readinessProbe', 'livenessProbe', 'startupProbe'] as const;

/** Probe fields the server turns from 0 (or unset) into a default: 0 is stored as the default. */
const PROBE_DEFAULTS: Record<string, number> = {
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
};

/**
 * The pod labels that are ours, which spec.workload.podLabels may not set: the recommended
 * ones (labels.ts; the selector's among them), and the tier's. Admission refuses them there
 * (the CRD has the same list); ours would win anyway.
 */
export const OWN_POD_LABELS: readonly string[] = [MANAGED_BY_LABEL, NAME_LABEL, INSTANCE_LABEL, TIER_LABEL];

/** The pod's fields of spec.workload that it takes as they are, under the same names. */
const POD_FIELDS_AS_GIVEN = [
  'serviceAccountName',
  'imagePullSecrets',
  'nodeSelector',
  'tolerations',
  'affinity',
  'topologySpreadConstraints',
  'priorityClassName',
  'terminationGracePeriodSeconds',
] as const;

/** The container's fields of spec.workload that `web` takes as they are. */
const CONTAINER_FIELDS_AS_GIVEN = ['command', 'args', 'resources', 'lifecycle'] as const;

export function podTemplate(want: PodWanted): Json {
  const { workload } = want;
  // The spec's own labels and annotations first: ours (the recommended ones, the selector's) win.
  const labels = { ...workload.podLabels, ...appLabels(want.name), ...want.selector, [TIER_LABEL]: want.tier };
  const annotations: Record<string, string> = { ...workload.podAnnotations };
  if (want.configDigest !== undefined) annotations[CONFIG_DIGEST_ANNOTATION] = want.configDigest;
  const spec: Json = { containers: [container(want)] };
  const init = initContainers(workload, configNames(want));
  if (init.length > 0) spec.initContainers = init;
  // files' volumes, then the spec's own, which admission keeps apart by name (FILES_VOLUME_PREFIX).
  const volumes = [
    ...(workload.files ?? []).map((file) => fileVolume(file, configNames(want))),
    ...(workload.volumes ?? []),
  ];
  if (volumes.length > 0) spec.volumes = volumes;
  for (const field of POD_FIELDS_AS_GIVEN) if (workload[field] !== undefined) spec[field] = workload[field];
  if (want.spread) spec.topologySpreadConstraints = defaultSpread(want.selector);
  const security = securityContext(
    workload.podSecurity === 'restricted' ? RESTRICTED_POD : {},
    workload.podSecurityContext,
  );
  if (security) spec.securityContext = security;
  return { metadata: Object.keys(annotations).length > 0 ? { labels, annotations } : { labels }, spec };
}

/**
 * Whether the pods are spread over hosts and zones by default: when the spec can run more than
 * one pod (spec.replicas, or with autoscaling its maxReplicas: the spec's numbers, never the
 * live count, which would change the template each time it crossed 1), places them no way of
 * its own (no topologySpreadConstraints, no affinity), mounts no PersistentVolumeClaim (a
 * ReadWriteOnce claim attaches to one node: pods spread to others would wait on it), and does
 * not turn it off (defaultSpread: false). Without it, a drain of one node can take every pod.
 */
export function spreadsByDefault(workload: WorkloadSpec, replicas: number): boolean {
  if (workload.defaultSpread === false) return false;
  if (workload.topologySpreadConstraints !== undefined || workload.affinity !== undefined) return false;
  if ((workload.volumes ?? []).some((volume) => volume.persistentVolumeClaim !== undefined)) return false;
  return (workload.autoscaling?.maxReplicas ?? replicas) > 1;
}

/** The well-known labels the default spread is over: one pod per host, then per zone, where it can. */
const DEFAULT_SPREAD_KEYS = ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'] as const;

/**
 * The default spread: ScheduleAnyway, so that it only ranks nodes and never keeps a pod from
 * scheduling (one node, or nodes without a zone label, still take every pod), and needs no
 * read of the Nodes. Over the pods' selector: a canary's pods and the stable ones count as one.
 */
function defaultSpread(selector: Record<string, string>): Json[] {
  return DEFAULT_SPREAD_KEYS.map((topologyKey) => ({
    maxSkew: 1,
    topologyKey,
    whenUnsatisfiable: 'ScheduleAnyway',
    labelSelector: { matchLabels: selector },
  }));
}

function container(want: PodWanted): Json {
  const { workload } = want;
  const web: Json = { name: CONTAINER_NAME, image: want.image };
  for (const field of CONTAINER_FIELDS_AS_GIVEN) if (workload[field] !== undefined) web[field] = workload[field];
  const ports = workloadPorts(workload);
  if (ports.length > 0) web.ports = ports.map(({ name, port, protocol }) => ({ name, containerPort: port, protocol }));
  // The app's environment is the spec's alone: nothing of ours (the lab's ConfigMap) is in it.
  const named = configNames(want);
  if (workload.envFrom !== undefined) web.envFrom = workload.envFrom.map((s) => envSource(s, named));
  if (workload.env !== undefined) web.env = workload.env.map((v) => envVar(v, named));
  for (const probe of PROBES) if (workload[probe] !== undefined) web[probe] = workload[probe];
  const mounts = [
    ...(workload.files ?? []).map((file) => ({
      name: fileVolumeName(file),
      mountPath: file.mountPath,
      readOnly: true,
    })),
    ...(workload.volumeMounts ?? []),
  ];
  if (mounts.length > 0) web.volumeMounts = mounts;
  if (workload.securityContext !== undefined) web.securityContext = workload.securityContext;
  return asStored(web, workload);
}

/**
 * The pod's initContainers: the sidecars first (restartPolicy Always: Kubernetes' native
 * sidecars), then the init containers, each list in the spec's order. The kubelet starts them
 * in this order, each sidecar once it has started and each init container once the one before
 * it has completed: so the init containers (a migration) can use the sidecars (the proxy it
 * reaches the database through).
 */
function initContainers(workload: WorkloadSpec, named: ConfigNames): Json[] {
  const sidecars = (workload.sidecars ?? []).map((c) =>
    asStored({ ...withConfigNames(c, named), restartPolicy: 'Always' }, workload),
  );
  return [...sidecars, ...(workload.initContainers ?? []).map((c) => asStored(withConfigNames(c, named), workload))];
}

/** A container whose env and envFrom read each Secret and ConfigMap by its snapshot's name, where it has one. */
function withConfigNames(given: Json, named: ConfigNames): Json {
  const out: Json = { ...given };
  if (Array.isArray(given.envFrom)) out.envFrom = (given.envFrom as Json[]).map((s) => envSource(s, named));
  if (Array.isArray(given.env)) out.env = (given.env as Json[]).map((v) => envVar(v, named));
  return out;
}

/** A container (web, a sidecar, an init container) as the server stores it, under podSecurity's profile. */
function asStored(given: Json, workload: WorkloadSpec): Json {
  const stored: Json = { ...given };
  for (const probe of PROBES) if (given[probe] !== undefined) stored[probe] = probeAsStored(given[probe] as Json);
  const profile = workload.podSecurity === 'restricted' ? RESTRICTED_CONTAINER : {};
  const security = securityContext(profile, given.securityContext as Json | undefined);
  if (security) stored.securityContext = security;
  return stored;
}

/** A port of the container, by name: spec.workload.port's, http, or one of spec.workload.ports. */
interface WorkloadPort {
  name: string;
  port: number;
  protocol: string;
}

/** The container's ports: spec.workload.port, named http, then spec.workload.ports (TCP where unset, as the CRD defaults). */
export function workloadPorts(workload: WorkloadSpec): WorkloadPort[] {
  const main = workload.port !== undefined ? [{ name: PORT_NAME, port: workload.port, protocol: 'TCP' }] : [];
  const more = (workload.ports ?? []).map(({ name, port, protocol }) => ({ name, port, protocol: protocol ?? 'TCP' }));
  return [...main, ...more];
}

/** A profile's fields under the spec's own; undefined when neither sets anything. */
function securityContext(profile: Json, own: Json | undefined): Json | undefined {
  const merged = { ...profile, ...own };
  return Object.keys(merged).length > 0 ? merged : undefined;
}

function probeAsStored(probe: Json): Json {
  const stored: Json = { ...probe };
  for (const [field, value] of Object.entries(PROBE_DEFAULTS)) {
    if (stored[field] === 0) stored[field] = value;
  }
  return stored;
}

/** How the names of files' volumes begin: spec.workload.volumes may not use it (the CRD has the same rule). */
export const FILES_VOLUME_PREFIX = 'files-';

/** A volume's name from its mount path: the same path, the same volume, in whatever order. */
function fileVolumeName(file: FileMount): string {
  return `${FILES_VOLUME_PREFIX}${fnv1a32(file.mountPath)}`;
}

function fileVolume(file: FileMount, named: ConfigNames): Json {
  const source: Json = {};
  if (file.items !== undefined) source.items = file.items;
  if (file.optional !== undefined) source.optional = file.optional;
  return file.secret !== undefined
    ? { name: fileVolumeName(file), secret: { secretName: named('Secret', file.secret), ...source } }
    : { name: fileVolumeName(file), configMap: { name: named('ConfigMap', file.configMap), ...source } };
}

/** A reference to a Secret's or ConfigMap's key or keys, by the name the pods read it by. */
function renamed(ref: unknown, kind: ConfigKind, named: ConfigNames): unknown {
  if (typeof ref !== 'object' || ref === null) return ref;
  const { name } = ref as Json;
  const to = named(kind, name);
  return to === name ? ref : { ...(ref as Json), name: to };
}

function envVar(variable: Json, named: ConfigNames): Json {
  const from = variable.valueFrom as Json | undefined;
  if (!from || (from.secretKeyRef === undefined && from.configMapKeyRef === undefined)) return variable;
  const valueFrom: Json = { ...from };
  if (from.secretKeyRef !== undefined) valueFrom.secretKeyRef = renamed(from.secretKeyRef, 'Secret', named);
  if (from.configMapKeyRef !== undefined) valueFrom.configMapKeyRef = renamed(from.configMapKeyRef, 'ConfigMap', named);
  return { ...variable, valueFrom };
}

function envSource(source: Json, named: ConfigNames): Json {
  const out: Json = { ...source };
  if (source.secretRef !== undefined) out.secretRef = renamed(source.secretRef, 'Secret', named);
  if (source.configMapRef !== undefined) out.configMapRef = renamed(source.configMapRef, 'ConfigMap', named);
  return out;
}

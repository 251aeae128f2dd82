// The pod template a WebService's workload runs: its one container `web` and the pod around
// it, built from spec.workload. Every pod field is written here once; the CRD carries the
// Kubernetes types' own schemas for them, and the comparison (compare.ts) knows how the
// server stores them. Pure.
import { CONFIG_DIGEST_ANNOTATION } from './config';
import { appLabels } from './labels';
import { FileMount, WorkloadSpec, fnv1a32 } from './model';

type Json = Record<string, unknown>;

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

/** Probe fields the server turns from 0 (or unset) into a default: 0 is stored as the default. */
const PROBE_DEFAULTS: Record<string, number> = {
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
};

export function podTemplate(want: PodWanted): Json {
  const { workload } = want;
  // The spec's own labels and annotations first: ours (the recommended ones, the selector's) win.
  const labels = { ...workload.podLabels, ...appLabels(want.name), ...want.selector, [TIER_LABEL]: want.tier };
  const annotations: Record<string, string> = { ...workload.podAnnotations };
  if (want.configDigest !== undefined) annotations[CONFIG_DIGEST_ANNOTATION] = want.configDigest;
  const spec: Json = { containers: [container(want)] };
  const files = workload.files ?? [];
  if (files.length > 0) spec.volumes = files.map(fileVolume);
  if (workload.serviceAccountName !== undefined) spec.serviceAccountName = workload.serviceAccountName;
  if (workload.imagePullSecrets !== undefined) spec.imagePullSecrets = workload.imagePullSecrets;
  const security = securityContext(
    workload.podSecurity === 'restricted' ? RESTRICTED_POD : {},
    workload.podSecurityContext,
  );
  if (security) spec.securityContext = security;
  return { metadata: Object.keys(annotations).length > 0 ? { labels, annotations } : { labels }, spec };
}

function container(want: PodWanted): Json {
  const { workload } = want;
  const web: Json = { name: CONTAINER_NAME, image: want.image };
  if (workload.command !== undefined) web.command = workload.command;
  if (workload.args !== undefined) web.args = workload.args;
  if (workload.port !== undefined) web.ports = [{ name: PORT_NAME, containerPort: workload.port, protocol: 'TCP' }];
  // The app's environment is the spec's alone: nothing of ours (the lab's ConfigMap) is in it.
  if (workload.envFrom !== undefined) web.envFrom = workload.envFrom;
  if (workload.env !== undefined) web.env = workload.env;
  if (workload.resources !== undefined) web.resources = workload.resources;
  for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe'] as const) {
    const given = workload[probe];
    if (given !== undefined) web[probe] = probeAsStored(given);
  }
  const files = workload.files ?? [];
  if (files.length > 0) {
    web.volumeMounts = files.map((file) => ({ name: fileVolumeName(file), mountPath: file.mountPath, readOnly: true }));
  }
  const profile = workload.podSecurity === 'restricted' ? RESTRICTED_CONTAINER : {};
  const security = securityContext(profile, workload.securityContext);
  if (security) web.securityContext = security;
  return web;
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

/** A volume's name from its mount path: the same path, the same volume, in whatever order. */
function fileVolumeName(file: FileMount): string {
  return `files-${fnv1a32(file.mountPath)}`;
}

function fileVolume(file: FileMount): Json {
  const source: Json = {};
  if (file.items !== undefined) source.items = file.items;
  if (file.optional !== undefined) source.optional = file.optional;
  return file.secret !== undefined
    ? { name: fileVolumeName(file), secret: { secretName: file.secret, ...source } }
    : { name: fileVolumeName(file), configMap: { name: file.configMap, ...source } };
}

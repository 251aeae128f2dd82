// Shape checks for JSON that comes from outside (files, stdin). Pure.
// Never trust CR content: anything that does not have the expected shape is refused
// with a message naming the field, before the core sees it.
import { ACTIONS, Decision } from './decide';
import { APPLIED_KINDS, CONFIG_MAP, NAMED_KINDS, OPTIONAL_KINDS, WATCHED_KINDS, rowId } from './kinds';
import { Child, ConfigMap, ConfigState, Json, SyncInput, WebService } from './model';
import type { Observation } from './observation';
import { unresolvedProbePorts } from './probes';
import { CONTAINER_NAME, FILES_VOLUME_PREFIX, OWN_POD_LABELS, PORT_NAME } from './pod';
import { MAX_RESOURCE_NAMES, RESOURCE_NAMES, isResourceName } from './resource-names';
import { Embedded, SchemaNode, isEmbedded, ownSchema } from './spec-schema';

export class InputError extends Error {}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A port's name (an IANA service name), but its length and its '--'. */
const IANA_SVC_NAME = /^(?=.*[a-z])[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_INT32 = 2147483647;
const WORKLOAD_SCHEMA = ownSchema('spec', 'workload');

/** A WebService name as the API server accepts it; anything else could escape the URL path. */
export function isValidName(name: string): boolean {
  return name.length <= 253 && DNS_SUBDOMAIN.test(name);
}

export function isValidNamespace(namespace: string): boolean {
  return namespace.length <= 63 && DNS_LABEL.test(namespace);
}

export function checkName(name: string, what = 'name'): string {
  need(isValidName(name), `invalid ${what} "${name}": must be a lowercase RFC 1123 subdomain (e.g. checkout)`);
  return name;
}

export function checkNamespace(namespace: string, what = 'namespace'): string {
  need(
    isValidNamespace(namespace),
    `invalid ${what} "${namespace}": must be a lowercase RFC 1123 label (e.g. crd-lab)`,
  );
  return namespace;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function need(condition: boolean, message: string): void {
  if (!condition) throw new InputError(message);
}

function checkWebService(value: unknown, where: string): WebService {
  need(isObject(value), `${where} must be a WebService object`);
  const ws = value as Json;
  need(isObject(ws.metadata) && typeof ws.metadata.name === 'string', `${where}.metadata.name must be a string`);
  need(isObject(ws.spec), `${where}.spec must be an object`);
  const spec = ws.spec as Json;
  need(typeof spec.image === 'string' && spec.image !== '', `${where}.spec.image must be a non-empty string`);
  need(spec.replicas === undefined || Number.isInteger(spec.replicas), `${where}.spec.replicas must be an integer`);
  need(spec.tier === undefined || typeof spec.tier === 'string', `${where}.spec.tier must be a string`);
  need(
    spec.dependsOn === undefined ||
      (Array.isArray(spec.dependsOn) && spec.dependsOn.every((d) => typeof d === 'string')),
    `${where}.spec.dependsOn must be a list of names`,
  );
  const workload = spec.workload;
  need(workload === undefined || isObject(workload), `${where}.spec.workload must be an object`);
  const port = (workload as Json | undefined)?.port;
  need(
    port === undefined || (Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535),
    `${where}.spec.workload.port must be an integer from 1 to 65535`,
  );
  const deadline = (workload as Json | undefined)?.progressDeadlineSeconds;
  need(
    deadline === undefined ||
      (Number.isInteger(deadline) && (deadline as number) >= 1 && (deadline as number) <= MAX_INT32),
    `${where}.spec.workload.progressDeadlineSeconds must be an integer from 1 to ${MAX_INT32}`,
  );
  if (isObject(workload)) {
    checkPodFields(workload, `${where}.spec.workload`);
    checkAutoscaling(workload.autoscaling, spec.replicas ?? 1, `${where}.spec.workload.autoscaling`);
  }
  checkExpose(spec.expose, port, `${where}.spec.expose`);
  return value as WebService;
}

/** What the CRD's schema and rules admit under spec.expose (the CRD has the same rules). */
function checkExpose(expose: unknown, port: unknown, where: string): void {
  if (expose === undefined) return;
  need(isObject(expose), `${where} must be an object`);
  const { host, additionalHosts, annotations, path, tls, ingressClassName, gateway } = expose as Json;
  need(port !== undefined, `${where} needs spec.workload.port: the Service on that port is what it exposes`);
  need(
    typeof host === 'string' && host.length <= 253 && DNS_SUBDOMAIN.test(host),
    `${where}.host must be a DNS name such as shop.example.com`,
  );
  need(
    additionalHosts === undefined ||
      (Array.isArray(additionalHosts) &&
        additionalHosts.every((h) => typeof h === 'string' && h.length <= 253 && DNS_SUBDOMAIN.test(h))),
    `${where}.additionalHosts must be a list of DNS names`,
  );
  need(!Array.isArray(additionalHosts) || !additionalHosts.includes(host), `${where}.additionalHosts repeats host`);
  need(
    annotations === undefined ||
      (isObject(annotations) && Object.values(annotations).every((v) => typeof v === 'string')),
    `${where}.annotations must map strings to strings`,
  );
  need(path === undefined || (typeof path === 'string' && path.startsWith('/')), `${where}.path must start with /`);
  need(
    tls === undefined || (isObject(tls) && typeof tls.secretName === 'string' && tls.secretName !== ''),
    `${where}.tls.secretName must be a Secret's name`,
  );
  need(
    ingressClassName === undefined || typeof ingressClassName === 'string',
    `${where}.ingressClassName must be a string`,
  );
  need(
    gateway === undefined || (isObject(gateway) && typeof gateway.name === 'string' && gateway.name !== ''),
    `${where}.gateway.name must be a Gateway's name`,
  );
  need(
    ingressClassName === undefined || gateway === undefined,
    `${where}: ingressClassName and gateway exclude each other`,
  );
  need(
    tls === undefined || gateway === undefined,
    `${where}.tls cannot go with a gateway: TLS is set on the Gateway's listener`,
  );
}

/**
 * The pod's fields, from a file: the shapes the builder reads, as the schema declares them. The
 * cluster's copy was checked at admission against the Kubernetes types' own schemas (the CRD
 * carries them).
 */
function checkPodFields(workload: Json, where: string): void {
  checkShapes(WORKLOAD_SCHEMA, workload, where);
  const ours = Object.keys((workload.podLabels as Json | undefined) ?? {}).filter((key) =>
    OWN_POD_LABELS.includes(key),
  );
  need(
    ours.length === 0,
    `${where}.podLabels cannot set ${ours.join(', ')}: the WebService sets ${OWN_POD_LABELS.join(', ')} on its pods (the recommended ones and the tier's)`,
  );
  checkResourceNames(workload.resources as Json | undefined, `${where}.resources`);
  const limit = workload.revisionHistoryLimit;
  need(
    limit === undefined || (Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= 100),
    `${where}.revisionHistoryLimit must be an integer from 1 to 100`,
  );
  const grace = workload.terminationGracePeriodSeconds;
  need(
    grace === undefined || (Number.isInteger(grace) && (grace as number) >= 0),
    `${where}.terminationGracePeriodSeconds must be an integer of 0 or more`,
  );
  checkExtraContainers(workload, checkVolumes(workload, where), where);
  checkPorts(workload.ports as Json[] | undefined, workload.port as number | undefined, `${where}.ports`);
  const unresolved = unresolvedProbePorts(workload);
  need(unresolved.length === 0, `${where}.${unresolved[0]}`);
  checkDisruption(workload.disruption, `${where}.disruption`);
  for (const [i, file] of ((workload.files as Json[] | undefined) ?? []).entries()) {
    need(
      (typeof file.configMap === 'string') !== (typeof file.secret === 'string'),
      `${where}.files[${i}] must name one configMap or one secret`,
    );
  }
}

/**
 * What the schema says of each field's shape that is set (or required): a list of strings or of
 * objects, an object, a map of strings, a string, one of an enum, true or false; the fields of a
 * list's objects too. Numbers, and objects' own fields, have checks of their own.
 */
function checkShapes(schema: SchemaNode, value: Json, where: string): void {
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    const item = value[key];
    if (item === undefined && !schema.required?.includes(key)) continue;
    const at = `${where}.${key}`;
    const shape = shapeOf(field);
    if (shape === 'strings' || shape === 'objects') {
      need(Array.isArray(item), `${at} must be a list`);
      const each = shape === 'strings' ? (entry: unknown) => typeof entry === 'string' : isObject;
      need((item as unknown[]).every(each), `${at} must be a list of ${shape}`);
      const items = isEmbedded(field) ? undefined : field.items;
      if (items && !isEmbedded(items)) (item as Json[]).forEach((entry, i) => checkShapes(items, entry, `${at}[${i}]`));
    } else if (shape === 'object' || shape === 'map') {
      need(isObject(item), `${at} must be an object`);
      need(
        shape === 'object' || Object.values(item as Json).every((v) => typeof v === 'string'),
        `${at} must map strings to strings`,
      );
    } else if (shape === 'string') {
      need(typeof item === 'string', `${at} must be a string`);
    } else if (shape === 'boolean') {
      need(typeof item === 'boolean', `${at} must be true or false`);
    } else if (Array.isArray(shape)) {
      need(shape.includes(item as string), `${at} must be ${shape.join(' or ')}`);
    }
  }
}

/** A field's shape as checkShapes checks it; undefined for a number (or a number or a string). */
function shapeOf(field: SchemaNode | Embedded): Embedded['shape'] | 'map' | 'boolean' | string[] | undefined {
  if (isEmbedded(field)) return field.shape;
  if (field.enum) return field.enum;
  if (field.type === 'array')
    return field.items && !isEmbedded(field.items) && field.items.type === 'string' ? 'strings' : 'objects';
  if (field.type === 'object') return field.additionalProperties ? 'map' : 'object';
  if (field.type === 'string' || field.type === 'boolean') return field.type;
  return undefined;
}

/** What the API server would refuse in the container's resources, and the CRD refuses at admission: a name it does not know. */
function checkResourceNames(resources: Json | undefined, where: string): void {
  for (const field of ['requests', 'limits']) {
    const quantities = resources?.[field];
    if (!isObject(quantities)) continue;
    need(
      Object.keys(quantities).length <= MAX_RESOURCE_NAMES,
      `${where}.${field} may name at most ${MAX_RESOURCE_NAMES} resources`,
    );
    for (const name of Object.keys(quantities)) {
      need(
        isResourceName(name),
        `${where}.${field}: "${name}" is not a resource name; a resource name is one of ${RESOURCE_NAMES}`,
      );
    }
  }
}

const VOLUME_SOURCES = ['emptyDir', 'persistentVolumeClaim', 'projected'];

/** What the CRD's schema and rules say of spec.workload.volumes and volumeMounts; the volumes' names. */
function checkVolumes(workload: Json, where: string): unknown[] {
  const volumes = (workload.volumes as Json[] | undefined) ?? [];
  const names: unknown[] = [];
  for (const [i, volume] of volumes.entries()) {
    const { name } = volume;
    const at = `${where}.volumes[${i}]`;
    need(typeof name === 'string' && name.length <= 63 && DNS_LABEL.test(name), `${at}.name must be a DNS label`);
    need(
      !(name as string).startsWith(FILES_VOLUME_PREFIX),
      `${at}.name: ${FILES_VOLUME_PREFIX}… are the names of the volumes of spec.workload.files: choose another`,
    );
    need(!names.includes(name), `${at}.name: ${name as string} is the name of another volume`);
    need(
      VOLUME_SOURCES.filter((source) => volume[source] !== undefined).length === 1,
      `${at} must be one of ${VOLUME_SOURCES.join(', ')}`,
    );
    names.push(name);
  }
  const files = ((workload.files as Json[] | undefined) ?? []).map((file) => file.mountPath);
  checkMounts(workload.volumeMounts, names, files, `${where}.volumeMounts`);
  return names;
}

/** Fields a container that runs to completion may not have: Kubernetes refuses them on an init container. */
const NOT_FOR_INIT = ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe', 'restartPolicy'];

/** What the CRD's rules say of sidecars and initContainers: their names, their fields, their mounts. */
function checkExtraContainers(workload: Json, volumes: unknown[], where: string): void {
  const names: unknown[] = [CONTAINER_NAME];
  for (const list of ['sidecars', 'initContainers'] as const) {
    for (const [i, container] of ((workload[list] as Json[] | undefined) ?? []).entries()) {
      const at = `${where}.${list}[${i}]`;
      const { name, restartPolicy } = container;
      need(typeof name === 'string' && name.length <= 63 && DNS_LABEL.test(name), `${at}.name must be a DNS label`);
      need(
        !names.includes(name),
        name === CONTAINER_NAME
          ? `${at}.name: ${CONTAINER_NAME} is the name of the main container: choose another`
          : `${at}.name: ${name as string} is the name of another sidecar or init container`,
      );
      names.push(name);
      if (list === 'sidecars') {
        need(
          restartPolicy === undefined || restartPolicy === 'Always',
          `${at}.restartPolicy: a sidecar's is Always (one that runs to completion is an init container)`,
        );
      } else {
        const extra = NOT_FOR_INIT.filter((field) => container[field] !== undefined);
        need(
          extra.length === 0,
          `${at} cannot have ${extra.join(', ')}: an init container runs to completion (a sidecar, in sidecars, may)`,
        );
      }
      need(typeof container.image === 'string' && container.image !== '', `${at}.image must be a non-empty string`);
      checkMounts(container.volumeMounts, volumes, [], `${at}.volumeMounts`);
    }
  }
}

/** A container's volumeMounts: each of a volume of spec.workload.volumes, at a path no other mount of it has. */
function checkMounts(mounts: unknown, volumes: unknown[], filePaths: unknown[], where: string): void {
  const paths = [...filePaths];
  for (const [i, { name, mountPath }] of ((mounts as Json[] | undefined) ?? []).entries()) {
    need(volumes.includes(name), `${where}[${i}].name: ${String(name)} names no volume of spec.workload.volumes`);
    need(
      !paths.includes(mountPath),
      `${where}[${i}].mountPath: ${String(mountPath)} has another mount (${filePaths.includes(mountPath) ? 'one of files' : 'of volumeMounts'})`,
    );
    paths.push(mountPath);
  }
}

/** What the CRD's schema and rules say of spec.workload.ports: named ports apart from http and from each other. */
function checkPorts(ports: Json[] | undefined, main: number | undefined, where: string): void {
  const names = new Set<unknown>();
  const numbers = new Set<string>(main === undefined ? [] : [`${main}/TCP`]);
  for (const [i, { name, port, protocol = 'TCP' }] of (ports ?? []).entries()) {
    need(
      typeof name === 'string' && name.length <= 15 && IANA_SVC_NAME.test(name) && !name.includes('--'),
      `${where}[${i}].name must be a port's name: at most 15 lowercase letters, digits and '-', a letter among them`,
    );
    need(name !== PORT_NAME, `${where}[${i}].name: ${PORT_NAME} is the name of spec.workload.port: choose another`);
    need(!names.has(name), `${where}[${i}].name: ${String(name)} is the name of another port`);
    need(
      Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535,
      `${where}[${i}].port must be an integer from 1 to 65535`,
    );
    const key = `${String(port)}/${String(protocol)}`;
    need(!numbers.has(key), `${where}[${i}]: ${key} is the number and protocol of another port`);
    names.add(name);
    numbers.add(key);
  }
}

/** A count of pods (0 or more) or a percentage of them ("25%"): the PodDisruptionBudget's intstr. */
function isPodCount(value: unknown): boolean {
  return (Number.isInteger(value) && (value as number) >= 0) || (typeof value === 'string' && /^[0-9]+%$/.test(value));
}

function checkDisruption(disruption: unknown, where: string): void {
  if (disruption === undefined) return;
  need(isObject(disruption), `${where} must be an object`);
  const { maxUnavailable, minAvailable } = disruption as Json;
  need(
    (maxUnavailable === undefined) !== (minAvailable === undefined),
    `${where} must set one of maxUnavailable or minAvailable`,
  );
  for (const [field, value] of Object.entries({ maxUnavailable, minAvailable })) {
    need(value === undefined || isPodCount(value), `${where}.${field} must be a count of pods or a percentage`);
  }
}

/** A count of replicas an HorizontalPodAutoscaler accepts: 1 or more, an int32. */
function isReplicaCount(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_INT32;
}

/**
 * What the CRD's rules say: 1 <= minReplicas (unset: spec.replicas) <= maxReplicas, a target of
 * 1% or more, and not both a target and metrics.
 */
function checkAutoscaling(autoscaling: unknown, replicas: unknown, where: string): void {
  if (autoscaling === undefined) return;
  need(isObject(autoscaling), `${where} must be an object`);
  const { minReplicas, maxReplicas, targetCPUUtilizationPercentage: target } = autoscaling as Json;
  need(isReplicaCount(maxReplicas), `${where}.maxReplicas must be an integer of 1 or more`);
  need(
    minReplicas === undefined || isReplicaCount(minReplicas),
    `${where}.minReplicas must be an integer of 1 or more`,
  );
  const floor = minReplicas ?? replicas;
  need(
    isReplicaCount(floor),
    `${where}.minReplicas is unset, so spec.replicas is the autoscaler's minimum: it must be 1 or more`,
  );
  need(
    (floor as number) <= (maxReplicas as number),
    `${where}: ${minReplicas === undefined ? 'spec.replicas' : 'minReplicas'} (${String(floor)}) must not exceed maxReplicas (${String(maxReplicas)})`,
  );
  need(
    target === undefined || (Number.isInteger(target) && (target as number) >= 1 && (target as number) <= MAX_INT32),
    `${where}.targetCPUUtilizationPercentage must be an integer of 1 or more`,
  );
  need(
    target === undefined || (autoscaling as Json).metrics === undefined,
    `${where}: targetCPUUtilizationPercentage and metrics exclude each other`,
  );
}

function checkConfigMap(value: unknown, where: string): ConfigMap {
  need(isObject(value), `${where} must be a ConfigMap object`);
  const cm = value as Json;
  need(isObject(cm.metadata) && typeof cm.metadata.name === 'string', `${where}.metadata.name must be a string`);
  need(
    cm.data === undefined || (isObject(cm.data) && Object.values(cm.data).every((v) => typeof v === 'string')),
    `${where}.data must map strings to strings`,
  );
  return value as ConfigMap;
}

/** A Deployment or a Service: names and the shapes the core reads. */
function checkWorkloadChild(value: Json, where: string): Child {
  need(isObject(value), `${where} must be an object`);
  need(isObject(value.metadata) && typeof value.metadata.name === 'string', `${where}.metadata.name must be a string`);
  need(value.spec === undefined || isObject(value.spec), `${where}.spec must be an object`);
  need(value.status === undefined || isObject(value.status), `${where}.status must be an object`);
  const spec = (value.spec ?? {}) as Json;
  for (const key of ['selector', 'template']) {
    need(spec[key] === undefined || isObject(spec[key]), `${where}.spec.${key} must be an object`);
  }
  need(spec.ports === undefined || Array.isArray(spec.ports), `${where}.spec.ports must be a list`);
  const template = (spec.template ?? {}) as Json;
  const podSpec = (template.spec ?? {}) as Json;
  need(
    podSpec.containers === undefined ||
      (Array.isArray(podSpec.containers) && podSpec.containers.every((c) => isObject(c))),
    `${where}.spec.template.spec.containers must be a list of objects`,
  );
  return value as unknown as Child;
}

function checkChild(value: unknown, where: string): Child {
  if (isObject(value) && value.kind !== undefined && value.kind !== CONFIG_MAP.kind) {
    need(
      WATCHED_KINDS.some((row) => row.kind === value.kind),
      `${where}.kind must be one of ${WATCHED_KINDS.map((row) => row.kind).join(', ')} (a WebService's children), not ${JSON.stringify(value.kind)}`,
    );
    if (APPLIED_KINDS.some((row) => row.kind === value.kind)) return checkWorkloadChild(value, where);
    // A revision or a config snapshot: the core reads its name, labels and owner, and a revision's number.
    need(
      isObject(value.metadata) && typeof value.metadata.name === 'string',
      `${where}.metadata.name must be a string`,
    );
    need(
      value.kind !== 'ControllerRevision' || Number.isInteger(value.revision),
      `${where}.revision must be an integer`,
    );
    return value as unknown as Child;
  }
  return checkConfigMap(value, where);
}

/** {parent, children?, related?}: raw objects, e.g. from `kubectl get -o json`. */
export function parseSyncInput(value: unknown): SyncInput {
  need(isObject(value), 'input must be a JSON object');
  const input = value as Json;
  const children = input.children ?? [];
  const related = input.related ?? [];
  need(Array.isArray(children), 'children must be a list of ConfigMaps');
  need(Array.isArray(related), 'related must be a list of WebServices');
  const absent = checkAbsentKinds(input.absentKinds, 'absentKinds');
  const config = checkConfigStates(input.config, 'config');
  const check = input.canaryCheck;
  need(
    check === undefined || (isObject(check) && (typeof check.value === 'number' || typeof check.error === 'string')),
    'canaryCheck must be {value: a number} or {error: a string}',
  );
  const restarts = input.canaryRestarts;
  need(
    restarts === undefined || (Number.isInteger(restarts) && (restarts as number) >= 0),
    'canaryRestarts must be a whole number',
  );
  return {
    parent: checkWebService(input.parent, 'parent'),
    children: (children as unknown[]).map((c, i) => checkChild(c, `children[${i}]`)),
    related: (related as unknown[]).map((r, i) => checkWebService(r, `related[${i}]`)),
    ...(absent ? { absentKinds: absent } : {}),
    ...(config ? { config } : {}),
    ...(check !== undefined ? { canaryCheck: check as SyncInput['canaryCheck'] } : {}),
    ...(restarts !== undefined ? { canaryRestarts: restarts as number } : {}),
  };
}

/** The config the pods read, as a shell found it: [{kind, name, digest}], digest null for a missing one. */
function checkConfigStates(value: unknown, where: string): ConfigState[] | undefined {
  if (value === undefined) return undefined;
  need(Array.isArray(value), `${where} must be a list`);
  for (const [i, state] of (value as unknown[]).entries()) {
    need(
      isObject(state) &&
        (state.kind === 'Secret' || state.kind === 'ConfigMap') &&
        typeof state.name === 'string' &&
        (state.digest === null || typeof state.digest === 'string'),
      `${where}[${i}] must be {kind: Secret or ConfigMap, name, digest (a string, or null when it does not exist)}`,
    );
  }
  return value as ConfigState[];
}

/** Kinds whose API is not served: only the kind table's optional kinds can be. */
function checkAbsentKinds(value: unknown, where: string): string[] | undefined {
  if (value === undefined) return undefined;
  const kinds = OPTIONAL_KINDS.map((row) => row.kind);
  need(
    Array.isArray(value) && value.every((kind) => kinds.includes(kind as string)),
    `${where} must be a list of kinds whose API may be absent (${kinds.join(', ')})`,
  );
  return value as string[];
}

export function isSyncInput(value: unknown): boolean {
  return isObject(value) && 'parent' in value;
}

export function parseObservation(value: unknown): Observation {
  need(isObject(value), 'observation must be a JSON object');
  const obs = value as Json;
  for (const key of ['namespace', 'name', 'uid'] as const) {
    need(typeof obs[key] === 'string', `observation.${key} must be a string`);
  }
  need(isObject(obs.desired) && typeof obs.desired.image === 'string', 'observation.desired.image must be a string');
  need(Number.isInteger((obs.desired as Json).replicas), 'observation.desired.replicas must be an integer');
  need(typeof (obs.desired as Json).tier === 'string', 'observation.desired.tier must be a string');
  need(isObject(obs.actual), 'observation.actual must be an object');
  need(Number.isInteger(obs.generation), 'observation.generation must be an integer');
  need(typeof obs.deleting === 'boolean', 'observation.deleting must be a boolean');
  need(Array.isArray(obs.finalizers), 'observation.finalizers must be a list');
  const kinds = WATCHED_KINDS.map((row) => row.kind);
  need(
    Array.isArray(obs.ownedChildren) &&
      obs.ownedChildren.every((c) => isObject(c) && kinds.includes(c.kind as string) && typeof c.name === 'string'),
    `observation.ownedChildren must be a list of {kind, name} of ${kinds.join(', ')}`,
  );
  need(Array.isArray(obs.dependencies), 'observation.dependencies must be a list');
  need(isObject(obs.status), 'observation.status must be an object');
  checkAbsentKinds(obs.absentKinds, 'observation.absentKinds');
  need(isObject(obs.children), 'observation.children must be an object');
  for (const row of NAMED_KINDS) {
    const { kind } = row;
    const facts = (obs.children as Json)[rowId(row)];
    if (facts === undefined || facts === null) continue;
    const where = `observation.children.${rowId(row)}`;
    need(
      isObject(facts) && isObject(facts.labels) && Array.isArray(facts.ownerReferences),
      `${where} must be child facts`,
    );
    const object = (facts as Json).object;
    need(isObject(object) && (object.kind ?? kind) === kind, `${where}.object must be a ${kind}`);
    checkChild(object, `${where}.object`);
  }
  return value as Observation;
}

export function parseDecision(value: unknown): Decision {
  need(isObject(value), 'decision must be a JSON object');
  const d = value as Json;
  need(
    typeof d.namespace === 'string' && typeof d.name === 'string',
    'decision.namespace and decision.name must be strings',
  );
  checkNamespace(d.namespace as string, 'decision.namespace');
  checkName(d.name as string, 'decision.name');
  need(ACTIONS.includes(d.action as never), `decision.action must be one of ${ACTIONS.join(', ')}`);
  need(Array.isArray(d.ops), 'decision.ops must be a list');
  const known = [
    'createChild',
    'patchChild',
    'takeOverChild',
    'applyChild',
    'copyChild',
    'deleteChild',
    'removeFinalizer',
    'releasePins',
  ];
  const kinds = WATCHED_KINDS.map((row) => row.kind);
  for (const [i, op] of (d.ops as unknown[]).entries()) {
    need(isObject(op) && known.includes(op.op as string), `decision.ops[${i}].op must be one of ${known.join(', ')}`);
    const { kind, object } = op as Json;
    const ofParent = ['removeFinalizer', 'releasePins'].includes((op as Json).op as string);
    need(ofParent || kinds.includes(kind as string), `decision.ops[${i}].kind must be one of ${kinds.join(', ')}`);
    if ((op as Json).op === 'takeOverChild') {
      need(
        kind !== undefined && Array.isArray((op as Json).entries) && typeof (op as Json).uid === 'string',
        `decision.ops[${i}] must name the entries to take over of a child of its kind, by uid`,
      );
    }
    const writes = ['applyChild', 'copyChild', 'createChild'].includes((op as Json).op as string);
    need(
      !writes || (isObject(object) && object.kind === kind && isObject(object.metadata)),
      `decision.ops[${i}] must write an object of its kind`,
    );
    if ((op as Json).op === 'copyChild') {
      const from = (op as Json).from;
      need(
        (kind === 'Secret' || kind === 'ConfigMap') &&
          isObject(from) &&
          typeof from.name === 'string' &&
          typeof from.digest === 'string' &&
          (from.keys === null || (Array.isArray(from.keys) && from.keys.every((k) => typeof k === 'string'))),
        `decision.ops[${i}] must copy a Secret or ConfigMap: from {name, keys, digest}`,
      );
    }
  }
  return value as Decision;
}

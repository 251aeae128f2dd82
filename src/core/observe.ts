// observe: raw objects in, the facts a decision needs out. Pure.
import {
  CONFIG_DIGEST_ANNOTATION,
  CONFIG_PINS_ANNOTATION,
  ConfigPin,
  ConfigReference,
  configDigestAnnotation,
  configReferences,
  configSnapshots,
  isSnapshotted,
  missingConfig,
  parsePins,
  snapshotName,
  statesOfDigest,
} from './config';
import { findCycle } from './cycle';
import { hasLegacySelector } from './labels';
import { CHILD_KINDS, CONFIG_MAP, NAMED_KINDS, SET_KINDS, rowId, setRowOf } from './kinds';
import { rolloutRequestsOf } from './canary-requests';
import {
  Child,
  ConfigMap,
  ConfigState,
  DEFAULT_REPLICAS,
  Deployment,
  DEFAULT_TIER,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  READY,
  SyncInput,
  WebService,
  WorkloadSpec,
  kindOf,
} from './model';
import type {
  ActualState,
  ChildRef,
  ChildSets,
  DependencyFacts,
  DesiredState,
  Observation,
  OwnedFacts,
  LiveChildFacts,
} from './observation';
import { isControlledBy, isOurs } from './ownership';

const ACTUAL_KEYS = ['image', 'replicas', 'tier'] as const;

export function observe(input: SyncInput): Observation {
  const { parent } = input;
  const meta = parent.metadata;
  const namespace = meta.namespace ?? 'default';
  const uid = meta.uid ?? '';
  const named = (kind: string, name: string) =>
    input.children.find((c) => kindOf(c) === kind && c.metadata.name === name && sameNamespace(c, namespace)) ?? null;
  const found = NAMED_KINDS.map((row) => named(row.kind, row.nameFor(meta.name)));
  const child = found[NAMED_KINDS.indexOf(CONFIG_MAP)];

  const observation: Observation = {
    desired: desiredOf(parent),
    actual: child ? actualOf(child) : {},
    namespace,
    name: meta.name,
    uid,
    generation: meta.generation ?? 0,
    resourceVersion: meta.resourceVersion,
    deleting: Boolean(meta.deletionTimestamp),
    finalizers: meta.finalizers ?? [],
    ownedChildren: input.children
      .filter((c) => sameNamespace(c, namespace) && isOurs(c, uid))
      .map(childRef)
      .sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.name.localeCompare(b.name)),
    children: Object.fromEntries(NAMED_KINDS.map((row, i) => [rowId(row), found[i] && liveFacts(found[i], uid)])),
    dependencies: (parent.spec.dependsOn ?? []).map((name) => dependencyFacts(name, namespace, input.related)),
    status: parent.status ?? {},
  };
  if (meta.labels && Object.keys(meta.labels).length > 0) observation.labels = { ...meta.labels };
  if (input.canaryCheck) observation.canaryCheck = input.canaryCheck;
  if (input.canaryRestarts !== undefined) observation.canaryRestarts = input.canaryRestarts;
  const requests = rolloutRequestsOf(meta.annotations);
  if (requests) observation.rolloutRequests = requests;
  const cycle = dependencyCycleOf(parent, namespace, input.related);
  if (cycle) observation.dependencyCycle = cycle;
  if (input.absentKinds && input.absentKinds.length > 0) observation.absentKinds = [...input.absentKinds].sort();
  const sets = childSetsOf(input.children, namespace, uid);
  if (observation.desired.workload || Object.values(sets).some((set) => set.length > 0)) observation.childSets = sets;
  const deployment = named(DEPLOYMENT_KIND, meta.name);
  observeConfig(observation, input, deployment && isOurs(deployment, uid) ? deployment : null, meta);
  if (observation.desired.workload && hasLegacySelector(meta.name, deployment)) {
    observation.desired.legacySelector = true;
  }
  return observation;
}

const DEPLOYMENT_KIND = 'Deployment';

/** Our children of each set row, by the row's id, in name order. */
function childSetsOf(children: Child[], namespace: string, uid: string): ChildSets {
  const sets: ChildSets = Object.fromEntries(SET_KINDS.map((row) => [row.id, []]));
  for (const child of children) {
    const row = setRowOf(child);
    if (!row || !sameNamespace(child, namespace) || !isOurs(child, uid)) continue;
    sets[row.id].push(liveFacts(child, uid));
  }
  for (const set of Object.values(sets)) set.sort((a, b) => a.name.localeCompare(b.name));
  return sets;
}

/**
 * The config the pods read: its digest for the pod template, the snapshots they read it
 * through, what of it is missing, and the rollback's pins. Without the shell's reading of it
 * (a watch that does not read config), the live pods' digest stands: nothing rolls on what was
 * not seen. A required Secret or ConfigMap that is missing keeps the digest the live pods have:
 * pods rolled to nothing could not start, so the running ones stay.
 */
function observeConfig(
  observation: Observation,
  input: SyncInput,
  deployment: Deployment | null,
  meta: { name: string; annotations?: Record<string, string> },
): void {
  const pins = parsePins(meta.annotations?.[CONFIG_PINS_ANNOTATION]);
  const { workload } = observation.desired;
  if (!workload) {
    if (pins.length > 0) observation.releasedPins = pins;
    return;
  }
  const references = configReferences(workload);
  const liveDigest = deployment?.spec?.template?.metadata?.annotations?.[CONFIG_DIGEST_ANNOTATION];
  const live = statesOfDigest(liveDigest);
  let states: ConfigState[];
  let digest: string | undefined;
  if (input.config) {
    const missing = missingConfig(references, input.config);
    if (missing.length > 0) observation.missingConfig = missing;
    const kept = (state: ConfigState) =>
      missing.some((m) => m.kind === state.kind && m.name === state.name)
        ? (live.find((l) => l.kind === state.kind && l.name === state.name) ?? state)
        : state;
    states = holdPins(observation, references, input.config.map(kept), pins, workload);
    digest = configDigestAnnotation(references, states);
  } else {
    states = live;
    digest = liveDigest;
  }
  if (digest !== undefined) {
    observation.desired.configDigest = digest;
    observation.desired.configStates = references
      .filter((reference) => reference.rolls)
      .map(({ kind, name }) => ({
        kind,
        name,
        digest: states.find((s) => s.kind === kind && s.name === name)?.digest ?? null,
      }));
  }
  const snapshots = configSnapshots(observation.name, workload, references, states);
  if (snapshots.length > 0) observation.desired.configSnapshots = snapshots;
}

/**
 * The states with each pin that holds in place of its source's: a pin holds while its source
 * is as it was when the rollback pinned it and its snapshot is still there. The rest are released.
 */
function holdPins(
  observation: Observation,
  references: ConfigReference[],
  states: ConfigState[],
  pins: ConfigPin[],
  workload: WorkloadSpec,
): ConfigState[] {
  if (pins.length === 0) return states;
  const snapshots = new Set(
    Object.values(observation.childSets ?? {})
      .flat()
      .map((facts) => `${facts.object.kind}/${facts.name}`),
  );
  const held: ConfigPin[] = [];
  const released: ConfigPin[] = [];
  let pinned = states;
  for (const pin of pins) {
    const reference = references.find((r) => r.kind === pin.kind && r.name === pin.name);
    const source = states.find((s) => s.kind === pin.kind && s.name === pin.name)?.digest ?? null;
    const holds =
      reference !== undefined &&
      isSnapshotted(reference, workload) &&
      source === pin.source &&
      snapshots.has(`${pin.kind}/${snapshotName(observation.name, pin.name, pin.digest)}`);
    if (!holds) {
      released.push(pin);
      continue;
    }
    held.push(pin);
    pinned = pinned.map((s) => (s.kind === pin.kind && s.name === pin.name ? { ...s, digest: pin.digest } : s));
  }
  if (held.length > 0) observation.pins = held;
  if (released.length > 0) observation.releasedPins = released;
  return pinned;
}

/** In the kind table's order: ConfigMaps first (what the rest reads), then the workload. */
const KIND_ORDER = CHILD_KINDS.map((row) => row.kind);

function childRef(c: Child): ChildRef {
  return { kind: kindOf(c), name: c.metadata.name, uid: c.metadata.uid, resourceVersion: c.metadata.resourceVersion };
}

function ownedFacts(object: Child, parentUid: string): OwnedFacts {
  const labels = object.metadata.labels ?? {};
  return {
    name: object.metadata.name,
    uid: object.metadata.uid,
    resourceVersion: object.metadata.resourceVersion,
    controlledByParent: isControlledBy(object, parentUid),
    managedByUs: labels[MANAGED_BY_LABEL] === MANAGED_BY_VALUE,
    labels,
    ownerReferences: object.metadata.ownerReferences ?? [],
  };
}

function liveFacts(object: Child, parentUid: string): LiveChildFacts {
  return { ...ownedFacts(object, parentUid), object };
}

/**
 * The cycle through the parent among the WebServices handed in as related (everything
 * reachable through dependsOn). One that is being deleted leads nowhere: its going
 * breaks the loop.
 */
function dependencyCycleOf(parent: WebService, namespace: string, related: WebService[]): string[] | null {
  const byName = new Map<string, WebService>();
  for (const ws of related) if (sameNamespace(ws, namespace)) byName.set(ws.metadata.name, ws);
  byName.set(parent.metadata.name, parent);
  return findCycle(parent.metadata.name, (name) => {
    const ws = byName.get(name);
    return ws && !ws.metadata.deletionTimestamp ? ws.spec.dependsOn : undefined;
  });
}

function desiredOf(parent: WebService): DesiredState {
  const desired: DesiredState = {
    image: parent.spec.image,
    replicas: parent.spec.replicas ?? DEFAULT_REPLICAS,
    tier: parent.spec.tier ?? DEFAULT_TIER,
  };
  if (parent.spec.dependsOn && parent.spec.dependsOn.length > 0) desired.dependsOn = [...parent.spec.dependsOn];
  // A copy: the core never shares a structure with its input (the CRD has validated its shape).
  if (parent.spec.workload) desired.workload = structuredClone(parent.spec.workload);
  if (parent.spec.expose) desired.expose = structuredClone(parent.spec.expose);
  if (parent.spec.rollout) desired.rollout = structuredClone(parent.spec.rollout);
  return desired;
}

function actualOf(child: ConfigMap): ActualState {
  const actual: ActualState = {};
  for (const key of ACTUAL_KEYS) {
    const value = child.data?.[key];
    if (value !== undefined) actual[key] = value;
  }
  return actual;
}

function sameNamespace(obj: { metadata: { namespace?: string } }, namespace: string): boolean {
  return (obj.metadata.namespace ?? namespace) === namespace;
}

function dependencyFacts(name: string, namespace: string, related: WebService[]): DependencyFacts {
  const dep = related.find((ws) => ws.metadata.name === name && sameNamespace(ws, namespace));
  if (!dep) return { name, state: 'NotFound', message: `webservice/${name} not found` };
  if (dep.metadata.deletionTimestamp)
    return { name, state: 'Deleting', message: `webservice/${name} is being deleted` };
  const generation = dep.metadata.generation ?? 0;
  const ready = dep.status?.conditions?.find((c) => c.type === READY);
  const observed = ready?.observedGeneration ?? dep.status?.observedGeneration;
  if (ready?.status === 'True' && observed === generation) {
    return { name, state: 'Ready', message: `webservice/${name} is Ready` };
  }
  const why = !ready
    ? 'has no Ready condition yet'
    : ready.status !== 'True'
      ? `is not Ready (${ready.reason || 'no reason'})`
      : `has not observed generation ${generation} yet`;
  return { name, state: 'NotReady', message: `webservice/${name} ${why}` };
}

// Revisions: every change that rolls the pods, to the spec or to the config they read, is a
// numbered revision, kept as an apps/v1 ControllerRevision that the WebService owns (the
// StatefulSet controller's way) and named after a hash of the pod template. It records what the
// pods ran: the image, the pod's fields of the spec, and each Secret and ConfigMap by name and
// keyed digest, with the snapshot that holds its content; never a value. Config snapshots stay
// while a kept revision names them, so a rollback finds its revision's config. Pure.
import { ConfigSnapshot, configTarget } from './config';
import { stableJson } from './equal';
import type { Health, LiveObject } from './health';
import { Child, ConfigKind, Json, ObjectMeta, ROLE_LABEL, WorkloadSpec, fnv1a32 } from './model';
import type { DesiredState, Observation, LiveChildFacts } from './observation';
import { desiredLabels, desiredOwnerReference } from './ownership';
import { podTemplate } from './pod';
import { workloadWanted } from './workload';

/** Revisions kept when the spec says nothing (a Deployment keeps as many ReplicaSets). */
const DEFAULT_REVISION_HISTORY_LIMIT = 10;
/** On a revision: what changed from the one before it, by name only (kubectl's change-cause, ours). */
export const CHANGE_CAUSE_ANNOTATION = 'webservice.labhub.io/change-cause';
/** On a revision made the newest again by a rollback: the revision it rolled back from. */
export const ROLLED_BACK_ANNOTATION = 'webservice.labhub.io/rolled-back-from';
/** On a config snapshot: the Secret or ConfigMap it copies (configmap/files). */
const SNAPSHOT_SOURCE_ANNOTATION = 'webservice.labhub.io/snapshot-of';
export const REVISION_ROLE = 'revision';
const REVISION_TARGET = 'controllerrevision';
export const SNAPSHOT_ROLE = 'config-snapshot';

/** spec.workload's fields that are not the pods': a revision leaves them out, and a rollback leaves them as they are. */
export const NOT_POD_FIELDS = new Set([
  'autoscaling',
  'disruption',
  'networkPolicy',
  'progressDeadlineSeconds',
  'strategy',
  'revisionHistoryLimit',
]);

/** One Secret or ConfigMap as a revision's pods read it. */
export interface RevisionConfig {
  kind: ConfigKind;
  name: string;
  /** Its keyed digest (engine/config.ts); null: it did not exist. */
  digest: string | null;
  /** The snapshot that holds it; unset: the pods read the source itself (a Secret not snapshotted). */
  snapshot?: string;
}

/** What a revision records; the watch cache keeps all but `workload` (kinds.ts). */
export interface RevisionData {
  image: string;
  tier: string;
  /** The pod's fields of spec.workload: what a rollback writes back. */
  workload?: Partial<WorkloadSpec>;
  /** A hash of each of them, by name: what changed between two revisions, without reading them. */
  fields: Record<string, string>;
  config: RevisionConfig[];
}

export interface ControllerRevision {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  revision: number;
  data?: RevisionData;
}

/** A revision as it exists, newest first in every list. */
interface LiveRevision {
  name: string;
  number: number;
  data: RevisionData | null;
  facts: LiveChildFacts;
}

export interface RevisionPlan {
  /** The revision the pods are made to run, and its number once this pass has written. */
  name: string;
  number: number;
  /** new: made now; renumbered: an older one made the newest again (a rollback); current: as it is. */
  state: 'new' | 'renumbered' | 'current';
  data: RevisionData;
  /** What changed from the revision before it, by name only. */
  changeCause: string;
  /** For a renumbered one: the number it had, and the newest before it (the revision rolled back from). */
  renumberedFrom?: number;
  rolledBackFrom?: number;
  /** The revisions kept, this one included; the others are deleted, and their snapshots with them. */
  kept: LiveRevision[];
}

/** A child the WebService wants of a set row (kinds.ts). */
export type SetMember =
  /** Kept as it is where it exists, never made again (an old revision, or its snapshot). */
  | { name: string; keep: true }
  /** Made when missing: whole, or with `copy` as a copy of a source's content that the shell checks first. */
  | { name: string; create: SetObject; copy?: CopySource; reason: string }
  /** Changed where it exists, by a merge patch (a revision made the newest again). */
  | { name: string; patch: Json; changes: { field: string; from: string | null; to: string | null }[]; reason: string };

/** A set row's desired object: a revision whole; a snapshot without its values, which the shell copies in. */
export interface SetObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** What a snapshot is copied from: the source, the keys, and the keyed digest the copy must find in it. */
export interface CopySource {
  name: string;
  keys: string[] | null;
  digest: string;
}

const plans = new WeakMap<Observation, RevisionPlan | null>();

/** The revision the observation's pods should run, and which revisions stay; null without a workload. */
export function revisionPlan(obs: Observation): RevisionPlan | null {
  if (!plans.has(obs)) plans.set(obs, planOf(obs));
  return plans.get(obs) ?? null;
}

function planOf(obs: Observation): RevisionPlan | null {
  const want = workloadWanted(obs.name, obs.desired);
  if (!want || !obs.desired.workload) return null;
  const name = revisionName(obs.name, fnv1a32(stableJson(podTemplate(want))));
  const live = liveRevisions(obs);
  const newest = live[0] as LiveRevision | undefined;
  const found = live.find((revision) => revision.name === name);
  const data = revisionData(obs.desired);
  let plan: Omit<RevisionPlan, 'kept'>;
  if (found && found === newest) {
    plan = { name, number: found.number, state: 'current', data, changeCause: changeCauseOf(found) };
  } else if (found && newest) {
    const changeCause = `rollback to revision ${found.number} (from revision ${newest.number})`;
    plan = {
      name,
      number: newest.number + 1,
      state: 'renumbered',
      data,
      changeCause,
      renumberedFrom: found.number,
      rolledBackFrom: newest.number,
    };
  } else {
    const changeCause = newest?.data ? describeChange(newest.data, data) : 'first revision';
    plan = { name, number: (newest?.number ?? 0) + 1, state: 'new', data, changeCause };
  }
  return { ...plan, kept: keptRevisions(obs, live, plan) };
}

/**
 * The revisions kept: the newest revisionHistoryLimit, counting the one the pods are made to
 * run; and the one they all ran last (status.currentRevision) while a rollout is still on, so
 * that an old pod that restarts still finds its config.
 */
function keptRevisions(obs: Observation, live: LiveRevision[], plan: Omit<RevisionPlan, 'kept'>): LiveRevision[] {
  const limit = obs.desired.workload?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
  const others = live.filter((revision) => revision.name !== plan.name);
  const kept = others.slice(0, Math.max(0, limit - 1));
  const running = others.find((revision) => revision.number === obs.status.currentRevision);
  if (running && !kept.includes(running)) kept.push(running);
  const self = live.find((revision) => revision.name === plan.name);
  return self ? [self, ...kept] : kept;
}

/** Our revisions, newest first. */
function liveRevisions(obs: Observation): LiveRevision[] {
  return (obs.childSets?.[REVISION_SET] ?? [])
    .map((facts) => {
      const object = facts.object as unknown as ControllerRevision;
      return { name: facts.name, number: object.revision, data: revisionDataOf(object.data), facts };
    })
    .filter((revision) => Number.isInteger(revision.number))
    .sort((a, b) => b.number - a.number);
}

/** A revision's data as this version reads it; null where it has another shape (never trust an object's content). */
export function revisionDataOf(data: unknown): RevisionData | null {
  const value = data as { [field in keyof RevisionData]?: unknown } | null | undefined;
  const config = (entry: unknown) => {
    const c = entry as Partial<RevisionConfig> | null;
    return (
      typeof c === 'object' &&
      c !== null &&
      (c.kind === 'Secret' || c.kind === 'ConfigMap') &&
      typeof c.name === 'string' &&
      (c.digest === null || typeof c.digest === 'string') &&
      (c.snapshot === undefined || typeof c.snapshot === 'string')
    );
  };
  const valid =
    typeof value === 'object' &&
    value !== null &&
    typeof value.image === 'string' &&
    typeof value.tier === 'string' &&
    typeof value.fields === 'object' &&
    value.fields !== null &&
    Object.values(value.fields).every((hash) => typeof hash === 'string') &&
    Array.isArray(value.config) &&
    value.config.every(config);
  return valid ? (value as RevisionData) : null;
}

/** The id of the revisions' row in an observation's childSets (kinds.ts). */
export const REVISION_SET = 'Revision';

function changeCauseOf(revision: LiveRevision): string {
  return revision.facts.object.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION] ?? '';
}

/** `<webservice>-<8 hex digits of the pod template's hash>`, cut to fit a name with a hash of the whole. */
function revisionName(parentName: string, hash: string): string {
  const room = 253 - hash.length - 1;
  if (parentName.length <= room) return `${parentName}-${hash}`;
  return `${parentName.slice(0, room - 9).replace(/[-.]+$/, '')}-${fnv1a32(parentName)}-${hash}`;
}

/** The pod's fields of spec.workload, and what they were made into. */
function revisionData(desired: DesiredState): RevisionData {
  const workload = Object.fromEntries(
    Object.entries(desired.workload ?? {}).filter(([field]) => !NOT_POD_FIELDS.has(field)),
  ) as Partial<WorkloadSpec>;
  const fields = Object.fromEntries(
    Object.entries(workload).map(([field, value]) => [field, fnv1a32(stableJson(value))]),
  );
  const snapshots = desired.configSnapshots ?? [];
  const config = (desired.configStates ?? []).map(({ kind, name, digest }): RevisionConfig => {
    const snapshot = snapshots.find((s) => s.kind === kind && s.source === name)?.name;
    return snapshot ? { kind, name, digest, snapshot } : { kind, name, digest };
  });
  return { image: desired.image, tier: desired.tier, workload, fields, config };
}

/** What changed from one revision to the next, by name: `image a → b, workload.env, configmap/files changed`. */
function describeChange(before: RevisionData, after: RevisionData): string {
  const changes: string[] = [];
  if (before.image !== after.image) changes.push(`image ${before.image} → ${after.image}`);
  if (before.tier !== after.tier) changes.push(`tier ${before.tier} → ${after.tier}`);
  const fields = [...new Set([...Object.keys(before.fields), ...Object.keys(after.fields)])].sort();
  for (const field of fields) {
    if (before.fields[field] !== after.fields[field]) changes.push(`workload.${field}`);
  }
  const config = (data: RevisionData) => new Map(data.config.map((c) => [configTarget(c), c.digest]));
  const [had, has] = [config(before), config(after)];
  for (const [target, digest] of has) {
    if (!had.has(target)) changes.push(`${target} now read`);
    else if (had.get(target) !== digest) changes.push(`${target} ${digest === null ? 'gone' : 'changed'}`);
  }
  for (const target of had.keys()) if (!has.has(target)) changes.push(`${target} no longer read`);
  return changes.length > 0 ? changes.join(', ') : 'the pod template (no field of the spec changed)';
}

/** Our metadata on a set row's child: our labels with the row's role, our ownerReference. */
function setMetadata(obs: Observation, name: string, role: string, annotations: Record<string, string>): ObjectMeta {
  return {
    name,
    namespace: obs.namespace,
    labels: { ...obs.labels, ...desiredLabels(obs.name), [ROLE_LABEL]: role },
    annotations,
    ownerReferences: [desiredOwnerReference(obs)],
  };
}

/** The revisions the WebService wants: the one its pods run (made, or made the newest again) and those kept. */
export function revisionSet(obs: Observation): SetMember[] {
  const plan = revisionPlan(obs);
  if (!plan) return [];
  const members: SetMember[] = plan.kept
    .filter((revision) => revision.name !== plan.name)
    .map((revision) => ({ name: revision.name, keep: true }));
  const reason = `${REVISION_TARGET}/${plan.name}: revision ${plan.number}, ${plan.changeCause}`;
  if (plan.state === 'new') {
    const object: SetObject = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: setMetadata(obs, plan.name, REVISION_ROLE, { [CHANGE_CAUSE_ANNOTATION]: plan.changeCause }),
      revision: plan.number,
      data: plan.data,
    };
    members.push({ name: plan.name, create: object, reason });
  } else if (plan.state === 'renumbered') {
    const from = plan.renumberedFrom;
    const annotations = {
      [CHANGE_CAUSE_ANNOTATION]: plan.changeCause,
      [ROLLED_BACK_ANNOTATION]: String(plan.rolledBackFrom),
    };
    members.push({
      name: plan.name,
      patch: { metadata: { annotations }, revision: plan.number },
      changes: [{ field: 'revision', from: from === undefined ? null : String(from), to: String(plan.number) }],
      reason,
    });
  } else {
    members.push({ name: plan.name, keep: true });
  }
  return members;
}

/**
 * The snapshots of one kind the WebService wants: those its pods read now (copied from their
 * sources when missing), and those a kept revision names (kept while they exist: their content
 * is gone from the source, so they are never made again).
 */
export function snapshotSet(obs: Observation, kind: ConfigKind): SetMember[] {
  const plan = revisionPlan(obs);
  if (!plan) return [];
  const current = (obs.desired.configSnapshots ?? []).filter((snapshot) => snapshot.kind === kind);
  const members: SetMember[] = current.map((snapshot) => snapshotMember(obs, snapshot));
  for (const revision of plan.kept) {
    for (const config of revision.data?.config ?? []) {
      const { snapshot } = config;
      if (config.kind !== kind || !snapshot || members.some((member) => member.name === snapshot)) continue;
      members.push({ name: snapshot, keep: true });
    }
  }
  return members;
}

function snapshotMember(obs: Observation, snapshot: ConfigSnapshot): SetMember {
  const source = configTarget({ kind: snapshot.kind, name: snapshot.source });
  const metadata = setMetadata(obs, snapshot.name, SNAPSHOT_ROLE, { [SNAPSHOT_SOURCE_ANNOTATION]: source });
  const object: SetObject = { apiVersion: 'v1', kind: snapshot.kind, metadata, immutable: true };
  if (snapshot.kind === 'Secret') object.type = 'Opaque';
  return {
    name: snapshot.name,
    create: object,
    copy: { name: snapshot.source, keys: snapshot.keys, digest: snapshot.digest },
    reason: `${snapshot.kind.toLowerCase()}/${snapshot.name} does not exist yet: a snapshot of ${source}`,
  };
}

/** A revision in describe's tree: its number and what changed. */
export function revisionHealth(live: LiveObject): Health {
  const revision = live as unknown as ControllerRevision;
  const cause = revision.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION];
  return { state: 'Ready', info: `revision ${revision.revision}${cause ? `: ${cause}` : ''}` };
}

/** A config snapshot in describe's tree: what it copies. */
export function configSnapshotHealth(live: LiveObject): Health {
  const source = live.metadata.annotations?.[SNAPSHOT_SOURCE_ANNOTATION];
  return { state: 'Ready', info: source ? `snapshot of ${source}` : 'snapshot' };
}

/** A child as a revision, when it is one. */
export function asRevision(child: Child): ControllerRevision | null {
  return child.kind === 'ControllerRevision' ? (child as unknown as ControllerRevision) : null;
}

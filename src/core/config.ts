// The config a WebService's pods read: the Secrets and ConfigMaps named by env[].valueFrom and
// envFrom (of web, its sidecars and its init containers) and files. Their content is part of what the pods run, so a change of it rolls the
// pods once. The shell reads each referenced object and hands in a digest of the keys the pods
// read, keyed with a secret of the namespace (engine/config-digest.ts), never a value: the
// core only combines digests, so nothing it writes lets anyone confirm a guess of a value. Pure.
import { ConfigKind, ConfigState, Json, WorkloadSpec, fnv1a32 } from './model';

/** On the pod template: a digest of the referenced config's content; a change rolls the pods. */
export const CONFIG_DIGEST_ANNOTATION = 'webservice.labhub.io/config-digest';

/** One Secret or ConfigMap the pods read, with every way they read it merged. */
export interface ConfigReference {
  kind: ConfigKind;
  name: string;
  /** The keys read, sorted; null: every key (envFrom, a whole mount). */
  keys: string[] | null;
  /** Every reading says optional: a missing object does not block the pods. */
  optional: boolean;
  /** A change of its content rolls the pods (false: every reading opted out). */
  rolls: boolean;
  /** How the pods read it, for messages: `env DB_PASSWORD`, `envFrom`, `files /etc/app`. */
  readBy: string[];
}

interface Reading {
  kind: ConfigKind;
  name: string;
  key: string | null;
  optional: boolean;
  rolls: boolean;
  readBy: string;
}

const asObject = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Every Secret and ConfigMap the workload's pods read, merged by kind and name, in a stable order. */
export function configReferences(workload: WorkloadSpec | undefined): ConfigReference[] {
  if (!workload) return [];
  const restarts = workload.restartOnConfigChange !== false;
  const readings: Reading[] = [];
  readings.push(...envReadings(workload, restarts, ''));
  // The sidecars and init containers read config as web does: a change of it rolls the pods too.
  for (const [list, role] of [
    [workload.sidecars, 'sidecar'],
    [workload.initContainers, 'init container'],
  ] as const) {
    for (const container of list ?? []) {
      readings.push(...envReadings(container, restarts, ` of ${role} ${asString(container.name) ?? ''}`));
    }
  }
  for (const file of workload.files ?? []) {
    const kind: ConfigKind = file.secret !== undefined ? 'Secret' : 'ConfigMap';
    const name = file.secret ?? file.configMap;
    if (name === undefined) continue;
    const rolls = restarts && file.restartOnChange !== false;
    const base = { kind, name, optional: file.optional === true, rolls, readBy: `files ${file.mountPath}` };
    const keys = (file.items ?? []).map((item) => asString(item.key)).filter((key) => key !== undefined);
    if (file.items === undefined) readings.push({ ...base, key: null });
    else for (const key of keys) readings.push({ ...base, key });
  }
  return merge(readings);
}

/** What one container's env[].valueFrom and envFrom read; `of` names a container other than web. */
function envReadings(container: { env?: unknown; envFrom?: unknown }, rolls: boolean, of: string): Reading[] {
  const readings: Reading[] = [];
  for (const env of Array.isArray(container.env) ? (container.env as unknown[]) : []) {
    const from = asObject(asObject(env)?.valueFrom);
    const envName = asString(asObject(env)?.name) ?? '';
    for (const [field, kind] of [
      ['secretKeyRef', 'Secret'],
      ['configMapKeyRef', 'ConfigMap'],
    ] as const) {
      const ref = asObject(from?.[field]);
      const name = asString(ref?.name);
      if (!ref || !name) continue;
      const key = asString(ref.key) ?? null;
      readings.push({ kind, name, key, optional: ref.optional === true, rolls, readBy: `env ${envName}${of}` });
    }
  }
  for (const source of Array.isArray(container.envFrom) ? (container.envFrom as unknown[]) : []) {
    for (const [field, kind] of [
      ['secretRef', 'Secret'],
      ['configMapRef', 'ConfigMap'],
    ] as const) {
      const ref = asObject(asObject(source)?.[field]);
      const name = asString(ref?.name);
      if (!ref || !name) continue;
      readings.push({ kind, name, key: null, optional: ref.optional === true, rolls, readBy: `envFrom${of}` });
    }
  }
  return readings;
}

function merge(readings: Reading[]): ConfigReference[] {
  const byObject = new Map<string, ConfigReference>();
  for (const reading of readings) {
    const id = `${reading.kind}/${reading.name}`;
    const found = byObject.get(id);
    if (!found) {
      byObject.set(id, {
        kind: reading.kind,
        name: reading.name,
        keys: reading.key === null ? null : [reading.key],
        optional: reading.optional,
        rolls: reading.rolls,
        readBy: [reading.readBy],
      });
      continue;
    }
    found.keys = found.keys === null || reading.key === null ? null : [...found.keys, reading.key];
    found.optional = found.optional && reading.optional;
    found.rolls = found.rolls || reading.rolls;
    if (!found.readBy.includes(reading.readBy)) found.readBy.push(reading.readBy);
  }
  const references = [...byObject.values()];
  for (const reference of references) if (reference.keys) reference.keys = [...new Set(reference.keys)].sort();
  return references.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}

/** kubectl's name of a reference in messages: secret/db. */
export function configTarget(reference: { kind: ConfigKind; name: string }): string {
  return `${reference.kind.toLowerCase()}/${reference.name}`;
}

/**
 * The pod template's config digest: each reference that rolls, by name, with the digest of
 * what its readers read (`secret/db=1f0c…,configmap/files=absent`), in a stable order; so a
 * change names what changed, and only names. Undefined when none rolls, so a workload that
 * reads no config (or opted out) carries no annotation.
 */
export function configDigestAnnotation(references: ConfigReference[], states: ConfigState[]): string | undefined {
  const rolling = references.filter((reference) => reference.rolls);
  if (rolling.length === 0) return undefined;
  return rolling
    .map((reference) => {
      const state = states.find((s) => s.kind === reference.kind && s.name === reference.name);
      return `${configTarget(reference)}=${state?.digest ?? ABSENT}`;
    })
    .join(',');
}

const ABSENT = 'absent';

/** The digests a pod template's annotation names, by reference: what its pods were started with. */
export function statesOfDigest(annotation: string | undefined): ConfigState[] {
  if (!annotation) return [];
  return annotation.split(',').flatMap((entry) => {
    const at = entry.lastIndexOf('=');
    const slash = entry.indexOf('/');
    const kind = { secret: 'Secret', configmap: 'ConfigMap' }[entry.slice(0, slash)] as ConfigKind | undefined;
    if (at < 0 || slash < 0 || !kind) return [];
    const digest = entry.slice(at + 1);
    return [{ kind, name: entry.slice(slash + 1, at), digest: digest === ABSENT ? null : digest }];
  });
}

/**
 * Whether the pods read this reference through a snapshot of their revision's own: every
 * ConfigMap whose change rolls them, and with snapshotSecrets every such Secret. One that does
 * not roll them (the app reloads its files) is read live, so its changes reach the pods.
 */
export function isSnapshotted(reference: ConfigReference, workload: WorkloadSpec): boolean {
  return reference.rolls && (reference.kind === 'ConfigMap' || workload.snapshotSecrets === true);
}

/** An immutable copy of what the pods read of one Secret or ConfigMap, as of one content. */
export interface ConfigSnapshot {
  kind: ConfigKind;
  /** The Secret or ConfigMap it copies. */
  source: string;
  /** Its own name: the source's, after the WebService's, and a keyed digest's first digits. */
  name: string;
  /** The keyed digest of what it holds (engine/config.ts): what the copy must still find in the source. */
  digest: string;
  /** The keys it holds; null: all of them. */
  keys: string[] | null;
}

/** Digits of the keyed digest in a snapshot's name: its content's identity, never a plain hash of it. */
const SNAPSHOT_DIGITS = 10;
const MAX_NAME = 253;

/**
 * A snapshot's name: `<webservice>-<source>-<10 digits of the keyed digest>`. Only the keyed
 * digest, so the name lets no one who cannot read the source confirm a guess of its content.
 * A name past 253 characters keeps a prefix and a hash of the whole.
 */
export function snapshotName(parentName: string, source: string, digest: string): string {
  const suffix = digest.slice(0, SNAPSHOT_DIGITS);
  const base = `${parentName}-${source}`;
  if (base.length + 1 + suffix.length <= MAX_NAME) return `${base}-${suffix}`;
  const room = MAX_NAME - suffix.length - 1 - 8 - 1;
  const prefix = base.slice(0, room).replace(/[-.]+$/, '');
  return `${prefix}-${fnv1a32(`${parentName}/${source}`)}-${suffix}`;
}

/** The snapshots the pods read, for the references that have one and content to copy. */
export function configSnapshots(
  parentName: string,
  workload: WorkloadSpec,
  references: ConfigReference[],
  states: ConfigState[],
): ConfigSnapshot[] {
  return references.flatMap((reference) => {
    const digest = states.find((s) => s.kind === reference.kind && s.name === reference.name)?.digest;
    if (!digest || !isSnapshotted(reference, workload)) return [];
    const name = snapshotName(parentName, reference.name, digest);
    return [{ kind: reference.kind, source: reference.name, name, digest, keys: reference.keys }];
  });
}

/**
 * On the WebService, written by a rollback: the config that a reference stays on (its revision's
 * snapshot) although its source has changed since. It holds until the source changes again.
 */
export const CONFIG_PINS_ANNOTATION = 'webservice.labhub.io/config-pins';

/** One reference pinned to a snapshot by a rollback. */
export interface ConfigPin {
  kind: ConfigKind;
  name: string;
  /** The pinned content's keyed digest: its snapshot is snapshotName(parent, name, digest). */
  digest: string;
  /** The source's keyed digest when it was pinned: once the source holds anything else, the pin is released. */
  source: string | null;
}

/** The pins of the annotation; anything not of their shape is no pin (never trust the object's content). */
export function parsePins(annotation: string | undefined): ConfigPin[] {
  if (!annotation) return [];
  let value: unknown;
  try {
    value = JSON.parse(annotation);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return (value as unknown[]).filter((entry): entry is ConfigPin => {
    const pin = entry as Partial<Record<keyof ConfigPin, unknown>> | null;
    return (
      typeof pin === 'object' &&
      pin !== null &&
      (pin.kind === 'Secret' || pin.kind === 'ConfigMap') &&
      typeof pin.name === 'string' &&
      typeof pin.digest === 'string' &&
      (pin.source === null || typeof pin.source === 'string')
    );
  });
}

export function formatPins(pins: ConfigPin[]): string {
  return JSON.stringify(pins.map(({ kind, name, digest, source }) => ({ kind, name, digest, source })));
}

/** What a change of the annotation changes, by name: `secret/db changed, configmap/files added`. */
export function describeConfigChange(want: unknown, have: unknown): string {
  const parse = (value: unknown) =>
    new Map(
      (typeof value === 'string' && value !== '' ? value.split(',') : []).map((entry) => {
        const at = entry.lastIndexOf('=');
        return [entry.slice(0, at), entry.slice(at + 1)] as const;
      }),
    );
  const [wanted, had] = [parse(want), parse(have)];
  const changes: string[] = [];
  for (const [target, digest] of wanted) {
    if (!had.has(target)) changes.push(`${target} now read`);
    else if (had.get(target) !== digest) changes.push(`${target} ${digest === ABSENT ? 'gone' : 'changed'}`);
  }
  for (const target of had.keys()) if (!wanted.has(target)) changes.push(`${target} no longer rolls the pods`);
  return changes.join(', ');
}

/** The references that must exist and do not: they keep the pods from starting. */
export function missingConfig(references: ConfigReference[], states: ConfigState[]): ConfigReference[] {
  return references.filter(
    (reference) =>
      !reference.optional &&
      states.some((s) => s.kind === reference.kind && s.name === reference.name && s.digest === null),
  );
}

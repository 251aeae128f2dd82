// The config a WebService's pods read: the Secrets and ConfigMaps named by env[].valueFrom,
// envFrom and files. Their content is part of what the pods run, so a change of it rolls the
// pods once. The shell reads each referenced object and hands in a digest of the keys the pods
// read, keyed with a secret of the namespace (engine/config-digest.ts), never a value: the
// core only combines digests, so nothing it writes lets anyone confirm a guess of a value. Pure.
import type { ConfigKind, ConfigState, WorkloadSpec } from './model';

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

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Every Secret and ConfigMap the workload's pods read, merged by kind and name, in a stable order. */
export function configReferences(workload: WorkloadSpec | undefined): ConfigReference[] {
  if (!workload) return [];
  const restarts = workload.restartOnConfigChange !== false;
  const readings: Reading[] = [];
  for (const env of workload.env ?? []) {
    const from = asObject(env.valueFrom);
    const envName = asString(env.name) ?? '';
    for (const [field, kind] of [
      ['secretKeyRef', 'Secret'],
      ['configMapKeyRef', 'ConfigMap'],
    ] as const) {
      const ref = asObject(from?.[field]);
      const name = asString(ref?.name);
      if (!ref || !name) continue;
      const key = asString(ref.key) ?? null;
      readings.push({ kind, name, key, optional: ref.optional === true, rolls: restarts, readBy: `env ${envName}` });
    }
  }
  for (const source of workload.envFrom ?? []) {
    for (const [field, kind] of [
      ['secretRef', 'Secret'],
      ['configMapRef', 'ConfigMap'],
    ] as const) {
      const ref = asObject(source[field]);
      const name = asString(ref?.name);
      if (!ref || !name) continue;
      readings.push({ kind, name, key: null, optional: ref.optional === true, rolls: restarts, readBy: 'envFrom' });
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

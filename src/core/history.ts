// A WebService's revisions as `history` lists them, and what `rollback` writes to make the pods
// those of an earlier one: its image, its pod spec and its config. Pure: the WebService, its
// revisions and the current digests of the config go in; rows and a merge patch come out.
import { ConfigPin, CONFIG_PINS_ANNOTATION, configTarget, formatPins, parsePins } from './config';
import { jsonEqual } from './equal';
import { ConfigState, DEFAULT_TIER, Json, WebService, WorkloadSpec } from './model';
import {
  CHANGE_CAUSE_ANNOTATION,
  ControllerRevision,
  NOT_POD_FIELDS,
  ROLLED_BACK_ANNOTATION,
  RevisionConfig,
  RevisionData,
  revisionDataOf,
} from './revision';
import { InputError } from './validate';

/** One revision, as `history` shows it. */
export interface HistoryRow {
  revision: number;
  name: string;
  creationTimestamp?: string;
  /** current: every pod runs it; rolling out: the pods are being moved to it; rolled back: a rollback left it. */
  status: 'current' | 'rolling out' | 'rolled back' | '';
  image: string;
  /** Each Secret and ConfigMap its pods read, by name and short keyed digest; `(live)`: no snapshot holds it. */
  config: string[];
  change: string;
}

/** The revisions, newest first, with what each is to the WebService now. */
export function historyOf(parent: WebService, revisions: ControllerRevision[]): HistoryRow[] {
  const rolledBack = new Set(
    revisions.map((r) => Number(r.metadata.annotations?.[ROLLED_BACK_ANNOTATION])).filter(Number.isInteger),
  );
  const { currentRevision, updateRevision } = parent.status ?? {};
  return [...revisions]
    .sort((a, b) => b.revision - a.revision)
    .map((revision) => {
      const data = revisionDataOf(revision.data);
      const status =
        revision.revision === currentRevision
          ? 'current'
          : revision.revision === updateRevision
            ? 'rolling out'
            : rolledBack.has(revision.revision)
              ? 'rolled back'
              : '';
      return {
        revision: revision.revision,
        name: revision.metadata.name,
        ...(revision.metadata.creationTimestamp ? { creationTimestamp: revision.metadata.creationTimestamp } : {}),
        status,
        image: data?.image ?? '',
        config: (data?.config ?? []).map(describeConfig),
        change: revision.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION] ?? '',
      };
    });
}

/** Digits of a keyed digest that history shows: enough to tell contents apart by eye. */
const SHORT_DIGEST = 8;

function describeConfig(config: RevisionConfig): string {
  const digest = config.digest === null ? 'absent' : config.digest.slice(0, SHORT_DIGEST);
  return `${configTarget(config)}@${digest}${config.snapshot || config.digest === null ? '' : ' (live)'}`;
}

/** What a rollback writes, and what it cannot bring back. */
export interface RollbackPlan {
  /** The revision rolled back to; the pass that follows makes it the newest, under a new number. */
  to: number;
  image: string;
  /** A JSON merge patch of the WebService, conditional on the resourceVersion it was planned from. */
  patch: Json;
  /** What the patch changes, by field. */
  changes: { field: string; from: string | null; to: string | null }[];
  /** The config held on the revision's snapshots, although the sources changed since (released when they change again). */
  pins: ConfigPin[];
  /** What the revision's pods read that no snapshot kept: they read it as it is now. */
  notRestored: string[];
}

/** The revision a rollback goes to: the one asked for, else the newest before the one the pods run. */
export function rollbackTarget(
  parent: WebService,
  revisions: ControllerRevision[],
  toRevision?: number,
): { revision: ControllerRevision; data: RevisionData & { workload: Partial<WorkloadSpec> } } {
  const name = `webservice/${parent.metadata.name}`;
  if (!parent.spec.workload) throw new InputError(`${name} has no spec.workload: only a workload has revisions`);
  const ordered = [...revisions].sort((a, b) => b.revision - a.revision);
  const running = parent.status?.currentRevision ?? ordered.at(0)?.revision;
  const revision =
    toRevision === undefined
      ? ordered.find((r) => running !== undefined && r.revision < running)
      : ordered.find((r) => r.revision === toRevision);
  if (!revision) {
    const kept = ordered.map((r) => r.revision).join(', ') || 'none';
    throw new InputError(
      toRevision === undefined
        ? `${name} has no revision before ${running ?? 'its first'} to roll back to (kept: ${kept})`
        : `${name} has no revision ${toRevision} (kept: ${kept}); kubectl webservice history ${parent.metadata.name} lists them`,
    );
  }
  const data = revisionDataOf(revision.data);
  if (!data?.workload) {
    throw new InputError(`revision ${revision.revision} of ${name} records no pod spec to roll back to`);
  }
  return { revision, data: data as RevisionData & { workload: Partial<WorkloadSpec> } };
}

/** The spec that makes the pods those of the revision: its image, tier and pod fields; the rest as now. */
export function rolledBackSpec(parent: WebService, data: RevisionData & { workload: Partial<WorkloadSpec> }) {
  const kept = Object.fromEntries(
    Object.entries(parent.spec.workload ?? {}).filter(([field]) => NOT_POD_FIELDS.has(field)),
  );
  // The tier as the spec says it, unless the revision's differs (the default is not written out).
  const tier = data.tier === (parent.spec.tier ?? DEFAULT_TIER) ? parent.spec.tier : data.tier;
  return { ...parent.spec, image: data.image, tier, workload: { ...data.workload, ...kept } };
}

/**
 * The rollback to a revision: the spec that makes its pods (rolledBackSpec), and a pin on each
 * Secret or ConfigMap whose source has changed since, held on the revision's snapshot. `sources`:
 * the current keyed digests of what the rolled-back spec reads; `snapshots`: those that exist.
 */
export function planRollback(
  parent: WebService,
  target: ReturnType<typeof rollbackTarget>,
  sources: ConfigState[],
  snapshots: string[],
): RollbackPlan {
  const { revision, data } = target;
  const spec = rolledBackSpec(parent, data);
  const pins: ConfigPin[] = [];
  const notRestored: string[] = [];
  for (const config of data.config) {
    const now = sources.find((s) => s.kind === config.kind && s.name === config.name)?.digest ?? null;
    if (now === config.digest) continue;
    const what = configTarget(config);
    if (!config.snapshot) notRestored.push(`${what} is not snapshotted: the pods read it as it is now`);
    else if (!snapshots.includes(config.snapshot))
      notRestored.push(`${what}'s snapshot is gone: the pods read it as it is now`);
    else if (config.digest !== null)
      pins.push({ kind: config.kind, name: config.name, digest: config.digest, source: now });
  }
  const had = parent.metadata.annotations?.[CONFIG_PINS_ANNOTATION];
  const pinned = pins.length > 0 ? formatPins(pins) : null;
  const metadata: Json = { resourceVersion: parent.metadata.resourceVersion };
  if ((had ?? null) !== pinned) metadata.annotations = { [CONFIG_PINS_ANNOTATION]: pinned };
  const specPatch = mergePatch(parent.spec, spec);
  const changes = Object.keys(specPatch ?? {}).flatMap((field) =>
    field === 'workload'
      ? Object.keys(specPatch?.workload as Json).map((key) =>
          change(`spec.workload.${key}`, parent.spec.workload, spec.workload, key),
        )
      : [change(`spec.${field}`, parent.spec, spec, field)],
  );
  if (metadata.annotations) {
    const from = parsePins(had).map(configTarget).join(', ') || null;
    changes.push({
      field: `metadata.annotations.${CONFIG_PINS_ANNOTATION}`,
      from,
      to: pins.map(configTarget).join(', ') || null,
    });
  }
  const patch: Json = { metadata, ...(specPatch ? { spec: specPatch } : {}) };
  return { to: revision.revision, image: data.image, patch, changes, pins, notRestored };
}

function change(field: string, from: object | undefined, to: object, key: string) {
  const text = (value: unknown) =>
    value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);
  return { field, from: text((from as Json | undefined)?.[key]), to: text((to as Json)[key]) };
}

/** An RFC 7386 merge patch from one object to another; null when they are equal. Lists are replaced whole. */
export function mergePatch(from: object, to: object): Json | null {
  const patch: Json = {};
  const a = from as Json;
  const b = to as Json;
  for (const key of Object.keys(a)) if (b[key] === undefined && a[key] !== undefined) patch[key] = null;
  for (const [key, value] of Object.entries(b)) {
    if (value === undefined || jsonEqual(a[key], value)) continue;
    const both = isObject(a[key]) && isObject(value);
    patch[key] = both ? (mergePatch(a[key] as object, value) ?? {}) : value;
  }
  return Object.keys(patch).length > 0 ? patch : null;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

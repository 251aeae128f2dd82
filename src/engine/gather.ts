// Reads what the core needs from the API server: reads sized to the question, and a
// constant number of requests however many WebServices a scope holds.
import { APPLIED_KINDS, CONFIG_MAP, ChildSetRow, SET_KINDS, onePerKind } from '../core/kinds';
import {
  Child,
  INSTANCE_LABEL,
  OWNED_SELECTOR,
  ROLE_LABEL,
  SyncInput,
  WebService,
  instanceLabelValue,
  kindOf,
} from '../core/model';
import { asRevision, revisionDataOf } from '../core/revision';
import { childKey, childKeyOf, indexObjects, keyOf, syncInputFor } from '../core/object-index';
import { WORKLOAD_ANNOTATION } from '../core/workload';
import { absentKinds } from '../kube/discovery';
import { orNull } from '../kube/errors';
import type { KubeApi, ObjectMetadata } from '../kube/api';
import { MetricsApi, withCanaryReads } from './canary-check';
import { ConfigReader } from './config';
import { WEBSERVICE_TYPE } from '../core/resource-types';

export interface GatherOptions {
  /**
   * A writer's read: where a namespace has no config key yet (engine/config.ts), make it. A
   * reader's makes none, and its digests differ from any the pods carry (a rollout is due).
   */
  makeConfigKey?: boolean;
  /** false: do not read the config the pods read (the pods' digest stays as live); `check` reads none. */
  readConfig?: boolean;
  /** Where a running canary's check is asked (--prometheus-url); unset: no check is evaluated. */
  metrics?: MetricsApi;
}

/** Past this many dependency GETs, one LIST of the namespace's WebServices is cheaper. */
const MAX_DEPENDENCY_GETS = 16;

/**
 * One CR: GET it and GET its `<name>-desired` child; a CR being deleted also LISTs
 * the children it owns (label-selected), which is what finalize deletes. A CR with a
 * workload, or whose ConfigMap says it had one, also GETs the Deployment and Service of
 * its name (to create, compare, or delete what is no longer wanted). Dependencies
 * are read by name, level by level through dependsOn, so that a cycle of any length is
 * seen; a graph that would take more than MAX_DEPENDENCY_GETS GETs is read with one LIST.
 */
export async function gatherOne(
  client: KubeApi,
  namespace: string,
  name: string,
  options: GatherOptions = {},
): Promise<SyncInput> {
  // The child's name is known before the CR is read: both GETs go out at once. The
  // CR's error (e.g. not found) is the one to report, so the child's waits behind it.
  const child = orNull(client.get<Child>(CONFIG_MAP, namespace, CONFIG_MAP.nameFor(name)));
  child.catch(() => undefined);
  const parent = await client.get<WebService>(WEBSERVICE_TYPE, namespace, name);
  const [configMaps, related] = await Promise.all([
    parent.metadata.deletionTimestamp
      ? client.list<Child>(CONFIG_MAP, namespace, { labelSelector: OWNED_SELECTOR }).then((list) => list.items)
      : child.then((found) => (found ? [found] : [])),
    gatherDependencies(client, namespace, parent),
  ]);
  const children: Child[] = [...configMaps];
  let absent: string[] = [];
  if (mayHaveWorkload([parent], children)) {
    absent = await absentKinds(client);
    const served = APPLIED_KINDS.filter((row) => !absent.includes(row.kind));
    const [found, sets] = await Promise.all([
      Promise.all(served.map((row) => orNull(client.get<Child>(row, namespace, row.nameFor(name))))),
      gatherSets([parent], (row) => client.list<Child>(row, namespace, { labelSelector: setSelector(row, name) })),
    ]);
    for (const object of found) if (object) children.push(object);
    children.push(...sets.filter((child) => !children.some((c) => sameObject(c, child))));
  }
  const input = await withCanaryReads(
    withAbsent(syncInputFor(parent, indexObjects(related, children)), absent),
    client,
    options.metrics,
  );
  return options.readConfig === false
    ? input
    : withConfig(input, new ConfigReader(client, { makeKey: options.makeConfigKey }));
}

/**
 * The children of the set rows (revisions, config snapshots) that the WebServices may have: each
 * row's kind is LISTed where one of them may want some, and Secrets also where a revision names
 * a snapshot of one (a WebService that stopped snapshotting Secrets still has them to delete).
 */
async function gatherSets(
  parents: WebService[],
  list: (row: ChildSetRow) => Promise<{ items: Child[] }>,
  listed: Child[] = [],
): Promise<Child[]> {
  const rows = SET_KINDS.filter((row) => !listed.some((child) => kindOf(child) === row.kind));
  const first = rows.filter((row) => parents.some((parent) => row.mayWant(parent)));
  const found = (await allOrFirstError(first.map((row) => list(row)))).flatMap((result) => result.items);
  const named = new Set(
    found.flatMap(
      (child) => revisionDataOf(asRevision(child)?.data)?.config.flatMap((c) => (c.snapshot ? [c.kind] : [])) ?? [],
    ),
  );
  const then = rows.filter((row) => !first.includes(row) && named.has(row.kind as 'Secret' | 'ConfigMap'));
  const more = (await allOrFirstError(then.map((row) => list(row)))).flatMap((result) => result.items);
  return [...found, ...more];
}

/** One WebService's children of a set row: ours, its instance, the row's role (revisions carry one too). */
function setSelector(row: ChildSetRow, name: string): string {
  return `${OWNED_SELECTOR},${INSTANCE_LABEL}=${instanceLabelValue(name)},${ROLE_LABEL}=${row.role}`;
}

function sameObject(a: Child, b: Child): boolean {
  return kindOf(a) === kindOf(b) && a.metadata.name === b.metadata.name;
}

/** The input with the Secrets and ConfigMaps its pods read, as found (none without a workload). */
async function withConfig(input: SyncInput, reader: ConfigReader): Promise<SyncInput> {
  const config = input.parent.metadata.deletionTimestamp ? undefined : await reader.statesFor(input.parent);
  return config ? { ...input, config } : input;
}

/** The input with the kinds whose API is absent, when there are any. */
function withAbsent(input: SyncInput, absent: string[]): SyncInput {
  return absent.length > 0 ? { ...input, absentKinds: absent } : input;
}

/**
 * Whether a read must look for Deployments and Services: a WebService asks for a workload,
 * or a ConfigMap of ours carries the marker of one that had it (and may still own them).
 * Without either, a scope costs exactly the requests it did before workloads existed.
 */
function mayHaveWorkload(parents: WebService[], children: Child[]): boolean {
  return (
    parents.some((p) => p.spec.workload !== undefined) ||
    children.some((c) => kindOf(c) === CONFIG_MAP.kind && c.metadata.annotations?.[WORKLOAD_ANNOTATION] !== undefined)
  );
}

/** The WebServices reachable from parent through dependsOn (those that exist). */
async function gatherDependencies(client: KubeApi, namespace: string, parent: WebService): Promise<WebService[]> {
  const seen = new Set<string>([parent.metadata.name]);
  const found: WebService[] = [];
  let level = unseen(parent.spec.dependsOn ?? [], seen);
  let gets = 0;
  while (level.length > 0) {
    gets += level.length;
    if (gets > MAX_DEPENDENCY_GETS) return (await client.list<WebService>(WEBSERVICE_TYPE, namespace)).items;
    const fetched = await Promise.all(
      level.map((dep) => orNull(client.get<WebService>(WEBSERVICE_TYPE, namespace, dep))),
    );
    const next: string[] = [];
    for (const ws of fetched) {
      if (!ws) continue;
      found.push(ws);
      // One being deleted leads nowhere (the core does not follow it either).
      if (!ws.metadata.deletionTimestamp) next.push(...(ws.spec.dependsOn ?? []));
    }
    level = unseen(next, seen);
  }
  return found;
}

/** The names not seen yet, once each; marks them seen. */
function unseen(names: string[], seen: Set<string>): string[] {
  const fresh: string[] = [];
  for (const name of names) {
    if (seen.has(name)) continue;
    seen.add(name);
    fresh.push(name);
  }
  return fresh;
}

/**
 * Every CR in a namespace (or in all, for null). Two LISTs: the WebServices, and the
 * ConfigMaps that carry our label. Only when some WebService has no labelled child does
 * a third, metadata-only LIST look for a foreign object sitting on its child's name.
 * Only when the scope has workloads (see mayHaveWorkload) are Deployments and Services
 * LISTed by our label, and looked for by name (metadata only) like the ConfigMaps.
 */
export async function gatherAll(
  client: KubeApi,
  namespace: string | null,
  options: GatherOptions = {},
): Promise<SyncInput[]> {
  const [parents, owned] = await bothOrFirstError(
    client.list<WebService>(WEBSERVICE_TYPE, namespace),
    client.list<Child>(CONFIG_MAP, namespace, { labelSelector: OWNED_SELECTOR }),
  );
  const children: Child[] = owned.items;
  const ownedKeys = new Set(children.map(keyOf));
  const missing = new Set(
    parents.items
      .map((p) => childKey(CONFIG_MAP.kind, p.metadata.namespace, CONFIG_MAP.nameFor(p.metadata.name)))
      .filter((key) => !ownedKeys.has(key)),
  );
  if (missing.size > 0) {
    const all = await client.list<ObjectMetadata>(CONFIG_MAP, namespace, { metadataOnly: true });
    for (const meta of all.items) {
      if (missing.has(keyOf(meta)) && !ownedKeys.has(keyOf(meta))) children.push({ metadata: meta.metadata });
    }
  }
  let absent: string[] = [];
  if (mayHaveWorkload(parents.items, children)) {
    absent = await absentKinds(client);
    const [workloads, sets] = await Promise.all([
      gatherWorkloads(client, namespace, parents.items, absent),
      gatherSets(
        parents.items,
        (row) => client.list<Child>(row, namespace, { labelSelector: OWNED_SELECTOR }),
        children,
      ),
    ]);
    children.push(...workloads, ...sets);
  }
  const index = indexObjects(parents.items, children);
  const inputs = await Promise.all(
    parents.items.map((parent) =>
      withCanaryReads(withAbsent(syncInputFor(parent, index), absent), client, options.metrics),
    ),
  );
  if (options.readConfig === false) return inputs;
  const reader = new ConfigReader(client, { makeKey: options.makeConfigKey });
  // A failure names the first WebService, in the list's order, whose config cannot be read.
  return allOrFirstError(inputs.map((input) => withConfig(input, reader)));
}

/**
 * Our children of the workload's kinds in scope (those whose API is served), plus the metadata
 * of foreign ones on a wanted name.
 */
async function gatherWorkloads(
  client: KubeApi,
  namespace: string | null,
  parents: WebService[],
  absent: string[],
): Promise<Child[]> {
  const served = APPLIED_KINDS.filter((row) => !absent.includes(row.kind));
  // One LIST per kind: rows of one kind (the canary's Deployment and the Deployment) share it.
  const lists = await allOrFirstError(
    onePerKind(served).map((row) => client.list<Child>(row, namespace, { labelSelector: OWNED_SELECTOR })),
  );
  const children: Child[] = lists.flatMap((list) => list.items);
  const owned = new Set(children.map(childKeyOf));
  for (const row of served) {
    const missing = new Set(
      parents
        .filter((p) => row.wanted(p))
        .map((p) => childKey(row.kind, p.metadata.namespace, row.nameFor(p.metadata.name)))
        .filter((key) => !owned.has(key)),
    );
    if (missing.size === 0) continue;
    for (const item of (await client.list<ObjectMetadata>(row, namespace, { metadataOnly: true })).items) {
      const key = childKey(row.kind, item.metadata.namespace, item.metadata.name);
      if (missing.has(key)) children.push({ apiVersion: row.apiVersion, kind: row.kind, metadata: item.metadata });
    }
  }
  return children;
}

/**
 * Both reads in parallel; when both fail (e.g. a user who may list neither), the error
 * reported is always the first one's, not whichever answer happened to come back first.
 */
async function bothOrFirstError<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}

/** Like bothOrFirstError, for any number of reads. */
async function allOrFirstError<T>(reads: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(reads);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
}

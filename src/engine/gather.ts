// Reads what the core needs from the API server: reads sized to the question, and a
// constant number of requests however many WebServices a scope holds.
import { ConfigMap, OWNED_SELECTOR, SyncInput, WebService, childName } from '../core/model';
import { indexObjects, keyOf, objectKey, syncInputFor } from '../core/pass';
import { orNull } from '../kube/errors';
import type { KubeClient } from '../kube/client';

/** Past this many dependency GETs, one LIST of the namespace's WebServices is cheaper. */
export const MAX_DEPENDENCY_GETS = 16;

/**
 * One CR: GET it and GET its `<name>-desired` child; a CR being deleted also LISTs
 * the children it owns (label-selected), which is what finalize deletes. Dependencies
 * are read by name, level by level through dependsOn, so that a cycle of any length is
 * seen; a graph that would take more than MAX_DEPENDENCY_GETS GETs is read with one LIST.
 */
export async function gatherOne(client: KubeClient, namespace: string, name: string): Promise<SyncInput> {
  // The child's name is known before the CR is read: both GETs go out at once. The
  // CR's error (e.g. not found) is the one to report, so the child's waits behind it.
  const child = client.getConfigMap(namespace, childName(name));
  child.catch(() => undefined);
  const parent = await client.getWebService(namespace, name);
  const [children, related] = await Promise.all([
    parent.metadata.deletionTimestamp
      ? client.listConfigMaps(namespace, { labelSelector: OWNED_SELECTOR }).then((list) => list.items)
      : child.then((found) => (found ? [found] : [])),
    gatherDependencies(client, namespace, parent),
  ]);
  return syncInputFor(parent, indexObjects(related, children));
}

/** The WebServices reachable from parent through dependsOn (those that exist). */
async function gatherDependencies(client: KubeClient, namespace: string, parent: WebService): Promise<WebService[]> {
  const seen = new Set<string>([parent.metadata.name]);
  const found: WebService[] = [];
  let level = unseen(parent.spec.dependsOn ?? [], seen);
  let gets = 0;
  while (level.length > 0) {
    gets += level.length;
    if (gets > MAX_DEPENDENCY_GETS) return (await client.listWebServices(namespace)).items;
    const fetched = await Promise.all(level.map((dep) => orNull(client.getWebService(namespace, dep))));
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
 */
export async function gatherAll(client: KubeClient, namespace: string | null): Promise<SyncInput[]> {
  const [parents, owned] = await bothOrFirstError(
    client.listWebServices(namespace),
    client.listConfigMaps(namespace, { labelSelector: OWNED_SELECTOR }),
  );
  const children: ConfigMap[] = owned.items;
  const ownedKeys = new Set(children.map(keyOf));
  const missing = new Set(
    parents.items
      .map((p) => objectKey(p.metadata.namespace, childName(p.metadata.name)))
      .filter((key) => !ownedKeys.has(key)),
  );
  if (missing.size > 0) {
    const all = await client.listConfigMapMetadata(namespace);
    for (const meta of all.items) {
      if (missing.has(keyOf(meta)) && !ownedKeys.has(keyOf(meta))) children.push({ metadata: meta.metadata });
    }
  }
  const index = indexObjects(parents.items, children);
  return parents.items.map((parent) => syncInputFor(parent, index));
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

// Watches a scope's WebServices and our children of every kind (the controller's watch cache)
// and hands out the sync input of each WebService whose own object, child or dependency
// changed: the same input `status --all` reads with gatherAll, assembled from the cache.
// Only a WebService without a labelled child costs a request: a GET of its child's name,
// since a foreign ConfigMap there (not labelled, so not watched) makes it a conflict.
import { CONFIG_MAP } from '../core/kinds';
import { CONFIG_MAP_SUFFIX, Child, KIND, MANAGED_BY_LABEL, MANAGED_BY_VALUE, SyncInput, kindOf } from '../core/model';
import { controllerKeyOf, dependentsOf, keyOf, objectKey } from '../core/object-index';
import { WebServiceCache } from '../controller/cache';
import type { KubeApi } from '../kube/api';
import { orNull } from '../kube/errors';

export interface SyncInputWatchOptions {
  /** null: every namespace. */
  namespace: string | null;
  /** Report only this WebService (namespace/name key); the others are still cached, as dependencies. */
  only?: string;
  /** resourceVersions by object key of what the caller has already shown: not reported again. */
  known: { webServices: Map<string, string>; configMaps: Map<string, string> };
  idleTimeoutMs: number;
  signal: AbortSignal;
  log: (level: 'info' | 'error' | 'debug', message: string, fields?: Record<string, unknown>) => void;
  changed(input: SyncInput): void;
  deleted(key: string): void;
}

/** Runs until the signal aborts. */
export async function watchSyncInputs(client: KubeApi, options: SyncInputWatchOptions): Promise<void> {
  const { known } = options;
  const dirty = new Set<string>();
  let draining = false;

  const cache: WebServiceCache = new WebServiceCache(
    client,
    { namespace: options.namespace, idleTimeoutMs: options.idleTimeoutMs, log: options.log },
    {
      webServiceChanged(ws, _previous, initialList) {
        if (initialList && known.webServices.get(keyOf(ws)) === ws.metadata.resourceVersion) return;
        markWithDependents(keyOf(ws));
      },
      webServiceRemoved: (ws) => markWithDependents(keyOf(ws)),
      // A workload's status follows its Deployment's: its changes mark the owner. What the caller
      // has already shown is skipped for ConfigMaps only; the caller prints a line only when it changes.
      childChanged(child, initialList) {
        const { resourceVersion } = child.metadata;
        if (initialList && kindOf(child) === CONFIG_MAP.kind && known.configMaps.get(keyOf(child)) === resourceVersion)
          return;
        markOwners(child);
      },
      childRemoved: (child) => markOwners(child),
      apiChanged() {
        for (const key of cache.index.parentsByKey.keys()) mark(key);
      },
      synced(kind) {
        if (kind === KIND) {
          // Shown at first, gone before the first list: report them as deleted.
          for (const key of known.webServices.keys()) if (!cache.index.parentsByKey.has(key)) mark(key);
          known.webServices.clear();
        } else if (kind === CONFIG_MAP.kind) {
          for (const key of known.configMaps.keys()) {
            if (!cache.index.childrenByKey.has(key)) {
              const [ns, name] = key.split('/');
              markOwners({ metadata: { namespace: ns, name } });
            }
          }
          known.configMaps.clear();
        }
        void drain();
      },
    },
  );
  function mark(key: string): void {
    if (options.only !== undefined && key !== options.only) return;
    dirty.add(key);
    void drain();
  }

  /** A dependent's status reads its dependencies: their changes are its changes. */
  function markWithDependents(key: string): void {
    mark(key);
    for (const dependent of dependentsOf(cache.index, key)) mark(dependent);
  }

  /** The WebService a child is the child of: by its name, and by its controller reference. */
  function markOwners(child: Pick<Child, 'metadata'>): void {
    const { name, namespace: ns } = child.metadata;
    if (name.endsWith(CONFIG_MAP_SUFFIX)) mark(objectKey(ns, name.slice(0, -CONFIG_MAP_SUFFIX.length)));
    const owner = controllerKeyOf(child);
    if (owner) mark(owner);
  }

  /** One key at a time, once every kind is listed: a half-filled cache would show a child as missing. */
  async function drain(): Promise<void> {
    if (draining || !cache.synced()) return;
    draining = true;
    try {
      for (const key of dirty) {
        dirty.delete(key);
        if (options.signal.aborted) return;
        const parent = cache.index.parentsByKey.get(key);
        if (!parent) {
          options.deleted(key);
          continue;
        }
        try {
          options.changed(await withForeignChild(cache.syncInput(parent)));
        } catch (err) {
          options.log('error', `cannot read the child of ${key}`, { error: (err as Error).message });
        }
      }
    } finally {
      draining = false;
    }
  }

  /** gatherAll's third look: a ConfigMap on the child's name that is not labelled ours. */
  async function withForeignChild(input: SyncInput): Promise<SyncInput> {
    const { namespace: ns, name } = input.parent.metadata;
    const wanted = CONFIG_MAP.nameFor(name);
    if (input.children.some((child) => child.metadata.name === wanted)) return input;
    const found = await orNull(client.get<Child>(CONFIG_MAP, ns ?? '', wanted));
    if (!found) return input;
    // Like gatherAll, metadata only for a foreign one; a labelled one is just not in the cache yet.
    const labelled = found.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE;
    return { ...input, children: [...input.children, labelled ? found : { metadata: found.metadata }] };
  }

  await cache.run(options.signal);
}

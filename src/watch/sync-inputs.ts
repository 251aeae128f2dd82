// Watches a scope's WebServices and our ConfigMaps, Deployments and Services (the controller's reflectors) and hands
// out the sync input of each WebService whose own object, child or dependency changed:
// the same input `status --all` reads with gatherAll, assembled from the watch caches.
// Only a WebService without a labelled child costs a request: a GET of its child's name,
// since a foreign ConfigMap there (not labelled, so not watched) makes it a conflict.
import {
  Child,
  ConfigMap,
  Deployment,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  OWNED_SELECTOR,
  Service,
  SyncInput,
  WebService,
  childName,
} from '../core/model';
import {
  ObjectIndex,
  addChild,
  controllerKeyOf,
  dependentsOf,
  emptyIndex,
  keyOf,
  objectKey,
  removeChild,
  removeParent,
  setParent,
  syncInputFor,
} from '../core/object-index';
import { Reflector } from '../controller/reflector';
import type { KubeClient } from '../kube/client';

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

const CHILD_SUFFIX = childName('');

/** Runs until the signal aborts. */
export async function watchSyncInputs(client: KubeClient, options: SyncInputWatchOptions): Promise<void> {
  const { namespace, known } = options;
  const index: ObjectIndex = emptyIndex();
  const dirty = new Set<string>();
  let draining = false;

  const webServices = new Reflector<WebService>(
    {
      list: () => client.listWebServices(namespace),
      watch: (rv, timeout, onEvent, watchOptions) =>
        client.watchWebServices(namespace, rv, timeout, onEvent, watchOptions),
    },
    {
      upsert(ws) {
        setParent(index, ws);
        if (!webServices.synced() && known.webServices.get(keyOf(ws)) === ws.metadata.resourceVersion) return;
        markWithDependents(keyOf(ws));
      },
      remove(ws) {
        removeParent(index, ws);
        markWithDependents(keyOf(ws));
      },
      synced: () => {
        // Shown at first, gone before the first list: report them as deleted.
        for (const key of known.webServices.keys()) if (!index.parentsByKey.has(key)) mark(key);
        known.webServices.clear();
        void drain();
      },
    },
    { name: 'webservices', idleTimeoutMs: options.idleTimeoutMs, log: options.log },
  );
  const configMaps = new Reflector<ConfigMap>(
    {
      list: () => client.listConfigMaps(namespace, { labelSelector: OWNED_SELECTOR }),
      watch: (rv, timeout, onEvent, watchOptions) =>
        client.watchConfigMaps(namespace, rv, timeout, { labelSelector: OWNED_SELECTOR }, onEvent, watchOptions),
    },
    {
      upsert(cm) {
        addChild(index, cm);
        if (!configMaps.synced() && known.configMaps.get(keyOf(cm)) === cm.metadata.resourceVersion) return;
        markOwners(cm);
      },
      remove(cm) {
        removeChild(index, cm);
        markOwners(cm);
      },
      synced: () => {
        for (const key of known.configMaps.keys()) {
          if (!index.childrenByKey.has(key)) {
            const [ns, name] = key.split('/');
            markOwners({ metadata: { namespace: ns, name } });
          }
        }
        known.configMaps.clear();
        void drain();
      },
    },
    { name: 'configmaps', idleTimeoutMs: options.idleTimeoutMs, log: options.log },
  );

  // A workload's status follows its Deployment's: its changes mark the owner. What the caller
  // has already shown is not skipped here; the caller prints a line only when it changes.
  const deployments = new Reflector<Deployment>(
    {
      list: () => client.listWorkloads('Deployment', namespace, { labelSelector: OWNED_SELECTOR }),
      watch: (rv, timeout, onEvent, watchOptions) =>
        client.watchWorkloads(
          'Deployment',
          namespace,
          rv,
          timeout,
          { labelSelector: OWNED_SELECTOR },
          onEvent,
          watchOptions,
        ),
    },
    { upsert: (d) => workloadChanged(d, true), remove: (d) => workloadChanged(d, false), synced: () => void drain() },
    { name: 'deployments', idleTimeoutMs: options.idleTimeoutMs, log: options.log },
  );
  const services = new Reflector<Service>(
    {
      list: () => client.listWorkloads('Service', namespace, { labelSelector: OWNED_SELECTOR }),
      watch: (rv, timeout, onEvent, watchOptions) =>
        client.watchWorkloads(
          'Service',
          namespace,
          rv,
          timeout,
          { labelSelector: OWNED_SELECTOR },
          onEvent,
          watchOptions,
        ),
    },
    {
      upsert: (svc) => workloadChanged(svc, true),
      remove: (svc) => workloadChanged(svc, false),
      synced: () => void drain(),
    },
    { name: 'services', idleTimeoutMs: options.idleTimeoutMs, log: options.log },
  );

  function workloadChanged(child: Child, present: boolean): void {
    if (present) addChild(index, child);
    else removeChild(index, child);
    markOwners(child);
  }

  function mark(key: string): void {
    if (options.only !== undefined && key !== options.only) return;
    dirty.add(key);
    void drain();
  }

  /** A dependent's status reads its dependencies: their changes are its changes. */
  function markWithDependents(key: string): void {
    mark(key);
    for (const dependent of dependentsOf(index, key)) mark(dependent);
  }

  /** The WebService a ConfigMap is the child of: by its name, and by its controller reference. */
  function markOwners(cm: Pick<ConfigMap, 'metadata'>): void {
    const { name, namespace: ns } = cm.metadata;
    if (name.endsWith(CHILD_SUFFIX)) mark(objectKey(ns, name.slice(0, -CHILD_SUFFIX.length)));
    const owner = controllerKeyOf(cm);
    if (owner) mark(owner);
  }

  /** One key at a time, once both caches hold a full list: a half-filled cache would show a child as missing. */
  async function drain(): Promise<void> {
    if (draining || !webServices.synced() || !configMaps.synced() || !deployments.synced() || !services.synced())
      return;
    draining = true;
    try {
      for (const key of dirty) {
        dirty.delete(key);
        if (options.signal.aborted) return;
        const parent = index.parentsByKey.get(key);
        if (!parent) {
          options.deleted(key);
          continue;
        }
        try {
          options.changed(await withForeignChild(syncInputFor(parent, index)));
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
    const wanted = childName(name);
    if (input.children.some((child) => child.metadata.name === wanted)) return input;
    const found = await client.getConfigMap(ns ?? '', wanted);
    if (!found) return input;
    // Like gatherAll, metadata only for a foreign one; a labelled one is just not in the cache yet.
    const labelled = found.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE;
    return { ...input, children: [...input.children, labelled ? found : { metadata: found.metadata }] };
  }

  await Promise.all([
    webServices.run(options.signal),
    configMaps.run(options.signal),
    deployments.run(options.signal),
    services.run(options.signal),
  ]);
}

// The controller's watch of the Secrets and ConfigMaps its WebServices' pods read. It asks for
// their metadata only (PartialObjectMetadata), never their data, and keeps only the objects some
// cached WebService reads: 10 000 other Secrets in scope cost one pass over their metadata at
// each list, and no memory after. A change of a referenced object's resourceVersion queues the
// WebServices that read it; their reconcile reads its data again (engine/config.ts), and only a
// change of the content they read rolls their pods. Nothing is watched, and no permission on
// Secrets is needed, until some WebService reads config.
import { getMaxListeners, setMaxListeners } from 'node:events';
import { configReferences } from '../core/config';
import { CONFIG_WATCHED_SETS, setRowOf } from '../core/kinds';
import { Child, ConfigKind, MANAGED_BY_LABEL, MANAGED_BY_VALUE, WebService } from '../core/model';
import { keyOf, objectKey } from '../core/object-index';
import type { KubeApi, ObjectMetadata } from '../kube/api';
import type { WatchEvent } from '../kube/transport';
import { CONFIG_KEY_SECRET, CONFIG_TYPES, ConfigReader } from '../engine/config';
import { Reflector, ReflectorOptions } from './reflector';

export interface ConfigWatchOptions {
  /** null: every namespace. */
  namespace: string | null;
  idleTimeoutMs: number;
  /** How long a kept reading stands without an event: a lost event costs at most this. */
  maxAgeMs?: number;
  log: ReflectorOptions['log'];
  /** The WebServices whose config changed: to be looked at again. */
  changed(keys: string[]): void;
  /** One of our children that this watch finds (kinds.ts' watchedAsConfig: Secret snapshots), by its metadata. */
  childChanged(child: Child): void;
  childRemoved(child: Child): void;
}

const KINDS: ConfigKind[] = ['Secret', 'ConfigMap'];

export class ConfigWatch {
  readonly reader: ConfigReader;
  /** kind/namespace/name of a referenced object -> the keys of the WebServices that read it. */
  private readonly readers = new Map<string, Set<string>>();
  /** A WebService's key -> the objects it reads. */
  private readonly reads = new Map<string, string[]>();
  /** Namespaces with a WebService that reads config: their config key is watched too. */
  private readonly namespaces = new Map<string, number>();
  private readonly reflectors: Reflector<ObjectMetadata>[];
  private firstReference: () => void = () => undefined;
  private readonly referenced = new Promise<void>((resolve) => (this.firstReference = resolve));
  private started = false;

  constructor(
    client: KubeApi,
    private readonly options: ConfigWatchOptions,
  ) {
    this.reader = new ConfigReader(client, {
      makeKey: true,
      watched: () => this.synced(),
      maxAgeMs: options.maxAgeMs,
    });
    this.reflectors = KINDS.map((kind) => this.reflector(client, kind));
  }

  /** Lists and watches, once some WebService reads config, until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    // Beside the cache's loops on the same signal: a wait here and a watch (or backoff) per kind.
    setMaxListeners(getMaxListeners(signal) + this.reflectors.length + 1, signal);
    const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([this.referenced, aborted]);
    if (signal.aborted) return;
    this.started = true;
    await Promise.all(this.reflectors.map((reflector) => reflector.run(signal)));
  }

  /** Started and listed: a kept reading is current until an event says otherwise. */
  synced(): boolean {
    return this.started && this.reflectors.every((reflector) => reflector.synced());
  }

  /** Its reflectors' problems (see WebServiceCache.problems). */
  problems(): string[] {
    return this.started ? this.reflectors.flatMap((reflector) => reflector.problem() ?? []) : [];
  }

  webServiceChanged(ws: WebService): void {
    const key = keyOf(ws);
    const namespace = ws.metadata.namespace ?? '';
    const objects = configReferences(ws.spec.workload).map((r) => objectId(r.kind, namespace, r.name));
    this.forget(key);
    if (objects.length === 0) return;
    this.reads.set(key, objects);
    for (const id of objects) {
      const readers = this.readers.get(id);
      if (readers) readers.add(key);
      else this.readers.set(id, new Set([key]));
    }
    this.namespaces.set(namespace, (this.namespaces.get(namespace) ?? 0) + 1);
    this.firstReference();
  }

  webServiceRemoved(ws: WebService): void {
    this.forget(keyOf(ws));
  }

  private forget(key: string): void {
    const objects = this.reads.get(key);
    if (!objects) return;
    this.reads.delete(key);
    for (const id of objects) {
      const readers = this.readers.get(id);
      readers?.delete(key);
      if (readers?.size === 0) this.readers.delete(id);
    }
    const namespace = key.slice(0, key.indexOf('/'));
    const count = (this.namespaces.get(namespace) ?? 1) - 1;
    if (count > 0) this.namespaces.set(namespace, count);
    else this.namespaces.delete(namespace);
  }

  /** Whether an object is worth keeping: some WebService reads it, it is the key of their namespace, or it is our child. */
  private wanted(kind: ConfigKind, object: ObjectMetadata): boolean {
    if (ourChild(kind, object)) return true;
    const { namespace = '', name } = object.metadata;
    if (kind === 'Secret' && name === CONFIG_KEY_SECRET) return this.namespaces.has(namespace);
    return this.readers.has(objectId(kind, namespace, name));
  }

  /** A referenced object changed or went: if the reader kept another version, its readers look again. */
  private seen(kind: ConfigKind, object: ObjectMetadata, resourceVersion: string | undefined): void {
    const { namespace = '', name } = object.metadata;
    if (!this.reader.changed(kind, namespace, name, resourceVersion)) return;
    const keys =
      kind === 'Secret' && name === CONFIG_KEY_SECRET
        ? [...this.reads.keys()].filter((key) => key.startsWith(`${namespace}/`))
        : [...(this.readers.get(objectId(kind, namespace, name)) ?? [])];
    if (keys.length > 0) this.options.changed(keys);
  }

  private reflector(client: KubeApi, kind: ConfigKind): Reflector<ObjectMetadata> {
    const type = CONFIG_TYPES[kind];
    const { namespace, idleTimeoutMs, log } = this.options;
    const keep = (event: WatchEvent<ObjectMetadata>) =>
      event.type === 'BOOKMARK' || event.type === 'ERROR' || this.wanted(kind, event.object);
    return new Reflector<ObjectMetadata>(
      {
        list: async () => {
          const list = await client.list<ObjectMetadata>(type, namespace, { metadataOnly: true });
          return { ...list, items: list.items.filter((item) => this.wanted(kind, item)) };
        },
        watch: (rv, timeout, onEvent, watchOptions) =>
          client.watch<ObjectMetadata>(
            type,
            namespace,
            { resourceVersion: rv, timeoutSeconds: timeout, metadataOnly: true },
            (event) => {
              if (keep(event)) onEvent(event);
            },
            watchOptions,
          ),
      },
      {
        upsert: (object) => {
          const child = ourChild(kind, object);
          if (child) this.options.childChanged(child);
          else this.seen(kind, object, object.metadata.resourceVersion);
        },
        remove: (object) => {
          const child = ourChild(kind, object);
          if (child) this.options.childRemoved(child);
          else this.seen(kind, object, undefined);
        },
      },
      { name: `${type.resource} (metadata)`, idleTimeoutMs, log },
    );
  }
}

/** The object as a child of ours, when it is one of a set row watched with the config (a Secret snapshot). */
function ourChild(kind: ConfigKind, object: ObjectMetadata): Child | null {
  if (object.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY_VALUE) return null;
  const child = { apiVersion: 'v1', kind, metadata: object.metadata } as Child;
  const row = setRowOf(child);
  return row && CONFIG_WATCHED_SETS.includes(row) ? child : null;
}

function objectId(kind: ConfigKind, namespace: string, name: string): string {
  return `${kind}/${objectKey(namespace, name)}`;
}

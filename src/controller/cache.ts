// The watch cache that `run` and `status -w` share: one reflector for the WebServices and one
// for each kind of child (ours only, by label), all feeding one index, with each WebService's
// dependents. The cache keeps the index and says what changed; what a change means is its
// listener's: the controller queues keys, `status -w` prints lines.
import { setMaxListeners } from 'node:events';
import { setTimeout as timeout } from 'node:timers/promises';
import { CACHED_KINDS, KindRow, cachedForm, isSetRow, resourceName } from '../core/kinds';
import { Child, KIND, OWNED_SELECTOR, SyncInput, WebService, kindOf } from '../core/model';
import { REFLECTOR_BACKOFF, backoff } from '../core/retry';
import {
  ObjectIndex,
  addChild,
  emptyIndex,
  removeChild,
  removeParent,
  setParent,
  syncInputFor,
} from '../core/object-index';
import type { KubeApi } from '../kube/api';
import { absentKinds } from '../kube/discovery';
import { ListWatchSource, Reflector, ReflectorOptions, ReflectorStats } from './reflector';
import { WEBSERVICE_TYPE } from '../core/resource-types';

const OWNED = { labelSelector: OWNED_SELECTOR };

/**
 * A reflector for every kind of child in the kind table (ours only, by label). A Deployment's
 * status changes are events too: status follows a rollout with no timer.
 */
function childSource(client: KubeApi, row: KindRow, namespace: string | null): ListWatchSource<Child> {
  return {
    list: () => client.list<Child>(row, namespace, OWNED),
    watch: (rv, timeout, onEvent, options) =>
      client.watch<Child>(row, namespace, { ...OWNED, resourceVersion: rv, timeoutSeconds: timeout }, onEvent, options),
  };
}

/** A kind of child in the kind table, and the reflector that watches it. */
interface WatchedKind {
  row: KindRow;
  name: string;
  reflector: Reflector<Child>;
}

/** Told of each change once the index holds it. `initialList`: it came from the first list, not from a change since. */
export interface CacheListener {
  /** `previous`: what the watch held before. */
  webServiceChanged(ws: WebService, previous: WebService | undefined, initialList: boolean): void;
  webServiceRemoved(ws: WebService): void;
  childChanged(child: Child, initialList: boolean): void;
  childRemoved(child: Child): void;
  /** One kind's store holds a complete list (after its first list, and after each relist). */
  synced?(kind: string): void;
  /**
   * An optional kind's API changed: served (absent until now, its first list is in the index)
   * or gone (its objects already reported removed).
   */
  apiChanged?(kind: string, served: boolean): void;
}

export interface CacheOptions {
  /** null: every namespace. */
  namespace: string | null;
  idleTimeoutMs: number;
  /** Lists as streaming lists (WatchList) where the server serves them. */
  watchList?: boolean;
  /** How often discovery is asked again about an optional kind whose API is absent. */
  probeIntervalMs?: number;
  log: ReflectorOptions['log'];
}

/** Discovery is asked again this often while an optional kind's API is absent: rare, a read. */
const PROBE_INTERVAL_MS = 30_000;

export class WebServiceCache {
  readonly index: ObjectIndex = emptyIndex();
  private readonly webServices: Reflector<WebService>;
  private readonly children: WatchedKind[];
  private readonly webServicesFirstListed: Promise<void>;
  private webServicesListed: () => void = () => undefined;
  /**
   * The optional kinds whose API discovery found absent: not watched, and their WebServices'
   * inputs say so. Null until discovery has answered.
   */
  private absent: Set<string> | null = null;
  /** Optional kinds whose API has just appeared, until their first list is in. */
  private readonly installed = new Set<string>();

  constructor(
    private readonly client: KubeApi,
    private readonly options: CacheOptions,
    private readonly listener: CacheListener,
  ) {
    const { namespace, idleTimeoutMs, watchList, log } = options;
    this.webServicesFirstListed = new Promise((resolve) => (this.webServicesListed = resolve));
    this.webServices = new Reflector<WebService>(
      {
        list: () => client.list<WebService>(WEBSERVICE_TYPE, namespace),
        watch: (rv, timeout, onEvent, watchOptions) =>
          client.watch<WebService>(
            WEBSERVICE_TYPE,
            namespace,
            { resourceVersion: rv, timeoutSeconds: timeout },
            onEvent,
            watchOptions,
          ),
      },
      {
        upsert: (ws, previous, initialList) => {
          setParent(this.index, ws);
          listener.webServiceChanged(ws, previous, initialList);
        },
        remove: (ws) => {
          removeParent(this.index, ws);
          listener.webServiceRemoved(ws);
        },
        synced: () => {
          this.webServicesListed();
          listener.synced?.(KIND);
        },
      },
      { name: 'webservices', idleTimeoutMs, watchList, log },
    );
    this.children = CACHED_KINDS.map((row) => ({
      row,
      name: row.resource,
      reflector: new Reflector<Child>(
        childSource(client, row, namespace),
        {
          upsert: (child, _previous, initialList) => {
            addChild(this.index, child);
            listener.childChanged(child, initialList);
          },
          remove: (child) => {
            removeChild(this.index, child);
            listener.childRemoved(child);
          },
          synced: () => {
            listener.synced?.(row.kind);
            if (this.installed.delete(row.kind)) {
              this.absent?.delete(row.kind);
              listener.apiChanged?.(row.kind, true);
            }
          },
        },
        {
          name: row.resource,
          idleTimeoutMs,
          watchList,
          log,
          endWhenNotServed: row.optional === true,
          transform: cachedForm,
        },
      ),
    }));
  }

  /** Lists and watches until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    // Its loops each wait on the signal: a watch (or its backoff) per kind and one for the
    // WebServices, the probe wait, and this. With a kind more than today, that passes Node's
    // 10, and Node would report a leak that is not one.
    setMaxListeners(this.children.length + 3, signal);
    const aborted = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // One initial LIST at a time: at 10 000 objects, two large lists received and parsed
    // side by side are the process's peak memory, and on a small machine they are not in
    // sooner for it (the figures: bench/RESULTS.md at f745c9c). The children list side by side:
    // Deployments and Services (ours only) are few next to the ConfigMaps.
    const children = Promise.race([this.webServicesFirstListed, aborted]).then(async () => {
      if (signal.aborted) return;
      const absent = new Set(await this.probe(false));
      this.absent = absent;
      const watching = this.children
        .filter(({ row }) => !absent.has(row.kind))
        .map((child) => this.watchKind(child, signal));
      await Promise.all([...watching, this.awaitInstalled(signal)]);
    });
    await Promise.all([this.webServices.run(signal), children]);
  }

  /**
   * Watches one kind. An optional kind whose collection answers 404, and which discovery no
   * longer serves (its CRD was deleted), is absent again: what the index held of it is gone,
   * the listener is told, and awaitInstalled waits for it to come back.
   */
  private async watchKind(child: WatchedKind, signal: AbortSignal): Promise<void> {
    const { row, reflector } = child;
    let passing404s = 0;
    while ((await reflector.run(signal)) === 'not-served') {
      if ((await this.probe(true)).includes(row.kind)) {
        this.absent?.add(row.kind);
        this.installed.delete(row.kind);
        this.options.log('info', 'an API is no longer served; its objects are gone', {
          kind: row.kind,
          resource: resourceName(row),
        });
        reflector.forgetAll();
        // Foreign objects on our names, read one by one (not through the watch), go too.
        for (const object of [...this.index.childrenByKey.values()]) {
          if (kindOf(object) !== row.kind) continue;
          removeChild(this.index, object);
          this.listener.childRemoved(object);
        }
        this.listener.apiChanged?.(row.kind, false);
        return;
      }
      // Discovery still serves it: a passing 404. List again, after a backoff.
      if (!(await delay(backoff(++passing404s, { ...REFLECTOR_BACKOFF, random: Math.random }), signal))) return;
    }
  }

  /**
   * While an optional kind's API is absent, asks discovery again every probe interval; once it
   * is served, starts its watch (no restart needed) and tells the listener. An API can go and
   * come back, so this runs for the cache's life; with nothing absent it is only a timer.
   */
  private async awaitInstalled(signal: AbortSignal): Promise<void> {
    const started: Promise<void>[] = [];
    // Absent, and not yet being listed.
    const waiting = () => [...(this.absent ?? [])].some((kind) => !this.installed.has(kind));
    while (!signal.aborted) {
      if (!(await delay(this.options.probeIntervalMs ?? PROBE_INTERVAL_MS, signal))) break;
      // No WebService asks for a child of an absent kind: nothing to ask discovery, so a
      // controller at steady state makes no request but its watches.
      if (!waiting() || !this.absentKindWanted()) continue;
      const absent = new Set(await this.probe(true));
      for (const child of this.children) {
        const { row } = child;
        if (!this.absent?.has(row.kind) || absent.has(row.kind) || this.installed.has(row.kind)) continue;
        // Still absent to readers until its first list is in: until then the index knows none of its objects.
        this.options.log('info', 'an API is served now; watching it', { kind: row.kind, resource: resourceName(row) });
        this.installed.add(row.kind);
        started.push(this.watchKind(child, signal));
      }
    }
    await Promise.all(started);
  }

  /** Whether a cached WebService's spec asks for a child of a kind whose API is absent. */
  private absentKindWanted(): boolean {
    const rows = this.children
      .map(({ row }) => row)
      .filter((row) => this.absent?.has(row.kind) && !this.installed.has(row.kind));
    for (const ws of this.index.parentsByKey.values()) {
      if (rows.some((row) => (isSetRow(row) ? row.mayWant(ws) : row.wanted(ws)))) return true;
    }
    return false;
  }

  /** The optional kinds discovery finds absent; a failed probe is logged, and counts as served (the watch then retries). */
  private async probe(fresh: boolean): Promise<string[]> {
    try {
      return await absentKinds(this.client, fresh);
    } catch (err) {
      this.options.log('error', 'discovery failed; watching every kind', { error: (err as Error).message });
      return [];
    }
  }

  /** The optional kinds whose API is absent (none until discovery has answered). */
  absentKinds(): string[] {
    return this.absent ? [...this.absent] : [];
  }

  /** What one reconcile of this WebService needs, from the cache: syncInputFor, with the absent kinds. */
  syncInput(parent: WebService): SyncInput {
    const input = syncInputFor(parent, this.index);
    const absent = this.absentKinds();
    return absent.length > 0 ? { ...input, absentKinds: absent } : input;
  }

  /** Every kind holds a complete list: a half-filled cache would show a child as missing. */
  synced(): boolean {
    const absent = this.absent;
    return (
      this.webServices.synced() &&
      absent !== null &&
      this.children.every(({ row, reflector }) => absent.has(row.kind) || reflector.synced())
    );
  }

  /**
   * Why the cache cannot follow the cluster now: each watched kind whose list/watch keeps
   * failing (an API server that does not answer, a CRD deleted), in its reflector's words.
   */
  problems(): string[] {
    const absent = this.absent ?? new Set<string>();
    const children = this.children.filter(({ row }) => !absent.has(row.kind)).map(({ reflector }) => reflector);
    return [this.webServices, ...children].flatMap((reflector) => reflector.problem() ?? []);
  }

  /** What each reflector did, by its name. */
  stats(): Record<string, ReflectorStats> {
    const children = this.children.map(({ name, reflector }): [string, ReflectorStats] => [name, reflector.stats]);
    return { webservices: this.webServices.stats, ...Object.fromEntries(children) };
  }
}

/**
 * Resolves true after ms, or false at once when the signal aborts. It leaves no listener on the
 * signal once it resolves: awaitInstalled waits again every probe interval, for the process's life.
 */
async function delay(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await timeout(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

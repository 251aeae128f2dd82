// The watch cache that `run` and `status -w` share: one reflector for the WebServices and one
// for each kind of child (ours only, by label), all feeding one index, with each WebService's
// dependents. The cache keeps the index and says what changed; what a change means is its
// listener's: the controller queues keys, `status -w` prints lines.
import { CHILD_KINDS, ChildKindRow } from '../core/kinds';
import { Child, KIND, OWNED_SELECTOR, WebService } from '../core/model';
import { ObjectIndex, addChild, emptyIndex, removeChild, removeParent, setParent } from '../core/object-index';
import type { KubeApi } from '../kube/client';
import { ListWatchSource, Reflector, ReflectorOptions, ReflectorStats } from './reflector';

const OWNED = { labelSelector: OWNED_SELECTOR };

/**
 * A reflector for every kind of child in the kind table (ours only, by label). A Deployment's
 * status changes are events too: status follows a rollout with no timer.
 */
function childSource(client: KubeApi, row: ChildKindRow, namespace: string | null): ListWatchSource<Child> {
  return {
    list: () => client.listChildren(row, namespace, OWNED),
    watch: (rv, timeout, onEvent, options) =>
      client.watchChildren(row, namespace, rv, timeout, OWNED, onEvent, options),
  };
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
}

export interface CacheOptions {
  /** null: every namespace. */
  namespace: string | null;
  idleTimeoutMs: number;
  /** Lists as streaming lists (WatchList) where the server serves them. */
  watchList?: boolean;
  log: ReflectorOptions['log'];
}

export class WebServiceCache {
  readonly index: ObjectIndex = emptyIndex();
  private readonly webServices: Reflector<WebService>;
  private readonly children: { name: string; reflector: Reflector<Child> }[];
  private readonly webServicesFirstListed: Promise<void>;
  private webServicesListed: () => void = () => undefined;

  constructor(client: KubeApi, options: CacheOptions, listener: CacheListener) {
    const { namespace, idleTimeoutMs, watchList, log } = options;
    this.webServicesFirstListed = new Promise((resolve) => (this.webServicesListed = resolve));
    this.webServices = new Reflector<WebService>(
      {
        list: () => client.listWebServices(namespace),
        watch: (rv, timeout, onEvent, watchOptions) =>
          client.watchWebServices(namespace, rv, timeout, onEvent, watchOptions),
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
    this.children = CHILD_KINDS.map((row) => ({
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
          synced: () => listener.synced?.(row.kind),
        },
        { name: row.resource, idleTimeoutMs, watchList, log },
      ),
    }));
  }

  /** Lists and watches until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const aborted = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // One initial LIST at a time: at 10 000 objects, two large lists received and parsed
    // side by side are the process's peak memory, and on a small machine they are not in
    // sooner for it (bench/RESULTS.md has the figures). The children list side by side:
    // Deployments and Services (ours only) are few next to the ConfigMaps.
    const children = Promise.race([this.webServicesFirstListed, aborted]).then(() =>
      Promise.all(this.children.map(({ reflector }) => reflector.run(signal))),
    );
    await Promise.all([this.webServices.run(signal), children]);
  }

  /** Every kind holds a complete list: a half-filled cache would show a child as missing. */
  synced(): boolean {
    return this.webServices.synced() && this.children.every(({ reflector }) => reflector.synced());
  }

  /** What each reflector did, by its name. */
  stats(): Record<string, ReflectorStats> {
    const children = this.children.map(({ name, reflector }): [string, ReflectorStats] => [name, reflector.stats]);
    return { webservices: this.webServices.stats, ...Object.fromEntries(children) };
  }
}

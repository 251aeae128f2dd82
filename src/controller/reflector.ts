// A small list/watch loop in the manner of client-go's reflector. client-node 1.4's
// ListWatch stops for good on any non-410 error and never notices a silent watch, so
// this one is ours:
// - list, then watch from the list's resourceVersion, with bookmarks and a random
//   5–10 minute timeoutSeconds, then watch again from the last resourceVersion seen;
// - relist on 410 Gone (etcd compacted the version we asked for);
// - on any other failure, back off as client-go's reflector does (800 ms doubling to 30 s,
//   with jitter: REFLECTOR_BACKOFF) and retry. The count starts over only once a watch has
//   worked (delivered an event or a bookmark): a LIST that succeeds, or a watch that opens and
//   fails again, is no proof that the server is back, so an outage is retried ever more slowly;
// - while its attempts keep failing, problem() says why: the controller is not ready then;
// - a watchdog aborts a watch that brings neither an event nor a bookmark for too long;
// - for an optional kind (endWhenNotServed), a 404 on the collection ends the loop: its API
//   may be gone, which only the caller can tell (discovery);
// - with watchList, the list is a streaming one (WatchList: sendInitialEvents=true), as
//   client-go's reflector does when its WatchListClient gate is on: the objects arrive one
//   event at a time instead of in one response that both ends must hold whole. A server that
//   refuses it (400/422), or that ignores it (a bookmark without initial-events-end), gets a
//   LIST from then on.
import { REFLECTOR_BACKOFF, backoff } from '../core/retry';
import { sleep } from '../kube/retry';
import type { ObjectList } from '../kube/api';
import { KubeError, WatchIdleError, isGone } from '../kube/errors';
import type { WatchEvent, WatchOptions } from '../kube/transport';
import { keyOf } from '../core/object-index';
import { withSharedParts } from '../core/shared-parts';

interface Meta {
  metadata: { name: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string> };
}

/** The annotation on the bookmark that ends a streaming list's initial events. */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** The server sent a plain bookmark before the end of the initial events: it ignores sendInitialEvents. */
class NotStreamingError extends Error {}

export interface ListWatchSource<T> {
  list(): Promise<ObjectList<T>>;
  watch(
    resourceVersion: string,
    timeoutSeconds: number,
    onEvent: (event: WatchEvent<T>) => void,
    options: WatchOptions,
  ): Promise<void>;
}

export interface ReflectorHandlers<T> {
  /**
   * Added or changed; `previous` is what the store held before. `initialList`: it came from
   * the first list, not from a change seen since (controller-runtime's isInInitialList).
   */
  upsert(object: T, previous: T | undefined, initialList: boolean): void;
  remove(object: T): void;
  /** The store holds a complete list (after the first list, and after each relist). */
  synced?(): void;
}

export interface ReflectorOptions<T = unknown> {
  name: string;
  idleTimeoutMs: number;
  minWatchTimeoutSeconds?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  random?: () => number;
  /** List with a streaming list (WatchList) where the server serves one. */
  watchList?: boolean;
  /** A 404 on the list or the watch ends run() with 'not-served' instead of backing off. */
  endWhenNotServed?: boolean;
  /** What of each object the store keeps (client-go's SetTransform), besides dropping managedFields. */
  transform?: (object: T) => T;
  log: (level: 'info' | 'error' | 'debug', message: string, fields?: Record<string, unknown>) => void;
}

/** Counts what a reflector did, for tests and logs: relists after 410, restarts after errors. */
/** Logged when a list or a watch succeeds after failures. */
export const WORKS_AGAIN = 'list/watch works again';

/** Failed attempts in a row after which the reflector has a problem (one alone is a blip: a watch cut). */
const FAILURES_BEFORE_PROBLEM = 2;

export interface ReflectorStats {
  lists: number;
  /** Of the lists, those that were streaming lists. */
  streamingLists: number;
  watches: number;
  relistsOnGone: number;
  failures: number;
  idleTimeouts: number;
}

export class Reflector<T extends Meta> {
  readonly store = new Map<string, T>();
  readonly stats: ReflectorStats = {
    lists: 0,
    streamingLists: 0,
    watches: 0,
    relistsOnGone: 0,
    failures: 0,
    idleTimeouts: 0,
  };
  private hasSynced = false;
  /** The resourceVersion of the last event the current watch delivered (null: relist first). */
  private progress: string | null = null;
  private readonly random: () => number;
  /** The server refused or ignored a streaming list: LIST from now on. */
  private watchListRefused = false;
  /** Consecutive failures since a watch last worked (delivered something): the backoff's count. */
  private failuresSinceWorked = 0;
  /** The object the store took in last: a new one shares its equal parts (withSharedParts). */
  private last: T | undefined;
  /** Consecutive failed attempts since a list or a watch last succeeded, and the last one's error. */
  private failing: { attempts: number; error: string } | null = null;

  constructor(
    private readonly source: ListWatchSource<T>,
    private readonly handlers: ReflectorHandlers<T>,
    private readonly options: ReflectorOptions<T>,
  ) {
    this.random = options.random ?? Math.random;
  }

  synced(): boolean {
    return this.hasSynced;
  }

  /**
   * Why it cannot list or watch, while its attempts keep failing (FAILURES_BEFORE_PROBLEM in a
   * row, with no list done nor watch opened since); null while it works.
   */
  problem(): string | null {
    const { failing } = this;
    if (!failing || failing.attempts < FAILURES_BEFORE_PROBLEM) return null;
    return `${this.options.name}: list/watch failed ${failing.attempts} times in a row: ${failing.error}`;
  }

  /**
   * Runs until the signal aborts, or with endWhenNotServed until the collection answers 404.
   * It can run again afterwards: it lists first.
   */
  async run(signal: AbortSignal): Promise<'aborted' | 'not-served'> {
    const policy = {
      ...REFLECTOR_BACKOFF,
      baseMs: this.options.initialBackoffMs ?? REFLECTOR_BACKOFF.baseMs,
      capMs: this.options.maxBackoffMs ?? REFLECTOR_BACKOFF.capMs,
      random: this.random,
    };
    let resourceVersion: string | null = null;
    while (!signal.aborted) {
      try {
        if (resourceVersion === null) {
          resourceVersion =
            this.options.watchList && !this.watchListRefused ? await this.streamingList(signal) : await this.relist();
        }
        resourceVersion = await this.watchOnce(resourceVersion, signal);
      } catch (err) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- aborted during the awaits above
        if (signal.aborted) break;
        if (this.options.endWhenNotServed && err instanceof KubeError && err.httpStatus === 404) {
          this.options.log('info', 'the collection answers 404 (not found)', { reflector: this.options.name });
          return 'not-served';
        }
        if (isGone(err)) {
          this.stats.relistsOnGone++;
          this.options.log('info', 'watch expired (410 Gone); relisting', { reflector: this.options.name });
          resourceVersion = null;
          this.progress = null;
          continue;
        }
        // Resume after the last event the failed watch delivered, not from where it began:
        // replaying those events would hand the cache older versions than it already holds.
        // A streaming list that got past its initial events is such a watch (progress is set
        // only from there on); before that, and after a failed LIST, there is nothing to
        // resume and the list starts over.
        if (this.progress !== null) resourceVersion = this.progress;
        this.stats.failures++;
        if (err instanceof WatchIdleError) this.stats.idleTimeouts++;
        this.failing = { attempts: (this.failing?.attempts ?? 0) + 1, error: (err as Error).message };
        const delay = backoff(++this.failuresSinceWorked, policy);
        this.options.log('error', `list/watch failed; retrying in ${(delay / 1000).toFixed(1)}s`, {
          reflector: this.options.name,
          error: (err as Error).message,
        });
        await sleep(delay, signal);
      }
    }
    return 'aborted';
  }

  /** Forgets every object, each reported removed, as a list that found none would. */
  forgetAll(): void {
    for (const [key, object] of [...this.store]) {
      this.store.delete(key);
      this.handlers.remove(object);
    }
    this.hasSynced = false;
    this.progress = null;
    this.last = undefined;
  }

  /** A fresh list replaces the store: what vanished meanwhile is reported as removed. */
  private async relist(): Promise<string> {
    this.stats.lists++;
    const list = await this.source.list();
    this.succeeded();
    const seen = new Set<string>();
    // A relist after 410 reports only what changed meanwhile (apply skips the rest): those are
    // changes like any watch event. Only the first list is the initial list.
    const initialList = !this.hasSynced;
    for (const object of list.items) {
      const key = keyOf(object);
      seen.add(key);
      this.apply(object, initialList);
    }
    this.completeList(seen);
    return list.resourceVersion;
  }

  /** A list is in: what the store held and the list did not bring is removed; the store is synced. */
  private completeList(seen: Set<string>): void {
    for (const [key, object] of [...this.store]) {
      if (!seen.has(key)) {
        this.store.delete(key);
        this.handlers.remove(object);
      }
    }
    this.hasSynced = true;
    this.handlers.synced?.();
  }

  /**
   * A streaming list: a watch that begins with the objects there are, as ADDED events, then a
   * bookmark annotated initial-events-end, and goes on as a watch until the server ends it.
   * What the store held and the initial events did not bring is reported as removed, as after
   * a LIST. Returns the last resourceVersion seen.
   */
  private async streamingList(signal: AbortSignal): Promise<string> {
    this.stats.lists++;
    this.stats.streamingLists++;
    this.stats.watches++;
    const initialList = !this.hasSynced;
    const seen = new Set<string>();
    // Set from the watch's callback, which the type checker does not follow.
    const stream: { resourceVersion: string | null } = { resourceVersion: null };
    this.progress = null;
    const initialEventsEnded = (bookmark: T) => {
      if (bookmark.metadata.annotations?.[INITIAL_EVENTS_END] !== 'true') throw new NotStreamingError();
      this.completeList(seen);
    };
    try {
      await this.source.watch(
        '',
        this.watchTimeoutSeconds(),
        (event) => {
          if (event.type === 'ERROR') throw watchError(event.object);
          this.worked();
          const synced = stream.resourceVersion !== null;
          if (event.type === 'BOOKMARK') {
            if (!synced) initialEventsEnded(event.object);
          } else if (event.type === 'DELETED') {
            this.store.delete(keyOf(event.object));
            this.handlers.remove(event.object);
          } else {
            if (!synced) seen.add(keyOf(event.object));
            this.apply(event.object, initialList && !synced);
          }
          // Until the initial events end, a resourceVersion is no place to resume from.
          const next = event.object.metadata.resourceVersion;
          if (next && (synced || event.type === 'BOOKMARK')) stream.resourceVersion = this.progress = next;
        },
        { idleTimeoutMs: this.options.idleTimeoutMs, signal, sendInitialEvents: true, onOpen: () => this.succeeded() },
      );
    } catch (err) {
      const refused = err instanceof KubeError && err.kind === 'Invalid';
      if (!refused && !(err instanceof NotStreamingError)) throw err;
      this.watchListRefused = true;
      this.options.log('info', 'the server does not serve streaming lists (WatchList); listing instead', {
        reflector: this.options.name,
        ...(refused ? { error: err.message } : {}),
      });
      return this.relist();
    }
    if (stream.resourceVersion === null) throw new Error('the streaming list ended before its initial events did');
    return stream.resourceVersion;
  }

  private watchTimeoutSeconds(): number {
    const minTimeout = this.options.minWatchTimeoutSeconds ?? 300;
    return Math.floor(minTimeout * (1 + this.random()));
  }

  /** One watch, until the server ends it; returns the last resourceVersion seen. */
  private async watchOnce(from: string, signal: AbortSignal): Promise<string> {
    this.stats.watches++;
    let resourceVersion = from;
    this.progress = from;
    await this.source.watch(
      resourceVersion,
      this.watchTimeoutSeconds(),
      (event) => {
        if (event.type === 'ERROR') throw watchError(event.object);
        this.worked();
        const next = event.object.metadata.resourceVersion;
        if (event.type === 'DELETED') {
          const key = keyOf(event.object);
          this.store.delete(key);
          this.handlers.remove(event.object);
        } else if (event.type !== 'BOOKMARK') {
          this.apply(event.object, false);
        }
        if (next) resourceVersion = this.progress = next;
      },
      { idleTimeoutMs: this.options.idleTimeoutMs, signal, onOpen: () => this.succeeded() },
    );
    return resourceVersion;
  }

  /** A list came in, or a watch opened: the reflector has no problem (the backoff goes on until one works). */
  private succeeded(): void {
    if (this.failing) {
      this.options.log('info', WORKS_AGAIN, {
        reflector: this.options.name,
        failures: this.failing.attempts,
      });
    }
    this.failing = null;
  }

  /** A watch delivered an event or a bookmark: it works, and the next failure is a first one again. */
  private worked(): void {
    this.succeeded();
    this.failuresSinceWorked = 0;
  }

  private apply(received: T, initialList: boolean): void {
    const object = this.options.transform?.(stripManagedFields(received)) ?? stripManagedFields(received);
    const key = keyOf(object);
    const previous = this.store.get(key);
    if (previous && previous.metadata.resourceVersion === object.metadata.resourceVersion) return;
    const kept = withSharedParts(previous, object, this.last);
    this.last = kept;
    this.store.set(key, kept);
    this.handlers.upsert(kept, previous, initialList);
  }
}

/**
 * Like client-go's TransformStripManagedFields: nothing in the controller reads them, and
 * at 10 000 objects they are much of the cache's memory.
 */
export function stripManagedFields<T extends Meta>(object: T): T {
  delete (object.metadata as { managedFields?: unknown }).managedFields;
  return object;
}

/** A watch ERROR event carries a Status; 410 means the resourceVersion is too old. */
function watchError(object: unknown): KubeError {
  const status = object as { code?: number; message?: string };
  return new KubeError(status.code === 410 ? 'Gone' : 'Server', status.message ?? 'watch error', status.code);
}

// Where a reflector resumes after a watch fails: after the last event it delivered (as
// client-go does), so nothing already applied is replayed over newer cached versions;
// after 410 Gone, from a fresh list.
import { KubeError, UnreachableError, WatchIdleError } from '../../src/kube/errors';
import type { WatchEvent, WatchOptions } from '../../src/kube/transport';
import { INITIAL_EVENTS_END, ListWatchSource, Reflector } from '../../src/controller/reflector';

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

const obj = (name: string, resourceVersion: string): Obj => ({ metadata: { name, namespace: 'ns', resourceVersion } });

/** A source whose watches play a script: each call delivers its events, then fails or ends. */
function scripted(watches: { events: WatchEvent<Obj>[]; fail?: Error }[], abort: AbortController) {
  const watchedFrom: string[] = [];
  let lists = 0;
  const source: ListWatchSource<Obj> = {
    list: async () => {
      lists++;
      return { items: [obj('a', '1')], resourceVersion: lists === 1 ? '1' : '100' };
    },
    watch: async (
      resourceVersion: string,
      _timeout: number,
      onEvent: (e: WatchEvent<Obj>) => void,
      _options: WatchOptions,
    ) => {
      watchedFrom.push(resourceVersion);
      const next = watches.shift();
      if (!next) {
        abort.abort();
        return;
      }
      for (const event of next.events) onEvent(event);
      if (next.fail) throw next.fail;
    },
  };
  return { source, watchedFrom, lists: () => lists };
}

function reflector(source: ListWatchSource<Obj>, upserts: string[]) {
  return new Reflector<Obj>(
    source,
    { upsert: (o) => upserts.push(`${o.metadata.name}@${o.metadata.resourceVersion}`), remove: () => undefined },
    { name: 'test', idleTimeoutMs: 1000, initialBackoffMs: 1, maxBackoffMs: 1, random: () => 0, log: () => undefined },
  );
}

describe('Reflector', () => {
  it('resumes a failed watch after the last event it delivered, replaying nothing', async () => {
    const abort = new AbortController();
    const idle = new WatchIdleError('x', 1000);
    const { source, watchedFrom } = scripted(
      [
        {
          events: [
            { type: 'MODIFIED', object: obj('a', '5') },
            { type: 'BOOKMARK', object: obj('', '7') },
          ],
          fail: idle,
        },
        { events: [] },
      ],
      abort,
    );
    const upserts: string[] = [];
    await reflector(source, upserts).run(abort.signal);
    expect(watchedFrom).toEqual(['1', '7', '7']);
    expect(upserts).toEqual(['a@1', 'a@5']);
  });

  it('tells its handler which objects came from the first list: not watch events, nor a relist', async () => {
    const abort = new AbortController();
    const gone = new KubeError('Gone', 'too old resource version', 410);
    const { source } = scripted(
      [
        { events: [{ type: 'MODIFIED', object: obj('a', '5') }], fail: gone },
        { events: [{ type: 'ADDED', object: obj('b', '101') }] },
      ],
      abort,
    );
    const upserts: string[] = [];
    await new Reflector<Obj>(
      source,
      {
        upsert: (o, _previous, initialList) =>
          upserts.push(`${o.metadata.name}@${o.metadata.resourceVersion}${initialList ? ' (initial list)' : ''}`),
        remove: () => undefined,
      },
      {
        name: 'test',
        idleTimeoutMs: 1000,
        initialBackoffMs: 1,
        maxBackoffMs: 1,
        random: () => 0,
        log: () => undefined,
      },
    ).run(abort.signal);
    // The relist after 410 brings a@1 back over a@5: a change like any other.
    expect(upserts).toEqual(['a@1 (initial list)', 'a@5', 'a@1', 'b@101']);
  });

  it('relists after 410 Gone instead of resuming', async () => {
    const abort = new AbortController();
    const gone = new KubeError('Gone', 'too old resource version', 410);
    const { source, watchedFrom, lists } = scripted(
      [{ events: [{ type: 'MODIFIED', object: obj('a', '5') }], fail: gone }],
      abort,
    );
    await reflector(source, []).run(abort.signal);
    expect(lists()).toBe(2);
    expect(watchedFrom).toEqual(['1', '100']);
  });

  it('counts an idle watch by its type, not by the words of its message', async () => {
    const abort = new AbortController();
    const { source } = scripted(
      [
        { events: [], fail: new WatchIdleError('webservices', 180_000) },
        // a request timeout whose text happens to say the same: a failure, not an idle watch
        { events: [], fail: new UnreachableError('proxy: no event or bookmark for 180s', true) },
        { events: [] },
      ],
      abort,
    );
    const r = reflector(source, []);
    await r.run(abort.signal);
    expect(r.stats.failures).toBe(2);
    expect(r.stats.idleTimeouts).toBe(1);
  });

  /** A reflector over source with the longest delays (random 1), and what it logged. */
  function backingOff(source: ListWatchSource<Obj>) {
    const logged: string[] = [];
    const r = new Reflector<Obj>(
      source,
      { upsert: () => undefined, remove: () => undefined },
      { name: 'test', idleTimeoutMs: 1000, random: () => 1, log: (_level, message) => logged.push(message) },
    );
    return { r, logged };
  }
  /** Runs body under jest's fake timers. */
  async function withFakeTimers(body: () => Promise<void>): Promise<void> {
    jest.useFakeTimers();
    try {
      await body();
    } finally {
      jest.useRealTimers();
    }
  }
  const retrying = (waits: string[]) => waits.map((wait) => `list/watch failed; retrying in ${wait}`);
  const refused = () => new UnreachableError('the connection to the server was refused (ECONNREFUSED)');

  it("backs off as client-go's reflector does, 800 ms doubling, and starts over once a watch works", async () => {
    await withFakeTimers(async () => {
      const abort = new AbortController();
      let lists = 0;
      let watches = 0;
      const source: ListWatchSource<Obj> = {
        list: async () => {
          if (++lists <= 3) throw new KubeError('Server', 'etcdserver: leader changed', 500);
          return { items: [], resourceVersion: '1' };
        },
        watch: async (_rv, _timeout, onEvent) => {
          watches++;
          // A list that works, and a watch that fails at once, prove nothing: the count goes on.
          if (watches === 1) throw new KubeError('Server', 'watch failed', 500);
          // A watch that delivers something works: the next failure is a first one again.
          if (watches === 2) {
            onEvent({ type: 'BOOKMARK', object: obj('', '2') });
            throw new KubeError('Server', 'watch failed', 500);
          }
          abort.abort();
        },
      };
      const { r, logged } = backingOff(source);
      const run = r.run(abort.signal);
      await jest.advanceTimersByTimeAsync(30_000);
      await run;
      expect(logged.filter((line) => line.startsWith('list/watch failed'))).toEqual(
        retrying(['0.8s', '1.6s', '3.2s', '6.4s', '0.8s']),
      );
    });
  });

  it('backs off a watch that resumes from its progress and fails, up to 30 s: a 20 s outage is 5 tries', async () => {
    await withFakeTimers(async () => {
      const abort = new AbortController();
      let watches = 0;
      const source: ListWatchSource<Obj> = {
        list: async () => ({ items: [], resourceVersion: '1' }),
        watch: async (_rv, _timeout, onEvent) => {
          // The first watch delivers an event, then the API server goes away for good.
          if (++watches === 1) onEvent({ type: 'MODIFIED', object: obj('a', '2') });
          throw refused();
        },
      };
      const { r, logged } = backingOff(source);
      const run = r.run(abort.signal);
      await jest.advanceTimersByTimeAsync(20_000);
      // 0.8 + 1.6 + 3.2 + 6.4 s: the fifth try is at 12 s, the sixth only at 24.8 s.
      expect(logged).toEqual(retrying(['0.8s', '1.6s', '3.2s', '6.4s', '12.8s']));
      await jest.advanceTimersByTimeAsync(120_000);
      expect(logged.slice(5)).toEqual(retrying(['25.6s', '30.0s', '30.0s', '30.0s']));
      abort.abort();
      await run;
    });
  });

  it('has a problem from the second failure in a row until a watch opens again, and says so', async () => {
    await withFakeTimers(async () => {
      const abort = new AbortController();
      let watches = 0;
      const source: ListWatchSource<Obj> = {
        list: async () => ({ items: [], resourceVersion: '1' }),
        watch: async (_rv, _timeout, _onEvent, options) => {
          if (++watches <= 2) throw refused();
          options.onOpen?.();
          // Open and silent until the end.
          await new Promise((resolve) => abort.signal.addEventListener('abort', resolve));
        },
      };
      const { r, logged } = backingOff(source);
      const run = r.run(abort.signal);
      await jest.advanceTimersByTimeAsync(0);
      // One failure is a blip (a watch cut, retried at once): no problem yet.
      expect(logged).toEqual(retrying(['0.8s']));
      expect(r.problem()).toBeNull();
      await jest.advanceTimersByTimeAsync(800);
      expect(r.problem()).toBe(
        'test: list/watch failed 2 times in a row: the connection to the server was refused (ECONNREFUSED)',
      );
      await jest.advanceTimersByTimeAsync(1600);
      expect(r.problem()).toBeNull();
      expect(logged).toEqual([...retrying(['0.8s', '1.6s']), 'list/watch works again']);
      abort.abort();
      await run;
    });
  });
});

describe('Reflector with watchList: a streaming list', () => {
  const end = (resourceVersion: string): WatchEvent<Obj> => ({
    type: 'BOOKMARK',
    object: {
      metadata: { name: '', resourceVersion, annotations: { [INITIAL_EVENTS_END]: 'true' } } as Obj['metadata'],
    },
  });

  /** A source that records what each watch asked for and plays one script per watch. */
  function streaming(watches: { events: WatchEvent<Obj>[]; fail?: Error }[], abort: AbortController) {
    const calls: { from: string; sendInitialEvents: boolean }[] = [];
    let lists = 0;
    const source: ListWatchSource<Obj> = {
      list: async () => {
        lists++;
        return { items: [obj('a', '1')], resourceVersion: '1' };
      },
      watch: async (from, _timeout, onEvent, options) => {
        calls.push({ from, sendInitialEvents: options.sendInitialEvents === true });
        const next = watches.shift();
        if (!next) return void abort.abort();
        for (const event of next.events) onEvent(event);
        if (next.fail) throw next.fail;
      },
    };
    return { source, calls, lists: () => lists };
  }

  function streamingReflector(source: ListWatchSource<Obj>, seen: string[], synced: () => void = () => undefined) {
    return new Reflector<Obj>(
      source,
      {
        upsert: (o, _p, initial) =>
          seen.push(`${initial ? 'initial ' : ''}${o.metadata.name}@${o.metadata.resourceVersion}`),
        remove: (o) => seen.push(`removed ${o.metadata.name}`),
        synced,
      },
      {
        name: 'test',
        idleTimeoutMs: 1000,
        initialBackoffMs: 1,
        maxBackoffMs: 1,
        random: () => 0,
        watchList: true,
        log: () => undefined,
      },
    );
  }

  it('takes the initial events as the first list, syncs at initial-events-end, then watches on from there', async () => {
    const abort = new AbortController();
    const { source, calls, lists } = streaming(
      [
        {
          events: [
            { type: 'ADDED', object: obj('a', '3') },
            { type: 'ADDED', object: obj('b', '4') },
            end('9'),
            { type: 'MODIFIED', object: obj('a', '10') },
          ],
        },
        { events: [] },
      ],
      abort,
    );
    const seen: string[] = [];
    let syncedAfter = -1;
    await streamingReflector(source, seen, () => (syncedAfter = seen.length)).run(abort.signal);
    expect(seen).toEqual(['initial a@3', 'initial b@4', 'a@10']);
    expect(syncedAfter).toBe(2);
    // The last watch is the one that finds the script over and stops the run.
    expect(calls).toEqual([
      { from: '', sendInitialEvents: true },
      { from: '10', sendInitialEvents: false },
      { from: '10', sendInitialEvents: false },
    ]);
    expect(lists()).toBe(0);
  });

  it('resumes a streaming list that fails after its initial events from its last event, streaming nothing again', async () => {
    const abort = new AbortController();
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const { source, calls, lists } = streaming(
      [
        {
          events: [{ type: 'ADDED', object: obj('a', '3') }, end('9'), { type: 'MODIFIED', object: obj('a', '12') }],
          fail: reset,
        },
        { events: [] },
      ],
      abort,
    );
    const seen: string[] = [];
    await streamingReflector(source, seen).run(abort.signal);
    expect(seen).toEqual(['initial a@3', 'a@12']);
    expect(calls).toEqual([
      { from: '', sendInitialEvents: true },
      { from: '12', sendInitialEvents: false },
      { from: '12', sendInitialEvents: false },
    ]);
    expect(lists()).toBe(0);
  });

  it('streams again when a streaming list fails before its initial events end', async () => {
    const abort = new AbortController();
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const { source, calls } = streaming(
      [
        { events: [{ type: 'ADDED', object: obj('a', '3') }], fail: reset },
        { events: [{ type: 'ADDED', object: obj('a', '3') }, end('9')] },
        { events: [] },
      ],
      abort,
    );
    await streamingReflector(source, []).run(abort.signal);
    expect(calls.map((c) => [c.from, c.sendInitialEvents])).toEqual([
      ['', true],
      ['', true],
      ['9', false],
      ['9', false],
    ]);
  });

  it('after 410, streams again and removes what the initial events no longer bring', async () => {
    const abort = new AbortController();
    const gone = new KubeError('Gone', 'too old resource version', 410);
    const { source, calls } = streaming(
      [
        { events: [{ type: 'ADDED', object: obj('a', '3') }, { type: 'ADDED', object: obj('b', '4') }, end('9')] },
        { events: [], fail: gone },
        { events: [{ type: 'ADDED', object: obj('b', '4') }, end('20')] },
        { events: [] },
      ],
      abort,
    );
    const seen: string[] = [];
    await streamingReflector(source, seen).run(abort.signal);
    expect(seen).toEqual(['initial a@3', 'initial b@4', 'removed a']);
    expect(calls.map((c) => c.sendInitialEvents)).toEqual([true, false, true, false, false]);
  });

  it('lists instead, for good, when the server refuses it', async () => {
    const abort = new AbortController();
    const refused = new KubeError('Invalid', 'sendInitialEvents is forbidden for watch', 422);
    const { source, calls, lists } = streaming([{ events: [], fail: refused }, { events: [] }], abort);
    const seen: string[] = [];
    await streamingReflector(source, seen).run(abort.signal);
    expect(lists()).toBe(1);
    expect(seen).toEqual(['initial a@1']);
    expect(calls).toEqual([
      { from: '', sendInitialEvents: true },
      { from: '1', sendInitialEvents: false },
      { from: '1', sendInitialEvents: false },
    ]);
  });

  it('lists instead when the server ignores it: a bookmark that does not end the initial events', async () => {
    const abort = new AbortController();
    const { source, lists } = streaming(
      [
        {
          events: [
            { type: 'ADDED', object: obj('a', '3') },
            { type: 'BOOKMARK', object: obj('', '5') },
          ],
        },
        { events: [] },
      ],
      abort,
    );
    await streamingReflector(source, []).run(abort.signal);
    expect(lists()).toBe(1);
  });
});

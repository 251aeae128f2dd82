// An HTTP proxy between one client and the API server, for Sieve's perturbations of what a
// controller sees (test/campaign): node watch-proxy.cjs TARGET_URL CA_FILE. It listens on
// 127.0.0.1 in plain HTTP (a port the kernel picks, printed on stdout as its first line) and
// forwards every request to TARGET_URL over TLS, trusting CA_FILE; the client's own
// Authorization header goes through unchanged. Watch responses are re-cut event by event:
// - stale state: with probability WATCH_DELAY_P an event holds the stream behind it for up
//   to WATCH_DELAY_MS (order is kept, as the API server keeps it);
// - unobserved state: while events wait, a newer event for the same object replaces the one
//   still waiting, so the client never sees that intermediate state (Sieve's coalescing).
// - stale state, a lagging copy: the first list of each collection (a LIST, or a streaming
//   list's initial events up to its initial-events-end bookmark) is kept; with probability
//   STALE_LIST_P a later one is answered with that old snapshot instead, and a streaming
//   list then goes on as a watch from the snapshot's resourceVersion, so the client catches
//   up through the events since, as from an API server that lagged (or gets 410 Gone if
//   they were compacted, and lists again).
// Randomness comes from mulberry32 seeded by WATCH_SEED. Every second, and on SIGTERM, it
// prints a JSON line of counts: watches, events, delayed, coalesced, lists, staleLists; and
// the reads of Secrets, which the API server's audit log cannot tell apart: secretsRead, the
// Secrets whose data was asked for by name; secretLists, the lists and watches of Secrets in
// full; secretMetadataLists, those of their metadata only (PartialObjectMetadata); secretBytes,
// the bytes of the answers to each of these three kinds; and marked, how many answers (to any
// request) held COUNT_MARKER, a string the client must never receive, such as a value's base64.
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const { setInterval, clearTimeout } = require('node:timers');

const [target, caFile] = process.argv.slice(2);
const upstream = new URL(target);
const agent = new https.Agent({ ca: fs.readFileSync(caFile), keepAlive: true });
const delayP = Number(process.env.WATCH_DELAY_P ?? 0);
const delayMs = Number(process.env.WATCH_DELAY_MS ?? 0);
const staleListP = Number(process.env.STALE_LIST_P ?? 0);
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

let seed = Number(process.env.WATCH_SEED ?? 1) >>> 0;
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const counts = {
  watches: 0,
  events: 0,
  delayed: 0,
  coalesced: 0,
  lists: 0,
  staleLists: 0,
  secretsRead: [],
  secretLists: 0,
  secretMetadataLists: 0,
  secretBytes: { read: 0, lists: 0, metadataLists: 0 },
  marked: 0,
};
const marker = process.env.COUNT_MARKER ?? '';

/**
 * Counts a read of Secrets: by name (its data, unless only its metadata is asked for), or of a
 * collection. Returns which of secretBytes' kinds it is, if any.
 */
function countSecrets(req) {
  const match = /^\/api\/v1\/(?:namespaces\/[^/]+\/)?secrets(?:\/([^/]+))?$/.exec(
    new URL(req.url, 'http://proxy').pathname,
  );
  if (req.method !== 'GET' || !match) return null;
  const metadataOnly = (req.headers.accept ?? '').includes('as=PartialObjectMetadata');
  if (match[1] !== undefined) {
    if (metadataOnly) return null;
    if (!counts.secretsRead.includes(match[1])) counts.secretsRead.push(match[1]);
    return 'read';
  }
  if (metadataOnly) {
    counts.secretMetadataLists++;
    return 'metadataLists';
  }
  counts.secretLists++;
  return 'lists';
}

/** Counts what goes back to the client: the bytes of a read of Secrets (`kind`), and the marker in any answer. */
function countAnswer(res, kind) {
  let tail = '';
  const see = (chunk) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (kind !== null) counts.secretBytes[kind] += bytes.length;
    if (marker === '') return;
    // The tail is shorter than the marker: one that spans two chunks counts once.
    const text = tail + bytes.toString('latin1');
    counts.marked += text.split(marker).length - 1;
    tail = text.slice(-(marker.length - 1));
  };
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = (chunk, ...rest) => {
    see(chunk);
    return write(chunk, ...rest);
  };
  res.end = (chunk, ...rest) => {
    see(chunk);
    return end(chunk, ...rest);
  };
}
/** Per collection (path and label selector): the first list served, kept to be served again. */
const snapshots = new Map();
const report = () => process.stdout.write(`${JSON.stringify(counts)}\n`);
setInterval(report, 1000).unref();

function isWatch(url) {
  const watch = new URL(url, 'http://proxy').searchParams.get('watch');
  return watch === 'true' || watch === '1';
}

function isStreamingList(url) {
  return isWatch(url) && new URL(url, 'http://proxy').searchParams.get('sendInitialEvents') === 'true';
}

/** A collection as a list reads it: its path, label selector and the form asked for (full or metadata only). */
function collectionOf(req) {
  const parsed = new URL(req.url, 'http://proxy');
  return `${parsed.pathname}?${parsed.searchParams.get('labelSelector') ?? ''} ${req.headers.accept ?? ''}`;
}

/** Whether to answer this list from the old snapshot: only once there is one, with probability STALE_LIST_P. */
function servesStale(collection) {
  return staleListP > 0 && snapshots.has(collection) && random() < staleListP;
}

/** The object an event is about, or null (a BOOKMARK, an ERROR, a line that is not JSON). */
function keyOf(event) {
  if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') return null;
  const meta = event.object?.metadata ?? {};
  return `${event.object?.kind}/${meta.namespace}/${meta.name}`;
}

/**
 * Re-cuts one watch response: events queue, and flow once the stream is not held. A streaming
 * list's initial events, up to their end, become its collection's snapshot if it has none.
 */
function perturb(upRes, res, collection = null) {
  counts.watches++;
  let capture = collection !== null && !snapshots.has(collection) ? [] : null;
  const queue = [];
  let heldUntil = 0;
  let timer = null;
  let ended = false;
  let pending = '';
  const flush = () => {
    timer = null;
    const wait = heldUntil - Date.now();
    if (wait > 0) {
      timer = setTimeout(flush, wait);
      return;
    }
    while (queue.length > 0) res.write(queue.shift().line);
    if (ended) res.end();
  };
  const push = (line) => {
    counts.events++;
    let event = null;
    try {
      event = JSON.parse(line);
    } catch {
      // not an event: passed on as it is
    }
    if (capture !== null) {
      capture.push(line);
      if (event?.type === 'BOOKMARK' && event.object?.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
        snapshots.set(collection, { lines: capture, resourceVersion: event.object.metadata.resourceVersion });
        capture = null;
      }
    }
    const key = event ? keyOf(event) : null;
    if (key !== null) {
      const waiting = queue.findIndex((item) => item.key === key);
      if (waiting >= 0) {
        // The client never sees the waiting state: the newer one takes its place (an object
        // it has not seen yet stays ADDED; a deletion stays a deletion).
        const earlier = queue[waiting].event;
        const type = event.type === 'DELETED' || earlier.type !== 'ADDED' ? event.type : 'ADDED';
        const merged = { ...event, type };
        queue[waiting] = { key, event: merged, line: `${JSON.stringify(merged)}\n` };
        counts.coalesced++;
        return;
      }
    }
    if (delayP > 0 && random() < delayP) {
      heldUntil = Math.max(heldUntil, Date.now() + random() * delayMs);
      counts.delayed++;
    }
    queue.push({ key, event, line });
    if (timer === null) flush();
  };
  upRes.on('data', (chunk) => {
    pending += chunk.toString('utf8');
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      push(pending.slice(0, newline + 1));
      pending = pending.slice(newline + 1);
    }
  });
  upRes.on('end', () => {
    ended = true;
    if (timer === null) flush();
  });
  res.on('close', () => {
    if (timer !== null) clearTimeout(timer);
    queue.length = 0;
  });
}

/** A list's body: kept as the collection's snapshot if it has none, or answered with the snapshot. */
function list(req, upRes, res) {
  const chunks = [];
  upRes.on('data', (chunk) => chunks.push(chunk));
  upRes.on('end', () => {
    let body = Buffer.concat(chunks);
    let parsed = null;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      // not JSON (a protobuf or table answer): passed on as it is
    }
    const collection = collectionOf(req);
    if (typeof parsed?.kind === 'string' && parsed.kind.endsWith('List')) {
      counts.lists++;
      if (servesStale(collection)) {
        body = snapshots.get(collection).body;
        counts.staleLists++;
      } else if (!snapshots.has(collection)) {
        snapshots.set(collection, { body });
      }
    }
    const headers = { ...upRes.headers, 'content-length': String(body.length) };
    delete headers['transfer-encoding'];
    res.writeHead(upRes.statusCode ?? 502, headers);
    res.end(body);
  });
}

/**
 * A streaming list answered from the lagging copy: the snapshot's initial events and their
 * end, then a watch from the snapshot's resourceVersion, which brings what changed since.
 */
function staleStreamingList(req, res, headers) {
  const collection = collectionOf(req);
  const snapshot = snapshots.get(collection);
  const url = new URL(req.url, 'http://proxy');
  url.searchParams.delete('sendInitialEvents');
  url.searchParams.delete('resourceVersionMatch');
  url.searchParams.set('resourceVersion', snapshot.resourceVersion);
  counts.lists++;
  counts.staleLists++;
  const up = https.request(
    {
      hostname: upstream.hostname,
      port: upstream.port,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers,
      agent,
    },
    (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      if (upRes.statusCode !== 200) return upRes.pipe(res);
      for (const line of snapshot.lines) res.write(line);
      perturb(upRes, res);
    },
  );
  up.on('error', () => res.destroy());
  res.on('close', () => up.destroy());
  up.end();
}

const server = http.createServer((req, res) => {
  countAnswer(res, countSecrets(req));
  const headers = { ...req.headers, host: upstream.host };
  // Plain text on the way back, so the proxy can read the events.
  delete headers['accept-encoding'];
  const streaming = isStreamingList(req.url);
  if (req.method === 'GET' && streaming && servesStale(collectionOf(req))) {
    staleStreamingList(req, res, headers);
    return;
  }
  if (streaming) counts.lists++;
  const up = https.request(
    { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, agent },
    (upRes) => {
      if (upRes.statusCode === 200 && isWatch(req.url)) {
        res.writeHead(200, upRes.headers);
        perturb(upRes, res, streaming ? collectionOf(req) : null);
      } else if (upRes.statusCode === 200 && req.method === 'GET') {
        list(req, upRes, res);
      } else {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      }
    },
  );
  up.on('error', () => res.destroy());
  res.on('error', () => up.destroy());
  res.on('close', () => up.destroy());
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => {
  report();
  process.exit(0);
});

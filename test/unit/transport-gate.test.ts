// A write's gate (the leader's write guard) is asked when the request holds a connected
// socket, not only when it was made: a request that waits for a connection or for a free
// socket must not go out after the gate has closed. A replica stopped in that wait and
// resumed after losing its lease is the case this covers.
import { AbortedError, ForbiddenError, NotFoundError, NotLeaderError } from '../../src/kube/errors';
import { MAX_SOCKETS, statusError } from '../../src/kube/transport';
import { useLocalServer } from '../support/local-transport';
import { until } from '../support/wait';

class GateClosed extends Error {}

let received: string[];
beforeEach(() => {
  received = [];
});
const { transport, held } = useLocalServer(
  (req, res, hold) => {
    received.push(req.url ?? '');
    if (req.url?.endsWith('/hold')) hold(res);
    else res.end('{}');
  },
  { release: (res) => res.end('{}') },
);

/** A gate that is open until close() is called. */
function gate() {
  let open = true;
  let asked = 0;
  return {
    check: () => {
      asked++;
      if (!open) throw new GateClosed('closed');
    },
    close: () => {
      open = false;
    },
    get asked() {
      return asked;
    },
  };
}

const write = (path: string, g: ReturnType<typeof gate>) =>
  transport().request({ method: 'POST', path, body: { a: 1 }, what: path, gate: g.check });

test('an open gate lets the write out, asked once', async () => {
  const g = gate();
  await expect(write('/w', g)).resolves.toEqual({});
  expect(received).toEqual(['/w']);
  expect(g.asked).toBe(1);
});

test('a gate that closes while a new connection is being made: nothing is sent', async () => {
  const g = gate();
  const pending = write('/w', g);
  g.close(); // before the event loop turns, so before the socket can have connected
  await expect(pending).rejects.toBeInstanceOf(GateClosed);
  expect(g.asked).toBe(1);
  expect(transport().stats.connections).toBe(1);
  // The server may see the connection, never the request.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(received).toEqual([]);
});

test('a gate that closes before a kept-alive socket is handed over: nothing is sent', async () => {
  await transport().request({ method: 'GET', path: '/warm', what: 'warm' });
  const g = gate();
  const pending = write('/w', g);
  g.close();
  await expect(pending).rejects.toBeInstanceOf(GateClosed);
  expect(transport().stats.connections).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(received).toEqual(['/warm']);
});

test('a write queued behind a full pool is asked when it gets its socket', async () => {
  // Fill the pool with requests the server does not answer yet, and wait until the server
  // holds every one: then the pool is full, however slowly a loaded machine connects.
  const holds: Promise<unknown>[] = [];
  const hold = () => {
    const request = transport().request({ method: 'GET', path: '/hold', what: 'hold' });
    request.catch(() => undefined); // a failed assertion must not leave rejections unhandled
    holds.push(request);
  };
  for (let i = 0; i < MAX_SOCKETS; i++) hold();
  await until(() => held.length === MAX_SOCKETS);
  hold(); // queued: no socket for it
  const g = gate();
  const pending = write('/w', g);
  pending.catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(held).toHaveLength(MAX_SOCKETS); // the extra hold is still queued, so the write is too
  expect(g.asked).toBe(0); // still waiting for a socket
  g.close();
  held.shift()!.end('{}'); // frees a socket: the queued hold takes it first, then the write
  await until(() => held.length === MAX_SOCKETS);
  held.shift()!.end('{}');
  await expect(pending).rejects.toBeInstanceOf(GateClosed);
  expect(g.asked).toBe(1);
  expect(received.filter((url) => url === '/w')).toEqual([]);
  for (const res of held.splice(0)) res.end('{}');
  await Promise.all(holds);
});

// A replica that lost its lease waits for the answers to writes it already sent before it
// exits, so its log says what became of them (see runManager).
describe('gatedSettled: the answers to writes already sent', () => {
  const hold = () => {
    const request = transport().request({
      method: 'PATCH',
      path: '/hold',
      body: {},
      what: 'hold',
      gate: () => undefined,
    });
    request.catch(() => undefined);
    return request;
  };

  test('resolves at once with no gated request in flight, whatever reads are', async () => {
    const read = transport().request({ method: 'GET', path: '/read/hold', what: 'read' });
    read.catch(() => undefined);
    await until(() => held.length === 1);
    await expect(transport().gatedSettled(60_000)).resolves.toBeUndefined();
  });

  test('resolves once a write already sent has its answer, not before', async () => {
    const write = hold();
    await until(() => held.length === 1);
    let settled = false;
    const waiting = transport()
      .gatedSettled(60_000)
      .then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    held.shift()!.end('{}');
    await write;
    await waiting;
    expect(settled).toBe(true);
  });

  test('gives up after its timeout when the answer does not come', async () => {
    void hold();
    await until(() => held.length === 1);
    const started = Date.now();
    await transport().gatedSettled(100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(held).toHaveLength(1); // still unanswered
  });
});

test("the leader fence's 403 is a NotLeaderError, any other 403 a plain ForbiddenError", () => {
  const status = (message: string) =>
    JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message });
  const fenced = statusError(
    403,
    status(
      'configmaps "web-desired" is forbidden: ValidatingAdmissionPolicy \'webservice-controller-leader-fence\' with binding ' +
        "'webservice-controller-leader-fence' denied request: not the leader: pod b does not hold the Lease webservice-system/webservice-controller",
    ),
    'configmaps "web-desired"',
  );
  expect(fenced).toBeInstanceOf(NotLeaderError);
  expect(fenced.message).toContain('not the leader: pod b');
  expect((fenced as NotLeaderError).byApiServer).toBe(true);
  const rbac = statusError(
    403,
    status('configmaps is forbidden: User "x" cannot patch resource "configmaps"'),
    'configmaps',
  );
  expect(rbac).toBeInstanceOf(ForbiddenError);
  expect(rbac).not.toBeInstanceOf(NotLeaderError);
});

test("a 404 keeps the server's Status message; a plain-text 404 (an API not served) says what was asked", () => {
  const status = JSON.stringify({
    kind: 'Status',
    status: 'Failure',
    reason: 'NotFound',
    code: 404,
    message: 'httproutes.gateway.networking.k8s.io "route" not found',
  });
  const missing = statusError(404, status, 'httproutes.gateway.networking.k8s.io "route"');
  expect(missing).toBeInstanceOf(NotFoundError);
  expect(missing.message).toBe('httproutes.gateway.networking.k8s.io "route" not found');
  const unrouted = statusError(404, '404 page not found\n', 'httproutes.gateway.networking.k8s.io "route"');
  expect(unrouted).toBeInstanceOf(NotFoundError);
  expect(unrouted.message).toBe(
    'the server could not find the requested resource (httproutes.gateway.networking.k8s.io "route")',
  );
});

test('a signal aborted before the request is made: refused unsent', async () => {
  const controller = new AbortController();
  controller.abort();
  await expect(
    transport().request({ method: 'POST', path: '/w', body: {}, what: 'w', signal: controller.signal }),
  ).rejects.toBeInstanceOf(AbortedError);
  expect(received).toEqual([]);
});

test('a signal that aborts while the answer is awaited cuts the request off', async () => {
  const controller = new AbortController();
  const pending = transport().request({ method: 'GET', path: '/hold', what: 'hold', signal: controller.signal });
  await until(() => held.length === 1);
  controller.abort();
  await expect(pending).rejects.toBeInstanceOf(AbortedError);
});

test('a write whose signal aborts while it waits for a socket is never sent', async () => {
  const g = gate();
  const blockers = Array.from({ length: MAX_SOCKETS }, (_, i) => write(`/${i}/hold`, g));
  await until(() => held.length === MAX_SOCKETS);
  const controller = new AbortController();
  const queued = transport().request({
    method: 'POST',
    path: '/late',
    body: {},
    what: 'late',
    gate: g.check,
    signal: controller.signal,
  });
  controller.abort();
  await expect(queued).rejects.toBeInstanceOf(AbortedError);
  for (const res of held.splice(0)) res.end('{}');
  await Promise.all(blockers);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(received).not.toContain('/late');
});

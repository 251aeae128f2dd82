// A write's gate (the leader's write guard) is asked when the request holds a connected
// socket, not only when it was made: a request that waits for a connection or for a free
// socket must not go out after the gate has closed. A replica stopped in that wait and
// resumed after losing its lease is the case this covers.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { Transport } from '../../src/kube/transport';

class GateClosed extends Error {}

let server: http.Server;
let received: string[];
let held: http.ServerResponse[];
let transport: Transport;

beforeEach(async () => {
  received = [];
  held = [];
  server = http.createServer((req, res) => {
    received.push(req.url ?? '');
    if (req.url === '/hold') held.push(res);
    else res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The two calls a transport makes of a KubeConfig with a plain user (client-node is ESM, jest is not).
  const kc = { getCurrentUser: () => ({ name: 'u' }), getCurrentCluster: () => ({ name: 'c', server: url }) };
  transport = new Transport(kc as unknown as KubeConfig, url, 10_000);
});

afterEach(async () => {
  for (const res of held) res.end('{}');
  transport.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

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
  transport.request({ method: 'POST', path, body: { a: 1 }, what: path, gate: g.check });

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
  expect(transport.stats.connections).toBe(1);
  // The server may see the connection, never the request.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(received).toEqual([]);
});

test('a gate that closes before a kept-alive socket is handed over: nothing is sent', async () => {
  await transport.request({ method: 'GET', path: '/warm', what: 'warm' });
  const g = gate();
  const pending = write('/w', g);
  g.close();
  await expect(pending).rejects.toBeInstanceOf(GateClosed);
  expect(transport.stats.connections).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(received).toEqual(['/warm']);
});

test('a write queued behind a full pool is asked when it gets its socket', async () => {
  const holds: Promise<unknown>[] = [];
  // Fill the pool with requests the server does not answer yet.
  for (;;) {
    holds.push(transport.request({ method: 'GET', path: '/hold', what: 'hold' }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (held.length < holds.length) break; // this one is queued: the pool is full
  }
  const poolSize = held.length;
  const g = gate();
  const pending = write('/w', g);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(g.asked).toBe(0); // still waiting for a socket
  g.close();
  held.shift()!.end('{}'); // frees a socket: the queued hold takes it first, then the write
  held.shift()!.end('{}');
  await expect(pending).rejects.toBeInstanceOf(GateClosed);
  expect(g.asked).toBe(1);
  expect(received.filter((url) => url === '/w')).toEqual([]);
  expect(poolSize).toBeGreaterThan(1);
  for (const res of held.splice(0)) res.end('{}');
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const res of held.splice(0)) res.end('{}');
  await Promise.all(holds);
});

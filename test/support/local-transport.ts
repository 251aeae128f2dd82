// A Transport to a plain-HTTP server on 127.0.0.1 that a unit test runs: the two calls a
// transport makes of a KubeConfig, with a plain user (client-node is ESM, jest is not).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { Transport } from '../../src/kube/transport';

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function localTransport(url: string, timeoutMs = 10_000): Transport {
  const kc = { getCurrentUser: () => ({ name: 'u' }), getCurrentCluster: () => ({ name: 'c', server: url }) };
  return new Transport(kc as unknown as KubeConfig, url, timeoutMs);
}

async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** A response a test's server holds unanswered, and how it is let go of after the test. */
type Hold = (res: http.ServerResponse) => void;

/**
 * For each test of the enclosing block: a server that `handle` answers, and a Transport to it.
 * `handle` may hold a response unanswered (`held`, emptied before each test); after each test
 * `release` lets go of those still held, then the transport and the server close.
 */
export function useLocalServer(
  handle: (req: http.IncomingMessage, res: http.ServerResponse, hold: Hold) => void,
  options: { timeoutMs?: number; release?: Hold } = {},
): { transport: () => Transport; held: http.ServerResponse[] } {
  const held: http.ServerResponse[] = [];
  let server: http.Server | undefined;
  let transport: Transport | undefined;
  beforeEach(async () => {
    held.length = 0;
    server = http.createServer((req, res) => handle(req, res, (r) => held.push(r)));
    transport = localTransport(await listen(server), options.timeoutMs);
  });
  afterEach(async () => {
    if (options.release) held.forEach(options.release);
    transport?.close();
    if (server) await closeServer(server);
  });
  return {
    transport: () => {
      if (!transport) throw new Error('useLocalServer: the transport exists only from beforeEach on');
      return transport;
    },
    held,
  };
}

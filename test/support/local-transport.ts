// A Transport to a plain-HTTP server on 127.0.0.1 that a unit test runs: the two calls a
// transport makes of a KubeConfig, with a plain user (client-node is ESM, jest is not).
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { Transport } from '../../src/kube/transport';

export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export function localTransport(url: string, timeoutMs = 10_000): Transport {
  const kc = { getCurrentUser: () => ({ name: 'u' }), getCurrentCluster: () => ({ name: 'c', server: url }) };
  return new Transport(kc as unknown as KubeConfig, url, timeoutMs);
}

export async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

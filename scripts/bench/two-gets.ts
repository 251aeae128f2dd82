// The floor of `plan NAME` (issue 18): what a bare Node.js client pays for plan NAME's reads
// and nothing of the plugin's own work. It starts, loads the TLS stack, reads the kubeconfig
// and GETs the WebService and its child at once, as plan NAME does, then prints them as JSON:
// no argument parser, no decision, no table. The runtimes case runs it on the pinned Node 24
// beside plan NAME and `kubectl get`, so the gap between it and plan NAME is the plugin's.
import { API_VERSION, PLURAL, childName } from '../../src/core/model';
import { BareClient } from './bare-client';

async function main(): Promise<void> {
  const [namespace, name] = process.argv.slice(2);
  if (!namespace || !name) throw new Error('usage: bench-two-gets.js NAMESPACE NAME');
  const client = new BareClient(2);
  try {
    const ns = encodeURIComponent(namespace);
    const [parent, child] = await Promise.all([
      client.get(`/apis/${API_VERSION}/namespaces/${ns}/${PLURAL}/${encodeURIComponent(name)}`),
      client.get(`/api/v1/namespaces/${ns}/configmaps/${encodeURIComponent(childName(name))}`),
    ]);
    process.stdout.write(`${JSON.stringify({ parent, child })}\n`);
  } finally {
    client.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});

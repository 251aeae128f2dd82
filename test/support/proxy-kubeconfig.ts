// What the test proxy (watch-proxy.cjs) needs of a client's kubeconfig, and the kubeconfig
// that sends the client through it: the campaign's perturbed controller and the bench's
// counted one. The proxy speaks plain HTTP on 127.0.0.1 and forwards the client's own
// Authorization header, so a kubeconfig with a token (the local plane's) goes through as it is.
import * as fs from 'node:fs';

type Json = Record<string, any>;

/** The API server's URL, with its CA written to caFile: the proxy's two arguments. */
export function proxyUpstream(config: Json, caFile: string): [server: string, ca: string] {
  const cluster = config.clusters[0].cluster as Json;
  if (cluster['certificate-authority-data']) {
    fs.writeFileSync(caFile, Buffer.from(cluster['certificate-authority-data'] as string, 'base64'));
  } else {
    fs.copyFileSync(cluster['certificate-authority'] as string, caFile);
  }
  return [cluster.server as string, caFile];
}

/** The kubeconfig, its cluster now the proxy listening on port; the user and the rest as they were. */
export function throughProxy(config: Json, port: string): Json {
  const [first, ...others] = config.clusters as Json[];
  return { ...config, clusters: [{ ...first, cluster: { server: `http://127.0.0.1:${port}` } }, ...others] };
}

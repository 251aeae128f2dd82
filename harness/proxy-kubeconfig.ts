// What the proxy (watch-proxy.cjs) needs of a client's kubeconfig, the kubeconfig that sends
// the client through it, and what the proxy reports: the campaign's perturbed controller and
// the bench's counted one. The proxy speaks plain HTTP on 127.0.0.1 and forwards the client's own
// Authorization header, so a kubeconfig with a token (the local plane's) goes through as it is.
import * as fs from 'node:fs';

/** What the proxy reads of a kubeconfig (in JSON, as `kubectl config view -o json` prints it). */
export interface Kubeconfig {
  clusters: { name?: string; cluster: Record<string, string | undefined> }[];
  [key: string]: unknown;
}

/** The API server's URL, with its CA written to caFile: the proxy's two arguments. */
export function proxyUpstream(config: Kubeconfig, caFile: string): [server: string, ca: string] {
  const { cluster } = config.clusters[0];
  const data = cluster['certificate-authority-data'];
  if (data) fs.writeFileSync(caFile, Buffer.from(data, 'base64'));
  else fs.copyFileSync(cluster['certificate-authority']!, caFile);
  return [cluster.server!, caFile];
}

/** The kubeconfig, its cluster now the proxy listening on port; the user and the rest as they were. */
export function throughProxy(config: Kubeconfig, port: string): Kubeconfig {
  const [first, ...others] = config.clusters;
  return { ...config, clusters: [{ ...first, cluster: { server: `http://127.0.0.1:${port}` } }, ...others] };
}

/** The proxy's report (watch-proxy.cjs). */
export interface ProxyCounts {
  watches: number;
  events: number;
  delayed: number;
  coalesced: number;
  lists: number;
  staleLists: number;
  /** The Secrets whose data was asked for by name. */
  secretsRead: string[];
  /** Lists and watches of Secrets in full, and of their metadata only. */
  secretLists: number;
  secretMetadataLists: number;
  /** The bytes of the answers to those three kinds of reads. */
  secretBytes: { read: number; lists: number; metadataLists: number };
  /** Answers that held the proxy's COUNT_MARKER. */
  marked: number;
}

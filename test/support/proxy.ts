// Sieve's perturbations of what the controller sees: harness/watch-proxy.cjs between it
// and the API server, and a kubeconfig that sends it there. Only the controller goes through
// it; kubectl and the oracles see the API server as it is.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Background, ROOT } from './cluster';
import { type Kubeconfig, type ProxyCounts, proxyUpstream, throughProxy } from '../../harness/proxy-kubeconfig';

export interface Perturbation {
  /** The share of watch events that hold the stream behind them (stale state). */
  delayP: number;
  /** How long at most. Meanwhile newer events for the same object replace waiting ones (unobserved state). */
  delayMs: number;
  /** The share of lists (LIST or streaming) answered from a lagging copy: the collection's first list. */
  staleListP?: number;
  seed: number;
}

export class WatchProxy {
  private constructor(
    private readonly process: Background,
    /** A copy of the controller's kubeconfig that points at the proxy. */
    readonly kubeconfig: string,
  ) {}

  static async start(kubeconfig: string, perturbation: Perturbation): Promise<WatchProxy> {
    const config = JSON.parse(fs.readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
    const dir = path.dirname(kubeconfig);
    const upstream = proxyUpstream(config, path.join(dir, 'proxy-ca.crt'));
    const proxy = new Background('node', [path.join(ROOT, 'harness/watch-proxy.cjs'), ...upstream], {
      env: {
        WATCH_DELAY_P: String(perturbation.delayP),
        WATCH_DELAY_MS: String(perturbation.delayMs),
        WATCH_SEED: String(perturbation.seed),
        STALE_LIST_P: String(perturbation.staleListP ?? 0),
      },
    });
    const port = (await proxy.waitFor(/^(\d+)\n/))[1];
    const proxied = path.join(dir, 'proxied-config');
    fs.writeFileSync(proxied, JSON.stringify(throughProxy(config, port)));
    return new WatchProxy(proxy, proxied);
  }

  /** How often each perturbation fired so far, and what was read of Secrets: the proxy's last report. */
  counts(): ProxyCounts {
    const lines = this.process.stdout
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    const none = { watches: 0, events: 0, delayed: 0, coalesced: 0, lists: 0, staleLists: 0 };
    const secrets = { secretsRead: [], secretLists: 0, secretMetadataLists: 0, marked: 0 };
    const empty: ProxyCounts = { ...none, ...secrets, secretBytes: { read: 0, lists: 0, metadataLists: 0 } };
    return lines.length > 0 ? (JSON.parse(lines[lines.length - 1]) as ProxyCounts) : empty;
  }

  async stop(): Promise<void> {
    await this.process.end('SIGTERM', 5_000);
  }
}

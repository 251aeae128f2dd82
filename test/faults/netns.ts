// A network partition inside the test's own sandbox: a network namespace joined to this one
// by a veth pair on a private /30 (10.203.0.0/30, no route anywhere else), and a forwarder on
// the host side (test/support/tcp-forward.cjs) to the apiserver on 127.0.0.1. A replica run in
// the namespace (ip netns exec) reaches the apiserver only across the veth. cut() drops every
// packet on both ends of the veth (a pfifo qdisc of length 0: the sandbox's kernel has no
// netem and no iptables); no socket is closed. heal() removes the qdiscs.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../support/cluster';

const NETNS = 'wsfault-partition';
const HOST_IF = 'wsp-host';
const NS_IF = 'wsp-ns';
const HOST_ADDRESS = '10.203.0.1';
const NS_ADDRESS = '10.203.0.2';
const PREFIX = 30;

function ip(args: string[]): { status: number; stderr: string } {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.error) return { status: -1, stderr: result.error.message };
  return { status: result.status ?? -1, stderr: result.stderr.trim() };
}

function must(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr.trim()}`);
}

/** Why a partition cannot be made here, or null if it can (checked by making a throwaway one). */
export function partitionUnavailable(): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return `not root (uid ${process.getuid?.()}): network namespaces need CAP_NET_ADMIN`;
  const probe = `${NETNS}-probe`;
  const added = ip(['netns', 'add', probe]);
  if (added.status !== 0) return `cannot create a network namespace: ip netns add: ${added.stderr}`;
  try {
    const veth = ip(['link', 'add', 'wsp-probe-a', 'type', 'veth', 'peer', 'name', 'wsp-probe-b', 'netns', probe]);
    if (veth.status !== 0) return `cannot create a veth pair: ${veth.stderr}`;
    const qdisc = spawnSync('tc', ['qdisc', 'add', 'dev', 'wsp-probe-a', 'root', 'pfifo', 'limit', '0'], {
      encoding: 'utf8',
    });
    ip(['link', 'del', 'wsp-probe-a']);
    if (qdisc.error) return `no tc: ${qdisc.error.message}`;
    if (qdisc.status !== 0) return `cannot add a pfifo qdisc: ${qdisc.stderr.trim()}`;
    return null;
  } finally {
    ip(['netns', 'del', probe]);
  }
}

export class NetworkPartition {
  readonly namespace = NETNS;
  /** https://10.203.0.1:<port>: the apiserver as the namespace reaches it. */
  server = '';
  private forwarder: ChildProcess | undefined;
  private isCut = false;

  /** Builds the namespace, the veth pair and the forwarder to `target` (the apiserver's URL). */
  async create(target: URL): Promise<void> {
    this.destroy(); // what a killed earlier run may have left
    must('ip', ['netns', 'add', NETNS]);
    must('ip', ['link', 'add', HOST_IF, 'type', 'veth', 'peer', 'name', NS_IF, 'netns', NETNS]);
    must('ip', ['addr', 'add', `${HOST_ADDRESS}/${PREFIX}`, 'dev', HOST_IF]);
    must('ip', ['link', 'set', HOST_IF, 'up']);
    must('ip', ['-n', NETNS, 'addr', 'add', `${NS_ADDRESS}/${PREFIX}`, 'dev', NS_IF]);
    must('ip', ['-n', NETNS, 'link', 'set', NS_IF, 'up']);
    must('ip', ['-n', NETNS, 'link', 'set', 'lo', 'up']);
    const forwarder = spawn(
      process.execPath,
      [path.join(ROOT, 'test/support/tcp-forward.cjs'), HOST_ADDRESS, target.hostname, target.port],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.forwarder = forwarder;
    const port = await new Promise<string>((resolve, reject) => {
      forwarder.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
      forwarder.once('exit', (code) => reject(new Error(`tcp-forward.cjs exited (${code})`)));
    });
    this.server = `https://${HOST_ADDRESS}:${port}`;
  }

  /**
   * A copy of a (JSON) kubeconfig for a replica in the namespace: the server across the veth,
   * and the name the apiserver's serving certificate holds (it covers 127.0.0.1 and localhost).
   */
  kubeconfig(file: string): string {
    const config = JSON.parse(fs.readFileSync(file, 'utf8'));
    config.clusters[0].cluster.server = this.server;
    config.clusters[0].cluster['tls-server-name'] = 'localhost';
    const copy = `${file}.netns`;
    fs.writeFileSync(copy, JSON.stringify(config));
    return copy;
  }

  /** The command prefix that runs a program in the namespace. */
  exec(): string[] {
    return ['ip', 'netns', 'exec', NETNS];
  }

  /** Drops every packet both ways across the veth; open connections stay open. */
  cut(): void {
    this.isCut = true;
    must('tc', ['qdisc', 'add', 'dev', HOST_IF, 'root', 'pfifo', 'limit', '0']);
    must('ip', ['netns', 'exec', NETNS, 'tc', 'qdisc', 'add', 'dev', NS_IF, 'root', 'pfifo', 'limit', '0']);
  }

  heal(): void {
    must('tc', ['qdisc', 'del', 'dev', HOST_IF, 'root']);
    must('ip', ['netns', 'exec', NETNS, 'tc', 'qdisc', 'del', 'dev', NS_IF, 'root']);
    this.isCut = false;
  }

  /** Heals a cut that a failed scenario left, so the next one starts with the link up. */
  healIfCut(): void {
    if (this.isCut) this.heal();
  }

  /** Packets the cut dropped on each side so far (the qdiscs' own counters). */
  dropped(): { host: number; namespace: number } {
    const count = (args: string[]) => {
      const out = spawnSync(args[0], args.slice(1), { encoding: 'utf8' }).stdout;
      return Number(/dropped (\d+)/.exec(out)?.[1] ?? 0);
    };
    return {
      host: count(['tc', '-s', 'qdisc', 'show', 'dev', HOST_IF]),
      namespace: count(['ip', 'netns', 'exec', NETNS, 'tc', '-s', 'qdisc', 'show', 'dev', NS_IF]),
    };
  }

  /** Removes the forwarder, the veth pair (both ends) and the namespace; safe to call twice. */
  destroy(): void {
    this.forwarder?.kill('SIGTERM');
    this.forwarder = undefined;
    ip(['link', 'del', HOST_IF]);
    ip(['netns', 'del', NETNS]);
  }
}

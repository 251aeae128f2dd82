// Issue 42's anchor: `run` beside the controller-runtime peer (peer/, the same reconcile as a
// controller-runtime user writes it), pair after pair in one run, each side on a fresh namespace
// with the same workers, taking turns to go first: a burst of N to all Ready, then on some pairs
// single spec changes over the N converged.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Audit } from './audit';
import { inNamespace } from './cluster';
import { DEFAULT_WORKERS, controllerBurst } from './controller';
import { ROOT, progress, run } from './proc';

const SOURCE = path.join(ROOT, 'scripts/bench/peer');
const BINARY = path.join(ROOT, '.cache/peer/ctrl-runtime-peer');

/** The peer's binary, built again when a source is newer (the first build downloads its modules). */
async function buildPeer(): Promise<string> {
  const newest = Math.max(...fs.readdirSync(SOURCE).map((f) => fs.statSync(path.join(SOURCE, f)).mtimeMs));
  if (fs.existsSync(BINARY) && fs.statSync(BINARY).mtimeMs >= newest) return BINARY;
  progress('peer: go build');
  const built = await run(['go', 'build', '-C', SOURCE, '-o', BINARY, '.']);
  if (built.status !== 0) throw new Error(`go build of the peer failed: ${built.stderr.slice(-1000)}`);
  return BINARY;
}

type Side = 'ours' | 'peer';
type Measured = Awaited<ReturnType<typeof controllerBurst>>;

export async function peerCase(audit: Audit | undefined, tag: string, n: number, quick: boolean) {
  const peer = await buildPeer();
  const [count, latencyPairs, samples] = quick ? [2, 2, 30] : [6, 5, 200];
  const pairs: ({ first: Side } & Record<Side, Measured>)[] = [];
  for (let i = 0; i < count; i++) {
    const order: Side[] = i % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours'];
    const measured: Partial<Record<Side, Measured>> = {};
    for (const side of order) {
      progress(`peer: pair ${i + 1} of ${count}, ${side === 'ours' ? '`run`' : 'the peer'}`);
      const options = { latencySamples: i < latencyPairs ? samples : 0, peer: side === 'peer' ? peer : undefined };
      measured[side] = await inNamespace(`bench-peer-${i}-${side}-${tag}`, (namespace) =>
        controllerBurst(audit, namespace, n, options),
      );
    }
    pairs.push({ first: order[0], ours: measured.ours!, peer: measured.peer! });
  }
  return { n, workers: DEFAULT_WORKERS, pairs };
}

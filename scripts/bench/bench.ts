// npm run bench: how fast and how lean the plugin is on a real control plane.
// Creates N WebServices in a fresh namespace, then times the plugin (a child
// process, as a user runs it) and counts its requests in the apiserver audit log.
// Bundled to dist/bench.js and started by scripts/bench.sh.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatTable } from '../../src/print/output';

const PLUGIN = path.resolve(__dirname, 'kubectl-webservice');
const COUNT = Number(process.env.BENCH_COUNT ?? 200);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
const AUDIT_LOG = process.env.KUBE_AUDIT_LOG;
const NS = `bench-${process.pid}`;

interface Sample {
  ms: number;
  rssMiB: number;
  status: number;
}

function timed(argv: string[], input?: string): Sample & { stdout: string; stderr: string } {
  const started = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', input, maxBuffer: 256 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const rss = /max RSS ([\d.]+) MiB/.exec(result.stderr ?? '');
  return { ms, rssMiB: rss ? Number(rss[1]) : NaN, status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function kubectl(args: string[], input?: string): string {
  const result = spawnSync('kubectl', args, { encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Plugin requests (by User-Agent) in the audit log since a byte offset. */
function pluginRequests(since: number): { reads: number; writes: number } {
  if (!AUDIT_LOG) return { reads: NaN, writes: NaN };
  spawnSync('sleep', ['1']); // the audit backend writes shortly after the response
  const text = fs.readFileSync(AUDIT_LOG).subarray(since).toString('utf8');
  let reads = 0;
  let writes = 0;
  for (const line of text.split('\n')) {
    if (!line.includes('kubectl-webservice/') || !line.endsWith('}')) continue;
    const event = JSON.parse(line) as { stage: string; verb: string; userAgent?: string };
    if (event.stage !== 'ResponseComplete' || !event.userAgent?.startsWith('kubectl-webservice/')) continue;
    if (['get', 'list', 'watch'].includes(event.verb)) reads++;
    else writes++;
  }
  return { reads, writes };
}

const auditOffset = () => (AUDIT_LOG ? fs.statSync(AUDIT_LOG).size : 0);

function main(): void {
  kubectl(['create', 'namespace', NS]);
  try {
    const items = Array.from({ length: COUNT }, (_, i) => ({
      apiVersion: 'apps.labhub.io/v1',
      kind: 'WebService',
      metadata: { name: `svc-${String(i).padStart(4, '0')}` },
      spec: { image: `nginx:1.${i % 30}`, replicas: (i % 5) + 1 },
    }));
    kubectl(['apply', '-n', NS, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));

    const rows: string[][] = [];
    const startup = Array.from({ length: REPEAT }, () => timed([PLUGIN, '--version']).ms);
    rows.push(['start-up (--version)', `${median(startup).toFixed(0)} ms`, '-', '-', '-']);

    const plan = timed([PLUGIN, 'plan', '--all', '-n', NS, '-o', 'json', '-v']);
    rows.push([`plan --all, ${COUNT} to create`, `${plan.ms.toFixed(0)} ms`, '-', '-', `${plan.rssMiB} MiB`]);

    let offset = auditOffset();
    const first = timed([PLUGIN, 'apply', '--all', '-n', NS, '-o', 'json', '-v']);
    if (first.status !== 0) throw new Error(`first pass exited ${first.status}: ${first.stderr}`);
    let requests = pluginRequests(offset);
    rows.push([`apply --all, ${COUNT} creates`, `${first.ms.toFixed(0)} ms`, String(requests.reads), String(requests.writes), `${first.rssMiB} MiB`]);

    const converged: Sample[] = [];
    offset = auditOffset();
    for (let i = 0; i < REPEAT; i++) converged.push(timed([PLUGIN, 'apply', '--all', '-n', NS, '-o', 'json', '-v']));
    requests = pluginRequests(offset);
    rows.push([
      `apply --all, converged (median of ${REPEAT})`,
      `${median(converged.map((s) => s.ms)).toFixed(0)} ms`,
      String(requests.reads / REPEAT),
      String(requests.writes / REPEAT),
      `${median(converged.map((s) => s.rssMiB))} MiB`,
    ]);

    kubectl(['patch', 'webservice', 'svc-0000', '-n', NS, '--type=merge', '-p', '{"spec":{"image":"nginx:9.9"}}']);
    offset = auditOffset();
    const one = timed([PLUGIN, 'apply', '--all', '-n', NS, '-o', 'json', '-v']);
    requests = pluginRequests(offset);
    rows.push([`apply --all, 1 of ${COUNT} drifted`, `${one.ms.toFixed(0)} ms`, String(requests.reads), String(requests.writes), `${one.rssMiB} MiB`]);

    process.stdout.write(`\nkubectl-webservice benchmark: ${COUNT} WebServices, ${REPEAT} repeats, node ${process.version}\n\n`);
    process.stdout.write(
      formatTable(['case', 'wall time', 'reads', 'writes', 'max rss'], rows.map((r) => r.map((text) => ({ text })))),
    );
  } finally {
    // Our finalizers hold the namespace's deletion until finalize has cleaned up.
    kubectl(['delete', 'namespace', NS, '--wait=false']);
    spawnSync(PLUGIN, ['finalize', '--all', '-n', NS, '-o', 'json'], { encoding: 'utf8' });
  }
}

main();

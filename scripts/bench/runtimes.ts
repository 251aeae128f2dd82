// Issue 18's targets, on each runtime they name: client CPU per write of a cold `apply --all`
// on the bundle under the host's Node 20 and under the pinned Node 24; `plan NAME` on that
// Node 24 and on the standalone binary (SEA), round after round beside `kubectl get`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Audit } from './audit';
import { applyAll, measure, repeatsFor } from './cases';
import { createNamespace, createWebServices, deleteNamespace, webServiceName } from './cluster';
import { CaseResult, summarize } from './results';

type Runtime = 'node20' | 'node24' | 'sea';
import { PLUGIN, ROOT, progress, run, runMeasured, runPlugin } from './proc';

const SEA = path.join(ROOT, 'dist/sea/kubectl-webservice');
const PINNED_NODE = path.join(ROOT, 'node_modules/.bin/node');

async function nodeVersion(node: string): Promise<string | null> {
  const result = await run([node, '-p', 'process.version'], { capture: true });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** The first `node` on PATH outside node_modules/.bin (npm run puts the pinned one first). */
function hostNode(): string | undefined {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !dir.endsWith(path.join('node_modules', '.bin')))
    .map((dir) => path.join(dir, 'node'))
    .find((node) => fs.existsSync(node));
}

/** The SEA of the bundle just built (scripts/sea.sh), or why there is none. */
async function seaReady(): Promise<string | null> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return `no SEA on ${process.platform}/${process.arch}`;
  progress('building the SEA (scripts/sea.sh)');
  const built = await run(['bash', path.join(ROOT, 'scripts/sea.sh')]);
  return built.status === 0 ? null : `scripts/sea.sh failed: ${built.stderr.trim().slice(-300)}`;
}

/** One case from runs measured one at a time, interleaved with the others'. */
const mergeRuns = (results: CaseResult[]) => summarize(results.flatMap((r) => r.samples));

export async function runtimeCases(audit: Audit | undefined, tag: string, n: number) {
  const skipped: { runtime: Runtime; reason: string }[] = [];
  const programs: { runtime: Runtime; argv: string[]; version: string }[] = [];
  const node20 = hostNode();
  const v20 = node20 ? await nodeVersion(node20) : null;
  if (node20 && v20?.startsWith('v20.')) programs.push({ runtime: 'node20', argv: [node20, PLUGIN], version: v20 });
  else skipped.push({ runtime: 'node20', reason: node20 ? `${node20} is ${v20}, not Node 20` : 'no node on PATH' });
  const v24 = await nodeVersion(PINNED_NODE);
  if (v24) programs.push({ runtime: 'node24', argv: [PINNED_NODE, PLUGIN], version: v24 });
  else skipped.push({ runtime: 'node24', reason: `${PINNED_NODE} does not run (npm ci)` });
  const sea = await seaReady();
  if (sea) skipped.push({ runtime: 'sea', reason: sea });
  // The SEA is made from the pinned node: that is its version.
  else programs.push({ runtime: 'sea', argv: [SEA], version: v24 ?? 'unknown' });

  const repeats = repeatsFor(n);
  const colds: { runtime: Runtime; version: string; cold: CaseResult }[] = [];
  // Cold apply --all on each bundle runtime, each run on a fresh namespace; the last is kept for plan NAME.
  let namespace = '';
  for (const program of programs.filter((p) => p.runtime !== 'sea')) {
    const results: CaseResult[] = [];
    for (let r = 0; r < repeats.cold; r++) {
      if (namespace) await deleteNamespace(namespace);
      namespace = `bench-runtime-${program.runtime}-${r}-${tag}`;
      await createNamespace(namespace);
      await createWebServices(namespace, n);
      progress(`runtimes: cold apply --all over ${n} on ${program.runtime} (${r + 1} of ${repeats.cold})`);
      const ns = namespace;
      results.push(await measure(audit, 'plugin', 1, () => applyAll(ns, { create: n }, { program: program.argv })));
    }
    colds.push({ runtime: program.runtime, version: program.version, cold: mergeRuns(results) });
  }
  if (!namespace) {
    namespace = `bench-runtime-${tag}`;
    await createNamespace(namespace);
    await createWebServices(namespace, n);
    const applied = await applyAll(namespace, { create: n });
    if (applied.status !== 0) throw new Error(`apply --all failed: ${applied.stderr.slice(-500)}`);
  }

  try {
    const name = webServiceName(0);
    const plans = programs
      .filter((p) => p.runtime !== 'node20')
      .map((program) => ({ program, runs: [] as CaseResult[] }));
    const gets: CaseResult[] = [];
    progress(`runtimes: plan NAME on ${plans.length} runtime(s) and kubectl get NAME, ${repeats.name} rounds`);
    // Round after round, so that a busy spell hits every runtime alike.
    for (let i = 0; i < repeats.name; i++) {
      for (const p of plans)
        p.runs.push(
          await measure(audit, 'plugin', 1, () => runPlugin(['plan', name, '-n', namespace], {}, p.program.argv)),
        );
      const get = ['kubectl', 'get', 'webservice', name, '-n', namespace, '-o', 'json'];
      gets.push(await measure(audit, 'kubectl', 1, () => runMeasured(get)));
    }
    const extraCaCerts = process.env.NODE_EXTRA_CA_CERTS || null;
    return {
      n,
      extraCaCerts,
      kubectlGetName: mergeRuns(gets),
      plans: plans.map(({ program: { runtime, version }, runs }) => ({
        runtime,
        version,
        extraCa: extraCaCerts !== null,
        planName: mergeRuns(runs),
      })),
      colds,
      skipped,
    };
  } finally {
    await deleteNamespace(namespace);
  }
}

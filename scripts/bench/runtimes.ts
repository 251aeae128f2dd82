// Issue 18's targets, on each runtime they name: client CPU per write of a cold `apply --all`
// on the bundle under the host's Node 20 and under the pinned Node 24; `plan NAME` on that
// Node 24 and on the standalone binary (SEA), round after round beside `kubectl get`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Audit } from './audit';
import { applyAll, coldPasses, measure, repeatsFor } from './cases';
import { createNamespace, createWebServices, deleteNamespace, webServiceName } from './cluster';
import { CaseResult, summarize } from './results';
import { PLUGIN, ROOT, progress, run, runPlugin } from './proc';

type Runtime = 'node20' | 'node24' | 'sea';
const PINNED_NODE = path.join(ROOT, 'node_modules/.bin/node');

const versionOf = async (node: string) => (await run([node, '-p', 'process.version'], { capture: true })).stdout.trim();

/** Each runtime's program and version, or why it is not there. */
async function findRuntimes(): Promise<Record<Runtime, { argv: string[]; version: string } | string>> {
  // The first `node` on PATH outside node_modules/.bin (npm run puts the pinned one first).
  const host = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !dir.endsWith(path.join('node_modules', '.bin')))
    .map((dir) => path.join(dir, 'node'))
    .find((node) => fs.existsSync(node));
  const [v20, v24] = [host && (await versionOf(host)), await versionOf(PINNED_NODE)];
  const linux = process.platform === 'linux' && process.arch === 'x64';
  if (linux) progress('building the SEA (scripts/sea.sh)');
  const sea = linux ? await run(['bash', path.join(ROOT, 'scripts/sea.sh')]) : undefined;
  return {
    node20: v20?.startsWith('v20.')
      ? { argv: [host!, PLUGIN], version: v20 }
      : host
        ? `${host} is ${v20}`
        : 'no node on PATH',
    node24: v24 ? { argv: [PINNED_NODE, PLUGIN], version: v24 } : `${PINNED_NODE} does not run (npm ci)`,
    // The SEA is made from the pinned node: that is its version.
    sea:
      sea?.status === 0
        ? { argv: [path.join(ROOT, 'dist/sea/kubectl-webservice')], version: v24 }
        : `no SEA: ${sea ? sea.stderr.slice(-300) : `${process.platform}/${process.arch}`}`,
  };
}

/** One case from runs measured one at a time, interleaved with the others'. */
const mergeRuns = (results: CaseResult[]) => summarize(results.flatMap((r) => r.samples));

export async function runtimeCases(audit: Audit | undefined, tag: string, n: number) {
  const found = await findRuntimes();
  const present = (runtimes: Runtime[]) =>
    runtimes.flatMap((runtime) => {
      const program = found[runtime];
      return typeof program === 'string' ? [] : [{ runtime, ...program }];
    });
  const skipped = Object.entries(found).flatMap(([runtime, p]) =>
    typeof p === 'string' ? [{ runtime, reason: p }] : [],
  );
  const repeats = repeatsFor(n);
  // Cold passes on each bundle runtime, each on namespaces of its own; the last is kept for plan NAME.
  const colds: { runtime: Runtime; version: string; cold: CaseResult }[] = [];
  let namespace = '';
  for (const { runtime, version, argv } of present(['node20', 'node24'])) {
    if (namespace) await deleteNamespace(namespace);
    namespace = `bench-runtime-${runtime}-${tag}`;
    await createNamespace(namespace);
    await createWebServices(namespace, n);
    progress(`runtimes: cold apply --all over ${n} on ${runtime} (${repeats.cold} runs)`);
    colds.push({ runtime, version, cold: await coldPasses(audit, namespace, n, repeats.cold, argv) });
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
    const plans = present(['node24', 'sea']).map((program) => ({ ...program, runs: [] as CaseResult[] }));
    const gets: CaseResult[] = [];
    progress(`runtimes: plan NAME on ${plans.length} runtime(s) and kubectl get NAME, ${repeats.name} rounds`);
    // Round after round, so that a busy spell hits every runtime alike.
    for (let i = 0; i < repeats.name; i++) {
      for (const p of plans)
        p.runs.push(await measure(audit, 'plugin', 1, () => runPlugin(['plan', name, '-n', namespace], {}, p.argv)));
      const get = ['kubectl', 'get', 'webservice', name, '-n', namespace, '-o', 'json'];
      gets.push(await measure(audit, 'kubectl', 1, () => run(get)));
    }
    const planOf = ({ runtime, version, runs }: (typeof plans)[number]) => ({
      runtime,
      version,
      planName: mergeRuns(runs),
    });
    return { n, kubectlGetName: mergeRuns(gets), plans: plans.map(planOf), colds, skipped };
  } finally {
    await deleteNamespace(namespace);
  }
}

// Issue 18's targets, on each runtime they name: client CPU per write of a cold `apply --all`
// on the bundle under the host's Node 20 and under the pinned Node 24; then `plan NAME` in a
// namespace of N children on that Node 24 and on the standalone binary (SEA), with the host's
// NODE_EXTRA_CA_CERTS as it is, round after round beside `kubectl get webservice NAME -o json`.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Audit } from './audit';
import { checkReport, measure, repeatsFor } from './cases';
import { createNamespace, createWebServices, deleteNamespace, webServiceName } from './cluster';
import { CaseResult, Runtime, RuntimeCold, RuntimePlan, Runtimes, summarize } from './results';
import { PLUGIN, ROOT, progress, run, runMeasured, runPlugin } from './proc';

const SEA = path.join(ROOT, 'dist/sea/kubectl-webservice');
const PROGRAM = path.join(ROOT, 'dist/program/kubectl-webservice.js');
const PINNED_NODE = path.join(ROOT, 'node_modules/.bin/node');

interface Program {
  runtime: Runtime;
  argv: string[];
  version: string;
}

async function nodeVersion(node: string): Promise<string | null> {
  const result = await run([node, '-p', 'process.version'], { capture: true });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** The first `node` on PATH outside any node_modules/.bin (npm run puts the pinned one first). */
function hostNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || dir.split(path.sep).join('/').endsWith('node_modules/.bin')) continue;
    const candidate = path.join(dir, 'node');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function newer(file: string, than: string): boolean {
  try {
    return fs.statSync(file).mtimeMs >= fs.statSync(than).mtimeMs;
  } catch {
    return false;
  }
}

/**
 * The SEA, made by `npm run package` when it is missing or older than the bundle just built;
 * the krew manifest that also writes goes to a scratch file, never over the repository's.
 */
async function seaReady(): Promise<{ reason: string } | null> {
  if (newer(SEA, PROGRAM)) return null;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { reason: `the SEA is built on linux/x64 only, this is ${process.platform}/${process.arch}` };
  progress('building the SEA and the release archives (scripts/package.sh, about a minute)');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-package-'));
  try {
    const built = await run(['bash', path.join(ROOT, 'scripts/package.sh')], {
      capture: true,
      env: { KREW_MANIFEST_OUT: path.join(scratch, 'krew-manifest.yaml') },
    });
    if (built.status !== 0) return { reason: `scripts/package.sh failed: ${built.stderr.trim().slice(-300)}` };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return fs.existsSync(SEA) ? null : { reason: 'scripts/package.sh made no SEA' };
}

/** Runs each case once per round, round after round, so a busy spell hits all of them alike. */
async function interleaved(rounds: number, cases: (() => Promise<void>)[]): Promise<void> {
  for (let i = 0; i < rounds; i++) for (const once of cases) await once();
}

export async function runtimeCases(audit: Audit | undefined, tag: string, n: number): Promise<Runtimes> {
  const skipped: Runtimes['skipped'] = [];
  const programs: Program[] = [];
  const node20 = hostNode();
  const v20 = node20 ? await nodeVersion(node20) : null;
  if (node20 && v20?.startsWith('v20.')) programs.push({ runtime: 'node20', argv: [node20, PLUGIN], version: v20 });
  else skipped.push({ runtime: 'node20', reason: node20 ? `${node20} is ${v20}, not Node 20` : 'no node on PATH' });
  const v24 = await nodeVersion(PINNED_NODE);
  if (v24) programs.push({ runtime: 'node24', argv: [PINNED_NODE, PLUGIN], version: v24 });
  else skipped.push({ runtime: 'node24', reason: `${PINNED_NODE} does not run (npm ci)` });
  const sea = await seaReady();
  if (sea) skipped.push({ runtime: 'sea', reason: sea.reason });
  // A SEA runs only its own program; scripts/sea.sh makes it from the pinned node, so that is its version.
  else programs.push({ runtime: 'sea', argv: [SEA], version: v24 ?? 'unknown' });

  const repeats = repeatsFor(n);
  const colds: RuntimeCold[] = [];
  let namespace = '';
  // Cold apply --all on each bundle runtime, each on its own fresh namespace; the last namespace
  // (N WebServices and their N children) is kept for plan NAME.
  const bundles = programs.filter((p) => p.runtime !== 'sea');
  for (const [i, program] of bundles.entries()) {
    const results: CaseResult[] = [];
    for (let r = 0; r < repeats.cold; r++) {
      const ns = `bench-runtime-${program.runtime}-${r}-${tag}`;
      await createNamespace(ns);
      await createWebServices(ns, n);
      progress(`runtimes: cold apply --all over ${n} on ${program.runtime} (${r + 1} of ${repeats.cold})`);
      results.push(
        await measure(audit, 'plugin', 1, async () => {
          const result = await runPlugin(['apply', '--all', '-n', ns, '-o', 'json'], { capture: true }, program.argv);
          if (result.status === 0) checkReport(result.stdout, { create: n });
          return result;
        }),
      );
      const keep = i === bundles.length - 1 && r === repeats.cold - 1;
      if (keep) namespace = ns;
      else await deleteNamespace(ns);
    }
    colds.push({ runtime: program.runtime, version: program.version, cold: mergeRuns(results) });
  }
  if (!namespace) {
    namespace = `bench-runtime-${tag}`;
    await createNamespace(namespace);
    await createWebServices(namespace, n);
    const applied = await runPlugin(['apply', '--all', '-n', namespace, '-o', 'json'], { capture: true });
    if (applied.status !== 0) throw new Error(`apply --all failed: ${applied.stderr.slice(-500)}`);
  }

  try {
    const name = webServiceName(0);
    const plans = programs
      .filter((p) => p.runtime !== 'node20')
      .map((program) => ({ program, samples: [] as CaseResult[] }));
    const gets: CaseResult[] = [];
    progress(`runtimes: plan NAME on ${plans.length} runtime(s) and kubectl get NAME, ${repeats.name} rounds`);
    await interleaved(repeats.name, [
      ...plans.map((p) => async () => {
        p.samples.push(
          await measure(audit, 'plugin', 1, () => runPlugin(['plan', name, '-n', namespace], {}, p.program.argv)),
        );
      }),
      async () => {
        gets.push(
          await measure(audit, 'kubectl', 1, () =>
            runMeasured(['kubectl', 'get', 'webservice', name, '-n', namespace, '-o', 'json']),
          ),
        );
      },
    ]);
    const extraCa = process.env.NODE_EXTRA_CA_CERTS || null;
    const planResults: RuntimePlan[] = plans.map((p) => ({
      runtime: p.program.runtime,
      version: p.program.version,
      extraCa: extraCa !== null,
      planName: mergeRuns(p.samples),
    }));
    return { n, extraCaCerts: extraCa, kubectlGetName: mergeRuns(gets), plans: planResults, colds, skipped };
  } finally {
    await deleteNamespace(namespace);
  }
}

/** One case from runs measured one at a time (interleaved with others). */
function mergeRuns(results: CaseResult[]): CaseResult {
  return summarize(results.flatMap((r) => r.samples));
}

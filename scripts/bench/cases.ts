// The one-shot cases at one size N: the plugin's passes, plan NAME beside kubectl get, and
// the raw floor.
// Each run is a child process, timed from outside, its requests counted in the audit log.
import { Audit, Client } from './audit';
import { createNamespace, createWebServices, deleteNamespace, webServiceName } from './cluster';
import { CaseResult, Sample, sampleOf, summarize } from './results';
import { Measured, kubectl, progress, run, runPlugin } from './proc';

const WEBSERVICES = '/apis/apps.labhub.io/v1/namespaces';

/** Runs a case `runs` times, each in its own audit window; before and after run outside it. */
export async function measure(
  audit: Audit | undefined,
  client: Client,
  runs: number,
  once: (run: number) => Promise<Measured>,
  hooks: { before?: (run: number) => Promise<void>; after?: (run: number) => Promise<void> } = {},
): Promise<CaseResult> {
  const samples: Sample[] = [];
  for (let run = 0; run < runs; run++) {
    await hooks.before?.(run);
    const since = audit?.mark() ?? 0;
    const measured = await once(run);
    if (measured.status !== 0) throw new Error(`exit ${measured.status}: ${measured.stderr.trim().slice(-2000)}`);
    const count = audit ? await audit.count(since, client) : null;
    samples.push(sampleOf(measured, count));
    await hooks.after?.(run);
  }
  return summarize(samples);
}

/**
 * `apply --all -o json` on a namespace, its report checked (a bench of a failing pass measures
 * nothing); `program` as runPlugin starts it, `timeoutMs` as run stops it.
 */
export async function applyAll(
  namespace: string,
  expect: Partial<Record<'create' | 'update' | 'noop', number>>,
  { program, timeoutMs }: { program?: string[]; timeoutMs?: number } = {},
): Promise<Measured> {
  const result = await runPlugin(
    ['apply', '--all', '-n', namespace, '-o', 'json'],
    { capture: true, timeoutMs },
    program,
  );
  if (result.status !== 0) return result;
  const report = JSON.parse(result.stdout) as { summary: Record<string, number>; converged: boolean };
  const summary = JSON.stringify(report.summary);
  for (const [action, count] of Object.entries(expect)) {
    if (report.summary[action] !== count) throw new Error(`apply --all: expected ${count} ${action}, got ${summary}`);
  }
  if (!report.converged) throw new Error(`apply --all did not converge: ${summary}`);
  return result;
}

/** Both collections a pass reads, fetched raw by two kubectl processes at once, as the plugin does. */
export async function rawFloor(namespace: string): Promise<Measured> {
  const started = performance.now();
  const [webServices, configMaps] = await Promise.all([
    run(['kubectl', 'get', '--raw', `${WEBSERVICES}/${namespace}/webservices`]),
    run(['kubectl', 'get', '--raw', `/api/v1/namespaces/${namespace}/configmaps`]),
  ]);
  return { ...(configMaps.status !== 0 ? configMaps : webServices), wallMs: performance.now() - started };
}

/** How many runs each case takes at N; each cold run but the last on a fresh namespace of N new WebServices. */
export const repeatsFor = (n: number) => ({ cold: n <= 1000 ? 3 : 1, noop: 5, oneChange: 3, name: 10, floor: 5 });

/**
 * `runs` cold passes over n new WebServices: the last on `namespace` (holding them already), each
 * other on a namespace of its own, made before it and deleted after.
 */
export function coldPasses(audit: Audit | undefined, namespace: string, n: number, runs: number, program?: string[]) {
  const other = (i: number) => (i === runs - 1 ? undefined : `${namespace}-cold${i}`);
  return measure(audit, 'plugin', runs, (i) => applyAll(other(i) ?? namespace, { create: n }, { program }), {
    before: async (i) => {
      const ns = other(i);
      if (ns) await createNamespace(ns).then(() => createWebServices(ns, n));
    },
    after: async (i) => {
      const ns = other(i);
      if (ns) await deleteNamespace(ns);
    },
  });
}

let changes = 0;

/** Every plugin case at one N, on a namespace holding N new WebServices. */
export async function pluginCases(audit: Audit | undefined, namespace: string, n: number) {
  const repeats = repeatsFor(n);
  const name = webServiceName(0);
  progress(`N=${n}: apply --all, cold (${n} creates, ${repeats.cold} run(s))`);
  const cold = await coldPasses(audit, namespace, n, repeats.cold);
  progress(`N=${n}: apply --all, no-op (${repeats.noop} runs)`);
  const noop = await measure(audit, 'plugin', repeats.noop, () => applyAll(namespace, { noop: n }));
  progress(`N=${n}: raw floor`);
  const floor = await measure(audit, 'kubectl', repeats.floor, () => rawFloor(namespace));
  progress(`N=${n}: apply --all, one change (${repeats.oneChange} runs)`);
  const oneChange = await measure(
    audit,
    'plugin',
    repeats.oneChange,
    () => applyAll(namespace, { update: 1, noop: n - 1 }),
    {
      // One WebService's image changed, outside the timed run.
      before: async (i) => {
        const patch = JSON.stringify({ spec: { image: `nginx:changed-${++changes}` } });
        await kubectl([
          'patch',
          'webservice',
          webServiceName((i * 7) % n),
          '-n',
          namespace,
          '--type=merge',
          '-p',
          patch,
        ]);
      },
    },
  );
  progress(`N=${n}: plan NAME and kubectl get webservice NAME (${repeats.name} runs each)`);
  const planName = await measure(audit, 'plugin', repeats.name, () => runPlugin(['plan', name, '-n', namespace]));
  const kubectlGetName = await measure(audit, 'kubectl', repeats.name, () =>
    run(['kubectl', 'get', 'webservice', name, '-n', namespace, '-o', 'json']),
  );
  return { n, cold, noop, oneChange, planName, kubectlGetName, floor };
}

// RESULTS.md's sections and target rows for the cases of issues 17, 18 and 19: the
// runtimes side by side, the write floor beside `run`'s burst, and the workload burst.
import { RequestCount } from './audit';
import { DEFAULT_WORKERS } from './controller';
import { BusyWindow, ControllerBurst, PlanFloor, Results, RuntimePlan, WorkloadBurst, WriteFloor } from './results';
import { median, round } from './proc';

type Standing = 'met' | 'missed' | 'not measured';
export type Add = (issue: string, target: string, measured: string, standing: Standing) => void;
type Table = (headers: string[], rows: string[][], align?: ('l' | 'r')[]) => string;

export interface Format {
  ms: (value: number | null | undefined) => string;
  table: Table;
}

const RUNTIME_NAMES = { node20: 'bundle on Node 20', node24: 'bundle on Node 24', sea: 'standalone binary (SEA)' };

function ratioText(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

function perWrite(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : `${value.toFixed(3)} ms`;
}

function sizeMiB(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB (${(bytes / 1e6).toFixed(1)} MB)`;
}

interface BurstGroup {
  /** Empty for runs recorded before the floor had bursts of its own: then only the burst case's. */
  label: string;
  runs: ControllerBurst[];
  doneMs: number;
}

/**
 * A burst beside the floor ends when every WebService is Ready and every write of the
 * controller is in, its Events included (sent in the background), as the floor's do.
 */
function doneMs(burst: ControllerBurst): number {
  return Math.max(burst.readyMs, burst.writesDoneMs ?? 0);
}

function group(label: string, runs: ControllerBurst[]): BurstGroup {
  return { label, runs, doneMs: median(runs.map(doneMs)) };
}

/** The burst case's runs of N (their creates by kubectl), or the floor's own burst of earlier runs. */
function kubectlBurstsOf(results: Results, n: number): ControllerBurst[] {
  const runs = results.controller.bursts.filter((b) => b.n === n);
  if (runs.length === 0 && results.floorBurst) runs.push(results.floorBurst);
  return runs;
}

/**
 * `run`'s bursts beside the floor, the one the target reads first: those whose creates the
 * floor's client sent with `run`'s default workers, then with more workers, then the burst
 * case's (created by kubectl). Runs recorded before the floor had bursts of its own: the
 * burst case's alone.
 */
function burstsBesideFloor(results: Results): BurstGroup[] {
  const n = results.writeFloor?.[0]?.n;
  if (n === undefined) return [];
  const kubectlRuns = kubectlBurstsOf(results, n);
  const own = (results.floorBursts ?? []).filter((b) => b.n === n);
  if (own.length === 0) return kubectlRuns.length > 0 ? [group('', kubectlRuns)] : [];
  const workers = [...new Set(own.map((b) => b.workers ?? DEFAULT_WORKERS))].sort(
    (x, y) => Number(y === DEFAULT_WORKERS) - Number(x === DEFAULT_WORKERS) || x - y,
  );
  const groups = workers.map((w) =>
    group(
      `${w} workers${w === DEFAULT_WORKERS ? ' (the default)' : ` (\`--concurrency=${w}\`)`}, created by the floor's client`,
      own.filter((b) => (b.workers ?? DEFAULT_WORKERS) === w),
    ),
  );
  if (kubectlRuns.length > 0) groups.push(group(`${DEFAULT_WORKERS} workers, created by kubectl`, kubectlRuns));
  return groups;
}

/** The floor at each concurrency: the median of its runs (runs recorded before the floor ran three times have one). */
function floorMedians(floors: WriteFloor[]): { n: number; inFlight: number; wallMs: number; runs: number }[] {
  const concurrencies = [...new Set(floors.map((f) => f.inFlight))];
  return concurrencies.map((inFlight) => {
    const runs = floors.filter((f) => f.inFlight === inFlight);
    return { n: runs[0].n, inFlight, wallMs: median(runs.map((f) => f.wallMs)), runs: runs.length };
  });
}

/** ` (run 2)` when the floor ran more than once at that concurrency. */
function runLabel(floors: WriteFloor[], floor: WriteFloor): string {
  const same = floors.filter((f) => f.inFlight === floor.inFlight);
  return same.length > 1 ? ` (run ${same.indexOf(floor) + 1})` : '';
}

/** The floor of plan NAME beside a target's plan: the one with the host's CA set as the target's is. */
function planFloorText(rt: NonNullable<Results['runtimes']>, extraCa: boolean, ms: Format['ms']): string {
  const floor = rt.planFloors?.find((f) => f.extraCa === extraCa);
  if (!floor) return '';
  const wall = floor.twoGets.wallMs;
  return `; its floor, the same two GETs by a bare client on Node 24: ${ms(wall)}, ${ratioText(wall, rt.kubectlGetName.wallMs)}`;
}

/** CPU per request of the write floor's bare client at 16 in flight (median of its runs), if the run measured it. */
function writeFloorPerRequest(floors: WriteFloor[] | undefined): number | null {
  const runs = (floors ?? []).filter((f) => f.inFlight === 16 && f.requests !== null && f.requests > 0);
  return runs.length === 0 ? null : median(runs.map((f) => f.clientCpuMs / f.requests!));
}

function planFloorLabel(f: PlanFloor, extraCa: string | null): string {
  return `floor: the same two GETs by a bare client (scripts/bench/two-gets.ts), Node 24 (${f.version}${caNote(f.extraCa, extraCa)})`;
}

export function caseTargets(results: Results, add: Add, { ms }: Format): void {
  const rt = results.runtimes;
  if (rt) {
    const get = rt.kubectlGetName.wallMs;
    const at = rt.n === 1000 ? '' : ` (measured at N=${rt.n}, not 1000)`;
    for (const runtime of ['sea', 'node24'] as const) {
      const target = `\`plan NAME\` with 1000 children ≤ 1.5× \`kubectl get webservice NAME -o json\`, host's \`NODE_EXTRA_CA_CERTS\` set: ${RUNTIME_NAMES[runtime]}`;
      const plan = rt.plans.find((p) => p.runtime === runtime && p.extraCa === (rt.extraCaCerts !== null));
      if (!plan) {
        const why = rt.skipped.find((s) => s.runtime === runtime)?.reason ?? 'not run';
        add('#18', target, `not measured: ${why}`, 'not measured');
        continue;
      }
      const wall = plan.planName.wallMs;
      const caNote = rt.extraCaCerts === null ? '; the host sets no NODE_EXTRA_CA_CERTS' : '';
      add(
        '#18',
        target,
        `${ms(wall)} vs ${ms(get)}: ${ratioText(wall, get)} (medians of ${plan.planName.runs}${caNote})${planFloorText(rt, plan.extraCa, ms)}${at}`,
        rt.n !== 1000 ? 'not measured' : wall <= 1.5 * get ? 'met' : 'missed',
      );
    }
    const floorPerRequest = writeFloorPerRequest(results.writeFloor);
    const floorText =
      floorPerRequest === null
        ? ''
        : `; the write floor's bare client on Node 24, same run: ${perWrite(floorPerRequest)} per request at 16 in flight`;
    for (const runtime of ['node20', 'node24'] as const) {
      const target = `Client CPU per write ≤ 0.45 ms, cold \`apply --all\` over 1000 (Event creates counted): ${RUNTIME_NAMES[runtime]}`;
      const cold = rt.colds.find((c) => c.runtime === runtime)?.cold;
      if (!cold || cold.cpuPerWriteMs === null) {
        add('#18', target, 'not measured', 'not measured');
        continue;
      }
      add(
        '#18',
        target,
        `${perWrite(cold.cpuPerWriteMs)}: ${ms(cold.cpuMs)} over ${(cold.writes ?? 0) + (cold.events ?? 0)} writes (median CPU of ${cold.runs})${floorText}${at}`,
        rt.n !== 1000 ? 'not measured' : cold.cpuPerWriteMs <= 0.45 ? 'met' : 'missed',
      );
    }
  }
  const floors = results.writeFloor;
  if (floors && floors.length > 0) {
    const target = "`run`'s burst of 1000 ≤ 1.2× the write floor (a bare client's same writes), same run";
    const best = floorMedians(floors).reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
    const groups = burstsBesideFloor(results);
    if (groups.length === 0) add('#19', target, 'not measured: no burst of that N', 'not measured');
    else {
      const [burst, ...others] = groups;
      const at = best.n === 1000 ? '' : ` (measured at N=${best.n}, not 1000)`;
      const which = burst.label ? `, ${burst.label}` : '';
      const beside = others.map((g) => `; ${g.label}: ${ms(g.doneMs)}, ${ratioText(g.doneMs, best.wallMs)}`).join('');
      add(
        '#19',
        target,
        `${ms(burst.doneMs)} vs floor ${ms(best.wallMs)} at ${best.inFlight} in flight: ${ratioText(burst.doneMs, best.wallMs)}` +
          ` (floor ${floorMedians(floors)
            .map((f) => `${ms(f.wallMs)} at ${f.inFlight}${f.runs > 1 ? ` (median of ${f.runs})` : ''}`)
            .join(', ')}; burst median of ${burst.runs.length}${which}${beside})${at}`,
        best.n !== 1000 ? 'not measured' : burst.doneMs <= 1.2 * best.wallMs ? 'met' : 'missed',
      );
    }
  }
  const on = results.backlog?.find((b) => b.priorityQueue);
  if (on) {
    const off = results.backlog?.find((b) => !b.priorityQueue);
    add(
      '#19',
      `A new WebService created during a ${on.n}-key backlog is Ready within 1 s of its creation, priority queue on`,
      `${ms(on.readyMs)} from \`kubectl create\` (${ms(on.seenToReadyMs)} from its watch event); ${on.writtenBefore ?? '–'}/${on.n}` +
        ` backlog WebServices written before it` +
        (off ? `; with the queue off ${ms(off.readyMs)}, ${off.writtenBefore ?? '–'}/${off.n} before it` : ''),
      on.n !== 2000 ? 'not measured' : on.readyMs <= 1000 ? 'met' : 'missed',
    );
  }
  const wb = results.workloadBurst;
  if (wb) {
    const ours = 'controller' in wb.steady.byClient ? wb.steady.byClient.controller : undefined;
    const writes = ours ? ours.writes + ours.events : 0;
    add(
      '#17',
      `Workload burst of ${wb.n}: controller at steady state afterwards, 0 writes`,
      `${ours?.writes ?? 0} writes, ${ours?.events ?? 0} Events, ${ours?.requests ?? 0} requests of ours over ${wb.steady.seconds} s`,
      writes === 0 ? 'met' : 'missed',
    );
  }
  everyFieldTargets(results, add, ms);
}

/** Issue 27's budgets for a thousand WebServices with every pod field. */
function everyFieldTargets(results: Results, add: Add, ms: Format['ms']): void {
  const ef = results.everyFieldBurst;
  if (!ef) return;
  const ours = 'controller' in ef.steady.byClient ? ef.steady.byClient.controller : undefined;
  add(
    '#27',
    `${ef.n} workload WebServices with every pod field: controller at steady state afterwards, 0 writes`,
    `${ours?.writes ?? 0} writes, ${ours?.events ?? 0} Events, ${ours?.requests ?? 0} requests of ours over ${ef.steady.seconds} s`,
    (ours?.writes ?? 0) + (ours?.events ?? 0) === 0 ? 'met' : 'missed',
  );
  const recordOnly = results.controller.bursts.filter((b) => b.n === ef.n);
  const recordRss = recordOnly.length > 0 ? median(recordOnly.map((b) => b.peakRssMiB)) : null;
  add(
    '#27',
    `… its controller's peak RSS ≤ 1.3× a record-only burst of ${ef.n}, same run`,
    recordRss === null
      ? `${ef.peakRssMiB} MiB; no record-only burst of ${ef.n} in this run`
      : `${ef.peakRssMiB} MiB vs ${recordRss} MiB (median of ${recordOnly.length}): ${ratioText(ef.peakRssMiB, recordRss)}`,
    recordRss === null ? 'not measured' : ef.peakRssMiB <= 1.3 * recordRss ? 'met' : 'missed',
  );
  const wb = results.workloadBurst;
  add(
    '#27',
    '… its burst to all Ready no slower per WebService than the port-only workload burst, same run',
    wb
      ? `${ms(ef.readyMs / ef.n)} per WebService (${ms(ef.readyMs)} for ${ef.n}) vs ${ms(wb.readyMs / wb.n)} (${ms(wb.readyMs)} for ${wb.n})`
      : `${ms(ef.readyMs / ef.n)} per WebService; no port-only burst in this run`,
    !wb ? 'not measured' : ef.readyMs / ef.n <= wb.readyMs / wb.n ? 'met' : 'missed',
  );
  const same = results.portBurstSameN ?? (wb?.n === ef.n ? wb : undefined);
  if (same) {
    add(
      '#27',
      `… and no slower than a port-only burst of the same ${same.n}, same run`,
      `${ms(ef.readyMs)} vs ${ms(same.readyMs)} (${ms(same.readyMs / same.n)} per WebService): ${ratioText(ef.readyMs, same.readyMs)}`,
      ef.readyMs <= same.readyMs ? 'met' : 'missed',
    );
  }
}

function kinds(count: RequestCount | undefined): string {
  if (!count) return '–';
  const entries = Object.entries(count.byKind).sort((a, b) => b[1] - a[1]);
  return entries.length > 0 ? entries.map(([kind, n]) => `${n} ${kind}`).join(', ') : '–';
}

/** Whether the runs had the host's CA file; nothing where the host sets none. */
function caNote(set: boolean, hostExtraCa: string | null): string {
  if (hostExtraCa === null) return '';
  return set ? ', `NODE_EXTRA_CA_CERTS` set' : ', `NODE_EXTRA_CA_CERTS` unset';
}

function runtimeLabel(p: RuntimePlan, extraCa: string | null): string {
  return `\`plan NAME\`, ${RUNTIME_NAMES[p.runtime]} (${p.version}${caNote(p.extraCa, extraCa)})`;
}

/** The sections for the new cases, or none where the run did not measure them. */
export function caseSections(results: Results, { ms, table }: Format): string[] {
  const out: string[] = [];
  const rt = results.runtimes;
  if (rt) {
    const get = rt.kubectlGetName.wallMs;
    const rows = rt.plans.map((p) => [
      runtimeLabel(p, rt.extraCaCerts),
      ms(p.planName.wallMs),
      ratioText(p.planName.wallMs, get),
      ms(p.planName.cpuMs),
      p.planName.peakRssMiB === null ? '–' : `${p.planName.peakRssMiB.toFixed(0)} MiB`,
    ]);
    for (const f of rt.planFloors ?? []) {
      rows.push([
        planFloorLabel(f, rt.extraCaCerts),
        ms(f.twoGets.wallMs),
        ratioText(f.twoGets.wallMs, get),
        ms(f.twoGets.cpuMs),
        f.twoGets.peakRssMiB === null ? '–' : `${f.twoGets.peakRssMiB.toFixed(0)} MiB`,
      ]);
    }
    rows.push([
      '`kubectl get webservice NAME -o json`',
      ms(get),
      '1.00×',
      ms(rt.kubectlGetName.cpuMs),
      rt.kubectlGetName.peakRssMiB === null ? '–' : `${rt.kubectlGetName.peakRssMiB.toFixed(0)} MiB`,
    ]);
    const colds = rt.colds.map((c) => [
      `cold \`apply --all\`, ${RUNTIME_NAMES[c.runtime]} (${c.version})`,
      ms(c.cold.wallMs),
      String(c.cold.writes ?? '–'),
      String(c.cold.events ?? '–'),
      ms(c.cold.cpuMs),
      perWrite(c.cold.cpuPerWriteMs),
    ]);
    out.push(
      '## Runtimes side by side (issue 18)',
      '',
      `N = ${rt.n}: one namespace of ${rt.n} WebServices and their children; every variant and kubectl run once per round,` +
        ` round after round (medians of ${rt.kubectlGetName.runs}).`,
      '',
      table(['case', 'wall (median)', '× kubectl get', 'client CPU', 'peak RSS'], rows, ['l', 'r', 'r', 'r', 'r']),
      '',
      table(['case', 'wall', 'writes', 'Event creates', 'client CPU', 'CPU / write'], colds, [
        'l',
        'r',
        'r',
        'r',
        'r',
        'r',
      ]),
      '',
      rt.sea
        ? `The SEA: ${sizeMiB(rt.sea.bytes)}; its release archive ${rt.sea.archive}: ${sizeMiB(rt.sea.archiveBytes)}` +
            `${rt.sea.builtByBench ? ' (both built by this run, with `npm run package`)' : ''}.`
        : 'The SEA was not measured.',
      ...rt.skipped.map((s) => `- Skipped: ${RUNTIME_NAMES[s.runtime]}: ${s.reason}.`),
      '',
    );
  }
  const floors = results.writeFloor;
  if (floors && floors.length > 0) {
    // The machine's CPU beside the client's: runs that recorded it for the floor too.
    const machineColumns = floors.some((f) => f.machineCpuMs !== undefined);
    const cpuOrDash = (value: number | null | undefined) => (value === null || value === undefined ? '–' : ms(value));
    const rows = floors.map((f) => [
      `write floor, ${f.inFlight} in flight${runLabel(floors, f)}`,
      ms(f.wallMs),
      ms(f.createsMs),
      String(f.requests ?? '–'),
      String(f.writes ?? '–'),
      String(f.events ?? '–'),
      ms(f.clientCpuMs),
      ...(machineColumns ? [cpuOrDash(f.serverCpuMs), cpuOrDash(f.machineCpuMs)] : []),
    ]);
    const runs = burstsBesideFloor(results).flatMap((g) =>
      g.runs.map((b, i) => ({
        b,
        name: `${g.label ? `, ${g.label}` : ''}${g.runs.length > 1 ? ` (run ${i + 1})` : ''}`,
      })),
    );
    for (const { b, name } of runs) {
      rows.push([
        `\`run\`'s burst${name}`,
        ms(doneMs(b)),
        ms(b.createMs),
        String(b.requests ?? '–'),
        String(b.writes ?? '–'),
        String(b.events ?? '–'),
        ms(b.cpuMs),
        ...(machineColumns ? [cpuOrDash(b.serverCpuMs), cpuOrDash(b.machineCpuMs)] : []),
      ]);
    }
    const columns = ['case', 'wall', 'creates', 'requests', 'writes', 'Event creates', 'client CPU'];
    if (machineColumns) columns.push('server CPU', 'machine CPU');
    out.push(
      '## The write floor beside `run` (issue 19)',
      '',
      `N = ${floors[0].n}. The floor's writes by kind: ${Object.entries(floors[0].writesByKind ?? {})
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}.`,
      '',
      table(
        columns,
        rows,
        columns.map((_, i) => (i === 0 ? 'l' : 'r')),
      ),
      '',
    );
  }
  const backlog = results.backlog;
  if (backlog && backlog.length > 0) {
    out.push(
      '## A new WebService behind a backlog (issue 19)',
      '',
      `\`run\` started over ${backlog[0].n} WebServices that all need a write (none reconciled yet; for the second row their children` +
        ' deleted again), with its default 4 workers; one new WebService created as soon as it logs `controller working`.' +
        " *Written before* counts the backlog WebServices with a write in the audit log before the newcomer's status write.",
      '',
      table(
        ['priority queue', 'create → Ready', 'watch event → Ready', 'backlog written before it'],
        backlog.map((b) => [
          b.priorityQueue ? 'on (default)' : 'off (`--priority-queue=false`)',
          ms(b.readyMs),
          ms(b.seenToReadyMs),
          `${b.writtenBefore ?? '–'} of ${b.n}`,
        ]),
        ['l', 'r', 'r', 'r'],
      ),
      '',
    );
  }
  if (results.workloadBurst) {
    const wb = results.workloadBurst;
    out.push(
      ...workloadSection(
        '## A workload burst (issue 17)',
        `${wb.n} WebServices with \`spec.workload: {port: 8080}\` and ${wb.replicas} replicas each`,
        results,
        wb,
        { ms, table },
      ),
    );
  }
  if (results.portBurstSameN) {
    const wb = results.portBurstSameN;
    out.push(
      ...workloadSection(
        `## The port-only burst at N = ${wb.n} (issue 27's baseline)`,
        `${wb.n} WebServices with \`spec.workload: {port: 8080}\` and ${wb.replicas} replicas each`,
        results,
        wb,
        { ms, table },
      ),
    );
  }
  if (results.everyFieldBurst) {
    const wb = results.everyFieldBurst;
    out.push(
      ...workloadSection(
        '## A workload burst with every pod field (issue 27)',
        `${wb.n} WebServices with every pod field set (test/support/every-pod-field.ts: env from literals, a Secret,` +
          ' a ConfigMap and the downward API, envFrom, command and args, resources, three probes, security contexts,' +
          ' `podSecurity: restricted`, a service account, image pull secrets, the strategy, files, pod labels and' +
          ` annotations; quantities spelled as the server does not store them) and ${wb.replicas} replicas each`,
        results,
        wb,
        { ms, table },
      ),
    );
  }
  return out;
}

/** A burst of workload WebServices: who wrote what, where the CPU went, and the steady state after it. */
export function workloadSection(
  heading: string,
  what: string,
  results: Results,
  wb: WorkloadBurst,
  format: Format,
): string[] {
  return [
    heading,
    '',
    `${what}, created at once while \`run\` ran,` +
      ` on the workloads plane (${wb.nodes} fake Nodes, ${wb.podCapacity} pods in all): all Ready after **${format.ms(wb.readyMs)}**` +
      ` (creates ${format.ms(wb.createMs)}; machine ${round((100 * wb.machineCpuMs) / (results.machine.cpus * wb.readyMs))}% busy; our peak RSS ${wb.peakRssMiB} MiB).`,
    '',
    ...windowTables('burst', wb, wb.readyMs, wb.controllersAudited, format),
  ];
}

/**
 * A busy window's tables (`what`: a burst, a rotation): every client's requests about the namespace,
 * with their rate over `wallMs`, where the CPU went, and the steady state after it.
 */
export function windowTables(
  what: string,
  window: BusyWindow & { steady: BusyWindow & { seconds: number } },
  wallMs: number,
  controllersAudited: boolean | null,
  { ms, table }: Format,
): string[] {
  const clients = Object.keys(window.byClient).sort();
  const writeRows = clients.map((c) => [
    c === 'controller' ? '**ours** (`run`)' : c,
    String(window.byClient[c].requests),
    (window.byClient[c].requests / (wallMs / 1000)).toFixed(1),
    String(window.byClient[c].writes),
    String(window.byClient[c].events),
    kinds(window.byClient[c]),
  ]);
  const cpuRows = Object.keys(window.cpuMs).map((p) => [
    p === 'controller' ? '**ours** (`run`)' : p,
    ms(window.cpuMs[p]),
    ms(window.steady.cpuMs[p]),
  ]);
  const { steady } = window;
  const steadyRows = Object.keys(steady.byClient)
    .sort()
    .map((c) => [
      c,
      String(steady.byClient[c].requests),
      String(steady.byClient[c].writes),
      String(steady.byClient[c].events),
    ]);
  return [
    `Requests about the namespace's objects during the ${what}, by client, with their rate over its wall time` +
      (controllersAudited === true
        ? " (the controllers' too: the plane audited them):"
        : ": **the plane's audit log left out kube-controller-manager, kube-scheduler and kwok**" +
          " (start it with WEBSERVICE_CP_AUDIT_SYSTEM=true, as scripts/bench.sh does), so only ours and kubectl's are here:"),
    '',
    table(['client', 'requests', 'per second', 'writes', 'Event creates', 'writes by kind'], writeRows, [
      'l',
      'r',
      'r',
      'r',
      'r',
      'l',
    ]),
    '',
    `Where the CPU went (user + system, /proc/PID/stat), during the ${what} and over ${steady.seconds} s of steady state after it:`,
    '',
    table(['process', what, 'steady state'], cpuRows, ['l', 'r', 'r']),
    '',
    `Steady state, ${steady.seconds} s, requests about the namespace by client:`,
    '',
    steadyRows.length > 0
      ? table(['client', 'requests', 'writes', 'Event creates'], steadyRows, ['l', 'r', 'r', 'r'])
      : '_No requests about the namespace at all._',
    '',
  ];
}

export const CASE_NOTES = [
  "- **Runtimes** (issue 18): `plan NAME` runs as `NODE dist/kubectl-webservice` with the host's Node 20 (the first `node` on PATH" +
    ' outside node_modules/.bin) and the pinned Node 24 (node_modules/.bin/node), and as the SEA (dist/sea/kubectl-webservice, made by' +
    ' `npm run package` when missing or older than the bundle, with the krew manifest written to a scratch file), each with and without' +
    " the host's `NODE_EXTRA_CA_CERTS`. Cold `apply --all` runs on each bundle runtime on fresh namespaces; its CPU per write is the" +
    " plugin's own CPU (its -v line) over its writes and Event creates in the audit log. Beside plan NAME, in the same rounds," +
    ' its floor: dist/bench-two-gets.js (scripts/bench/two-gets.ts) on the pinned Node 24 starts, reads the kubeconfig with' +
    " js-yaml and sends plan NAME's two GETs at once over Node's https, then prints them as JSON; what plan NAME takes beyond" +
    " it is the plugin's own work (its code, the argument parser, client-node's kubeconfig, the decision and the table).",
  "- **The write floor** (issue 19): scripts/bench/floor.ts, inside the bench process: Node's https with a keep-alive agent" +
    " and the kubeconfig's credentials, at 16 and at 4 requests in flight. First the N WebService creates, then per CR its child" +
    " ConfigMap, its status patch (/status, conditional on the create's resourceVersion) and its Events, CRs side by side. The" +
    " bodies are what the core decides for a new WebService, computed before the clock starts. Beside it, `run`'s bursts of the" +
    ' same N on fresh namespaces, whose N creates that same client sends at 16 in flight and whose Ready it sees on one plain' +
    ' watch (not `kubectl get -w`, whose CPU would fall on the same two cores), so that they differ from the floor' +
    " only in who sends the other writes: with `run`'s default 4 workers, and with 16 (`--concurrency=16`, the floor's most in" +
    " flight). Three rounds of both floors and both bursts, so that the machine's drift falls on all alike; the target reads" +
    " the default bursts' median against the faster floor's median. The burst case's runs (created by kubectl) are listed" +
    " after them. A burst's wall there runs until every WebService is Ready and the controller's last write, its Events" +
    ' included, is in the audit log (where the run recorded it). Runs recorded before the floor had bursts of its own compare' +
    " the burst case's median with the faster floor's one run.",
  '- **The workload burst** (issue 17): on the workloads plane (kube-scheduler, KWOK and fake Nodes; scripts/bench.sh asks for' +
    " 4 Nodes, and each section says how many pods they hold); requests counted by User-Agent for objects in the burst's namespace (Node heartbeats and Leases elsewhere" +
    ' are left out); CPU from /proc/PID/stat of `run` and of each process of the plane, by their pid files.',
];

// The one renderer: each target the bench checks, its goal, what results.json (and scale.json)
// measured for it, and whether it holds. RESULTS.md is a hand-written preamble, kept as it is,
// and this table below it.
import { DEFAULT_WORKERS } from './controller';
import { BusyWindow, CanaryRun, ConfigRun, ControllerBurst, Results, ScaleRun, WorkloadBurst } from './results';
import { median } from './proc';

type Standing = 'met' | 'missed' | 'not measured';

export interface TargetRow {
  issue: string;
  target: string;
  goal: string;
  measured: string;
  standing: Standing;
}

type Add = (issue: string, target: string, goal: string, measured: string, standing: Standing) => void;

const MB_PER_MIB = 1.048576;
/** A new WebService takes a child create and a status patch; since 176261a no finalizer patch. */
const WRITES_PER_NEW = 2;
/** plan NAME over kubectl get NAME before issue 38 (bench/RESULTS.md of 2026-12-03). */
const PLAN_BEFORE = 1.78;
const GENERATED = '<!-- Below this line: written by `npm run bench` from results.json and scale.json. -->';

function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  if (value < 1000) return `${Math.round(value * 10) / 10} ms`;
  return `${(value / 1000).toFixed(2)} s`;
}

function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

/** `met` or `missed`; `not measured` where the run measured it at another N than the target names. */
function judge(judged: boolean, holds: boolean): Standing {
  return !judged ? 'not measured' : holds ? 'met' : 'missed';
}

/** A target's goals, none measured. */
function unmeasured(add: Add, issue: string, target: string, goals: string[]): void {
  for (const goal of goals) add(issue, target, goal, 'not measured', 'not measured');
}

/** ` (at N=n, not target)` where a figure was taken at another N. */
function at(n: number, target: number): string {
  return n === target ? '' : ` (at N=${n}, not ${target})`;
}

/** A peak RSS beside another, in MiB, within `limit`× of it: the measured text and the standing, judged at N = 1000. */
function rssWithin(rss: number, beside: number, limit: number, n: number): [string, Standing] {
  return [`${rss} vs ${beside} MiB: ${ratio(rss, beside)}${at(n, 1000)}`, judge(n === 1000, rss <= limit * beside)];
}

function pluginTargets(r: Results, add: Add): void {
  const notRun = `not measured (N = ${r.sizes.join(', ')}${r.quick ? ', --quick' : ''})`;
  const colds = r.plugin.filter((p) => p.n >= 1000 && p.cold.cpuPerWriteMs !== null);
  const cpuTarget = 'Client CPU per write, cold `apply --all`, N ≥ 1000';
  if (colds.length === 0) add('#8', cpuTarget, '≤ 0.5 ms', notRun, 'not measured');
  else {
    const worst = Math.max(...colds.map((p) => p.cold.cpuPerWriteMs!));
    const text = colds.map((p) => `${p.cold.cpuPerWriteMs!.toFixed(2)} ms at N=${p.n}`).join(', ');
    add('#8', cpuTarget, '≤ 0.5 ms', text, judge(true, worst <= 0.5));
  }

  const p1000 = r.plugin.find((p) => p.n === 1000);
  const coldTarget = 'Cold `apply --all` over 1000';
  const coldGoal = `≤ 12 s, exactly ${WRITES_PER_NEW * 1000} writes (Event creates apart)`;
  const planTarget = '`plan NAME` with 1000 children, beside `kubectl get webservice NAME -o json`';
  if (!p1000) {
    add('#8', coldTarget, coldGoal, notRun, 'not measured');
    add('#8', planTarget, '≤ 2×', notRun, 'not measured');
    add('#38', planTarget, `≤ ${PLAN_BEFORE}× (as fast as before issue 38)`, notRun, 'not measured');
  } else {
    const { cold, planName, kubectlGetName } = p1000;
    const minimum = cold.writes === WRITES_PER_NEW * 1000;
    add(
      '#8',
      coldTarget,
      coldGoal,
      `${ms(cold.wallMs)} (median of ${cold.runs}), ${cold.writes} writes, ${cold.events} Events`,
      judge(true, cold.wallMs <= 12_000 && minimum),
    );
    const plan = `${ms(planName.wallMs)} vs ${ms(kubectlGetName.wallMs)}: ${ratio(planName.wallMs, kubectlGetName.wallMs)}`;
    add('#8', planTarget, '≤ 2×', plan, judge(true, planName.wallMs <= 2 * kubectlGetName.wallMs));
    add(
      '#38',
      planTarget,
      `≤ ${PLAN_BEFORE}× (as fast as before issue 38)`,
      plan,
      judge(true, planName.wallMs <= PLAN_BEFORE * kubectlGetName.wallMs),
    );
  }

  const p10k = r.plugin.find((p) => p.n === 10_000);
  const noopTarget = 'No-op `apply --all` at 10 000, beside the raw floor (both LISTs)';
  const rssTarget = 'Peak RSS of `apply --all` at 10 000';
  if (!p10k) {
    add('#8', noopTarget, '≤ 3 requests, 0 writes, ≤ 2× the floor', notRun, 'not measured');
    add('#8', rssTarget, '≤ 250 MB', notRun, 'not measured');
    add('#38', noopTarget, '≤ 2× the floor', notRun, 'not measured');
  } else {
    const { noop, floor } = p10k;
    const wall = `${ms(noop.wallMs)} vs ${ms(floor.wallMs)}: ${ratio(noop.wallMs, floor.wallMs)}`;
    const lean = (noop.requests ?? Infinity) <= 3 && noop.writes === 0 && noop.events === 0;
    add(
      '#8',
      noopTarget,
      '≤ 3 requests, 0 writes, ≤ 2× the floor',
      `${noop.requests} requests, ${noop.writes} writes, ${noop.events} Events; ${wall}`,
      judge(true, lean && noop.wallMs <= 2 * floor.wallMs),
    );
    const peak = Math.max(...[p10k.cold, noop, p10k.oneChange].map((c) => c.peakRssMiB ?? 0));
    add('#8', rssTarget, '≤ 250 MB', `${(peak * MB_PER_MIB).toFixed(0)} MB`, judge(true, peak * MB_PER_MIB <= 250));
    add('#38', noopTarget, '≤ 2× the floor', wall, judge(true, noop.wallMs <= 2 * floor.wallMs));
  }
}

function controllerTargets(r: Results, add: Add): void {
  const { latency, bursts, steady, startup } = r.controller;
  const latencyTarget = 'Controller: spec change event → converged';
  for (const [goal, pick] of [
    ['p50 ≤ 100 ms', (l: NonNullable<typeof latency>) => l.p50Ms],
    ['p99 ≤ 500 ms', (l: NonNullable<typeof latency>) => l.p99Ms],
  ] as const) {
    const limit = goal.startsWith('p50') ? 100 : 500;
    if (!latency) add('#7', latencyTarget, goal, 'not measured', 'not measured');
    else
      add(
        '#7',
        latencyTarget,
        goal,
        `${pick(latency)} ms over ${latency.samples} changes`,
        judge(true, pick(latency) <= limit),
      );
  }
  const burstTarget = 'Burst of 1000 WebServices, first create to last Ready';
  const burstMs = bursts.length > 0 ? median(bursts.map((b) => b.readyMs)) : 0;
  if (bursts.length === 0) add('#7', burstTarget, '≤ 12 s', 'not measured', 'not measured');
  else
    add(
      '#7',
      burstTarget,
      '≤ 12 s',
      `${ms(burstMs)} (median of ${bursts.length})${at(bursts[0].n, 1000)}`,
      judge(bursts[0].n === 1000, burstMs <= 12_000),
    );
  const s10k = startup.find((s) => s.n === 10_000);
  const rssTarget = 'Controller peak RSS at 10 000 WebServices';
  if (!s10k) add('#7', rssTarget, '≤ 200 MB', 'not measured', 'not measured');
  else {
    const peak = steady?.n === 10_000 ? Math.max(s10k.peakRssMiB, steady.peakRssMiB) : s10k.peakRssMiB;
    add('#7', rssTarget, '≤ 200 MB', `${(peak * MB_PER_MIB).toFixed(0)} MB`, judge(true, peak * MB_PER_MIB <= 200));
  }
  const steadyTarget = 'Controller at steady state';
  if (!steady) add('#7', steadyTarget, '0 writes', 'not measured', 'not measured');
  else
    add(
      '#7',
      steadyTarget,
      '0 writes',
      `${steady.writes} writes, ${steady.events} Events over ${steady.seconds} s (N=${steady.n})`,
      judge(true, steady.writes !== null && steady.writes + (steady.events ?? 0) === 0),
    );
}

const RUNTIMES = { node20: 'the bundle on Node 20', node24: 'the bundle on Node 24', sea: 'the standalone binary' };

function runtimeTargets(r: Results, add: Add): void {
  const rt = r.runtimes;
  const planTarget = (runtime: 'sea' | 'node24') =>
    `\`plan NAME\` with 1000 children beside \`kubectl get webservice NAME -o json\`, ${RUNTIMES[runtime]}`;
  const cpuTarget = (runtime: 'node20' | 'node24') =>
    `Client CPU per write (Event creates counted), cold \`apply --all\` over 1000, ${RUNTIMES[runtime]}`;
  for (const runtime of ['sea', 'node24'] as const) {
    const plan = rt?.plans.find((p) => p.runtime === runtime && p.extraCa === (rt.extraCaCerts !== null));
    if (!rt || !plan) {
      const why = rt?.skipped.find((s) => s.runtime === runtime)?.reason;
      add('#18', planTarget(runtime), '≤ 1.5×', `not measured${why ? `: ${why}` : ''}`, 'not measured');
      continue;
    }
    const [wall, get] = [plan.planName.wallMs, rt.kubectlGetName.wallMs];
    const text = `${ms(wall)} vs ${ms(get)}: ${ratio(wall, get)}${at(rt.n, 1000)}`;
    add('#18', planTarget(runtime), '≤ 1.5×', text, judge(rt.n === 1000, wall <= 1.5 * get));
  }
  for (const runtime of ['node20', 'node24'] as const) {
    const cold = rt?.colds.find((c) => c.runtime === runtime)?.cold;
    if (!rt || !cold || cold.cpuPerWriteMs === null) {
      add('#18', cpuTarget(runtime), '≤ 0.45 ms', 'not measured', 'not measured');
      continue;
    }
    const text = `${cold.cpuPerWriteMs.toFixed(3)} ms${at(rt.n, 1000)}`;
    add('#18', cpuTarget(runtime), '≤ 0.45 ms', text, judge(rt.n === 1000, cold.cpuPerWriteMs <= 0.45));
  }
}

/** A burst beside the floor ends when every WebService is Ready and the controller's last write is in. */
function doneMs(burst: ControllerBurst): number {
  return Math.max(burst.readyMs, burst.writesDoneMs ?? 0);
}

/**
 * `run`'s bursts that the floor is read against: those whose creates the floor's own client
 * sent, with the default workers; else (runs before they were measured) the burst case's.
 */
function burstsBesideFloor(r: Results, n: number): ControllerBurst[] {
  const own = (r.floorBursts ?? []).filter((b) => b.n === n && (b.workers ?? DEFAULT_WORKERS) === DEFAULT_WORKERS);
  if (own.length > 0) return own;
  const kubectl = r.controller.bursts.filter((b) => b.n === n);
  return kubectl.length > 0 ? kubectl : r.floorBurst ? [r.floorBurst] : [];
}

function floorTargets(r: Results, add: Add): void {
  const target = "`run`'s burst of 1000, beside the write floor (a bare client's same writes, same run)";
  const floors = r.writeFloor ?? [];
  const bursts = floors.length > 0 ? burstsBesideFloor(r, floors[0].n) : [];
  if (bursts.length === 0) add('#19', target, '≤ 1.2× the floor', 'not measured', 'not measured');
  else {
    // The faster of the floor's concurrencies, each the median of its runs.
    const byInFlight = [...new Set(floors.map((f) => f.inFlight))].map((inFlight) =>
      median(floors.filter((f) => f.inFlight === inFlight).map((f) => f.wallMs)),
    );
    const floor = Math.min(...byInFlight);
    const burst = median(bursts.map(doneMs));
    add(
      '#19',
      target,
      '≤ 1.2× the floor',
      `${ms(burst)} vs ${ms(floor)}: ${ratio(burst, floor)}${at(floors[0].n, 1000)}`,
      judge(floors[0].n === 1000, burst <= 1.2 * floor),
    );
  }
  const on = r.backlog?.find((b) => b.priorityQueue);
  const backlogTarget = 'A new WebService created during a 2000-key backlog, priority queue on, to Ready';
  if (!on) add('#19', backlogTarget, '≤ 1 s', 'not measured', 'not measured');
  else
    add('#19', backlogTarget, '≤ 1 s', `${ms(on.readyMs)}${at(on.n, 2000)}`, judge(on.n === 2000, on.readyMs <= 1000));
}

/** Our writes and Events at the steady state after a workload burst or a rotation. */
function steadyWrites(window: { steady: BusyWindow }): { writes: number; events: number } {
  const { byClient } = window.steady;
  return 'controller' in byClient ? byClient.controller : { writes: 0, events: 0 };
}

function steadyText(wb: WorkloadBurst): string {
  const { writes, events } = steadyWrites(wb);
  return `${writes} writes, ${events} Events over ${wb.steady.seconds} s`;
}

/** The every-field burst's peak RSS beside a record-only burst's of its N (the median of the run's). */
function everyFieldRss(r: Results, ef: WorkloadBurst): [string, Standing] {
  const recordOnly = r.controller.bursts.filter((b) => b.n === ef.n);
  if (recordOnly.length === 0) return [`${ef.peakRssMiB} MiB; no record-only burst`, 'not measured'];
  return rssWithin(ef.peakRssMiB, median(recordOnly.map((b) => b.peakRssMiB)), 1.3, ef.n);
}

/** Issue 41: the every-field burst, with its fields and those of the workload's other children. */
function podFieldTargets(r: Results, add: Add): void {
  const target = '1000 WebServices with every field, old and new';
  const goals = [
    '0 writes at steady state',
    "controller peak RSS ≤ 1.3× a record-only burst's of the same N",
    'the no-op `apply --all` at 10 000 ≤ 2× the raw floor',
  ];
  const ef = r.everyFieldBurst;
  if (!ef) unmeasured(add, '#41', target, goals.slice(0, 2));
  else {
    const { writes, events } = steadyWrites(ef);
    add('#41', target, goals[0], `${steadyText(ef)}${at(ef.n, 1000)}`, judge(ef.n === 1000, writes + events === 0));
    add('#41', target, goals[1], ...everyFieldRss(r, ef));
  }
  const p10k = r.plugin.find((p) => p.n === 10_000);
  if (!p10k) return unmeasured(add, '#41', target, goals.slice(2));
  const { noop, floor } = p10k;
  const wall = `${ms(noop.wallMs)} vs ${ms(floor.wallMs)}: ${ratio(noop.wallMs, floor.wallMs)}`;
  add('#41', target, goals[2], wall, judge(true, noop.wallMs <= 2 * floor.wallMs));
}

function workloadTargets(r: Results, add: Add): void {
  const wb = r.workloadBurst;
  const steady = (w: WorkloadBurst) => steadyWrites(w).writes + steadyWrites(w).events === 0;
  const wbTarget = 'Workload burst of 200: the controller at steady state afterwards';
  if (!wb) add('#17', wbTarget, '0 writes', 'not measured', 'not measured');
  else add('#17', wbTarget, '0 writes', steadyText(wb), judge(true, steady(wb)));

  const ef = r.everyFieldBurst;
  const efTarget = '1000 workload WebServices with every pod field';
  const goals = [
    '0 writes at steady state afterwards',
    "peak RSS ≤ 1.3× a record-only burst's of 1000, same run",
    'no slower per WebService than the port-only burst of 200, same run',
    'no slower than a port-only burst of 1000, same run',
  ];
  if (!ef) return unmeasured(add, '#27', efTarget, goals);
  add('#27', efTarget, goals[0], steadyText(ef), judge(true, steady(ef)));
  add('#27', efTarget, goals[1], ...everyFieldRss(r, ef));
  const perWs = (w: WorkloadBurst) => w.readyMs / w.n;
  add(
    '#27',
    efTarget,
    goals[2],
    wb ? `${ms(perWs(ef))} vs ${ms(perWs(wb))} per WebService` : 'no port-only burst',
    wb ? judge(true, perWs(ef) <= perWs(wb)) : 'not measured',
  );
  const same = r.portBurstSameN ?? (wb?.n === ef.n ? wb : undefined);
  add(
    '#27',
    efTarget,
    goals[3],
    same
      ? `${ms(ef.readyMs)} vs ${ms(same.readyMs)}: ${ratio(ef.readyMs, same.readyMs)}`
      : 'no port-only burst of that N',
    same ? judge(true, ef.readyMs <= same.readyMs) : 'not measured',
  );
}

function configTargets(config: ConfigRun | undefined, add: Add): void {
  const target = '1000 WebServices, each reading its own Secret';
  const goals = [
    'all Secrets rotated at once: each rolls exactly once (2 ReplicaSets), then 0 writes',
    "… the controller's peak RSS ≤ 1.2× a port-only burst's of 1000, same run",
    "a single rotation reaches a new pod template ≤ 1 s after the Secret's write (p50 of 100)",
    "with 10 000 unreferenced Secrets beside them: the controller's peak RSS ≤ 1.15× without",
    '… and it reads the data of none of them (audit log and counting proxy)',
  ];
  if (!config) return unmeasured(add, '#38', target, goals);
  const { n, rotation, latency, unreferenced } = config;
  const judged = n === 1000;
  const note = at(n, 1000);
  const ours = steadyWrites(rotation);
  const once = rotation.rolled['1'] ?? 0;
  const two = rotation.replicaSets['2'] ?? 0;
  add(
    '#38',
    target,
    goals[0],
    `${once}/${n} rolled once, ${two}/${n} with 2 ReplicaSets; then ${ours.writes} writes, ${ours.events} Events${note}`,
    judge(judged, once === n && two === n && ours.writes + ours.events === 0),
  );
  add('#38', target, goals[1], ...rssWithin(config.peakRssMiB.whole, config.portBurst.peakRssMiB, 1.2, n));
  add(
    '#38',
    target,
    goals[2],
    `p50 ${ms(latency.p50Ms)} over ${latency.samples}${note}`,
    judge(judged && latency.samples >= 100, latency.p50Ms <= 1000),
  );
  add('#38', target, goals[3], ...rssWithin(unreferenced.with.peakRssMiB, unreferenced.without.peakRssMiB, 1.15, n));
  const { secrets, received } = unreferenced.with;
  const read = (secrets?.unreferencedGets ?? 0) + received.unreferencedRead + received.lists + received.marked;
  add(
    '#38',
    target,
    goals[4],
    secrets
      ? `${secrets.unreferencedGets} GETs, ${received.unreferencedRead} reads of one by name, ${received.lists} whole lists, ${received.marked} answers with a value${note}`
      : 'no audit log',
    secrets ? judge(judged, read === 0) : 'not measured',
  );
}

function canaryTargets(canary: CanaryRun | undefined, add: Add): void {
  const stepTarget = 'A canary step change (`promote`) reaches the HTTPRoute, N = 1000 with `run`';
  const pausedTarget = '1000 WebServices in a paused canary';
  const stepGoal = 'p50 ≤ 1 s over 100 step changes';
  const pausedGoals = ['0 writes at steady state', "controller peak RSS ≤ 1.2× the same 1000's without a canary"];
  if (!canary) {
    unmeasured(add, '#40', stepTarget, [stepGoal]);
    return unmeasured(add, '#40', pausedTarget, pausedGoals);
  }
  const { n, latency, steady } = canary;
  const judged = n === 1000;
  const note = at(n, 1000);
  add(
    '#40',
    stepTarget,
    stepGoal,
    `p50 ${ms(latency.p50Ms)}, p99 ${ms(latency.p99Ms)} over ${latency.samples}${note}`,
    judge(judged && latency.samples >= 100, latency.p50Ms <= 1000),
  );
  const { writes, events } = steadyWrites({ steady });
  add(
    '#40',
    pausedTarget,
    pausedGoals[0],
    `${writes} writes, ${events} Events over ${steady.seconds} s${note}`,
    judge(judged, writes + events === 0),
  );
  add('#40', pausedTarget, pausedGoals[1], ...rssWithin(canary.peakRssMiB, canary.without.peakRssMiB, 1.2, n));
}

function scaleTargets(scale: ScaleRun | undefined, add: Add): void {
  const rssTarget = 'Controller peak RSS at 100,000 (`npm run bench -- --scale`)';
  const noopTarget = 'No-op `apply --all` at 100,000, beside the raw floor (both LISTs)';
  if (!scale) {
    add('#19', rssTarget, '≤ 1 GB', 'not measured: no scale.json', 'not measured');
    add('#19', noopTarget, '≤ 2× the floor', 'not measured: no scale.json', 'not measured');
    return;
  }
  const judged = scale.n === 100_000;
  const peakMB = scale.steady.peakRssMiB * MB_PER_MIB;
  const note = `${at(scale.n, 100_000)}, run of ${scale.startedAt.slice(0, 10)}`;
  add('#19', rssTarget, '≤ 1 GB', `${peakMB.toFixed(0)} MB${note}`, judge(judged, peakMB <= 1000));
  const [noop, floor] = [scale.noop.wallMs, scale.floor.wallMs];
  add(
    '#19',
    noopTarget,
    '≤ 2× the floor',
    `${ms(noop)} vs ${ms(floor)}: ${ratio(noop, floor)}${note}`,
    judge(judged, noop <= 2 * floor),
  );
}

export function targets(results: Results, scale?: ScaleRun): TargetRow[] {
  const rows: TargetRow[] = [];
  const add: Add = (issue, target, goal, measured, standing) => rows.push({ issue, target, goal, measured, standing });
  pluginTargets(results, add);
  controllerTargets(results, add);
  runtimeTargets(results, add);
  floorTargets(results, add);
  workloadTargets(results, add);
  podFieldTargets(results, add);
  configTargets(results.config, add);
  canaryTargets(results.canary, add);
  scaleTargets(scale, add);
  return rows;
}

/** Which runs the figures come from: this one, and those a run of some cases kept them from (merge.ts). */
function runText(r: Results): string {
  const commit = (c: string | null) => (c ? `commit ${c.slice(0, 12)}` : 'an unknown commit');
  const m = r.machine;
  const dirty =
    m.srcChanges.length > 0 ? `, with uncommitted changes in ${m.srcChanges.length} path(s) under src/` : '';
  const only = r.only ? ` of ${r.only.join(', ')} only` : '';
  const carried = (r.carried ?? []).map(
    (c) =>
      `${c.case}${c.sizes ? ` at N = ${c.sizes.join(', ')}` : ''} from the run of ${c.startedAt} at ${commit(c.commit)}`,
  );
  return (
    `${r.quick ? 'A --quick run' : 'The run'}${only}, from ${r.startedAt} to ${r.finishedAt}, at ${commit(m.commit)}${dirty}:` +
    ` ${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, Kubernetes ${m.kubernetes},` +
    ` load average ${r.loadAverage.start[0]} to ${r.loadAverage.end[0]}.` +
    (carried.length > 0 ? ` Kept from earlier runs: ${carried.join('; ')}.` : '')
  );
}

/** RESULTS.md: what `previous` holds above the generated part (a title, if nothing), then the table. */
export function resultsMarkdown(results: Results, previous?: string, scale?: ScaleRun): string {
  const cut = previous?.indexOf(GENERATED) ?? -1;
  const preamble = previous !== undefined && cut >= 0 ? previous.slice(0, cut) : '# Bench results\n\n';
  const mark: Record<Standing, string> = { met: '✅ met', missed: '❌ missed', 'not measured': '– not measured' };
  const rows = targets(results, scale).map(
    (t) => `| ${t.issue} | ${t.target} | ${t.goal} | ${t.measured} | ${mark[t.standing]} |`,
  );
  return [
    `${preamble}${GENERATED}`,
    '',
    runText(results),
    '',
    '| issue | target | goal | measured | standing |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...(results.failed ?? []).map((f) => `**The ${f.case} case failed:** ${f.error}\n`),
  ].join('\n');
}

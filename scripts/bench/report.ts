// The one renderer: each target the bench checks, its goal, what results.json (and scale.json)
// measured for it, and whether it holds. RESULTS.md keeps what is written above the table.
import { DEFAULT_WORKERS } from './controller';
import { PluginSize, Quiet, Results, ScaleRun } from './results';
import { median } from './proc';

type Standing = 'met' | 'missed' | 'not measured';
/** The measured text and the standing; a lone string says why it was not measured. */
type Judged = [string, Standing] | string | null | undefined;
type Judge = (r: Results, scale?: ScaleRun) => Judged;

export interface TargetRow {
  issue: string;
  target: string;
  goal: string;
  measured: string;
  standing: Standing;
}

const MB_PER_MIB = 1.048576;
/** A new WebService takes a child create and a status patch. */
const WRITES_PER_NEW = 2;
/** plan NAME over kubectl get NAME before issue 38. */
const PLAN_BEFORE = 1.78;
const GENERATED = '<!-- Below this line: written by `npm run bench` from results.json and scale.json. -->';

function ms(value: number): string {
  return value < 1000 ? `${Math.round(value * 10) / 10} ms` : `${(value / 1000).toFixed(2)} s`;
}

const times = (x: number) => `${x.toFixed(2)}×`;
const ratio = (a: number, b: number) => times(a / b);
const vs = (a: number, b: number) => `${ms(a)} vs ${ms(b)}: ${ratio(a, b)}`;
const holds = (ok: boolean): Standing => (ok ? 'met' : 'missed');
/** Judged only at the N the target names. */
const judge = (judged: boolean, ok: boolean): Standing => (judged ? holds(ok) : 'not measured');
const at = (n: number, target: number) => (n === target ? '' : ` (at N=${n}, not ${target})`);
const mb = (mib: number) => mib * MB_PER_MIB;

/** A peak RSS within `limit`× another, in MiB, judged at N = 1000. */
function rssWithin(rss: number, beside: number, limit: number, n: number): [string, Standing] {
  return [`${rss} vs ${beside} MiB: ${ratio(rss, beside)}${at(n, 1000)}`, judge(n === 1000, rss <= limit * beside)];
}

/** Our writes and Events at a steady state, and whether there were none. */
function quiet({ steady }: { steady: Quiet }): [string, boolean] {
  const { writes, events } = steady.byClient.controller ?? { writes: 0, events: 0 };
  return [`${writes} writes, ${events} Events`, writes + events === 0];
}

const quietOver = (w: { steady: Quiet }) => `${quiet(w)[0]} over ${w.steady.seconds} s`;

const notRun = (r: Results) => `not measured (N = ${r.sizes.join(', ')}${r.quick ? ', --quick' : ''})`;

const plugin =
  (n: number, judged: (p: PluginSize) => Judged): Judge =>
  (r) => {
    const p = r.plugin.find((s) => s.n === n);
    return p ? judged(p) : notRun(r);
  };

const planBeside = (limit: number) =>
  plugin(1000, ({ planName: { wallMs: plan }, kubectlGetName: { wallMs: get } }) => [
    vs(plan, get),
    holds(plan <= limit * get),
  ]);

const noopBesideFloor = plugin(10_000, ({ noop, floor }) => [
  vs(noop.wallMs, floor.wallMs),
  holds(noop.wallMs <= 2 * floor.wallMs),
]);

const runtimePlan =
  (runtime: 'sea' | 'node24'): Judge =>
  ({ runtimes: rt }) => {
    const plan = rt?.plans.find((p) => p.runtime === runtime);
    const skipped = rt?.skipped.find((s) => s.runtime === runtime);
    if (!rt || !plan) return skipped && `not measured: ${skipped.reason}`;
    const [wall, get] = [plan.planName.wallMs, rt.kubectlGetName.wallMs];
    return [`${vs(wall, get)}${at(rt.n, 1000)}`, judge(rt.n === 1000, wall <= 1.5 * get)];
  };

const runtimeCpu =
  (runtime: 'node20' | 'node24'): Judge =>
  ({ runtimes: rt }) => {
    const cpu = rt?.colds.find((c) => c.runtime === runtime)?.cold.cpuPerWriteMs;
    if (!rt || cpu === undefined || cpu === null) return undefined;
    return [`${cpu.toFixed(3)} ms${at(rt.n, 1000)}`, judge(rt.n === 1000, cpu <= 0.45)];
  };

/** `run`'s bursts beside the floor (its default workers), to their last write, against the faster floor. */
const besideFloor: Judge = ({ writeFloor: floors = [], floorBursts = [] }) => {
  const n = floors[0]?.n;
  const bursts = floorBursts.filter((b) => b.n === n && b.workers === DEFAULT_WORKERS);
  if (bursts.length === 0) return undefined;
  const inFlight = [...new Set(floors.map((f) => f.inFlight))];
  const floor = Math.min(...inFlight.map((k) => median(floors.filter((f) => f.inFlight === k).map((f) => f.wallMs))));
  const burst = median(bursts.map((b) => Math.max(b.readyMs, b.writesDoneMs ?? 0)));
  return [`${vs(burst, floor)}${at(n, 1000)}`, judge(n === 1000, burst <= 1.2 * floor)];
};

/** The every-field burst's peak RSS beside the median of the run's record-only bursts of its N. */
const everyFieldRss =
  (limit: number): Judge =>
  (r) => {
    const ef = r.everyFieldBurst;
    if (!ef) return undefined;
    const recordOnly = r.controller.bursts.filter((b) => b.n === ef.n).map((b) => b.peakRssMiB);
    if (recordOnly.length === 0) return [`${ef.peakRssMiB} MiB; no record-only burst`, 'not measured'];
    return rssWithin(ef.peakRssMiB, median(recordOnly), limit, ef.n);
  };

/** The config or canary case's targets, with a note when it ran at another N than 1000. */
const at1000 =
  <K extends 'config' | 'canary'>(
    key: K,
    judged: (c: NonNullable<Results[K]>, note: string) => [string, Standing],
  ): Judge =>
  (r) => {
    const c = r[key];
    return c && judged(c, at(c.n, 1000));
  };

const scale =
  (judged: (s: ScaleRun, note: string) => [string, Standing]): Judge =>
  (_, s) =>
    s ? judged(s, `${at(s.n, 100_000)}, run of ${s.startedAt.slice(0, 10)}`) : 'not measured: no scale.json';

const coldCpu: Judge = (r) => {
  const colds = r.plugin.filter((p) => p.n >= 1000 && p.cold.cpuPerWriteMs !== null);
  if (colds.length === 0) return notRun(r);
  const text = colds.map((p) => `${p.cold.cpuPerWriteMs!.toFixed(2)} ms at N=${p.n}`).join(', ');
  return [text, holds(Math.max(...colds.map((p) => p.cold.cpuPerWriteMs!)) <= 0.5)];
};

const cold1000 = plugin(1000, ({ cold }) => [
  `${ms(cold.wallMs)} (median of ${cold.runs}), ${cold.writes} writes, ${cold.events} Events`,
  holds(cold.wallMs <= 12_000 && cold.writes === WRITES_PER_NEW * 1000),
]);

const noopLean = plugin(10_000, ({ noop: n, floor }) => [
  `${n.requests} requests, ${n.writes} writes, ${n.events} Events; ${vs(n.wallMs, floor.wallMs)}`,
  holds((n.requests ?? Infinity) <= 3 && n.writes === 0 && n.events === 0 && n.wallMs <= 2 * floor.wallMs),
]);

const pluginRss = plugin(10_000, (p) => {
  const peak = mb(Math.max(...[p.cold, p.noop, p.oneChange].map((c) => c.peakRssMiB ?? 0)));
  return [`${peak.toFixed(0)} MB`, holds(peak <= 250)];
});

const latency =
  (p: 'p50Ms' | 'p99Ms', limit: number): Judge =>
  ({ controller: { latency: l } }) =>
    l && [`${l[p]} ms over ${l.samples} changes`, holds(l[p] <= limit)];

const burst: Judge = ({ controller: { bursts } }) => {
  if (bursts.length === 0) return undefined;
  const [wall, n] = [median(bursts.map((b) => b.readyMs)), bursts[0].n];
  return [`${ms(wall)} (median of ${bursts.length})${at(n, 1000)}`, judge(n === 1000, wall <= 12_000)];
};

const controllerRss: Judge = ({ controller: { startup, steady } }) => {
  const s = startup.find((x) => x.n === 10_000);
  if (!s) return undefined;
  const peak = mb(steady?.n === 10_000 ? Math.max(s.peakRssMiB, steady.peakRssMiB) : s.peakRssMiB);
  return [`${peak.toFixed(0)} MB`, holds(peak <= 200)];
};

const controllerSteady: Judge = ({ controller: { steady: s } }) =>
  s && [
    `${s.writes} writes, ${s.events} Events over ${s.seconds} s (N=${s.n})`,
    holds(s.writes !== null && s.writes + (s.events ?? 0) === 0),
  ];

const backlog: Judge = ({ backlog: runs }) => {
  const on = runs?.find((b) => b.priorityQueue);
  return on && [`${ms(on.readyMs)}${at(on.n, 2000)}`, judge(on.n === 2000, on.readyMs <= 1000)];
};

const perWebService: Judge = ({ everyFieldBurst: ef, workloadBurst: wb }) => {
  if (!ef) return undefined;
  if (!wb) return 'no port-only burst';
  const [a, b] = [ef.readyMs / ef.n, wb.readyMs / wb.n];
  return [`${ms(a)} vs ${ms(b)} per WebService`, holds(a <= b)];
};

const besidePortSameN: Judge = ({ everyFieldBurst: ef, workloadBurst: wb, portBurstSameN }) => {
  if (!ef) return undefined;
  const same = portBurstSameN ?? (wb?.n === ef.n ? wb : undefined);
  if (!same) return 'no port-only burst of that N';
  return [vs(ef.readyMs, same.readyMs), holds(ef.readyMs <= same.readyMs)];
};

const rotation = at1000('config', ({ n, rotation: r }, note) => {
  const [once, two] = [r.rolled['1'] ?? 0, r.replicaSets['2'] ?? 0];
  const [after, still] = quiet(r);
  return [
    `${once}/${n} rolled once, ${two}/${n} with 2 ReplicaSets; then ${after}${note}`,
    judge(n === 1000, once === n && two === n && still),
  ];
});

const unreferencedReads = at1000('config', ({ n, unreferenced }, note) => {
  const { secrets, received: got } = unreferenced.with;
  if (!secrets) return ['no audit log', 'not measured'];
  const text = `${secrets.unreferencedGets} GETs, ${got.unreferencedRead} reads of one by name, ${got.lists} whole lists, ${got.marked} answers with a value`;
  const read = secrets.unreferencedGets + got.unreferencedRead + got.lists + got.marked;
  return [`${text}${note}`, judge(n === 1000, read === 0)];
});

type Pair = NonNullable<Results['peer']>['pairs'][number];
const mib = (m: number) => `${m.toFixed(1)} MiB`;

/**
 * Ours over the peer, pair by pair (pairs where `of` has both sides): the median ratio and its
 * range, judged at N = 1000 over `pairs` pairs or more.
 */
const besidePeer =
  (pairs: number, limit: number, of: (side: Pair['ours']) => number | undefined, more: (p: Pair[]) => string): Judge =>
  ({ peer }) => {
    const both = peer?.pairs.filter((p) => of(p.ours) && of(p.peer)) ?? [];
    if (!peer || both.length === 0) return undefined;
    const ratios = both.map((p) => of(p.ours)! / of(p.peer)!);
    const text = `${times(median(ratios))} (${times(Math.min(...ratios))}–${times(Math.max(...ratios))}), median of ${both.length} pairs; ${more(both)}${at(peer.n, 1000)}`;
    return [text, judge(peer.n === 1000 && both.length >= pairs, median(ratios) <= limit)];
  };

/** Each side's median, ours first. */
const sides = (p: Pair[], of: (side: Pair['ours']) => number, unit = ms) =>
  `${unit(median(p.map((x) => of(x.ours))))} vs ${unit(median(p.map((x) => of(x.peer))))}`;

const peerP99 = besidePeer(
  5,
  1,
  (s) => s.latency?.p99Ms,
  (p) => {
    const p50 = median(p.map((x) => x.ours.latency!.p50Ms / x.peer.latency!.p50Ms));
    return `p99 ${sides(p, (s) => s.latency!.p99Ms)}; p50 ${times(p50)}, ${sides(p, (s) => s.latency!.p50Ms)}`;
  },
);

const peerBurst = besidePeer(
  6,
  0.8,
  (s) => s.burst.readyMs,
  (p) => {
    const rss = sides(p, (s) => s.burst.peakRssMiB, mib);
    return `${sides(p, (s) => s.burst.readyMs)}, the creates ${sides(p, (s) => s.burst.createMs)}; peak RSS ${rss}`;
  },
);

/** A target's goals, each with its judge. */
const goals = (issue: string, target: string, judges: Record<string, Judge>) =>
  Object.entries(judges).map(([goal, judged]) => ({ issue, target, goal, judged }));

const PLAN = '`plan NAME` with 1000 children, beside `kubectl get webservice NAME -o json`';
const NOOP = 'No-op `apply --all` at 10 000, beside the raw floor (both LISTs)';
const RUNTIME_PLAN = '`plan NAME` with 1000 children beside `kubectl get webservice NAME -o json`, ';
const RUNTIME_CPU = 'Client CPU per write (Event creates counted), cold `apply --all` over 1000, ';

/** Every target, in the table's order. */
const TARGETS = [
  ...goals('#8', 'Client CPU per write, cold `apply --all`, N ≥ 1000', { '≤ 0.5 ms': coldCpu }),
  ...goals('#8', 'Cold `apply --all` over 1000', {
    [`≤ 12 s, exactly ${WRITES_PER_NEW * 1000} writes (Event creates apart)`]: cold1000,
  }),
  ...goals('#8', PLAN, { '≤ 2×': planBeside(2) }),
  ...goals('#38', PLAN, { [`≤ ${PLAN_BEFORE}× (as fast as before issue 38)`]: planBeside(PLAN_BEFORE) }),
  ...goals('#8', NOOP, { '≤ 3 requests, 0 writes, ≤ 2× the floor': noopLean }),
  ...goals('#8', 'Peak RSS of `apply --all` at 10 000', { '≤ 250 MB': pluginRss }),
  ...goals('#38', NOOP, { '≤ 2× the floor': noopBesideFloor }),
  ...goals('#7', 'Controller: spec change event → converged', {
    'p50 ≤ 100 ms': latency('p50Ms', 100),
    'p99 ≤ 500 ms': latency('p99Ms', 500),
  }),
  ...goals('#7', 'Burst of 1000 WebServices, first create to last Ready', { '≤ 12 s': burst }),
  ...goals('#7', 'Controller peak RSS at 10 000 WebServices', { '≤ 200 MB': controllerRss }),
  ...goals('#7', 'Controller at steady state', { '0 writes': controllerSteady }),
  ...goals('#18', `${RUNTIME_PLAN}the standalone binary`, { '≤ 1.5×': runtimePlan('sea') }),
  ...goals('#18', `${RUNTIME_PLAN}the bundle on Node 24`, { '≤ 1.5×': runtimePlan('node24') }),
  ...goals('#18', `${RUNTIME_CPU}the bundle on Node 20`, { '≤ 0.45 ms': runtimeCpu('node20') }),
  ...goals('#18', `${RUNTIME_CPU}the bundle on Node 24`, { '≤ 0.45 ms': runtimeCpu('node24') }),
  ...goals('#19', "`run`'s burst of 1000, beside the write floor (a bare client's same writes, same run)", {
    '≤ 1.2× the floor': besideFloor,
  }),
  ...goals('#19', 'A new WebService created during a 2000-key backlog, priority queue on, to Ready', {
    '≤ 1 s': backlog,
  }),
  ...goals('#17', 'Workload burst of 200: the controller at steady state afterwards', {
    '0 writes': ({ workloadBurst: wb }) => wb && [quietOver(wb), holds(quiet(wb)[1])],
  }),
  ...goals('#27', '1000 workload WebServices with every pod field', {
    '0 writes at steady state afterwards': ({ everyFieldBurst: ef }) => ef && [quietOver(ef), holds(quiet(ef)[1])],
    "peak RSS ≤ 1.3× a record-only burst's of 1000, same run": everyFieldRss(1.3),
    'no slower per WebService than the port-only burst of 200, same run': perWebService,
    'no slower than a port-only burst of 1000, same run': besidePortSameN,
  }),
  ...goals('#41', '1000 WebServices with every field, old and new', {
    '0 writes at steady state': ({ everyFieldBurst: ef }) =>
      ef && [`${quietOver(ef)}${at(ef.n, 1000)}`, judge(ef.n === 1000, quiet(ef)[1])],
    "controller peak RSS ≤ 1.3× a record-only burst's of the same N": everyFieldRss(1.3),
    'the no-op `apply --all` at 10 000 ≤ 2× the raw floor': noopBesideFloor,
  }),
  ...goals('#38', '1000 WebServices, each reading its own Secret', {
    'all Secrets rotated at once: each rolls exactly once (2 ReplicaSets), then 0 writes': rotation,
    "… the controller's peak RSS ≤ 1.2× a port-only burst's of 1000, same run": at1000('config', (c) =>
      rssWithin(c.peakRssMiB.whole, c.portBurst.peakRssMiB, 1.2, c.n),
    ),
    "a single rotation reaches a new pod template ≤ 1 s after the Secret's write (p50 of 100)": at1000(
      'config',
      ({ n, latency: l }, note) => [
        `p50 ${ms(l.p50Ms)} over ${l.samples}${note}`,
        judge(n === 1000 && l.samples >= 100, l.p50Ms <= 1000),
      ],
    ),
    "with 10 000 unreferenced Secrets beside them: the controller's peak RSS ≤ 1.15× without": at1000(
      'config',
      ({ n, unreferenced: u }) => rssWithin(u.with.peakRssMiB, u.without.peakRssMiB, 1.15, n),
    ),
    '… and it reads the data of none of them (audit log and counting proxy)': unreferencedReads,
  }),
  ...goals('#40', 'A canary step change (`promote`) reaches the HTTPRoute, N = 1000 with `run`', {
    'p50 ≤ 1 s over 100 step changes': at1000('canary', ({ n, latency: l }, note) => [
      `p50 ${ms(l.p50Ms)}, p99 ${ms(l.p99Ms)} over ${l.samples}${note}`,
      judge(n === 1000 && l.samples >= 100, l.p50Ms <= 1000),
    ]),
  }),
  ...goals('#40', '1000 WebServices in a paused canary', {
    '0 writes at steady state': at1000('canary', (c, note) => [
      `${quietOver(c)}${note}`,
      judge(c.n === 1000, quiet(c)[1]),
    ]),
    "controller peak RSS ≤ 1.2× the same 1000's without a canary": at1000('canary', (c) =>
      rssWithin(c.peakRssMiB, c.without.peakRssMiB, 1.2, c.n),
    ),
  }),
  ...goals('#42', 'Change → Ready against the controller-runtime peer (same run, same workers)', {
    'p99 ≤ 1.0× the peer (median of 5 pairs)': peerP99,
  }),
  ...goals('#42', 'A burst of 1000 to all Ready against the controller-runtime peer (same run)', {
    '≤ 0.8× the peer (median of 6 pairs)': peerBurst,
  }),
  ...goals('#19', 'Controller peak RSS at 100,000 (`npm run bench -- --scale`)', {
    '≤ 1 GB': scale((s, note) => {
      const peak = mb(s.steady.peakRssMiB);
      return [`${peak.toFixed(0)} MB${note}`, judge(s.n === 100_000, peak <= 1000)];
    }),
  }),
  ...goals('#19', 'No-op `apply --all` at 100,000, beside the raw floor (both LISTs)', {
    '≤ 2× the floor': scale((s, note) => [
      `${vs(s.noop.wallMs, s.floor.wallMs)}${note}`,
      judge(s.n === 100_000, s.noop.wallMs <= 2 * s.floor.wallMs),
    ]),
  }),
];

export function targets(results: Results, scale?: ScaleRun): TargetRow[] {
  return TARGETS.map(({ issue, target, goal, judged }) => {
    const j = judged(results, scale);
    const [measured, standing]: [string, Standing] =
      j === undefined || j === null
        ? ['not measured', 'not measured']
        : typeof j === 'string'
          ? [j, 'not measured']
          : j;
    return { issue, target, goal, measured, standing };
  });
}

/** The run the figures come from, and those a run of some cases kept them from (merge.ts). */
function runText({ machine: m, ...r }: Results): string {
  const commit = (c: string | null) => (c ? `commit ${c.slice(0, 12)}` : 'an unknown commit');
  const dirty =
    m.srcChanges.length > 0 ? `, with uncommitted changes in ${m.srcChanges.length} path(s) under src/` : '';
  const carried = (r.carried ?? []).map(
    (c) =>
      `${c.case}${c.sizes ? ` at N = ${c.sizes.join(', ')}` : ''} from the run of ${c.startedAt} at ${commit(c.commit)}`,
  );
  return (
    `${r.quick ? 'A --quick run' : 'The run'}${r.only ? ` of ${r.only.join(', ')} only` : ''}, from ${r.startedAt} to ` +
    `${r.finishedAt}, at ${commit(m.commit)}${dirty}: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node},` +
    ` Kubernetes ${m.kubernetes}, load average ${r.loadAverage.start[0]} to ${r.loadAverage.end[0]}.` +
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

// Where the bench's targets stand, read from results.json alone: a run that meets every target,
// then, case by case, one figure spoiled and the rows it must turn; RESULTS.md around the table;
// and a run of some cases (--only) or sizes (--sizes) that keeps what results.json held of the rest.
import { mergeResults } from './merge';
import { TargetRow, resultsMarkdown, targets } from './report';
import { CaseResult, ControllerBurst, Quiet, Results, ScaleRun, WorkloadBurst } from './results';

const none = { requests: null, reads: null, writes: null, events: null };
const zero = { requests: 0, reads: 0, writes: 0, events: 0 };

function caseOf(wallMs: number, extra: Partial<CaseResult> = {}): CaseResult {
  return { runs: 3, wallMs, cpuMs: null, cpuPerWriteMs: null, peakRssMiB: null, ...none, samples: [], ...extra };
}

function pluginAt(n: number, noopMs = 900) {
  return {
    n,
    cold: caseOf(5000, { cpuPerWriteMs: 0.3, writes: 2 * n, events: n, peakRssMiB: 200 }),
    noop: caseOf(noopMs, { requests: 2, writes: 0, events: 0, peakRssMiB: 150 }),
    oneChange: caseOf(1000, { peakRssMiB: 150 }),
    planName: caseOf(100),
    kubectlGetName: caseOf(60),
    floor: caseOf(500),
  };
}

const steadyOf = (n: number, peakRssMiB: number) => ({ n, seconds: 60, ...zero, cpuMs: 0, peakRssMiB });

function burstOf(n: number, readyMs: number, extra: Partial<ControllerBurst> = {}): ControllerBurst {
  const by = { createMs: 1000, createdBy: 'kubectl', workers: 4, cpuPerWriteMs: null, writesDoneMs: null };
  return { n, readyMs, ...by, ...none, cpuMs: 0, peakRssMiB: 100, ...extra };
}

function floorOf(n: number, inFlight: number, wallMs: number) {
  return { n, inFlight, wallMs, createsMs: 0, ...none, clientCpuMs: 0 };
}

/** A steady state with that many writes of ours. */
const quietOf = (writes: number): Quiet => ({ seconds: 60, byClient: { controller: { ...zero, writes, byKind: {} } } });

/** A workload burst of n, Ready after readyMs. */
function workloadOf(n: number, readyMs: number, peakRssMiB = 0): WorkloadBurst {
  const plane = { fields: 'port', replicas: 3, nodes: 4, podCapacity: 4000 } as const;
  return { n, ...plane, readyMs, createMs: 1, peakRssMiB, steady: quietOf(0) };
}

function latencyOf(p50Ms: number, p99Ms: number, samples = 100) {
  return { samples, n: 1000, p50Ms, p99Ms, latenciesMs: [], maxMs: p99Ms, ...zero };
}

/** One side of a pair of the peer case: its burst of 1000, and its spec changes if it had them. */
function sideOf(readyMs: number, p99Ms?: number) {
  const latency = p99Ms === undefined ? null : { ...latencyOf(p99Ms / 2, p99Ms, 200), peakRssMiB: 100 };
  return { burst: burstOf(1000, readyMs), latency, conflicts: 0 };
}

function results(extra: Partial<Results>): Results {
  const [node, kubernetes, plugin] = ['v24', 'v1', '0'];
  const machine = { cpus: 2, cpuModel: 'x', memoryGiB: 8, node, kubernetes, plugin, commit: null, srcChanges: [] };
  return {
    ...{ schema: 1, quick: false, startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:10:00Z', machine },
    ...{ loadAverage: { start: [0], end: [0] }, sizes: [1000], plugin: [] },
    controller: { startup: [], bursts: [], latency: null, steady: null },
    ...extra,
  };
}

interface Run {
  r: Results;
  scale?: ScaleRun;
}

/** The config case's controller over its WebServices, with a peak RSS. */
function overConfig(peakRssMiB: number) {
  const received = { unreferencedRead: 0, lists: 0, metadataLists: 2, marked: 0 };
  return {
    reconciledMs: 1,
    peakRssMiB,
    steady: steadyOf(1000, peakRssMiB),
    secrets: { unreferencedGets: 0 },
    received,
  };
}

/** A run, and a scale run, that meet every target, each by a small margin. */
function allMet(): Run {
  const cold = (cpuPerWriteMs: number) => caseOf(9000, { cpuPerWriteMs });
  const rotation = { replaceMs: 1, readyMs: 1, rolled: { '1': 1000 }, replicaSets: { '2': 1000 }, steady: quietOf(0) };
  const r = results({
    sizes: [1000, 10_000],
    plugin: [pluginAt(1000), pluginAt(10_000)],
    controller: {
      startup: [{ n: 10_000, syncedMs: 1, reconciledMs: 1, ...zero, cpuMs: 1, peakRssMiB: 150 }],
      // Their median, 7 s.
      bursts: [burstOf(1000, 7000), burstOf(1000, 12_500), burstOf(1000, 6000)],
      latency: { ...latencyOf(100, 500, 200), peakRssMiB: 100 },
      steady: steadyOf(10_000, 160),
    },
    runtimes: {
      n: 1000,
      kubectlGetName: caseOf(60),
      plans: [
        { runtime: 'sea', version: 'v24', planName: caseOf(90) },
        { runtime: 'node24', version: 'v24', planName: caseOf(90) },
      ],
      colds: [
        { runtime: 'node20', version: 'v20', cold: cold(0.45) },
        { runtime: 'node24', version: 'v24', cold: cold(0.45) },
      ],
      skipped: [],
    },
    // The faster floor is the median of the runs at 4 in flight, 5 s; 16 workers are not `run`'s default.
    writeFloor: [floorOf(1000, 16, 5500), floorOf(1000, 4, 4000), floorOf(1000, 4, 5000), floorOf(1000, 4, 6000)],
    floorBursts: [burstOf(1000, 5900, { workers: 4, writesDoneMs: 6000 }), burstOf(1000, 9000, { workers: 16 })],
    backlog: [true, false].map((priorityQueue) => ({
      n: 2000,
      priorityQueue,
      readyMs: priorityQueue ? 1000 : 9000,
      seenToReadyMs: 1,
    })),
    // 285 ms per WebService.
    workloadBurst: workloadOf(200, 57_000),
    everyFieldBurst: workloadOf(1000, 285_000, 130),
    portBurstSameN: workloadOf(1000, 285_000),
    config: {
      ...{
        n: 1000,
        burst: workloadOf(1000, 290_000),
        portBurst: workloadOf(1000, 289_000, 120),
        portBurstBy: 'every-field',
      },
      ...{ rotation, latency: latencyOf(300, 900), peakRssMiB: { rotation: 130, whole: 140 } },
      unreferenced: { count: 10_000, bytes: 4096, without: overConfig(100), with: overConfig(110) },
    },
    canary: {
      ...{ n: 1000, without: workloadOf(1000, 100_000, 100), burst: workloadOf(1000, 100_000) },
      ...{ applyMs: 5000, pausedMs: 200_000, steady: quietOf(0), peakRssMiB: 120, latency: latencyOf(900, 1500) },
    },
    // 6 pairs at 0.8× the peer's burst, the first 5 with changes at 1.0× its p99.
    peer: {
      n: 1000,
      workers: 4,
      pairs: [0, 1, 2, 3, 4, 5].map((i) => ({
        first: i % 2 === 0 ? ('ours' as const) : ('peer' as const),
        ours: sideOf(8000, i < 5 ? 500 : undefined),
        peer: sideOf(10_000, i < 5 ? 500 : undefined),
      })),
    },
  });
  const controller = { n: 100_000, syncedMs: 1, readyMs: 1, ...zero, cpuMs: 0, peakRssMiB: 900 };
  const passes = { n: 100_000, cold: caseOf(1), noop: caseOf(2000), floor: caseOf(1000), controller };
  // 953 MiB is 999.3 MB.
  return { r, scale: { ...results({}), ...passes, steady: steadyOf(100_000, 953) } };
}

const label = (t: TargetRow) => `${t.issue} ${t.target}: ${t.goal}`;
const [M, NOT] = ['missed', 'not measured'];
const NOOP_BESIDE_FLOOR = { '#8 No-op': M, '#38 No-op': M, 'old and new: the no-op': M };

/**
 * One figure spoiled: the rows (by a part of their label) it turns, each to its standing; every
 * other row stays met.
 */
const SPOILED: [string, (run: Run) => void, Record<string, string>][] = [
  ['a CPU per write over 0.5 ms at any N', ({ r }) => (r.plugin[1].cold.cpuPerWriteMs = 0.51), { '#8 Client': M }],
  ['a cold pass over 12 s', ({ r }) => (r.plugin[0].cold.wallMs = 12_001), { '#8 Cold': M }],
  ['a cold pass with a write too many', ({ r }) => (r.plugin[0].cold.writes = 2001), { '#8 Cold': M }],
  ['plan NAME at 1.8× kubectl get', ({ r }) => (r.plugin[0].planName.wallMs = 108), { '#38 `plan': M }],
  ['plan NAME over 2× kubectl get', ({ r }) => (r.plugin[0].planName.wallMs = 121), { '#8 `plan': M, '#38 `plan': M }],
  ['a no-op pass with 4 requests', ({ r }) => (r.plugin[1].noop.requests = 4), { '#8 No-op': M }],
  ['a no-op pass with an Event', ({ r }) => (r.plugin[1].noop.events = 1), { '#8 No-op': M }],
  ['a no-op pass over 2× the floor', ({ r }) => (r.plugin[1].noop.wallMs = 1001), NOOP_BESIDE_FLOOR],
  ['a pass over 250 MB at 10 000', ({ r }) => (r.plugin[1].oneChange.peakRssMiB = 239), { '#8 Peak': M }],
  [
    'no plugin case',
    ({ r }) => (r.plugin = []),
    { '#8': NOT, '#38 `plan': NOT, '#38 No-op': NOT, 'new: the no-op': NOT },
  ],
  ['a p50 over 100 ms', ({ r }) => (r.controller.latency!.p50Ms = 101), { 'converged: p50': M }],
  ['a p99 over 500 ms', ({ r }) => (r.controller.latency!.p99Ms = 501), { 'converged: p99': M }],
  ['no latency', ({ r }) => (r.controller.latency = null), { 'converged: p': NOT }],
  ['a median burst over 12 s', ({ r }) => (r.controller.bursts[2].readyMs = 12_001), { '#7 Burst': M }],
  [
    'bursts at another N',
    ({ r }) => r.controller.bursts.forEach((b) => (b.n = 100)),
    { '#7 Burst': NOT, 'record-only burst': NOT },
  ],
  ['a start over 200 MB', ({ r }) => (r.controller.startup[0].peakRssMiB = 191), { '#7 Controller peak': M }],
  ['a steady state over 200 MB', ({ r }) => (r.controller.steady!.peakRssMiB = 191), { '#7 Controller peak': M }],
  ['no start at 10 000', ({ r }) => (r.controller.startup = []), { '#7 Controller peak': NOT }],
  ['a write at steady state', ({ r }) => (r.controller.steady!.writes = 1), { '#7 Controller at': M }],
  ['an Event at steady state', ({ r }) => (r.controller.steady!.events = 1), { '#7 Controller at': M }],
  ['no steady state', ({ r }) => (r.controller.steady = null), { '#7 Controller at': NOT }],
  ['the SEA over 1.5×', ({ r }) => (r.runtimes!.plans[0].planName.wallMs = 91), { 'standalone binary': M }],
  ['Node 24 over 1.5×', ({ r }) => (r.runtimes!.plans[1].planName.wallMs = 91), { 'Node 24: ≤ 1.5×': M }],
  ['Node 20 over 0.45 ms', ({ r }) => (r.runtimes!.colds[0].cold.cpuPerWriteMs = 0.46), { 'Node 20: ≤ 0.45': M }],
  ['Node 24 over 0.45 ms', ({ r }) => (r.runtimes!.colds[1].cold.cpuPerWriteMs = 0.46), { 'Node 24: ≤ 0.45': M }],
  ['the runtimes at another N', ({ r }) => (r.runtimes!.n = 100), { '#18': NOT }],
  [
    'a runtime skipped',
    ({ r }) => r.runtimes!.skipped.push({ runtime: 'sea', reason: 'no SEA' }) && r.runtimes!.plans.shift(),
    { 'standalone binary': NOT },
  ],
  ['no runtimes', ({ r }) => delete r.runtimes, { '#18': NOT }],
  ['a burst over 1.2× the floor', ({ r }) => (r.floorBursts![0].readyMs = 6001), { 'write floor': M }],
  ['Events after 1.2× the floor', ({ r }) => (r.floorBursts![0].writesDoneMs = 6001), { 'write floor': M }],
  ['the floor at another N', ({ r }) => r.writeFloor!.forEach((f) => (f.n = 100)), { 'write floor': NOT }],
  ['no burst beside the floor', ({ r }) => delete r.floorBursts, { 'write floor': NOT }],
  ['a newcomer over 1 s', ({ r }) => (r.backlog![0].readyMs = 1001), { backlog: M }],
  ['a backlog of another N', ({ r }) => (r.backlog![0].n = 100), { backlog: NOT }],
  ['no backlog', ({ r }) => delete r.backlog, { backlog: NOT }],
  ['a write after the workload burst', ({ r }) => (r.workloadBurst!.steady = quietOf(1)), { '#17': M }],
  ['no workload burst', ({ r }) => delete r.workloadBurst, { '#17': NOT, 'than the port-only burst of 200': NOT }],
  [
    'a write after every field',
    ({ r }) => (r.everyFieldBurst!.steady = quietOf(1)),
    { 'field: 0 writes': M, 'new: 0 writes': M },
  ],
  ['every field over 1.3× the RSS', ({ r }) => (r.everyFieldBurst!.peakRssMiB = 131), { 'record-only burst': M }],
  ['no record-only burst', ({ r }) => (r.controller.bursts = []), { '#7 Burst': NOT, 'record-only burst': NOT }],
  [
    'every field slower than 200',
    ({ r }) => (r.everyFieldBurst!.readyMs = 285_001),
    { 'per WebService': M, 'port-only burst of 1000': M },
  ],
  [
    'every field slower than the same N',
    ({ r }) => (r.portBurstSameN!.readyMs = 284_999),
    { 'port-only burst of 1000': M },
  ],
  ['no port-only burst of that N', ({ r }) => delete r.portBurstSameN, { 'port-only burst of 1000': NOT }],
  ['no every-field burst', ({ r }) => delete r.everyFieldBurst, { '#27': NOT, 'new: 0': NOT, 'new: controller': NOT }],
  [
    'a Deployment rolled twice',
    ({ r }) => (r.config!.rotation.rolled = { '1': 999, '2': 1 }),
    { 'rotated at once': M },
  ],
  ['one ReplicaSet', ({ r }) => (r.config!.rotation.replicaSets = { '1': 1, '2': 999 }), { 'rotated at once': M }],
  ['a write after the rotation', ({ r }) => (r.config!.rotation.steady = quietOf(1)), { 'rotated at once': M }],
  ['the rotation over 1.2× the RSS', ({ r }) => (r.config!.peakRssMiB.whole = 145), { "a port-only burst's": M }],
  ['a rotation p50 over 1 s', ({ r }) => (r.config!.latency.p50Ms = 1001), { 'single rotation': M }],
  ['fewer than 100 rotations', ({ r }) => (r.config!.latency.samples = 30), { 'single rotation': NOT }],
  ['unreferenced over 1.15× the RSS', ({ r }) => (r.config!.unreferenced.with.peakRssMiB = 116), { '≤ 1.15×': M }],
  ['a GET of one', ({ r }) => (r.config!.unreferenced.with.secrets!.unreferencedGets = 1), { 'none of them': M }],
  [
    'a read of one by name',
    ({ r }) => (r.config!.unreferenced.with.received.unreferencedRead = 1),
    { 'none of them': M },
  ],
  ['a whole list of Secrets', ({ r }) => (r.config!.unreferenced.with.received.lists = 1), { 'none of them': M }],
  ['an answer with a value', ({ r }) => (r.config!.unreferenced.with.received.marked = 1), { 'none of them': M }],
  ['no audit log', ({ r }) => (r.config!.unreferenced.with.secrets = null), { 'none of them': NOT }],
  ['the config case at another N', ({ r }) => (r.config!.n = 100), { 'its own Secret': NOT }],
  ['no config case', ({ r }) => delete r.config, { 'its own Secret': NOT }],
  ['a promote p50 over 1 s', ({ r }) => (r.canary!.latency.p50Ms = 1001), { promote: M }],
  ['fewer than 100 promotes', ({ r }) => (r.canary!.latency.samples = 30), { promote: NOT }],
  ['a write in a paused canary', ({ r }) => (r.canary!.steady = quietOf(1)), { 'paused canary: 0': M }],
  ['a canary over 1.2× the RSS', ({ r }) => (r.canary!.peakRssMiB = 121), { 'paused canary: controller': M }],
  ['the canary at another N', ({ r }) => (r.canary!.n = 100), { '#40': NOT }],
  ['no canary case', ({ r }) => delete r.canary, { '#40': NOT }],
  [
    'a p99 over the peer',
    ({ r }) => r.peer!.pairs.forEach((p) => p.ours.latency && (p.ours.latency.p99Ms = 501)),
    { 'Change → Ready': M },
  ],
  ['changes in 4 pairs only', ({ r }) => (r.peer!.pairs[0].ours.latency = null), { 'Change → Ready': NOT }],
  [
    'a burst over 0.8× the peer',
    ({ r }) => r.peer!.pairs.forEach((p) => (p.ours.burst.readyMs = 8001)),
    { '#42 A': M },
  ],
  ['5 burst pairs', ({ r }) => r.peer!.pairs.pop(), { '#42 A': NOT }],
  ['the peer case at another N', ({ r }) => (r.peer!.n = 100), { '#42': NOT }],
  ['no peer case', ({ r }) => delete r.peer, { '#42': NOT }],
  ['the scale run over 1 GB', ({ scale }) => (scale!.steady.peakRssMiB = 954), { 'RSS at 100,000': M }],
  ['a no-op at 100 000 over 2× the floor', ({ scale }) => (scale!.noop.wallMs = 2001), { 'all` at 100,000': M }],
  ['the scale run at another N', ({ scale }) => (scale!.n = 50_000), { '100,000': NOT }],
  ['no scale run', (run) => delete run.scale, { '100,000': NOT }],
];

describe('bench targets', () => {
  it('are all met by a run that meets each', () => {
    const { r, scale } = allMet();
    expect(targets(r, scale).filter((t) => t.standing !== 'met')).toEqual([]);
  });

  it.each(SPOILED)('turn on %s', (_, spoil, turned) => {
    const run = allMet();
    spoil(run);
    const rows = targets(run.r, run.scale);
    for (const part of Object.keys(turned)) expect(rows.map(label).some((l) => l.includes(part))).toBe(true);
    const expected = (t: TargetRow) => Object.entries(turned).find(([part]) => label(t).includes(part))?.[1] ?? 'met';
    expect(rows.map((t) => [label(t), t.standing])).toEqual(rows.map((t) => [label(t), expected(t)]));
  });
});

describe('RESULTS.md', () => {
  it('lists every target, measured or not', () => {
    const rows = targets(results({}));
    expect(rows).toHaveLength(38);
    expect(new Set(rows.map((t) => t.standing))).toEqual(new Set(['not measured']));
  });

  it('keeps the hand-written preamble and rewrites the table below it', () => {
    const first = resultsMarkdown(results({}));
    expect(first.startsWith('# Bench results\n')).toBe(true);
    const edited = first.replace('# Bench results\n', '# Bench results\n\nWritten by hand.\n');
    const again = resultsMarkdown(results({ startedAt: '2026-02-02T00:00:00Z' }), edited);
    expect(again).toContain('Written by hand.');
    expect(again).toContain('2026-02-02T00:00:00Z');
    expect(again).not.toContain('from 2026-01-01T00:00:00Z');
    expect(again.match(/\| issue \| target \| goal \| measured \| standing \|/g)).toHaveLength(1);
  });
});

const run = (startedAt: string, commit: string, extra: Partial<Results>): Results => {
  const base = results(extra);
  return { ...base, startedAt, machine: { ...base.machine, commit } };
};
const full = run('2026-12-03T07:08:58Z', 'a'.repeat(40), {
  sizes: [10, 1000],
  plugin: [pluginAt(10, 100), pluginAt(1000, 900)],
  workloadBurst: workloadOf(200, 57_000),
  everyFieldBurst: workloadOf(1000, 289_000),
  portBurstSameN: workloadOf(1000, 289_000),
});
const from = (r: Results, c: string, sizes?: number[]) => ({
  case: c,
  ...(sizes ? { sizes } : {}),
  startedAt: r.startedAt,
  commit: r.machine.commit,
});

describe('bench results of a partial run', () => {
  it('keeps the cases the run did not measure, naming the run that did', () => {
    const configOnly = run('2026-12-05T10:00:00Z', 'b'.repeat(40), { sizes: [10, 1000], only: ['config'] });
    const merged = mergeResults(full, configOnly, ['config']);
    expect(merged).toMatchObject({
      startedAt: configOnly.startedAt,
      plugin: full.plugin,
      workloadBurst: full.workloadBurst,
      portBurstSameN: full.portBurstSameN,
    });
    expect(merged.carried).toEqual([
      from(full, 'plugin', [10, 1000]),
      from(full, 'workload'),
      from(full, 'every-field'),
    ]);
    expect(resultsMarkdown(merged)).toContain(
      'Kept from earlier runs: plugin at N = 10, 1000 from the run of 2026-12-03T07:08:58Z at commit aaaaaaaaaaaa;' +
        ' workload from the run of 2026-12-03T07:08:58Z at commit aaaaaaaaaaaa;',
    );
  });

  it('replaces the plugin case size by size, and a carried figure keeps its first run through a later merge', () => {
    const pluginRun = run('2026-12-05T11:00:00Z', 'c'.repeat(40), { sizes: [1000], plugin: [pluginAt(1000, 800)] });
    const merged = mergeResults(full, pluginRun, ['plugin']);
    expect(merged.plugin.map((p) => [p.n, p.noop.wallMs])).toEqual([
      [10, 100],
      [1000, 800],
    ]);
    expect(merged.sizes).toEqual([10, 1000]);
    const workloadRun = run('2026-12-05T12:00:00Z', 'd'.repeat(40), { workloadBurst: workloadOf(200, 50_000) });
    const again = mergeResults(merged, workloadRun, ['workload']);
    expect(again.workloadBurst?.readyMs).toBe(50_000);
    expect(again.carried).toEqual([
      from(full, 'plugin', [10]),
      from(pluginRun, 'plugin', [1000]),
      from(full, 'every-field'),
    ]);
  });

  it('carries nothing when the run measured everything the file held', () => {
    const everything = run('2026-12-05T13:00:00Z', 'e'.repeat(40), { sizes: [10, 1000], plugin: full.plugin });
    expect(mergeResults(results({ plugin: full.plugin }), everything, ['plugin']).carried).toBeUndefined();
  });
});

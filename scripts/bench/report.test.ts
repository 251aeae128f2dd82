// Where the bench's targets stand, read from results.json alone; RESULTS.md around them; and a
// run of some cases (--only) or sizes (--sizes) that keeps what results.json held of the rest.
import { mergeResults } from './merge';
import { resultsMarkdown, targets } from './report';
import {
  BacklogRun,
  CanaryRun,
  CaseResult,
  ConfigRun,
  ControllerBurst,
  ControllerOverConfig,
  PluginSize,
  Results,
  ScaleRun,
  WorkloadBurst,
  WriteFloor,
} from './results';

function caseOf(wallMs: number, extra: Partial<CaseResult> = {}): CaseResult {
  return {
    runs: 10,
    wallMs,
    cpuMs: null,
    cpuPerWriteMs: null,
    peakRssMiB: null,
    requests: null,
    reads: null,
    writes: null,
    events: null,
    samples: [],
    ...extra,
  };
}

function results(extra: Partial<Results>): Results {
  return {
    schema: 1,
    quick: false,
    startedAt: '2026-01-01T00:00:00Z',
    finishedAt: '2026-01-01T00:10:00Z',
    machine: {
      cpus: 2,
      cpuModel: 'x',
      memoryGiB: 8,
      node: 'v24',
      kubernetes: 'v1',
      plugin: '0',
      commit: null,
      srcChanges: [],
    },
    loadAverage: { start: [0], end: [0] },
    sizes: [1000],
    plugin: [],
    controller: { startup: [], bursts: [], latency: null, steady: null },
    ...extra,
  };
}

/** A workload burst of n, Ready after readyMs, with that many writes of ours at steady state. */
function workloadOf(n: number, readyMs: number, steadyWrites = 0): WorkloadBurst {
  return {
    n,
    replicas: 3,
    nodes: 4,
    podCapacity: 3200,
    controllersAudited: true,
    readyMs,
    createMs: 1,
    byClient: {},
    peakRssMiB: 0,
    steady: {
      seconds: 60,
      byClient: { controller: { requests: steadyWrites, reads: 0, writes: steadyWrites, events: 0, byKind: {} } },
    },
  };
}

function burstOf(n: number, readyMs: number): ControllerBurst {
  return {
    n,
    readyMs,
    createMs: 1000,
    requests: null,
    writes: null,
    events: null,
    cpuMs: 0,
    cpuPerWriteMs: null,
    peakRssMiB: 0,
  };
}

function floorOf(n: number, inFlight: number, wallMs: number): WriteFloor {
  return { n, inFlight, wallMs, createsMs: 0, requests: 4 * n, writes: 3 * n, events: n, clientCpuMs: 0 };
}

function standing(r: Results, prefix: string, scale?: ScaleRun): string[] {
  return targets(r, scale)
    .filter((t) => `${t.target}: ${t.goal}`.includes(prefix))
    .map((t) => t.standing);
}

function runtimes(n: number, seaMs: number, node24Ms: number, perWrite: number): Results['runtimes'] {
  const cold = (cpuPerWriteMs: number) => caseOf(9000, { cpuMs: 1000, cpuPerWriteMs, writes: 2000, events: 1000 });
  return {
    n,
    extraCaCerts: '/etc/ssl/certs/ca-certificates.crt',
    kubectlGetName: caseOf(200),
    plans: [
      { runtime: 'sea', version: 'v24', extraCa: true, planName: caseOf(seaMs) },
      { runtime: 'sea', version: 'v24', extraCa: false, planName: caseOf(100) },
      { runtime: 'node24', version: 'v24', extraCa: true, planName: caseOf(node24Ms) },
    ],
    colds: [
      { runtime: 'node20', version: 'v20', cold: cold(perWrite) },
      { runtime: 'node24', version: 'v24', cold: cold(0.3) },
    ],
    skipped: [],
  };
}

/** A config run at N = 1000 that meets every target; `change` spoils one. */
function configRun(change: (c: ConfigRun) => void = () => undefined): ConfigRun {
  const over = (peakRssMiB: number): ControllerOverConfig => ({
    reconciledMs: 1000,
    peakRssMiB,
    steady: { n: 1000, seconds: 60, requests: 0, reads: 0, writes: 0, events: 0, cpuMs: 0, peakRssMiB },
    secrets: { gets: 1001, unreferencedGets: 0, lists: 0, watches: 1 },
    received: {
      read: 1001,
      unreferencedRead: 0,
      lists: 0,
      metadataLists: 2,
      bytes: { read: 1_000_000, lists: 0, metadataLists: 9_000_000 },
      marked: 0,
    },
  });
  const run: ConfigRun = {
    n: 1000,
    burst: workloadOf(1000, 290_000),
    portBurst: { ...workloadOf(1000, 289_000), peakRssMiB: 120 },
    portBurstBy: 'every-field',
    rotation: {
      replaceMs: 5000,
      templatesMs: 20_000,
      readyMs: 600_000,
      byClient: {},
      rolled: { '1': 1000 },
      replicaSets: { '2': 1000 },
      steady: workloadOf(1000, 1).steady,
    },
    latency: {
      samples: 100,
      n: 1000,
      latenciesMs: [],
      p50Ms: 300,
      p99Ms: 900,
      maxMs: 950,
      requests: 0,
      writes: 0,
      events: 0,
    },
    peakRssMiB: { rotation: 130, whole: 140 },
    unreferenced: { count: 10_000, bytes: 4096, without: over(100), with: over(110) },
  };
  change(run);
  return run;
}

describe('RESULTS.md', () => {
  it('lists every target, measured or not', () => {
    const rows = targets(results({}));
    expect(rows).toHaveLength(36);
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

describe('bench targets of issues 17-19 and 27', () => {
  it('judges plan NAME against 1.5× kubectl get with the host CA set, per runtime', () => {
    expect(standing(results({ runtimes: runtimes(1000, 290, 310, 0.4) }), '≤ 1.5×')).toEqual(['met', 'missed']);
  });

  it('judges CPU per write against 0.45 ms on Node 20 and on Node 24', () => {
    expect(standing(results({ runtimes: runtimes(1000, 290, 310, 0.5) }), '0.45 ms')).toEqual(['missed', 'met']);
  });

  it('does not judge figures taken at another N than the target names', () => {
    const r = results({ runtimes: runtimes(10, 100, 100, 0.1) });
    expect(standing(r, '≤ 1.5×')).toEqual(['not measured', 'not measured']);
    expect(standing(r, '0.45 ms')).toEqual(['not measured', 'not measured']);
  });

  it("reads run's burst against the faster of the two floors", () => {
    const floors = [floorOf(1000, 16, 7000), floorOf(1000, 4, 9000)];
    const within = results({
      writeFloor: floors,
      controller: { ...results({}).controller, bursts: [burstOf(1000, 8400)] },
    });
    const beyond = results({ writeFloor: floors, floorBurst: burstOf(1000, 8500) });
    expect(standing(within, 'write floor')).toEqual(['met']);
    expect(standing(beyond, 'write floor')).toEqual(['missed']);
  });

  it("reads the floor's own bursts with the default workers, until their last write", () => {
    const floors = [floorOf(1000, 16, 7000), floorOf(1000, 4, 9000)];
    const own = (readyMs: number, workers: number, writesDoneMs?: number): ControllerBurst => ({
      ...burstOf(1000, readyMs),
      workers,
      writesDoneMs,
      createdBy: "the floor's client, 16 in flight",
    });
    const kubectlBursts = { ...results({}).controller, bursts: [burstOf(1000, 20000)] };
    // 16 workers would meet it and kubectl's burst would miss it: the default's decides.
    const met = results({ writeFloor: floors, controller: kubectlBursts, floorBursts: [own(8400, 4), own(7000, 16)] });
    const missed = results({
      writeFloor: floors,
      controller: kubectlBursts,
      floorBursts: [own(8500, 4), own(7000, 16)],
    });
    // Ready in time, but its Events still going out after the mark.
    const eventsLate = results({ writeFloor: floors, floorBursts: [own(8000, 4, 8500)] });
    expect(standing(met, 'write floor')).toEqual(['met']);
    expect(standing(missed, 'write floor')).toEqual(['missed']);
    expect(standing(eventsLate, 'write floor')).toEqual(['missed']);
  });

  it('fails the workload steady state on a single write of ours', () => {
    expect(standing(results({ workloadBurst: workloadOf(200, 1) }), 'Workload burst of 200')).toEqual(['met']);
    expect(standing(results({ workloadBurst: workloadOf(200, 1, 1) }), 'Workload burst of 200')).toEqual(['missed']);
  });

  it('judges the every-field burst per WebService against the 200 burst, and whole against the same N', () => {
    const everyField = workloadOf(1000, 290_000);
    const judged = (portSameNMs: number) =>
      standing(
        results({
          workloadBurst: workloadOf(200, 57_000),
          everyFieldBurst: everyField,
          portBurstSameN: workloadOf(1000, portSameNMs),
        }),
        'no slower',
      );
    // 290 ms per WebService against 285: missed; against the same N's 291 s: met.
    expect(judged(291_000)).toEqual(['missed', 'met']);
    expect(judged(289_000)).toEqual(['missed', 'missed']);
    expect(standing(results({ everyFieldBurst: everyField }), 'no slower')).toEqual(['not measured', 'not measured']);
    // A workload burst of the same N is that baseline: the case does not run it twice.
    const sameN = results({ workloadBurst: workloadOf(1000, 291_000), everyFieldBurst: everyField });
    expect(standing(sameN, 'no slower')).toEqual(['met', 'met']);
  });

  it('judges the newcomer behind a 2000-key backlog on its time to Ready with the priority queue on', () => {
    const run = (priorityQueue: boolean, readyMs: number, n = 2000): BacklogRun => ({
      n,
      priorityQueue,
      readyMs,
      seenToReadyMs: readyMs / 2,
      writtenBefore: priorityQueue ? 10 : n,
    });
    const prefix = 'during a';
    // The queue-off figure is reported beside it, never judged.
    expect(standing(results({ backlog: [run(true, 900), run(false, 20_000)] }), prefix)).toEqual(['met']);
    expect(standing(results({ backlog: [run(true, 1100), run(false, 20_000)] }), prefix)).toEqual(['missed']);
    expect(standing(results({ backlog: [run(true, 200, 100)] }), prefix)).toEqual(['not measured']);
  });

  it('judges the scale run only at 100 000: controller peak RSS and the no-op pass against the floor', () => {
    const scale = (n: number, peakRssMiB: number, noopMs: number): ScaleRun => {
      const steady = {
        n,
        seconds: 60,
        requests: 0,
        reads: 0,
        writes: 0,
        events: 0,
        cpuMs: 0,
        peakRssMiB,
      };
      const controller = {
        n,
        syncedMs: 1,
        readyMs: 1,
        requests: 0,
        writes: 0,
        events: 0,
        cpuMs: 0,
        peakRssMiB,
      };
      return {
        ...results({}),
        n,
        setupMs: 1,
        cold: caseOf(1),
        noop: caseOf(noopMs),
        floor: caseOf(1000),
        controller,
        steady,
      };
    };
    const r = results({});
    expect(standing(r, 'at 100,000', scale(100_000, 900, 1900))).toEqual(['met', 'met']);
    // 1000 MB is 953.7 MiB.
    expect(standing(r, 'at 100,000', scale(100_000, 960, 2100))).toEqual(['missed', 'missed']);
    expect(standing(r, 'at 100,000', scale(50_000, 100, 100))).toEqual(['not measured', 'not measured']);
    expect(standing(r, 'at 100,000')).toEqual(['not measured', 'not measured']);
  });
});

describe('bench targets of issue 38: the config the pods read', () => {
  const judged = (change?: (c: ConfigRun) => void) =>
    targets(results({ config: configRun(change) }))
      .filter((t) => t.target.includes('its own Secret'))
      .map((t) => t.standing);

  it('meets each target on a run that does', () => {
    // The rotation, its RSS, the latency, the unreferenced RSS and reads.
    expect(judged()).toEqual(['met', 'met', 'met', 'met', 'met']);
  });

  it('misses the rotation on a Deployment that rolled twice, kept one ReplicaSet, or a write at steady state', () => {
    expect(judged((c) => (c.rotation.rolled = { '1': 999, '2': 1 }))[0]).toBe('missed');
    expect(judged((c) => (c.rotation.replicaSets = { '1': 1, '2': 999 }))[0]).toBe('missed');
    expect(judged((c) => (c.rotation.steady = workloadOf(1000, 1, 1).steady))[0]).toBe('missed');
  });

  it('judges peak RSS against 1.2× the port-only burst and 1.15× the run without unreferenced Secrets', () => {
    // 120 MiB × 1.2 = 144; 100 × 1.15 = 115.
    expect(judged((c) => (c.peakRssMiB.whole = 145))[1]).toBe('missed');
    expect(judged((c) => (c.unreferenced.with.peakRssMiB = 114))[3]).toBe('met');
    expect(judged((c) => (c.unreferenced.with.peakRssMiB = 116))[3]).toBe('missed');
  });

  it('judges the p50 of 100 rotations against 1 s, and no fewer rotations', () => {
    expect(judged((c) => (c.latency.p50Ms = 1001))[2]).toBe('missed');
    expect(judged((c) => (c.latency.samples = 30))[2]).toBe('not measured');
  });

  it('misses the reads on a GET of an unreferenced Secret, a whole list or watch, or a value received', () => {
    expect(judged((c) => (c.unreferenced.with.secrets!.unreferencedGets = 1))[4]).toBe('missed');
    expect(judged((c) => (c.unreferenced.with.received.unreferencedRead = 1))[4]).toBe('missed');
    expect(judged((c) => (c.unreferenced.with.received.lists = 1))[4]).toBe('missed');
    expect(judged((c) => (c.unreferenced.with.received.marked = 1))[4]).toBe('missed');
    expect(judged((c) => (c.unreferenced.with.secrets = null))[4]).toBe('not measured');
  });

  it('does not judge a run at another N', () => {
    expect(judged((c) => (c.n = 100))).toEqual(Array(5).fill('not measured'));
  });

  it("keeps the plugin's no-op pass at 10 000 within 2× the floor, and plan NAME within 1.78× kubectl get", () => {
    const size = (n: number, noopMs: number, planMs: number) => ({
      n,
      setupMs: 0,
      cold: caseOf(1),
      noop: caseOf(noopMs),
      oneChange: caseOf(1),
      planName: caseOf(planMs),
      kubectlGetName: caseOf(100),
      floor: caseOf(500),
    });
    const plugin = (noopMs: number, planMs: number) =>
      targets(results({ plugin: [size(1000, 1, planMs), size(10_000, noopMs, 1)] }))
        .filter((t) => t.issue === '#38' && t.standing !== 'not measured')
        .map((t) => t.standing);
    expect(plugin(1000, 178)).toEqual(['met', 'met']);
    expect(plugin(1001, 179)).toEqual(['missed', 'missed']);
  });
});

describe('bench targets of issues 40 and 41: a canary, and every field', () => {
  const canaryRun = (change: (c: CanaryRun) => void = () => undefined): CanaryRun => {
    const run: CanaryRun = {
      n: 1000,
      without: { ...workloadOf(1000, 100_000), peakRssMiB: 100 },
      burst: workloadOf(1000, 100_000),
      applyMs: 5000,
      pausedMs: 200_000,
      steady: workloadOf(1000, 1).steady,
      peakRssMiB: 120,
      latency: {
        samples: 100,
        n: 1000,
        latenciesMs: [],
        p50Ms: 900,
        p99Ms: 1500,
        maxMs: 1600,
        requests: 0,
        writes: 0,
        events: 0,
      },
    };
    change(run);
    return run;
  };
  const canary = (change?: (c: CanaryRun) => void) =>
    targets(results({ canary: canaryRun(change) }))
      .filter((t) => t.issue === '#40')
      .map((t) => t.standing);

  it('meets the step change, the steady state and the RSS on a run that does', () => {
    expect(canary()).toEqual(['met', 'met', 'met']);
  });

  it('misses each on a p50 over 1 s, a write at steady state, or an RSS over 1.2× without a canary', () => {
    expect(canary((c) => (c.latency.p50Ms = 1001))).toEqual(['missed', 'met', 'met']);
    expect(canary((c) => (c.steady = workloadOf(1000, 1, 1).steady))).toEqual(['met', 'missed', 'met']);
    expect(canary((c) => (c.peakRssMiB = 121))).toEqual(['met', 'met', 'missed']);
  });

  it('does not judge a run at another N, or fewer step changes', () => {
    expect(canary((c) => (c.n = 100))).toEqual(Array(3).fill('not measured'));
    expect(canary((c) => (c.latency.samples = 30))[0]).toBe('not measured');
  });

  it('judges every field against a record-only burst of the same N, and the no-op pass at 10 000', () => {
    const issue41 = (extra: Partial<Results>) =>
      targets(results(extra))
        .filter((t) => t.issue === '#41')
        .map((t) => t.standing);
    const record = { ...results({}).controller, bursts: [{ ...burstOf(1000, 1), peakRssMiB: 100 }] };
    const everyField = (peakRssMiB: number, writes = 0) => ({ ...workloadOf(1000, 1, writes), peakRssMiB });
    expect(issue41({ controller: record, everyFieldBurst: everyField(130) })).toEqual(['met', 'met', 'not measured']);
    expect(issue41({ controller: record, everyFieldBurst: everyField(131, 1) })).toEqual([
      'missed',
      'missed',
      'not measured',
    ]);
    expect(issue41({ everyFieldBurst: everyField(100) })[1]).toBe('not measured');
    const noop = (noopMs: number) => issue41({ plugin: [{ ...pluginAt(10_000, noopMs), floor: caseOf(1000) }] });
    expect(noop(2000)).toEqual(['not measured', 'not measured', 'met']);
    expect(noop(2001)[2]).toBe('missed');
  });
});

function pluginAt(n: number, noopMs: number): PluginSize {
  const c = caseOf(noopMs);
  return { n, setupMs: 0, cold: c, noop: c, oneChange: c, planName: c, kubectlGetName: c, floor: c };
}

function run(startedAt: string, commit: string, extra: Partial<Results>): Results {
  const base = results(extra);
  return { ...base, startedAt, machine: { ...base.machine, commit } };
}

const full = run('2026-12-03T07:08:58Z', 'a'.repeat(40), {
  sizes: [10, 1000],
  plugin: [pluginAt(10, 100), pluginAt(1000, 900)],
  workloadBurst: workloadOf(200, 57_000),
  everyFieldBurst: workloadOf(1000, 289_000),
  portBurstSameN: workloadOf(1000, 289_000),
});

describe('bench results of a partial run', () => {
  it('keeps the cases the run did not measure, naming the run that did', () => {
    const configOnly = run('2026-12-05T10:00:00Z', 'b'.repeat(40), { sizes: [10, 1000], only: ['config'] });
    const merged = mergeResults(full, configOnly, ['config']);
    expect(merged.plugin).toEqual(full.plugin);
    expect(merged.workloadBurst).toEqual(full.workloadBurst);
    expect(merged.portBurstSameN).toEqual(full.portBurstSameN);
    expect(merged.startedAt).toBe('2026-12-05T10:00:00Z');
    expect(merged.carried).toEqual([
      { case: 'plugin', sizes: [10, 1000], startedAt: full.startedAt, commit: full.machine.commit },
      { case: 'workload', startedAt: full.startedAt, commit: full.machine.commit },
      { case: 'every-field', startedAt: full.startedAt, commit: full.machine.commit },
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
      { case: 'plugin', sizes: [10], startedAt: full.startedAt, commit: full.machine.commit },
      { case: 'plugin', sizes: [1000], startedAt: pluginRun.startedAt, commit: pluginRun.machine.commit },
      { case: 'every-field', startedAt: full.startedAt, commit: full.machine.commit },
    ]);
  });

  it('carries nothing when the run measured everything the file held', () => {
    const everything = run('2026-12-05T13:00:00Z', 'e'.repeat(40), { sizes: [10, 1000], plugin: full.plugin });
    expect(mergeResults(results({ plugin: full.plugin }), everything, ['plugin']).carried).toBeUndefined();
  });
});

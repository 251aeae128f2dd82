// results.json's pieces for the bench's unit tests: a run with nothing measured, and the
// cases they fill in.
import { CaseResult, Results, WorkloadBurst } from '../../scripts/bench/results';

export function caseOf(wallMs: number, extra: Partial<CaseResult> = {}): CaseResult {
  return {
    runs: 10,
    wallMs,
    cpuMs: null,
    cpuPerWriteMs: null,
    serverCpuMs: null,
    otherCpuMs: null,
    peakRssMiB: null,
    requests: null,
    reads: null,
    writes: null,
    events: null,
    samples: [],
    ...extra,
  };
}

export function results(extra: Partial<Results>): Results {
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
      gnuTime: true,
    },
    loadAverage: { start: [0], end: [0] },
    sizes: [1000],
    plugin: [],
    shell: [],
    controller: { startup: [], bursts: [], latency: null, steady: null },
    ...extra,
  };
}

/** A workload burst of n, Ready after readyMs, with that many writes of ours at steady state. */
export function workloadOf(n: number, readyMs: number, steadyWrites = 0): WorkloadBurst {
  return {
    n,
    replicas: 3,
    nodes: 4,
    podCapacity: 3200,
    controllersAudited: true,
    readyMs,
    createMs: 1,
    byClient: {},
    cpuMs: {},
    machineCpuMs: 0,
    peakRssMiB: 0,
    steady: {
      seconds: 60,
      byClient: { controller: { requests: steadyWrites, reads: 0, writes: steadyWrites, events: 0, byKind: {} } },
      cpuMs: {},
    },
  };
}

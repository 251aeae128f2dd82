// The shape of bench/results.json (and scale.json), from which report.ts alone makes RESULTS.md's
// table: what each case returns, as it returns it.
import { Figures, RequestCount, figures } from './audit';
import type { controllerBacklog } from './backlog';
import type { canaryCase } from './canary';
import type { pluginCases } from './cases';
import type { peerCase } from './peer';
import type { configCase } from './config';
import type { controllerBurst, controllerStartup, steadyWindow } from './controller';
import type { writeFloor } from './floor';
import { Measured, median } from './proc';
import type { runtimeCases } from './runtimes';
import type { scaleRun } from './scale';
import type { workloadBurst } from './workload';

type Returned<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** One run of a case. */
export interface Sample extends Figures {
  wallMs: number;
  cpuMs: number | null;
  peakRssMiB: number | null;
}

/** A case's runs: wall time and CPU their medians; requests, writes and peak RSS the most of any run. */
export interface CaseResult extends Sample {
  runs: number;
  /** Client CPU over every mutating request (writes and Event creates). */
  cpuPerWriteMs: number | null;
  samples: Sample[];
}

export type PluginSize = Returned<typeof pluginCases>;
export type ControllerBurst = Returned<typeof controllerBurst>['burst'];
export type WriteFloor = Returned<typeof writeFloor>;
export type WorkloadBurst = Returned<typeof workloadBurst>;

/** Our controller's requests about a namespace over a window of steady state. */
export interface Quiet {
  seconds: number;
  byClient: { controller?: RequestCount };
}

/** What results.json and scale.json say of the run that wrote them. */
interface Run {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  machine: Machine;
  /** os.loadavg() when the run started and ended: the cores are shared. */
  loadAverage: { start: number[]; end: number[] };
}

export interface Results extends Run {
  quick: boolean;
  sizes: number[];
  plugin: PluginSize[];
  controller: {
    startup: Returned<typeof controllerStartup>['startup'][];
    bursts: ControllerBurst[];
    latency: Returned<typeof controllerBurst>['latency'];
    steady: Returned<typeof steadyWindow> | null;
  };
  /** The cases a run was asked for (--only); absent: every case. */
  only?: string[];
  /** What this file keeps from earlier runs (merge.ts). */
  carried?: Carried[];
  failed?: { case: string; error: string }[];
  runtimes?: Returned<typeof runtimeCases>;
  writeFloor?: WriteFloor[];
  /** `run`'s bursts beside the floor, their creates sent by the floor's client. */
  floorBursts?: ControllerBurst[];
  workloadBurst?: WorkloadBurst;
  everyFieldBurst?: WorkloadBurst;
  /** The port-only burst at the every-field burst's N, where workloadBurst has another. */
  portBurstSameN?: WorkloadBurst;
  backlog?: Returned<typeof controllerBacklog>[];
  config?: Returned<typeof configCase>;
  canary?: Returned<typeof canaryCase>;
  peer?: Returned<typeof peerCase>;
}

interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  kubernetes: string;
  plugin: string;
  commit: string | null;
  /** Files under src/ that differed from the commit. */
  srcChanges: string[];
}

export interface Carried {
  case: string;
  sizes?: number[];
  startedAt: string;
  commit: string | null;
}

/** bench/scale.json. */
export type ScaleRun = Returned<typeof scaleRun> & Run;

export function sampleOf(measured: Measured, count: RequestCount | null): Sample {
  return {
    wallMs: Math.round(measured.wallMs),
    cpuMs: measured.cpuMs,
    peakRssMiB: measured.peakRssMiB,
    ...figures(count),
  };
}

function maxOf(values: (number | null)[]): number | null {
  return values.some((v) => v === null) ? null : Math.max(...(values as number[]));
}

export function summarize(samples: Sample[]): CaseResult {
  const medianOf = (values: (number | null)[]) => (values.every((v) => v !== null) ? median(values) : null);
  const cpu = medianOf(samples.map((s) => s.cpuMs));
  const writes = maxOf(samples.map((s) => s.writes));
  const events = maxOf(samples.map((s) => s.events));
  const mutating = writes === null || events === null ? 0 : writes + events;
  const last = samples[samples.length - 1];
  return {
    runs: samples.length,
    wallMs: Math.round(median(samples.map((s) => s.wallMs))),
    cpuMs: cpu,
    cpuPerWriteMs: cpu !== null && mutating > 0 ? Math.round((cpu / mutating) * 1000) / 1000 : null,
    peakRssMiB: maxOf(samples.map((s) => s.peakRssMiB)),
    requests: maxOf(samples.map((s) => s.requests)),
    reads: maxOf(samples.map((s) => s.reads)),
    writes,
    events,
    ...(last.writesByKind ? { writesByKind: last.writesByKind } : {}),
    samples,
  };
}

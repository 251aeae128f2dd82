// The shape of bench/results.json (and scale.json): the raw figures of each case, from which
// report.ts alone makes RESULTS.md's table.
import { RequestCount } from './audit';
import { Measured, median } from './proc';

/** One run of a case. */
export interface Sample {
  wallMs: number;
  cpuMs: number | null;
  peakRssMiB: number | null;
  requests: number | null;
  reads: number | null;
  writes: number | null;
  events: number | null;
  writesByKind?: Record<string, number>;
}

/** A case's runs: wall time and CPU their medians; requests, writes and peak RSS the most of any run. */
export interface CaseResult extends Sample {
  runs: number;
  /** Client CPU over every mutating request (writes and Event creates). */
  cpuPerWriteMs: number | null;
  samples: Sample[];
}

export interface PluginSize {
  n: number;
  setupMs: number;
  cold: CaseResult;
  noop: CaseResult;
  oneChange: CaseResult;
  planName: CaseResult;
  kubectlGetName: CaseResult;
  /** The raw floor: both LISTs a pass reads, by kubectl. */
  floor: CaseResult;
}

interface Requests {
  requests: number | null;
  writes: number | null;
  events: number | null;
}

export interface ControllerStartup extends Requests {
  n: number;
  syncedMs: number;
  reconciledMs: number;
  cpuMs: number;
  peakRssMiB: number;
}

export interface ControllerBurst extends Requests {
  n: number;
  /** From the first create to the last WebService Ready. */
  readyMs: number;
  /** From the first create to the controller's last write (its Events go out in the background). */
  writesDoneMs?: number | null;
  createMs: number;
  createdBy?: string;
  /** `run --concurrency`. */
  workers?: number;
  writesByKind?: Record<string, number>;
  cpuMs: number;
  cpuPerWriteMs: number | null;
  peakRssMiB: number;
}

/** Changes one at a time, each one's latency, and the controller's requests over them. */
export interface Latencies extends Requests {
  samples: number;
  n: number;
  latenciesMs: number[];
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  writesByKind?: Record<string, number>;
}

export interface ControllerSteady extends Requests {
  n: number;
  seconds: number;
  reads: number | null;
  cpuMs: number;
  peakRssMiB: number;
}

type Machine = {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  kubernetes: string;
  plugin: string;
  commit: string | null;
  /** Files under src/ that differed from the commit. */
  srcChanges: string[];
};

export interface Results {
  schema: 1;
  quick: boolean;
  startedAt: string;
  finishedAt: string;
  machine: Machine;
  /** os.loadavg() when the run started and ended: the cores are shared. */
  loadAverage: { start: number[]; end: number[] };
  sizes: number[];
  plugin: PluginSize[];
  controller: {
    startup: ControllerStartup[];
    bursts: ControllerBurst[];
    latency: (Latencies & { peakRssMiB: number }) | null;
    steady: ControllerSteady | null;
  };
  /** The cases a run was asked for (--only); absent: every case. */
  only?: string[];
  /** What this file keeps from earlier runs (merge.ts). */
  carried?: Carried[];
  failed?: { case: string; error: string }[];
  runtimes?: Runtimes;
  writeFloor?: WriteFloor[];
  /** `run`'s bursts beside the floor, their creates sent by the floor's client. */
  floorBursts?: ControllerBurst[];
  workloadBurst?: WorkloadBurst;
  everyFieldBurst?: WorkloadBurst;
  /** The port-only burst at the every-field burst's N, where workloadBurst has another. */
  portBurstSameN?: WorkloadBurst;
  backlog?: BacklogRun[];
  config?: ConfigRun;
  canary?: CanaryRun;
}

export interface Carried {
  case: string;
  sizes?: number[];
  startedAt: string;
  commit: string | null;
}

export interface BacklogRun {
  n: number;
  priorityQueue: boolean;
  /** From the newcomer's create to its Ready. */
  readyMs: number;
  seenToReadyMs: number;
}

export function sampleOf(measured: Measured, count: RequestCount | null): Sample {
  return {
    wallMs: Math.round(measured.wallMs),
    cpuMs: measured.cpuMs,
    peakRssMiB: measured.peakRssMiB,
    requests: count?.requests ?? null,
    reads: count?.reads ?? null,
    writes: count?.writes ?? null,
    events: count?.events ?? null,
    ...(count && Object.keys(count.byKind).length > 0 ? { writesByKind: count.byKind } : {}),
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

/** The write floor: a bare client's writes of a burst, at a fixed number in flight. */
export interface WriteFloor extends Requests {
  n: number;
  inFlight: number;
  wallMs: number;
  createsMs: number;
  writesByKind?: Record<string, number>;
  clientCpuMs: number;
}

export type Runtime = 'node20' | 'node24' | 'sea';

/** Issue 18: the same commands on each runtime, on one control plane. */
export interface Runtimes {
  n: number;
  /** The host's NODE_EXTRA_CA_CERTS, if set. */
  extraCaCerts: string | null;
  kubectlGetName: CaseResult;
  plans: { runtime: Runtime; version: string; extraCa: boolean; planName: CaseResult }[];
  /** Cold `apply --all` over N. */
  colds: { runtime: Runtime; version: string; cold: CaseResult }[];
  skipped: { runtime: Runtime; reason: string }[];
}

/** A port only, every pod field, a Secret of its own, one replica behind an HTTPRoute, or with a canary. */
export type WorkloadFields = 'port' | 'every field' | 'own secret' | 'gateway' | 'canary';

/** Our controller's requests about a namespace over a window of steady state. */
export interface Quiet {
  seconds: number;
  byClient: { controller?: RequestCount };
}

/** A burst of workload WebServices on the workloads plane, until all are Ready. */
export interface WorkloadBurst {
  n: number;
  fields?: WorkloadFields;
  replicas: number;
  nodes: number;
  podCapacity: number;
  readyMs: number;
  createMs: number;
  peakRssMiB: number;
  steady: Quiet;
}

/** Issue 38: N WebServices, each reading its own Secret. */
export interface ConfigRun {
  n: number;
  burst: WorkloadBurst;
  /** The port-only burst of the same N in the same run. */
  portBurst: WorkloadBurst;
  portBurstBy: 'every-field' | 'config';
  rotation: ConfigRotation;
  latency: Latencies;
  /** The controller's peak RSS after the rotation, and over the whole case. */
  peakRssMiB: { rotation: number; whole: number };
  unreferenced: UnreferencedSecrets;
}

/** Every Secret rotated at once, until each WebService is Ready on its new revision, then a steady state. */
export interface ConfigRotation {
  replaceMs: number;
  templatesMs: number;
  readyMs: number;
  /** Deployments by how often their config digest changed. */
  rolled: Record<string, number>;
  /** Deployments by how many ReplicaSets they own. */
  replicaSets: Record<string, number>;
  steady: Quiet;
}

/** `run` over the converged WebServices without, and with, unreferenced Secrets beside them. */
export interface UnreferencedSecrets {
  count: number;
  bytes: number;
  without: ControllerOverConfig;
  with: ControllerOverConfig;
}

export interface ControllerOverConfig {
  reconciledMs: number;
  peakRssMiB: number;
  steady: ControllerSteady;
  /** Its requests about Secrets in the audit log. */
  secrets: { gets: number; unreferencedGets: number; lists: number; watches: number } | null;
  /** What it received of Secrets through the counting proxy. */
  received: SecretsReceived;
}

export interface SecretsReceived {
  read: number;
  unreferencedRead: number;
  lists: number;
  metadataLists: number;
  bytes: { read: number; lists: number; metadataLists: number };
  /** Answers holding an unreferenced value. */
  marked: number;
}

export interface ScaleController extends Requests {
  n: number;
  syncedMs: number;
  readyMs: number;
  writesByKind?: Record<string, number>;
  cpuMs: number;
  peakRssMiB: number;
}

/** What the scale run measures (bench --scale). */
export interface ScaleMeasured {
  n: number;
  setupMs: number;
  cold: CaseResult;
  noop: CaseResult;
  floor: CaseResult;
  controller: ScaleController;
  steady: ControllerSteady;
}

/** bench/scale.json. */
export interface ScaleRun extends ScaleMeasured {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  machine: Machine;
  loadAverage: { start: number[]; end: number[] };
}

/** Issue 40: N WebServices behind an HTTPRoute without spec.rollout, then each paused in a canary. */
export interface CanaryRun {
  n: number;
  without: WorkloadBurst;
  burst: WorkloadBurst;
  applyMs: number;
  /** From the apply of a new image to every one paused at its first step. */
  pausedMs: number;
  steady: Quiet;
  peakRssMiB: number;
  /** promote, one at a time: from the annotation's watch event to the HTTPRoute's new weight. */
  latency: Latencies;
}

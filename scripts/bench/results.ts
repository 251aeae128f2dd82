// The shape of bench/results.json: every raw number the bench measured, and how a case's
// runs are summed up into one. RESULTS.md is made from this alone (report.ts).
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

/**
 * A case: wall time and CPU are medians over its samples; requests, writes and peak RSS
 * the largest of any sample (a claim of "0 writes" holds for every run).
 */
export interface CaseResult {
  runs: number;
  wallMs: number;
  cpuMs: number | null;
  /** Client CPU over every mutating request (writes and Event creates); null without writes. */
  cpuPerWriteMs: number | null;
  peakRssMiB: number | null;
  requests: number | null;
  reads: number | null;
  writes: number | null;
  events: number | null;
  writesByKind?: Record<string, number>;
  samples: Sample[];
}

export interface PluginSize {
  n: number;
  /** Creating the N WebServices with kubectl (not a measured case). */
  setupMs: number;
  cold: CaseResult;
  noop: CaseResult;
  oneChange: CaseResult;
  planName: CaseResult;
  kubectlGetName: CaseResult;
  floor: CaseResult;
}

export interface ControllerStartup {
  n: number;
  /** From start to the "caches synced" log line. */
  syncedMs: number;
  /** From start until every key was reconciled once and the queue was empty. */
  reconciledMs: number;
  requests: number | null;
  writes: number | null;
  events: number | null;
  cpuMs: number;
  peakRssMiB: number;
}

export interface ControllerBurst {
  n: number;
  /** From the first create to the last WebService Ready for its generation. */
  readyMs: number;
  /**
   * From the first create to the last of the controller's writes in the audit log, its
   * Events included (they go out in the background); absent in runs before it was recorded.
   */
  writesDoneMs?: number | null;
  /** How long the creates themselves took. */
  createMs: number;
  /** Who sent the creates; absent in runs before it was recorded: kubectl. */
  createdBy?: string;
  /** `run --concurrency`; absent in runs before it was recorded: the default, 4. */
  workers?: number;
  requests: number | null;
  writes: number | null;
  events: number | null;
  writesByKind?: Record<string, number>;
  cpuMs: number;
  cpuPerWriteMs: number | null;
  peakRssMiB: number;
}

/** Changes one at a time: each one's latency, in order, their percentiles, and the controller's requests over all. */
export interface Latencies {
  samples: number;
  n: number;
  latenciesMs: number[];
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number | null;
  writes: number | null;
  events: number | null;
  /** Absent in runs before it was recorded. */
  writesByKind?: Record<string, number>;
}

/** Spec changes: event seen → converged. */
export interface ControllerLatency extends Latencies {
  peakRssMiB: number;
}

export interface ControllerSteady {
  n: number;
  seconds: number;
  requests: number | null;
  reads: number | null;
  writes: number | null;
  events: number | null;
  cpuMs: number;
  peakRssMiB: number;
}

export interface Results {
  schema: 1;
  quick: boolean;
  startedAt: string;
  finishedAt: string;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    node: string;
    kubernetes: string;
    plugin: string;
    commit: string | null;
    /** Files under src/ that differed from the commit when the plugin was built. */
    srcChanges: string[];
  };
  /** os.loadavg() (1, 5, 15 min) when the run started and ended: the cores are shared. */
  loadAverage: { start: number[]; end: number[] };
  sizes: number[];
  plugin: PluginSize[];
  controller: {
    startup: ControllerStartup[];
    /** Each in a fresh namespace with a fresh controller; the target reads the median. */
    bursts: ControllerBurst[];
    latency: ControllerLatency | null;
    steady: ControllerSteady | null;
  };
  /** The cases a run was asked for (--only); absent: every case. */
  only?: string[];
  /** What this file keeps from earlier runs, which a run of some cases or sizes did not measure again (merge.ts). */
  carried?: Carried[];
  /** Cases that failed, with why: the rest of the run is still written. */
  failed?: { case: string; error: string }[];
  runtimes?: Runtimes;
  /** At 16 and at 4 in flight, with `run`'s burst of the same N in the same run (controller.bursts). */
  writeFloor?: WriteFloor[];
  /** `run`'s burst measured beside the floor when the burst case itself did not run (runs before floorBursts). */
  floorBurst?: ControllerBurst;
  /**
   * `run`'s bursts whose creates the floor's own client sends, as it sends the floor's: the two
   * then differ only in who sends the other writes. The #19 target reads the median of those
   * with `run`'s default workers; the others have as many workers as the floor has requests in flight.
   */
  floorBursts?: ControllerBurst[];
  workloadBurst?: WorkloadBurst;
  /** The same burst with every pod field set (issue 27; since issue 41 its other children's fields too). */
  everyFieldBurst?: WorkloadBurst;
  /** The port-only burst at the every-field burst's N, in the same case; absent where workloadBurst has that N. */
  portBurstSameN?: WorkloadBurst;
  /** The backlog case, the priority queue on (runs before issue 42: then off, too). */
  backlog?: BacklogRun[];
  /** Issue 38: the config the pods read. */
  config?: ConfigRun;
  /** Issue 40: a canary's steps at N. */
  canary?: CanaryRun;
}

/** A case (for the plugin case, some of its sizes) whose figures come from an earlier run. */
export interface Carried {
  case: string;
  sizes?: number[];
  startedAt: string;
  commit: string | null;
}

export interface BacklogRun {
  /** WebServices in the backlog, each needing a write when `run` starts. */
  n: number;
  priorityQueue: boolean;
  /** From just before the newcomer's `kubectl create` to its Ready on the bench's watch. */
  readyMs: number;
  /** From the newcomer's first line on the watch (its creation) to its Ready. */
  seenToReadyMs: number;
  /** Backlog WebServices written before the newcomer's status; in runs before issue 42 only. */
  writtenBefore?: number | null;
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
    ...(samples[samples.length - 1].writesByKind ? { writesByKind: samples[samples.length - 1].writesByKind } : {}),
    samples,
  };
}

/** The write floor (issue 19): a bare client's writes of a burst, at a fixed number in flight. */
export interface WriteFloor {
  n: number;
  inFlight: number;
  /** From the first create to the last response. */
  wallMs: number;
  /** How long the N WebService creates took, the first phase. */
  createsMs: number;
  requests: number | null;
  writes: number | null;
  events: number | null;
  writesByKind?: Record<string, number>;
  /** CPU the bench process spent sending them (the floor runs inside it). */
  clientCpuMs: number;
}

/** Which program runs the plugin: the bundle on the host's Node 20 or the pinned Node 24, or the SEA. */
export type Runtime = 'node20' | 'node24' | 'sea';

export interface RuntimePlan {
  runtime: Runtime;
  /** process.version of the node that ran it (the SEA's is its embedded one). */
  version: string;
  /** Whether the host's NODE_EXTRA_CA_CERTS was set for these runs. */
  extraCa: boolean;
  planName: CaseResult;
}

export interface RuntimeCold {
  runtime: Runtime;
  version: string;
  /** cold `apply --all` over N; cpuPerWriteMs = client CPU / (writes + Event creates). */
  cold: CaseResult;
}

/** Issue 18: the same commands on each runtime, side by side, on one control plane. */
export interface Runtimes {
  n: number;
  /** The host's NODE_EXTRA_CA_CERTS, if it set one. */
  extraCaCerts: string | null;
  kubectlGetName: CaseResult;
  plans: RuntimePlan[];
  colds: RuntimeCold[];
  /** Runtimes not measured, and why. */
  skipped: { runtime: Runtime; reason: string }[];
}

/**
 * Which workload each WebService of a burst has: a port only (issue 17), every pod field
 * (issue 27), a port and an env var from a Secret of its own (issue 38), or one replica behind
 * an HTTPRoute, with or without a canary (issue 40).
 */
export type WorkloadFields = 'port' | 'every field' | 'own secret' | 'gateway' | 'canary';

/** Issue 17: a burst of workload WebServices on the workloads plane, until all are Ready. */
export interface WorkloadBurst {
  n: number;
  /** A port only, every pod field, or a Secret of its own (absent in runs before issue 27: a port only). */
  fields?: WorkloadFields;
  replicas: number;
  /** Fake Nodes and the pods they hold in all. */
  nodes: number;
  podCapacity: number;
  readyMs: number;
  createMs: number;
  /**
   * Whether the plane's audit log records kube-controller-manager, kube-scheduler and kwok
   * (WEBSERVICE_CP_AUDIT_SYSTEM=true when it started); null on a cluster the bench did not start.
   */
  controllersAudited: boolean | null;
  /** Every client's requests about the namespace's objects, by client (ours: `controller`, `kubectl`). */
  byClient: Record<string, RequestCount>;
  peakRssMiB: number;
  steady: {
    seconds: number;
    byClient: Record<string, RequestCount>;
  };
}

/** Every client's requests about a namespace's objects, over a window. */
export interface BusyWindow {
  byClient: Record<string, RequestCount>;
}

/**
 * Issue 38: a burst of N WebServices each reading its own Secret through env; every Secret
 * rotated at once; single rotations one at a time; then `run` started over them without and
 * with unreferenced Secrets beside them.
 */
export interface ConfigRun {
  n: number;
  burst: WorkloadBurst;
  /** The port-only burst of the same N in the same run: the every-field case's, or this case's own. */
  portBurst: WorkloadBurst;
  portBurstBy: 'every-field' | 'config';
  rotation: ConfigRotation;
  latency: RotationLatency;
  /** The burst's controller's VmHWM after the rotation's steady state, and at its end (the whole run). */
  peakRssMiB: { rotation: number; whole: number };
  unreferenced: UnreferencedSecrets;
}

/** Every Secret rotated at once, until each WebService is Ready on its new revision, then a steady state. */
export interface ConfigRotation extends BusyWindow {
  /** How long the replaces took (kubectl replace of Lists, several at once). */
  replaceMs: number;
  /** From the first replace to the last Deployment's new pod template, as a watch saw it. */
  templatesMs: number;
  /** From the first replace to the last WebService Ready on its new revision. */
  readyMs: number;
  /** Deployments by how often their pod template's config digest changed, to the end of the steady state. */
  rolled: Record<string, number>;
  /** Deployments by how many ReplicaSets they own, at the end of the steady state. */
  replicaSets: Record<string, number>;
  steady: BusyWindow & { seconds: number };
}

/** Single rotations, one at a time: from the Secret's watch event to its Deployment's new pod template's. */
export type RotationLatency = Latencies;

/** Unreferenced Secrets in the namespace: `run` started over the converged WebServices without them, and with them. */
export interface UnreferencedSecrets {
  count: number;
  /** The bytes of each one's value. */
  bytes: number;
  without: ControllerOverConfig;
  /** Started with them there, then every one of them rewritten while it ran. */
  with: ControllerOverConfig;
}

export interface ControllerOverConfig {
  /** From its start until every key was reconciled once and the queue was empty. */
  reconciledMs: number;
  peakRssMiB: number;
  steady: ControllerSteady;
  /** Its requests about Secrets, from the audit log: GETs by name (of them, of unreferenced ones), LISTs, WATCHes. */
  secrets: { gets: number; unreferencedGets: number; lists: number; watches: number } | null;
  /** What it received of Secrets through the counting proxy (harness/watch-proxy.cjs). */
  received: SecretsReceived;
}

export interface SecretsReceived {
  /** Secrets whose data it asked for by name, and of them, unreferenced ones. */
  read: number;
  unreferencedRead: number;
  /** Lists and watches of Secrets asking for whole objects, and for their metadata only. */
  lists: number;
  metadataLists: number;
  /** The bytes of the answers to those reads. */
  bytes: { read: number; lists: number; metadataLists: number };
  /** Answers (to any request) holding the base64 of an unreferenced value's first bytes. */
  marked: number;
}

/** `run` from a cold start over N WebServices that none has reconciled, to all Ready. */
export interface ScaleController {
  n: number;
  syncedMs: number;
  /** From the controller's start to the last WebService Ready, as seen on a watch. */
  readyMs: number;
  requests: number | null;
  writes: number | null;
  events: number | null;
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
  machine: Results['machine'];
  loadAverage: { start: number[]; end: number[] };
}

/**
 * Issue 40: N WebServices of one replica behind an HTTPRoute under `run`, without spec.rollout
 * and with a canary, each paused at its first step; then promotes, one at a time.
 */
export interface CanaryRun {
  n: number;
  /** The same N without spec.rollout: its burst, steady state, and controller's peak RSS after them. */
  without: WorkloadBurst;
  /** With spec.rollout: the burst to Ready on the first revision (the Deployment's own rollout). */
  burst: WorkloadBurst;
  /** How long the apply of a new image to every one took. */
  applyMs: number;
  /** From that apply's start to every one paused at its first pause, its route at the step's weight. */
  pausedMs: number;
  /** Every client's requests about the namespace at steady state, every canary paused. */
  steady: BusyWindow & { seconds: number };
  /** The controller's VmHWM at the end of that steady state. */
  peakRssMiB: number;
  /** promote, one at a time: from the annotation's watch event to the HTTPRoute's at the next weight. */
  latency: Latencies;
}

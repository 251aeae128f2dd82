// The invariants every fault scenario must leave behind, checked on the real apiserver:
// - every live CR: observedGeneration == generation, and the Ready it should have;
// - exactly one child per live CR, with the right data, controlled by that CR's uid;
// - no ConfigMap with our label lacks a live owner (no orphans);
// - with workloads: each live CR's own Deployment has its image and replicas (with autoscaling,
//   the autoscaler's count, within its bounds), all ready,
//   and no Deployment or Service with our label lacks a live owner;
// - the foreign objects given keep their resourceVersion;
// - deleted CRs are gone within a bound (no stuck finalizer);
// - zero writes over a steady-state window afterwards;
// - no write by a replica that was not the leader at the time (audit log vs Lease history).
// The check collects violations instead of failing at the first, so a report says everything.
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../src/core/model';
import { AuditEvent, AuditWindow, Background, MUTATING, getJson, sleep } from './cluster';

const MANAGED_BY = MANAGED_BY_LABEL;

interface ForeignObject {
  resource: 'configmaps' | 'webservices';
  name: string;
  resourceVersion: string;
}

export interface Expectations {
  namespace: string;
  /** CRs that must exist at the end (objects lost = those missing). */
  live?: string[];
  /** CRs that must be gone (deleted during the scenario). */
  deleted?: string[];
  /** CRs that must not be Ready, with the Ready reason they must carry. Others: True, Reconciled. */
  notReady?: Record<string, string>;
  /** Objects someone else owns: they must keep their resourceVersion. A foreign ConfigMap on a
   *  child's name means that CR has no child of ours. */
  foreign?: ForeignObject[];
  /** How long convergence, deletions and garbage collection may take. */
  withinMs?: number;
  /** The quiet window after convergence in which nobody may write. */
  steadyWindowMs?: number;
  /** Done inside the quiet window, e.g. one more `apply --all`: it must write nothing either. */
  duringSteadyState?: () => void;
  /** The CRs have spec.workload: their Deployments (and Services) are checked too. */
  workloads?: boolean;
  /** With leader election: every write must come from the holder of the lease at the time. */
  leader?: { history: LeaseHistory; audit: AuditWindow };
}

interface Figures {
  liveCRs: number;
  lost: number;
  foreignModified: number;
  orphans: number;
  stuckFinalizers: number;
  steadyStateWrites: number;
  /** Writes by a replica that did not hold the lease, which the API server did not refuse. */
  nonLeaderWrites: number;
  /** Writes by a replica that did not hold the lease, refused by the API server (the leader fence, a precondition). */
  nonLeaderWritesRefused: number;
  writesChecked: number;
  convergedInMs: number;
  /** When the last write before the steady-state window happened (convergence included). */
  settledInMs: number;
}

export interface InvariantReport {
  violations: string[];
  figures: Figures;
}

interface Meta {
  name: string;
  uid: string;
  generation?: number;
  resourceVersion: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
  ownerReferences?: { kind: string; uid: string; name: string; controller?: boolean }[];
}
interface WebServiceObject {
  metadata: Meta;
  spec: {
    image: string;
    replicas?: number;
    tier?: string;
    workload?: { port?: number; autoscaling?: { minReplicas?: number; maxReplicas: number } };
  };
  status?: {
    ready?: string;
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason: string; observedGeneration?: number }[];
  };
}
interface ConfigMapObject {
  metadata: Meta;
  data?: Record<string, string>;
}
interface DeploymentObject {
  metadata: Meta;
  spec: { replicas?: number; template: { spec: { containers: { image?: string }[] } } };
  status?: { observedGeneration?: number; readyReplicas?: number; updatedReplicas?: number; replicas?: number };
}

export async function checkInvariants(expect: Expectations): Promise<InvariantReport> {
  const started = Date.now();
  const deadline = started + (expect.withinMs ?? 60_000);
  let state = converged(expect);
  while (state.violations.length > 0 && Date.now() < deadline) {
    await sleep(500);
    state = converged(expect);
  }
  const convergedInMs = Date.now() - started;
  // The objects can be right while retries are still in flight (e.g. conditional writes
  // from a cache that has not caught up, refused with 409): steady state begins once
  // nobody has written for a moment, and from then on nobody may write at all.
  const settledInMs = (await quietFor(expect.namespace, SETTLE_MS, deadline)) - started;

  const steadyStateWrites = await writesDuring(
    expect.namespace,
    expect.steadyWindowMs ?? 10_000,
    expect.duringSteadyState,
  );
  const violations = [...state.violations];
  if (steadyStateWrites.length > 0) {
    violations.push(
      `${steadyStateWrites.length} write(s) in the steady-state window: ${steadyStateWrites.slice(0, 5).join('; ')}`,
    );
  }
  let nonLeaderWrites = 0;
  let nonLeaderWritesRefused = 0;
  let writesChecked = 0;
  if (expect.leader) {
    const checked = await writesByNonLeaders(expect.leader.history, expect.leader.audit);
    nonLeaderWrites = checked.violations.length;
    nonLeaderWritesRefused = checked.refused.length;
    writesChecked = checked.checked;
    violations.push(...checked.violations);
  }
  return {
    violations,
    figures: {
      ...state.figures,
      steadyStateWrites: steadyStateWrites.length,
      nonLeaderWrites,
      nonLeaderWritesRefused,
      writesChecked,
      convergedInMs,
      settledInMs,
    },
  };
}

type StateFigures = Pick<Figures, 'liveCRs' | 'lost' | 'foreignModified' | 'orphans' | 'stuckFinalizers'>;

/** One look at the namespace: what is violated right now. */
function converged(expect: Expectations): { violations: string[]; figures: StateFigures } {
  const { namespace } = expect;
  const parents = getJson<{ items: WebServiceObject[] }>(['get', 'webservices', '-n', namespace]).items;
  const configMaps = getJson<{ items: ConfigMapObject[] }>(['get', 'configmaps', '-n', namespace]).items;
  const violations: string[] = [];
  const byName = new Map(parents.map((p) => [p.metadata.name, p]));
  const foreignNames = new Set((expect.foreign ?? []).filter((f) => f.resource === 'configmaps').map((f) => f.name));

  const lost = (expect.live ?? []).filter((name) => !byName.has(name));
  for (const name of lost) violations.push(`webservice/${name} was lost`);

  const stuck = (expect.deleted ?? []).filter((name) => byName.has(name));
  for (const name of stuck) {
    const finalizers = byName.get(name)!.metadata.finalizers ?? [];
    violations.push(
      `webservice/${name} should be gone but is still there (finalizers: ${finalizers.join(', ') || 'none'})`,
    );
  }

  const live = parents.filter((p) => !p.metadata.deletionTimestamp);
  for (const parent of live) violations.push(...parentViolations(parent, configMaps, expect, foreignNames));

  const liveUids = new Set(live.map((p) => p.metadata.uid));
  const ours = configMaps.filter((cm) => cm.metadata.labels?.[MANAGED_BY] === MANAGED_BY_VALUE);
  const orphans = ours.filter(
    (cm) => !(cm.metadata.ownerReferences ?? []).some((ref) => ref.controller && liveUids.has(ref.uid)),
  );
  for (const cm of orphans) violations.push(`configmap/${cm.metadata.name} carries our label but no live owner`);
  if (expect.workloads) orphans.push(...workloadViolations(namespace, live, expect, violations));

  let foreignModified = 0;
  for (const foreign of expect.foreign ?? []) {
    const list = foreign.resource === 'configmaps' ? configMaps : parents;
    const now = list.find((o) => o.metadata.name === foreign.name);
    if (now?.metadata.resourceVersion !== foreign.resourceVersion) {
      foreignModified++;
      violations.push(
        `foreign ${foreign.resource}/${foreign.name} moved: ${foreign.resourceVersion} -> ${now?.metadata.resourceVersion ?? 'deleted'}`,
      );
    }
  }
  return {
    violations,
    figures: {
      liveCRs: live.length,
      lost: lost.length,
      foreignModified,
      orphans: orphans.length,
      stuckFinalizers: stuck.length,
    },
  };
}

function parentViolations(
  parent: WebServiceObject,
  configMaps: ConfigMapObject[],
  expect: Expectations,
  foreignNames: Set<string>,
): string[] {
  const name = parent.metadata.name;
  const violations: string[] = [];
  const generation = parent.metadata.generation;
  if (parent.status?.observedGeneration !== generation) {
    violations.push(
      `webservice/${name}: observedGeneration ${parent.status?.observedGeneration} != generation ${generation}`,
    );
  }
  const ready = parent.status?.conditions?.find((c) => c.type === 'Ready');
  const wantReason = expect.notReady?.[name];
  const want = wantReason ? { status: 'False', reason: wantReason } : { status: 'True', reason: 'Reconciled' };
  if (
    !ready ||
    ready.status !== want.status ||
    ready.reason !== want.reason ||
    ready.observedGeneration !== generation
  ) {
    violations.push(
      `webservice/${name}: Ready ${ready?.status}/${ready?.reason} at generation ${ready?.observedGeneration}, want ${want.status}/${want.reason} at ${generation}`,
    );
  }

  const children = configMaps.filter((cm) =>
    (cm.metadata.ownerReferences ?? []).some((ref) => ref.controller && ref.uid === parent.metadata.uid),
  );
  if (foreignNames.has(`${name}-desired`)) {
    // Its child's name is taken: it must control nothing (and the foreign object is checked apart).
    if (children.length > 0)
      violations.push(`webservice/${name}: controls ${children.length} ConfigMap(s) though its child's name is taken`);
    return violations;
  }
  if (wantReason) {
    // Waiting (a dependency, a cycle): a child made before it started waiting may stay, nothing else.
    const strays = children.filter((cm) => cm.metadata.name !== `${name}-desired`);
    if (strays.length > 0)
      violations.push(
        `webservice/${name}: controls unexpected ConfigMaps ${strays.map((c) => c.metadata.name).join(', ')}`,
      );
    return violations;
  }
  if (children.length !== 1) {
    violations.push(`webservice/${name}: controls ${children.length} ConfigMaps, want exactly 1`);
    return violations;
  }
  const [child] = children;
  const wantData = {
    image: parent.spec.image,
    replicas: String(parent.spec.replicas ?? 1),
    tier: parent.spec.tier ?? 'dev',
  };
  const haveData = { image: child.data?.image, replicas: child.data?.replicas, tier: child.data?.tier };
  if (child.metadata.name !== `${name}-desired` || JSON.stringify(haveData) !== JSON.stringify(wantData)) {
    violations.push(
      `webservice/${name}: child ${child.metadata.name} has ${JSON.stringify(haveData)}, want ${JSON.stringify(wantData)}`,
    );
  }
  if (child.metadata.labels?.[MANAGED_BY] !== MANAGED_BY_VALUE) {
    violations.push(`webservice/${name}: child ${child.metadata.name} lacks our label`);
  }
  return violations;
}

/**
 * Each live CR that should be Ready: its own Deployment (controlled by its uid) has its image
 * and replicas, every pod updated and ready, and a Service when it has a port. Returns the
 * Deployments and Services with our label and no live owner (orphans), adding violations.
 */
function workloadViolations(
  namespace: string,
  live: WebServiceObject[],
  expect: Expectations,
  violations: string[],
): { metadata: Meta }[] {
  const deployments = getJson<{ items: DeploymentObject[] }>(['get', 'deployments', '-n', namespace]).items;
  const services = getJson<{ items: { metadata: Meta }[] }>(['get', 'services', '-n', namespace]).items;
  const owned = <T extends { metadata: Meta }>(items: T[], uid: string) =>
    items.filter((o) => (o.metadata.ownerReferences ?? []).some((ref) => ref.controller && ref.uid === uid));
  for (const parent of live) {
    const name = parent.metadata.name;
    if (!parent.spec.workload || expect.notReady?.[name]) continue;
    const mine = owned(deployments, parent.metadata.uid);
    if (mine.length !== 1 || mine[0].metadata.name !== name) {
      violations.push(
        `webservice/${name}: controls ${mine.map((d) => d.metadata.name).join(', ') || 'no'} Deployment(s), want deployment/${name}`,
      );
      continue;
    }
    const [deployment] = mine;
    // With autoscaling the count is the autoscaler's, within its bounds; else spec.replicas.
    const { autoscaling } = parent.spec.workload;
    const replicas = autoscaling ? (deployment.spec.replicas ?? 0) : (parent.spec.replicas ?? 1);
    const floor = autoscaling?.minReplicas ?? parent.spec.replicas ?? 1;
    if (autoscaling && (replicas < floor || replicas > autoscaling.maxReplicas)) {
      violations.push(
        `webservice/${name}: deployment/${name} has ${replicas} replicas, outside its autoscaler's ${floor} to ${autoscaling.maxReplicas}`,
      );
    }
    const image = deployment.spec.template.spec.containers[0]?.image;
    const status = deployment.status ?? {};
    if (deployment.spec.replicas !== replicas || image !== parent.spec.image) {
      violations.push(
        `webservice/${name}: deployment/${name} has ${deployment.spec.replicas} x ${image}, want ${replicas} x ${parent.spec.image}`,
      );
    }
    const done =
      (status.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0) &&
      (status.readyReplicas ?? 0) === replicas &&
      (status.updatedReplicas ?? 0) === replicas &&
      (status.replicas ?? 0) === replicas;
    if (!done) {
      violations.push(
        `webservice/${name}: deployment/${name} ${status.readyReplicas ?? 0} ready, ${status.updatedReplicas ?? 0} updated of ${replicas}`,
      );
    }
    if (parent.status?.ready !== `${replicas}/${replicas}`) {
      violations.push(`webservice/${name}: status.ready ${parent.status?.ready}, want ${replicas}/${replicas}`);
    }
    const service = owned(services, parent.metadata.uid);
    const wantService = parent.spec.workload.port !== undefined ? 1 : 0;
    if (service.length !== wantService) {
      violations.push(`webservice/${name}: controls ${service.length} Service(s), want ${wantService}`);
    }
  }
  const liveUids = new Set(live.map((p) => p.metadata.uid));
  const orphans = [...deployments, ...services].filter(
    (o) =>
      o.metadata.labels?.[MANAGED_BY] === 'webservice-controller' &&
      !(o.metadata.ownerReferences ?? []).some((ref) => ref.controller && liveUids.has(ref.uid)),
  );
  for (const o of orphans) {
    const kind = deployments.includes(o as DeploymentObject) ? 'deployment' : 'service';
    violations.push(`${kind}/${o.metadata.name} carries our label but no live owner`);
  }
  return orphans;
}

const SETTLE_MS = 3_000;

/** Waits until nobody has written in the namespace for ms (or the deadline passes); returns when. */
async function quietFor(namespace: string, ms: number, deadline: number): Promise<number> {
  for (;;) {
    const window = new AuditWindow(namespace);
    window.mark();
    await sleep(ms);
    if ((await window.mutating()).length === 0 || Date.now() > deadline) return Date.now() - ms;
  }
}

/** Mutating requests in the namespace during a quiet window of ms (and during `action`). */
async function writesDuring(namespace: string, ms: number, action?: () => void): Promise<string[]> {
  const window = new AuditWindow(namespace);
  window.mark();
  action?.();
  await sleep(ms);
  return (await window.mutating()).map(describe);
}

function describe(e: AuditEvent): string {
  const what = `${e.objectRef?.resource}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}/${e.objectRef?.name ?? ''}`;
  return `${e.verb} ${what} by ${e.userAgent ?? e.user.username} (${e.responseStatus?.code})`;
}

// --- leader election -------------------------------------------------------------------

interface Term {
  holder: string;
  /** The acquireTime the holder wrote when it took the lease (its clock: this machine's). */
  start: number;
}

/**
 * Records the Lease's holder history while a test runs, from a watch: each term begins at
 * the acquireTime its holder wrote, and ends when the next term begins. A released lease
 * starts a term with no holder.
 */
export class LeaseHistory {
  readonly terms: Term[] = [];
  private readonly watch: Background;

  constructor(namespace = 'webservice-system', name = 'webservice-controller') {
    this.watch = new Background(
      'kubectl',
      // kubectl pads a watch's output through a tabwriter, so the fields are split at "|".
      [
        'get',
        'lease',
        name,
        '-n',
        namespace,
        '--watch',
        '-o',
        'jsonpath={.spec.holderIdentity}{"|"}{.spec.acquireTime}{"\\n"}',
      ],
      { onStdoutLine: (line) => this.read(line) },
    );
  }

  /** Who held the lease at time t (ms since the epoch), '' for nobody, undefined before the first term seen. */
  holderAt(t: number): string | undefined {
    let holder: string | undefined;
    for (const term of this.terms) {
      if (term.start <= t) holder = term.holder;
      else break;
    }
    return holder;
  }

  stop(): void {
    this.watch.signal('SIGTERM');
  }

  private read(line: string): void {
    const [holder, acquireTime] = line.trim().split('|');
    const start = parseMicroTime(acquireTime);
    if (!Number.isFinite(start)) return;
    const last = this.terms.at(-1);
    if (!last || last.start !== start || last.holder !== holder) {
      this.terms.push({ holder, start });
      this.terms.sort((a, b) => a.start - b.start);
    }
  }
}

/**
 * Writes by `run` replicas (identified by run/<identity> in the user agent), against the terms.
 * A replica paused between its write gate and the socket sends on resume, whatever it
 * checks: no client can make "check, then send" atomic. What must hold is that the API
 * server refuses such a write (the leader fence's 403, a precondition's 409): a 4xx
 * changed nothing. A write it admitted, or whose outcome is unknown (5xx), is a violation.
 */
async function writesByNonLeaders(
  history: LeaseHistory,
  audit: AuditWindow,
): Promise<{ violations: string[]; refused: string[]; checked: number }> {
  const writes = (await audit.all()).filter(
    (e) => MUTATING.has(e.verb) && e.objectRef?.resource !== 'leases' && /\brun\//.test(e.userAgent ?? ''),
  );
  const violations: string[] = [];
  const refused: string[] = [];
  for (const write of writes) {
    const identity = /\brun\/(\S+)/.exec(write.userAgent ?? '')![1];
    const at = parseMicroTime((write as AuditEvent & { requestReceivedTimestamp: string }).requestReceivedTimestamp);
    const holder = history.holderAt(at);
    if (holder === identity) continue;
    const text = `${describe(write)} at ${new Date(at).toISOString()} while the lease was held by ${holder || 'nobody'}`;
    const code = write.responseStatus?.code ?? 0;
    (code >= 400 && code < 500 ? refused : violations).push(text);
  }
  return { violations, refused, checked: writes.length };
}

/** ms since the epoch, keeping the microseconds that Date.parse would drop. */
export function parseMicroTime(text: string | undefined): number {
  const match = /^(.*?)(?:\.(\d+))?Z$/.exec(text ?? '');
  if (!match) return NaN;
  const fraction = match[2] ? Number(`0.${match[2]}`) * 1000 : 0;
  return Date.parse(`${match[1]}Z`) + fraction;
}

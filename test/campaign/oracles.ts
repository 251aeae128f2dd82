// The campaign's oracles: properties checked at quiescence that need no expected output. What
// each WebService should come to is read from its current spec, through the core itself
// (observe, decide, computeStatus: at quiescence a pass must have nothing to do and nothing
// to say), and from the few facts the campaign alone knows (which objects are someone else's,
// what others added to our children). Each check returns violations as sentences, so a
// failing run reports everything at once.
import { ABORT_ANNOTATION, CANARY_DEPLOYMENT_ID } from '../../src/core/canary-requests';
import { decide } from '../../src/core/decide';
import {
  CHILD_KINDS,
  type ChildKindRow,
  NAMED_KINDS,
  WATCHED_KINDS,
  resourceName,
  setRowOf,
} from '../../src/core/kinds';
import { served } from '../support/gateway-api';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE, READY, type Child, type WebService } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { CANARY_ABORTED, computeStatus } from '../../src/core/status';
import { CONFIG_KEY_SECRET } from '../../src/engine/config';
import { AuditWindow, MUTATING, PLUGIN, describeEvent, fromPlugin, getJson, run, sleep } from '../support/cluster';
import { NEVER_READY_IMAGE } from '../support/faulty-images';
import { METRIC_VALUE, type ChildKind } from './steps';
import { foreignContent, type World } from './world';

type Json = Record<string, any>;

export interface ClusterState {
  webServices: Json[];
  /** The children of every kind of the table that the plane serves, each with its kind. */
  children: Json[];
  /** The kinds of the table whose API the plane does not serve (optional ones): none can exist. */
  absentKinds?: string[];
}

export function readState(ns: string): ClusterState {
  // A kind whose API the plane does not serve (an optional one) has no objects, and kubectl refuses its name.
  const absentKinds = CHILD_KINDS.filter((row) => row.optional && !served(row)).map((row) => row.kind);
  // Each kind once (rows of one kind share it): the config the pods read comes with the snapshots.
  const kinds = [
    'webservices',
    ...WATCHED_KINDS.filter((row) => !absentKinds.includes(row.kind)).map(resourceName),
  ].join(',');
  const items = getJson<{ items: Json[] }>(['get', kinds, '-n', ns]).items;
  return {
    webServices: items.filter((item) => item.kind === 'WebService'),
    children: items.filter((item) => item.kind !== 'WebService'),
    absentKinds,
  };
}

/** A kind as the API names it, from the campaign's lower-case name: the kind table's row. */
const kindOf = (kind: ChildKind) => NAMED_KINDS.find((row) => kindKey(row) === kind)?.kind;

/**
 * Why a WebService cannot converge, as the reason its Ready condition must give; null when
 * it can. From its spec and the others' only: a cycle through it, a dependency that is
 * missing or cannot converge itself, or a foreign object on the name of a child it wants.
 */
export function blockers(state: ClusterState, world: Pick<World, 'foreign'>): Map<string, string | null> {
  const byName = new Map(
    state.webServices.filter((ws) => !ws.metadata.deletionTimestamp).map((ws) => [ws.metadata.name as string, ws]),
  );
  const depsOf = (name: string): string[] => byName.get(name)?.spec.dependsOn ?? [];
  const reaches = (from: string, target: string): boolean => {
    const seen = new Set<string>();
    const stack = [...depsOf(from)];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === target) return true;
      if (seen.has(next) || !byName.has(next)) continue;
      seen.add(next);
      stack.push(...depsOf(next));
    }
    return false;
  };
  const result = new Map<string, string | null>();
  const blockOf = (name: string): string | null => {
    if (result.has(name)) return result.get(name)!;
    let block: string | null = null;
    if (reaches(name, name)) block = 'DependencyCycle';
    else if (depsOf(name).some((dep) => !byName.has(dep) || blockOf(dep) !== null)) block = 'DependencyNotReady';
    else if (wantedRows(byName.get(name)!).some((row) => world.foreign.has(`${kindKey(row)}/${row.nameFor(name)}`)))
      block = 'ChildConflict';
    else if (abortExcused(byName.get(name)!)) block = CANARY_ABORTED;
    else if (byName.get(name)!.spec.image === NEVER_READY_IMAGE) block = NEVER_READY;
    result.set(name, block);
    return block;
  };
  for (const name of byName.keys()) blockOf(name);
  return result;
}

/** The block of a WebService whose image's pods never get ready, and the reasons its Ready may give. */
const NEVER_READY = 'NeverReadyImage';
const NEVER_READY_REASONS = [CANARY_ABORTED, 'RolloutInProgress', 'ProgressDeadlineExceeded'];

/**
 * A canary aborted for a cause the history gave it: someone aborted it (the abort annotation
 * names its revision), or its check's bounds leave out what the campaign's metrics API answers.
 * It stays aborted, Ready False, until the spec changes. An abort with no such cause is not excused.
 */
function abortExcused(ws: Json): boolean {
  const rollout = ws.status?.rollout;
  if (rollout?.phase !== 'Aborted') return false;
  if (ws.metadata.annotations?.[ABORT_ANNOTATION] === rollout.revision) return true;
  if (ws.spec.image === NEVER_READY_IMAGE && /^the canary's pods were not ready within/.test(rollout.message))
    return true;
  const check = ws.spec.rollout?.canary?.check as { min?: number; max?: number } | undefined;
  const fails =
    check !== undefined && ((check.min ?? -Infinity) > METRIC_VALUE || (check.max ?? Infinity) < METRIC_VALUE);
  return fails && String(rollout.message).startsWith('the check failed');
}

/** The rows of the kind table whose child this spec asks for: the table's own answer. */
function wantedRows(ws: Json): ChildKindRow[] {
  return NAMED_KINDS.filter((row) => row.wanted(ws as WebService));
}

/** How the campaign names a kind (its steps and the world's foreign objects): lower case. */
const kindKey = (row: ChildKindRow) => row.kind.toLowerCase();

const readyOf = (ws: Json): Json | undefined => (ws.status?.conditions ?? []).find((c: Json) => c.type === READY);

/** Everything that must hold of the namespace at quiescence, but the steady state. */
export function stateViolations(state: ClusterState, world: Pick<World, 'foreign' | 'marks'>): string[] {
  const violations: string[] = [];
  const blocked = blockers(state, world);
  const live = state.webServices.filter((ws) => !ws.metadata.deletionTimestamp);
  for (const ws of state.webServices) {
    if (ws.metadata.deletionTimestamp) {
      violations.push(
        `webservice/${ws.metadata.name} is stuck terminating (finalizers: ${ws.metadata.finalizers?.join(', ') ?? 'none'})`,
      );
    }
  }
  for (const ws of live) violations.push(...webServiceViolations(ws, state, blocked.get(ws.metadata.name) ?? null));
  violations.push(...orphans(state, live), ...foreignViolations(state, world), ...markViolations(state, world));
  return violations;
}

function webServiceViolations(ws: Json, state: ClusterState, block: string | null): string[] {
  const name = ws.metadata.name as string;
  const at = `webservice/${name}`;
  const violations: string[] = [];
  const ready = readyOf(ws);
  const generation = ws.metadata.generation as number;
  if (ws.status?.observedGeneration !== generation || ready?.observedGeneration !== generation) {
    violations.push(
      `${at}: generation ${generation} not observed (status ${ws.status?.observedGeneration}, Ready ${ready?.observedGeneration})`,
    );
  }
  const obs = observe({
    parent: ws as WebService,
    children: state.children as Child[],
    related: state.webServices as WebService[],
    absentKinds: state.absentKinds,
  });
  const decision = decide(obs);
  if (block === null) {
    if (ready?.status !== 'True')
      violations.push(`${at}: can converge but is not Ready (${ready?.reason}: ${ready?.message})`);
    if (decision.action !== 'noop') violations.push(`${at}: a pass would ${decision.action}: ${decision.reason}`);
    violations.push(...ownedChildren(ws, state));
    violations.push(...truthfulStatus(ws, state));
    violations.push(...revisionViolations(ws, state));
  } else {
    // Pods that never get ready: a canary aborted at its deadline, or (where the first rollout had
    // not completed, so no canary could start) a rolling update that never completes.
    const readyAsBlocked =
      ready?.status === 'False' &&
      (block === NEVER_READY ? NEVER_READY_REASONS.includes(ready.reason) : ready.reason === block);
    if (!readyAsBlocked) {
      violations.push(
        `${at}: cannot converge (${block}) but Ready is ${ready?.status} (${ready?.reason}: ${ready?.message})`,
      );
    }
    // An aborted canary has nothing left to do until the spec changes.
    const expected = block === 'ChildConflict' ? 'conflict' : block === CANARY_ABORTED ? 'noop' : 'requeue';
    if (decision.action !== expected && !(block === NEVER_READY && ['noop', 'requeue'].includes(decision.action)))
      violations.push(`${at}: cannot converge (${block}) but a pass would ${decision.action}`);
  }
  const status = computeStatus(obs, decision, { kind: 'applied' }, new Date().toISOString());
  if (status.changed) {
    violations.push(
      `${at}: the stored status is not what a pass computes: ${JSON.stringify(ws.status)} vs ${JSON.stringify(status.status)}`,
    );
  }
  return violations;
}

/** Each child the spec wants exists, carries our label, and is controlled by this WebService's uid. */
function ownedChildren(ws: Json, state: ClusterState): string[] {
  const violations: string[] = [];
  // A child whose API is not served cannot be made: the Exposed condition says so (checked as status).
  // The canary's Deployment exists only while a canary runs: none does at quiescence.
  const rows = wantedRows(ws).filter((r) => !state.absentKinds?.includes(r.kind) && r.id !== CANARY_DEPLOYMENT_ID);
  for (const row of rows) {
    const kind = kindKey(row);
    const name = row.nameFor(ws.metadata.name);
    const child = state.children.find((c) => c.kind === row.kind && c.metadata.name === name);
    if (!child) {
      violations.push(`${kind}/${name} is missing`);
      continue;
    }
    const controller = (child.metadata.ownerReferences ?? []).find((ref: Json) => ref.controller);
    if (controller?.uid !== ws.metadata.uid) {
      violations.push(
        `${kind}/${name} is controlled by ${controller?.uid ?? 'nothing'}, not webservice uid ${ws.metadata.uid}`,
      );
    }
    if (child.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY_VALUE)
      violations.push(`${kind}/${name} lacks our label`);
  }
  return violations;
}

/** A converged workload runs one revision, which its status names and a ControllerRevision of its own records. */
function revisionViolations(ws: Json, state: ClusterState): string[] {
  if (!ws.spec.workload) return [];
  const at = `webservice/${ws.metadata.name}`;
  const { currentRevision, updateRevision } = ws.status ?? {};
  if (currentRevision === undefined || currentRevision !== updateRevision)
    return [`${at}: converged, but its status says revision ${currentRevision} runs and ${updateRevision} rolls out`];
  const recorded = state.children.some(
    (c) =>
      c.kind === 'ControllerRevision' &&
      c.revision === currentRevision &&
      (c.metadata.ownerReferences ?? []).some((ref: Json) => ref.controller && ref.uid === ws.metadata.uid),
  );
  return recorded ? [] : [`${at}: no ControllerRevision of its own records revision ${currentRevision}`];
}

/** status.replicas and ready are the Deployment's counts, and Ready only once its rollout is complete. */
function truthfulStatus(ws: Json, state: ClusterState): string[] {
  const at = `webservice/${ws.metadata.name}`;
  let desired = (ws.spec.replicas ?? 1) as number;
  if (!ws.spec.workload) {
    return ws.status?.replicas === desired ? [] : [`${at}: status.replicas ${ws.status?.replicas}, spec ${desired}`];
  }
  const deployment = state.children.find((c) => c.kind === 'Deployment' && c.metadata.name === ws.metadata.name);
  const s = deployment?.status ?? {};
  const readyPods = s.readyReplicas ?? 0;
  const violations: string[] = [];
  // With an autoscaler, it owns the Deployment's count, within its bounds (spec.replicas is
  // the floor when minReplicas is unset); until it has put the count there, nothing is settled.
  const autoscaling = ws.spec.workload.autoscaling as Json | undefined;
  if (autoscaling && deployment) {
    desired = (deployment.spec?.replicas ?? 1) as number;
    const floor = (autoscaling.minReplicas ?? ws.spec.replicas ?? 1) as number;
    if (desired < floor || desired > autoscaling.maxReplicas)
      violations.push(
        `${at}: Deployment replicas ${desired}, outside its autoscaler's ${floor} to ${autoscaling.maxReplicas}`,
      );
    // Unknown until the autoscaler has looked at its target and its metrics: not settled yet.
    const condition = (ws.status?.conditions ?? []).find((c: Json) => c.type === 'Autoscaling');
    if (condition?.status === 'Unknown')
      violations.push(`${at}: its autoscaler has not been evaluated yet (${condition.reason}: ${condition.message})`);
  }
  if (ws.status?.replicas !== readyPods)
    violations.push(`${at}: status.replicas ${ws.status?.replicas}, Deployment ready ${readyPods}`);
  if (ws.status?.ready !== `${readyPods}/${desired}`)
    violations.push(`${at}: status.ready ${ws.status?.ready}, Deployment ${readyPods}/${desired}`);
  const complete =
    deployment !== undefined &&
    (s.observedGeneration ?? 0) >= deployment.metadata.generation &&
    [s.updatedReplicas, s.availableReplicas, s.readyReplicas, s.replicas].every((n) => (n ?? 0) === desired);
  if (readyOf(ws)?.status === 'True' && !complete)
    violations.push(`${at}: Ready while the rollout is not complete: ${JSON.stringify(s)}`);
  return violations;
}

function orphans(state: ClusterState, live: Json[]): string[] {
  const uids = new Set(live.map((ws) => ws.metadata.uid));
  // The namespace's config key is ours and no WebService's: it outlives them all
  // (docs/change-safely.md, "No Secret leaks").
  const namespaceWide = (c: Json) => c.kind === 'Secret' && c.metadata.name === CONFIG_KEY_SECRET;
  return state.children
    .filter((c) => c.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE && !namespaceWide(c))
    .filter((c) => !(c.metadata.ownerReferences ?? []).some((ref: Json) => ref.controller && uids.has(ref.uid)))
    .map((c) => `${c.kind.toLowerCase()}/${c.metadata.name} carries our label but has no live owner`);
}

/** Foreign objects keep their resourceVersion, or their spec where a controller writes their status. */
function foreignViolations(state: ClusterState, world: Pick<World, 'foreign'>): string[] {
  const violations: string[] = [];
  for (const foreign of world.foreign.values()) {
    const now = state.children.find((c) => c.kind === kindOf(foreign.kind) && c.metadata.name === foreign.name);
    const at = `foreign ${foreign.kind}/${foreign.name}`;
    if (now?.metadata.uid !== foreign.uid) {
      violations.push(`${at} is gone`);
      continue;
    }
    if (now.status !== undefined) {
      // A controller writes its status (a Deployment, a budget, an autoscaler): its spec must not move.
      if (foreignContent(now) !== foreign.content)
        violations.push(`${at} changed: ${foreign.content} -> ${foreignContent(now)}`);
    } else if (now.metadata.resourceVersion !== foreign.resourceVersion) {
      violations.push(`${at}: resourceVersion ${foreign.resourceVersion} -> ${now.metadata.resourceVersion}`);
    }
    const ours = (now.metadata.managedFields ?? []).filter((f: Json) => String(f.manager).includes('webservice'));
    if (ours.length > 0) violations.push(`${at} has fields managed by ${ours.map((f: Json) => f.manager).join(', ')}`);
  }
  return violations;
}

/** What others added to a child of ours is still there, for as long as that object is. */
function markViolations(state: ClusterState, world: Pick<World, 'marks'>): string[] {
  const latest = new Map<string, World['marks'][number]>();
  for (const mark of world.marks) latest.set(`${mark.uid}/${mark.type}/${mark.key}`, mark);
  const violations: string[] = [];
  for (const mark of latest.values()) {
    const object = state.children.find((c) => c.metadata.uid === mark.uid);
    if (!object) continue;
    const web = (object.spec?.template?.spec?.containers ?? []).find((c: Json) => c.name === 'web');
    const found: Record<typeof mark.type, () => unknown> = {
      label: () => object.metadata.labels?.[mark.key],
      annotation: () => object.metadata.annotations?.[mark.key],
      env: () => (web?.env ?? []).find((e: Json) => e.name === mark.key)?.value,
      container: () => (object.spec?.template?.spec?.containers ?? []).find((c: Json) => c.name === mark.key)?.image,
      templateAnnotation: () => object.spec?.template?.metadata?.annotations?.[mark.key],
    };
    const value = found[mark.type]();
    if (value !== mark.value) {
      violations.push(
        `${mark.kind}/${mark.name}: the ${mark.type} ${mark.key}=${mark.value} that others added is ${value === undefined ? 'gone' : `now ${JSON.stringify(value)}`}`,
      );
    }
  }
  return violations;
}

/** Whether a field manager is one of ours: the controller's server-side applies, and the plugin's own writes. */
const isOurManager = (manager: unknown) => String(manager).includes('webservice');

/**
 * The part of an object that our field managers own, per its managedFields: the fields we
 * set, as the server stores them; everything others or the server set is left out.
 */
export function ownedFields(object: Json): Json {
  const owned: Json = {};
  for (const entry of object.metadata?.managedFields ?? []) {
    if (isOurManager(entry.manager) && entry.fieldsV1) mergeFieldSets(owned, entry.fieldsV1);
  }
  return Object.keys(owned).length === 0 ? {} : (project(object, owned) as Json);
}

function mergeFieldSets(into: Json, from: Json): void {
  for (const [key, sub] of Object.entries(from)) mergeFieldSets((into[key] ??= {}), sub as Json);
}

/** The value restricted to a fieldsV1 set: `f:name` a field, `k:{...}` a list item by its keys, `v:...` a set's value. */
function project(value: unknown, fields: Json): unknown {
  const keys = Object.keys(fields).filter((key) => key !== '.');
  if (keys.length === 0) return value;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const key = keys.find((k) => matchesListKey(k, item));
      if (key !== undefined) items.push(key.startsWith('v:') ? item : project(item, fields[key]));
    }
    return items;
  }
  if (typeof value !== 'object' || value === null) return value;
  const result: Json = {};
  for (const key of keys) {
    if (!key.startsWith('f:')) continue;
    const name = key.slice(2);
    if (name in (value as Json)) result[name] = project((value as Json)[name], fields[key]);
  }
  return result;
}

function matchesListKey(key: string, item: unknown): boolean {
  if (key.startsWith('v:')) return JSON.stringify(JSON.parse(key.slice(2))) === JSON.stringify(item);
  if (!key.startsWith('k:') || typeof item !== 'object' || item === null) return false;
  const wanted = JSON.parse(key.slice(2)) as Json;
  return Object.entries(wanted).every(([field, v]) => (item as Json)[field] === v);
}

/** JSON with sorted keys: equal values, equal text. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The content of the config objects the generated specs read (Secret db, ConfigMap features). */
function configContent(state: ClusterState): Json {
  const content: Json = {};
  for (const [kind, name] of CONFIG_OBJECTS) {
    const object = state.children.find((c) => c.kind === kind && c.metadata.name === name);
    content[`${kind}/${name}`] = object?.data ?? null;
  }
  return content;
}

const CONFIG_OBJECTS = [
  ['Secret', 'db'],
  ['ConfigMap', 'features'],
] as const;

/**
 * Reversibility (Acto): a WebService whose spec (and labels) is back to a value it had at an
 * earlier quiescence has the children it had then, compared as the server stores them, our
 * fields only. Remembers, per WebService (its uid), the children of each spec it converged on:
 * only a converged one (Ready for its generation); one that cannot converge (a missing
 * dependency, a cycle, a conflict) keeps whatever children it had, by design.
 */
export class Reversibility {
  private readonly seen = new Map<string, Map<string, { children: Json; at: number }>>();
  /** How often a spec came back and its children were compared. */
  compared = 0;

  /** At a quiescence that held every state property: the violations, and what it remembers now. */
  check(state: ClusterState, at: number): string[] {
    const violations: string[] = [];
    for (const ws of state.webServices) {
      const ready = readyOf(ws);
      if (ws.metadata.deletionTimestamp || ready?.status !== 'True') continue;
      if (ready.observedGeneration !== ws.metadata.generation) continue;
      const uid = ws.metadata.uid as string;
      // The config the pods read is part of what they run: the same spec over other content is another state.
      const key = stable({ spec: ws.spec, labels: ws.metadata.labels ?? {}, config: configContent(state) });
      const children: Json = {};
      for (const child of state.children) {
        // Revisions and snapshots are history, which grows: the Deployment says which the pods read.
        if (setRowOf(child as Child)) continue;
        if ((child.metadata.ownerReferences ?? []).some((ref: Json) => ref.controller && ref.uid === uid))
          children[`${String(child.kind).toLowerCase()}/${child.metadata.name}`] = ownedFields(child);
      }
      const specs = this.seen.get(uid) ?? new Map<string, { children: Json; at: number }>();
      this.seen.set(uid, specs);
      const before = specs.get(key);
      if (!before) {
        specs.set(key, { children, at });
        continue;
      }
      this.compared++;
      const names = [...new Set([...Object.keys(before.children), ...Object.keys(children)])].sort();
      const differ = names.filter((name) => stable(before.children[name]) !== stable(children[name]));
      for (const name of differ) {
        violations.push(
          `webservice/${ws.metadata.name}: its spec is back to the one it had at step ${before.at}, but ${name} ` +
            `is not as it was then: ${stable(before.children[name] ?? null).slice(0, 400)} vs ${stable(children[name] ?? null).slice(0, 400)}`,
        );
      }
    }
    return violations;
  }
}

/**
 * Status never moves backwards: over the samples of a watch, in order (World's lines: uid,
 * name, resourceVersion, status.observedGeneration, the conditions' types and their
 * observedGenerations, comma-separated; `<none>` where there is none), a WebService's
 * status.observedGeneration never decreases, nor does any condition's: a status written for
 * generation g is never replaced by one for an older generation.
 */
export function statusRegressions(samples: string[]): string[] {
  const highest = new Map<string, { value: number; rv: string }>();
  const violations: string[] = [];
  for (const line of samples) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 6) continue;
    const [uid, name, rv, observed, types, generations] = fields;
    const list = (text: string) => (text === '<none>' ? [] : text.split(','));
    const typeList = list(types);
    const seen: [string, string][] = [
      ['status.observedGeneration', observed],
      ...list(generations).map((g, i): [string, string] => [`condition ${typeList[i]}`, g]),
    ];
    for (const [what, text] of seen) {
      if (text === '<none>' || text === '') continue;
      const value = Number(text);
      const key = `${uid}/${what}`;
      const before = highest.get(key);
      if (before && value < before.value) {
        violations.push(
          `webservice/${name}: ${what} went back from ${before.value} (resourceVersion ${before.rv}) to ${value} (resourceVersion ${rv})`,
        );
      }
      if (!before || value > before.value) highest.set(key, { value, rv });
    }
  }
  return violations;
}

/** Polls until the namespace holds every state property, or the bound passes: the last violations, and how long. */
export async function quiesce(world: World, boundMs: number): Promise<{ violations: string[]; ms: number }> {
  const started = Date.now();
  for (;;) {
    const state = readState(world.ns);
    // Running canaries are sampled while they move on by themselves too.
    const sampled = await world.canaries.confirmed(world.ns);
    world.violations.push(...sampled.map((violation) => `while quiescing: ${violation}`));
    // A canary paused until promote waits for a person: quiescence is one who promotes it.
    for (const ws of state.webServices) {
      const rollout = ws.status?.rollout;
      if (rollout?.phase === 'Paused' && rollout.pauseEndsAt === undefined && !ws.metadata.deletionTimestamp)
        world.canaryRequest(['promote', ws.metadata.name, '--full']);
    }
    const violations = stateViolations(state, world);
    // The plugin's own pass reads the config the pods read, which the oracles' pass does not.
    if (violations.length === 0) violations.push(...planViolations(world.ns, state, world));
    if (violations.length === 0 || Date.now() - started > boundMs) return { violations, ms: Date.now() - started };
    await sleep(1000);
  }
}

/**
 * `plan --all`, as a person would run it: every WebService that can converge has nothing to do,
 * the Secrets and ConfigMaps its pods read included (their digests, which only the plugin has
 * the key to).
 */
function planViolations(ns: string, state: ClusterState, world: Pick<World, 'foreign'>): string[] {
  const result = run(PLUGIN, ['plan', '--all', '-n', ns, '-o', 'json']);
  let items: Json[];
  try {
    items = (JSON.parse(result.stdout) as { items: Json[] }).items;
  } catch {
    return [`plan --all did not print its decisions: ${result.stderr.trim()}`];
  }
  const blocked = blockers(state, world);
  return items
    .filter((d) => blocked.get(d.name) === null && d.action !== 'noop')
    .map((d) => `webservice/${d.name}: plan, which reads its config, would ${d.action}: ${d.reason}`);
}

/**
 * The steady state: once the plugin has been quiet for a moment, it makes no mutating
 * request at all (Events included) over the window. Returns those it made.
 */
export async function steadyStateWrites(ns: string, windowMs: number, boundMs: number): Promise<string[]> {
  const audit = new AuditWindow(ns);
  const writes = async (ms: number) => {
    audit.mark();
    await sleep(ms);
    return (await audit.events()).filter((e) => fromPlugin(e) && MUTATING.has(e.verb)).map(describeEvent);
  };
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline && (await writes(3000)).length > 0) {
    // still settling
  }
  return writes(windowMs);
}

/** The controller never exits by itself, and logs no programming error. */
export function crashViolations(world: World): string[] {
  const violations: string[] = [];
  for (const [i, run] of world.controllers.entries()) {
    const proc = run.process;
    if (proc.exit && !run.endedBy)
      violations.push(`controller #${i} exited by itself: ${JSON.stringify(proc.exit)}: ${proc.stderr.slice(-1000)}`);
    const unstructured = proc.stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'));
    if (unstructured.length > 0)
      violations.push(`controller #${i} wrote outside its log: ${unstructured.slice(0, 5).join(' | ')}`);
    for (const entry of proc.entries) {
      if (entry.level === 'error' && PROGRAMMING_ERROR.test(JSON.stringify(entry))) {
        violations.push(`controller #${i} logged a programming error: ${JSON.stringify(entry)}`);
      }
    }
  }
  for (const [i, apply] of world.applies.entries()) {
    if (/\n\s+at /.test(apply.stderr))
      violations.push(`apply --all #${i} printed a stack trace: ${apply.stderr.slice(0, 1000)}`);
  }
  return violations;
}

const PROGRAMMING_ERROR =
  /TypeError|ReferenceError|RangeError|SyntaxError|Cannot read prop|is not a function|is not iterable/;

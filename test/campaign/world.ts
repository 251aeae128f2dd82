// Carries out a campaign's steps on the real control plane, with `kubectl webservice run` as
// the controller, and remembers the facts the oracles need that the cluster alone cannot say:
// which objects are someone else's (made by a `foreign` step), what others added to our
// children (labels, env, a container...), every controller process and who ended it, and the
// refusals the API server owed us. A step that no longer applies (an edit of something a
// shrunk history never made) is skipped and counted, never an error.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CHILD_KINDS, NAMED_KINDS } from '../../src/core/kinds';
import { API_VERSION, FINALIZER, KIND, MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../src/core/model';
import { Background, PLUGIN, ROOT, createNamespace, run, sleep, type RunResult } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { type MetricsApiStub, startMetricsApi } from '../support/metrics-api';
import { podFieldsPrerequisites } from '../support/pod-fields';
import type { ProxyCounts } from '../../harness/proxy-kubeconfig';
import { WatchProxy, type Perturbation } from '../support/proxy';
import { CanarySamples } from './canary-oracle';
import { METRIC_VALUE, describeStep, type ChildKind, type ConfigObject, type Step, type WritePoint } from './steps';

type Json = Record<string, any>;

/**
 * A foreign object a step made: it must keep its resourceVersion, or, where a controller
 * writes its status (a Deployment, a budget, an autoscaler), its spec.
 */
export interface ForeignObject {
  kind: ChildKind;
  name: string;
  uid: string;
  resourceVersion: string;
  /** What must not move where a controller writes the status: its spec (foreignContent). */
  content: string;
}

/**
 * What of a foreign object must not move where its controller writes the rest (status, and a
 * Deployment's revision annotation): its spec. A write of ours anywhere shows in managedFields.
 */
export function foreignContent(object: Json): string {
  // Keys sorted: kubectl's create and get print the same object in different orders.
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted((value as Json)[key])]),
          )
        : value;
  return JSON.stringify(sorted(object.spec ?? null));
}

/** Something others added to a child of ours: it stays for as long as that object (its uid) does. */
export interface Mark {
  kind: ChildKind;
  name: string;
  uid: string;
  type: 'label' | 'annotation' | 'env' | 'container' | 'templateAnnotation';
  key: string;
  value: string;
}

export interface ControllerRun {
  process: ControllerProcess;
  /** Set when the campaign ended it (a kill step, a stop at the end). */
  endedBy?: string;
}

const FOREIGN_KEY = 'campaign.example.com/foreign';
/** The label a config step sets: a change of metadata only, which must roll no pod. */
const CONFIG_LABEL = 'campaign.example.com/touched';
/** The controller's retry delays are capped low: a conflict whose cause goes away is retried within it. */
const BACKOFF_MAX = '20s';

/**
 * One WebService's status as the watch sees it, one line each (custom columns: a jsonpath
 * cannot range over conditions a new object does not have yet): uid, name, resourceVersion,
 * status.observedGeneration, the conditions' types and their observedGenerations.
 */
const STATUS_SAMPLE = [
  'UID:.metadata.uid',
  'NAME:.metadata.name',
  'RV:.metadata.resourceVersion',
  'OBSERVED:.status.observedGeneration',
  'TYPES:.status.conditions[*].type',
  'GENERATIONS:.status.conditions[*].observedGeneration',
].join(',');

/** A hand edit of one of our fields of a child (not a Deployment: kubectl set image does that). */
function editOf(kind: ChildKind, object: Json, value: string): Json {
  const n = Number(value.slice(1));
  switch (kind) {
    case 'poddisruptionbudget':
      // The bound the spec set, to another value (setting the other one too is refused).
      return object.spec.minAvailable !== undefined
        ? { spec: { minAvailable: n % 5 } }
        : { spec: { maxUnavailable: 1 + (n % 5) } };
    case 'horizontalpodautoscaler':
      return { spec: { maxReplicas: 10 + (n % 5) } };
    case 'service':
      return { spec: { selector: { 'app.kubernetes.io/name': `tampered-${value}` } } };
    default: // the lab's ConfigMap
      return { data: { image: `tampered-${value}` } };
  }
}

/**
 * A hand edit of the key of an entry of ours in a keyed list, in place (a JSON patch, as
 * `kubectl patch --type=json` or `kubectl edit` makes it): the Service's port; the container's
 * port or, for an even value, its first env var's name, where it has them. Null when the child
 * has no such entry. The test makes sure that the entry is still the one the patch read.
 */
function keyEdit(kind: ChildKind, object: Json, value: string): Json[] | null {
  const n = Number(value.slice(1));
  const moved = (path: string, from: unknown, to: unknown) => [
    { op: 'test', path, value: from },
    { op: 'replace', path, value: to },
  ];
  if (kind === 'service') {
    const port = object.spec.ports?.[0]?.port as number | undefined;
    return port === undefined ? null : moved('/spec/ports/0/port', port, 9000 + n);
  }
  const containers = (object.spec.template.spec.containers ?? []) as Json[];
  const at = containers.findIndex((c) => c.name === 'web');
  if (at < 0) return null;
  const container = `/spec/template/spec/containers/${at}`;
  const env = containers[at].env?.[0]?.name as string | undefined;
  const port = containers[at].ports?.[0]?.containerPort as number | undefined;
  if (env !== undefined && (n % 2 === 0 || port === undefined))
    return moved(`${container}/env/0/name`, env, `MOVED_${env}`);
  return port === undefined ? null : moved(`${container}/ports/0/containerPort`, port, 9000 + n);
}

/** A child's name, as the kind table gives it. */
function childName(kind: ChildKind, name: string): string {
  const row = NAMED_KINDS.find((r) => r.kind.toLowerCase() === kind);
  if (!row) throw new Error(`no kind ${kind} in the kind table`);
  return row.nameFor(name);
}

export class World {
  readonly ns: string;
  readonly foreign = new Map<string, ForeignObject>();
  readonly marks: Mark[] = [];
  readonly controllers: ControllerRun[] = [];
  readonly applies: Background[] = [];
  /** Violations seen while stepping: an invalid change the server took, a valid one it refused. */
  readonly violations: string[] = [];
  /** Per step kind: how often it ran, and how often it did not apply and was skipped. */
  readonly counts: Record<string, { ran: number; skipped: number }> = {};
  /** How often each perturbation fired (a killInWrite whose write came, or did not). */
  readonly fired: Record<string, number> = {};
  /** The WebServices' statuses, in the order a watch saw them (statusRegressions reads them). */
  readonly statusSamples: string[] = [];
  /** The running canaries' claims, sampled after each step (canary-oracle.ts). */
  readonly canaries = new CanarySamples();
  private kubeconfig: string;
  private readonly trigger: string;
  private proxy: WatchProxy | null = null;
  private statusWatch: Background | null = null;
  private metrics: MetricsApiStub | null = null;
  private stopped = false;

  /** With a perturbation, the controller sees the API server through the watch proxy. */
  constructor(
    prefix = 'campaign',
    private readonly perturbation?: Perturbation,
  ) {
    this.ns = createNamespace(prefix);
    podFieldsPrerequisites(this.ns);
    this.kubeconfig = controllerKubeconfig();
    this.trigger = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'campaign-')), 'stop');
    this.watchStatus();
  }

  /** Samples every status write through a watch, for the whole run; a watch the server ends is started again. */
  private watchStatus(): void {
    if (this.stopped) return;
    const args = [
      'get',
      'webservices',
      '-n',
      this.ns,
      '--watch',
      '--no-headers',
      '-o',
      `custom-columns=${STATUS_SAMPLE}`,
    ];
    const watch = new Background('kubectl', args, { onStdoutLine: (line) => this.statusSamples.push(line) });
    this.statusWatch = watch;
    void watch.exited.then(async (exit) => {
      if (this.stopped) return;
      // Its end is the server's (a watch's timeout): a refusal is the campaign's own mistake.
      if (exit.code !== 0) this.violations.push(`the status watch failed: ${watch.stderr.trim().slice(0, 500)}`);
      else this.watchStatus();
    });
  }

  /** How often the proxy's perturbations fired, by kind; {} without a proxy. */
  proxyCounts(): Partial<ProxyCounts> {
    return this.proxy?.counts() ?? {};
  }

  get controller(): ControllerProcess | null {
    const last = this.controllers.at(-1);
    return last && !last.process.exit ? last.process : null;
  }

  async startController(): Promise<boolean> {
    if (this.controller) return false;
    if (this.perturbation && !this.proxy) {
      this.proxy = await WatchProxy.start(this.kubeconfig, this.perturbation);
      this.kubeconfig = this.proxy.kubeconfig;
    }
    // The canaries' checks ask a metrics API that always answers METRIC_VALUE.
    if (!this.metrics) {
      this.metrics = await startMetricsApi();
      this.metrics.answer(String(METRIC_VALUE));
    }
    const started = new ControllerProcess([
      '-n',
      this.ns,
      '--kubeconfig',
      this.kubeconfig,
      '--backoff-max',
      BACKOFF_MAX,
      '--prometheus-url',
      this.metrics.url,
    ]);
    this.controllers.push({ process: started });
    await started.waitForLog(/controller working/, 60_000);
    return true;
  }

  async killController(why: string): Promise<boolean> {
    const last = this.controllers.at(-1);
    if (!last || last.process.exit) return false;
    last.endedBy = why;
    last.process.signal('SIGKILL');
    await last.process.exited;
    return true;
  }

  /** At the end: SIGTERM the controller, wait for the background applies. */
  async stop(): Promise<void> {
    const last = this.controllers.at(-1);
    if (last && !last.process.exit) {
      last.endedBy = 'the end of the campaign';
      await last.process.stop();
    }
    await this.settleApplies();
    await this.proxy?.stop();
    this.metrics?.stop();
    this.stopped = true;
    this.statusWatch?.signal('SIGTERM');
    await this.statusWatch?.exited;
  }

  async settleApplies(timeoutMs = 120_000): Promise<void> {
    for (const apply of this.applies) {
      if (!apply.exit) await Promise.race([apply.exited, sleep(timeoutMs)]);
      apply.signal('SIGKILL');
    }
  }

  async step(step: Step): Promise<void> {
    const ran = await this.carryOut(step);
    const count = (this.counts[step.step] ??= { ran: 0, skipped: 0 });
    if (ran) count.ran++;
    else count.skipped++;
    // A tamper with a stable Deployment changes its template by someone else's hand.
    if (step.step === 'tamper' && step.child === 'deployment') this.canaries.forget();
    const found = await this.canaries.confirmed(this.ns);
    this.violations.push(...found.map((violation) => `after ${describeStep(step)}: ${violation}`));
  }

  /** Carries out one step; false when it did not apply. */
  private async carryOut(step: Step): Promise<boolean> {
    switch (step.step) {
      case 'create':
        return this.create(step.name, step.spec, step.labels, step.finalizer);
      case 'setSpec':
        return this.setSpec(step.name, step.spec);
      case 'delete':
        return this.kubectlOk(['delete', 'webservice', step.name, '--wait=false']);
      case 'recreate':
        if (!this.kubectlOk(['delete', 'webservice', step.name, '--wait=true', '--timeout=20s'])) return false;
        return this.create(step.name, step.spec);
      case 'tamper':
        return this.tamper(step);
      case 'foreign':
        return this.makeForeign(step.child, step.name);
      case 'unforeign':
        return this.removeForeign(step.child, step.name);
      case 'scale':
        return step.via === 'kubectl'
          ? this.kubectlOk(['scale', 'webservice', step.name, `--replicas=${step.replicas}`])
          : this.kubectlOk([
              'patch',
              'webservice',
              step.name,
              '--subresource=scale',
              '--type=merge',
              '-p',
              JSON.stringify({ spec: { replicas: step.replicas } }),
            ]);
      case 'kill':
        return this.killController('a kill step');
      case 'killInWrite':
        return this.killInWrite(step.name, step.spec, step.at);
      case 'start':
        return this.startController();
      case 'applyAll':
        this.applies.push(new Background(PLUGIN, ['apply', '--all', '-n', this.ns, '-o', 'json']));
        return true;
      case 'invalid':
        return this.invalid(step.name, step.patch, step.what);
      case 'invalidCreate':
        return this.invalidCreate(step.name, step.spec, step.what);
      case 'pause':
        await sleep(step.ms);
        return true;
      case 'config':
        return this.changeConfig(step.object, step.change, step.value);
      case 'rollback':
        return this.rollback(step.name);
      case 'promote':
        return this.canaryRequest(['promote', step.name, ...(step.full ? ['--full'] : [])]);
      case 'abort':
        return this.canaryRequest(['abort', step.name]);
      case 'check':
        // The runner checks the oracles (campaign.ts): here, only what quiescence needs.
        await this.startController();
        await this.settleApplies();
        return true;
    }
  }

  private kubectl(args: string[], input?: string): RunResult {
    return run('kubectl', [...args, '-n', this.ns], { input });
  }

  /** A kubectl command that may not apply (NotFound, AlreadyExists); any other failure is a violation. */
  private kubectlOk(args: string[], input?: string): boolean {
    const result = this.kubectl(args, input);
    if (result.status === 0) return true;
    if (!/NotFound|not found|AlreadyExists|already exists|timed out/.test(result.stderr)) {
      this.violations.push(`kubectl ${args.join(' ')} failed: ${result.stderr.trim()}`);
    }
    return false;
  }

  get(kind: string, name: string): Json | null {
    const result = this.kubectl(['get', kind, name, '-o', 'json']);
    return result.status === 0 ? (JSON.parse(result.stdout) as Json) : null;
  }

  private create(name: string, spec: Json, labels?: Record<string, string>, finalizer?: boolean): boolean {
    const metadata: Json = { name };
    if (labels) metadata.labels = labels;
    if (finalizer) metadata.finalizers = [FINALIZER];
    return this.kubectlOk(
      ['create', '-f', '-'],
      JSON.stringify({ apiVersion: API_VERSION, kind: KIND, metadata, spec }),
    );
  }

  private setSpec(name: string, spec: Json): boolean {
    const patch = JSON.stringify([{ op: 'replace', path: '/spec', value: spec }]);
    return this.kubectlOk(['patch', 'webservice', name, '--type=json', '-p', patch]);
  }

  /**
   * The child of ours a tamper step works on; null if there is none (or it is someone
   * else's). A running controller is given a moment to make it.
   */
  private async ours(kind: ChildKind, name: string): Promise<Json | null> {
    const deadline = Date.now() + (this.controller && this.get('webservice', name) ? 5_000 : 0);
    for (;;) {
      const object = this.get(kind, childName(kind, name));
      if (object?.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE) return object;
      if (Date.now() >= deadline) return null;
      await sleep(250);
    }
  }

  private async tamper(step: Extract<Step, { step: 'tamper' }>): Promise<boolean> {
    const { child: kind, how, value } = step;
    const name = childName(kind, step.name);
    const object = await this.ours(kind, step.name);
    if (!object) return false;
    const uid = object.metadata.uid as string;
    const ref = `${kind}/${name}`;
    const mark = (type: Mark['type'], key: string, markValue: string) =>
      this.marks.push({ kind, name, uid, type, key, value: markValue });
    switch (how) {
      case 'edit':
        if (kind === 'deployment') return this.kubectlOk(['set', 'image', ref, `web=tampered:${value}`]);
        return this.kubectlOk(['patch', ref, '--type=merge', '-p', JSON.stringify(editOf(kind, object, value))]);
      case 'delete':
        return this.kubectlOk(['delete', ref, '--wait=false']);
      case 'label':
        if (!this.kubectlOk(['label', ref, `${FOREIGN_KEY}=${value}`, '--overwrite'])) return false;
        mark('label', FOREIGN_KEY, value);
        return true;
      case 'annotation':
        if (!this.kubectlOk(['annotate', ref, `${FOREIGN_KEY}=${value}`, '--overwrite'])) return false;
        mark('annotation', FOREIGN_KEY, value);
        return true;
      case 'env': {
        const key = `FOREIGN_${value.toUpperCase()}`;
        if (!this.kubectlOk(['set', 'env', ref, '-c', 'web', `${key}=${value}`])) return false;
        mark('env', key, value);
        return true;
      }
      case 'container': {
        const container = { name: `sidecar-${value}`, image: 'busybox:1.36' };
        const patch = { spec: { template: { spec: { containers: [container] } } } };
        if (!this.kubectlOk(['patch', ref, '--type=strategic', '-p', JSON.stringify(patch)])) return false;
        mark('container', container.name, container.image);
        return true;
      }
      case 'restart': {
        if (!this.kubectlOk(['rollout', 'restart', ref])) return false;
        const at = this.get(kind, name)?.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'];
        if (typeof at === 'string') mark('templateAnnotation', 'kubectl.kubernetes.io/restartedAt', at);
        return true;
      }
      case 'scale':
        return this.kubectlOk(['scale', ref, `--replicas=${4 + (Number(value.slice(1)) % 2)}`]);
      case 'key': {
        const patch = keyEdit(kind, object, value);
        return patch !== null && this.kubectlOk(['patch', ref, '--type=json', '-p', JSON.stringify(patch)]);
      }
    }
  }

  private makeForeign(kind: ChildKind, name: string): boolean {
    const objectName = childName(kind, name);
    // Someone else's: selecting and aiming at nothing of ours.
    const theirs = { 'app.kubernetes.io/name': 'someone-else' };
    const args: Record<ChildKind, string[]> = {
      configmap: ['create', 'configmap', objectName, '--from-literal=owner=someone-else'],
      deployment: ['create', 'deployment', objectName, '--image=busybox:1.36', '--replicas=0'],
      service: ['create', 'service', 'clusterip', objectName, '--tcp=80:80'],
      poddisruptionbudget: [
        'create',
        'poddisruptionbudget',
        objectName,
        '--selector=app.kubernetes.io/name=someone-else',
        '--max-unavailable=1',
      ],
      horizontalpodautoscaler: ['create', '-f', '-'],
    };
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: objectName, labels: theirs },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'someone-else' }, maxReplicas: 2 },
    };
    const result = this.kubectl(
      [...args[kind], '-o', 'json'],
      kind === 'horizontalpodautoscaler' ? JSON.stringify(hpa) : undefined,
    );
    if (result.status !== 0) {
      if (!/AlreadyExists|already exists/.test(result.stderr))
        this.violations.push(`foreign ${kind}: ${result.stderr}`);
      return false;
    }
    const made = JSON.parse(result.stdout) as Json;
    this.foreign.set(`${kind}/${objectName}`, {
      kind,
      name: objectName,
      uid: made.metadata.uid,
      resourceVersion: made.metadata.resourceVersion,
      content: foreignContent(made),
    });
    return true;
  }

  private removeForeign(kind: ChildKind, name: string): boolean {
    const key = `${kind}/${childName(kind, name)}`;
    const known = this.foreign.get(key);
    if (!known || this.get(kind, known.name)?.metadata.uid !== known.uid) return false;
    this.foreign.delete(key);
    return this.kubectlOk(['delete', key, '--wait=true']);
  }

  private async killInWrite(name: string, spec: Json, at: WritePoint): Promise<boolean> {
    const ctl = this.controller;
    if (!ctl || !this.get('webservice', name)) return false;
    const ns = this.ns;
    const match: Record<WritePoint, string> = {
      child: `^(POST|PATCH|PUT|DELETE) \\S+/namespaces/${ns}/(${CHILD_KINDS.map((row) => row.resource).join('|')})`,
      status: `^(PATCH|PUT) \\S+/namespaces/${ns}/webservices/${name}/status`,
      event: `^POST \\S+/namespaces/${ns}/events`,
    };
    // The stop-in-write hook reads its pattern once, at start: a controller for this point.
    await this.killController('killInWrite: restarted with the hook armed');
    const armed = new ControllerProcess(['-n', ns, '--kubeconfig', this.kubeconfig, '--backoff-max', BACKOFF_MAX], {
      NODE_OPTIONS: `--require ${path.join(ROOT, 'test/support/stop-in-write.cjs')}`,
      STOP_IN_WRITE: this.trigger,
      STOP_IN_WRITE_MATCH: match[at],
    });
    this.controllers.push({ process: armed });
    await armed.waitForLog(/controller working/, 60_000);
    fs.writeFileSync(this.trigger, '');
    try {
      if (!this.setSpec(name, spec)) return false;
      const stopped = await stoppedWithin(armed.pid, 10_000);
      this.fired[`killInWrite:${at}`] = (this.fired[`killInWrite:${at}`] ?? 0) + (stopped ? 1 : 0);
      this.fired[`killInWrite:${at}:not-reached`] =
        (this.fired[`killInWrite:${at}:not-reached`] ?? 0) + (stopped ? 0 : 1);
    } finally {
      fs.rmSync(this.trigger, { force: true });
      await this.killController(`killInWrite (${at})`);
    }
    return true;
  }

  private invalid(name: string, patch: Json[], what: string): boolean {
    const before = this.get('webservice', name);
    if (!before) return false;
    const result = this.kubectl(['patch', 'webservice', name, '--type=json', '-p', JSON.stringify(patch)]);
    if (result.status === 0) {
      this.violations.push(`the server took an invalid edit of webservice/${name} (${what})`);
      return true;
    }
    if (/NotFound/.test(result.stderr)) return false;
    const after = this.get('webservice', name);
    if (after && after.metadata.resourceVersion !== before.metadata.resourceVersion) {
      // Someone else may have written it meanwhile (the controller's status): the spec must not have moved.
      if (
        JSON.stringify(after.spec) !== JSON.stringify(before.spec) &&
        after.metadata.generation !== before.metadata.generation
      ) {
        this.violations.push(`a refused edit of webservice/${name} (${what}) changed its spec`);
      }
    }
    return true;
  }

  /** A new value in the config object's one key, or a label on it: a change of content, or of metadata only. */
  private changeConfig(object: ConfigObject, change: 'content' | 'label', value: string): boolean {
    if (change === 'label') return this.kubectlOk(['label', object, `${CONFIG_LABEL}=${value}`, '--overwrite']);
    const data = object === 'secret/db' ? { stringData: { password: value } } : { data: { list: value } };
    return this.kubectlOk(['patch', object, '--type=merge', '-p', JSON.stringify(data)]);
  }

  /**
   * The plugin's rollback, racing the controller. It does not apply when the WebService is gone,
   * has no workload or no earlier revision, or was written in between (a conflict): the plugin
   * says so and writes nothing. Any other failure is a violation.
   */
  private rollback(name: string): boolean {
    const result = run(PLUGIN, ['rollback', name, '-n', this.ns]);
    if (result.status === 0) return true;
    if (!/not found|NotFound|has no spec\.workload|has no revision before|modified|Conflict/.test(result.stderr))
      this.violations.push(`rollback ${name} failed: ${result.stderr.trim()}`);
    return false;
  }

  /**
   * The plugin's promote or abort, racing the controller. It does not apply when no canary runs
   * (none yet, completed, aborted; the WebService gone), or past its steps: the plugin says so
   * and writes nothing. Any other failure is a violation.
   */
  canaryRequest(args: string[]): boolean {
    const result = run(PLUGIN, [...args, '-n', this.ns]);
    if (result.status === 0) return true;
    if (!/not found|NotFound|has no canary running|is past its steps|modified|Conflict/.test(result.stderr))
      this.violations.push(`${args.join(' ')} failed: ${result.stderr.trim()}`);
    return false;
  }

  private invalidCreate(name: string, spec: Json, what: string): boolean {
    if (this.get('webservice', name)) return false;
    const result = this.kubectl(
      ['create', '-f', '-'],
      JSON.stringify({ apiVersion: API_VERSION, kind: KIND, metadata: { name }, spec }),
    );
    if (result.status === 0) {
      this.violations.push(`the server took an invalid webservice/${name} (${what})`);
      this.kubectl(['delete', 'webservice', name, '--wait=false']);
      return true;
    }
    if (/AlreadyExists/.test(result.stderr)) return false;
    if (this.get('webservice', name)) this.violations.push(`a refused create of webservice/${name} (${what}) made it`);
    return true;
  }
}

/** Whether the process is stopped (SIGSTOP: state T) within the time. */
async function stoppedWithin(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (/^\d+ \(.*\) T /.test(stat)) return true;
    } catch {
      return false;
    }
    await sleep(50);
  }
  return false;
}

// The seeded generator of campaign histories. Pure: a seed and a step count in, a list of steps
// out, the same list every time. A small model of what the steps have made so far (which
// WebServices exist, with which spec; which names carry a foreign object; whether the
// controller runs) lets each step be one that makes sense now: an edit of something that
// exists, a foreign object on a name nobody uses yet. The model says nothing about what the
// controller should do: the oracles read that from the cluster at the end.
import { NAMED_KINDS } from '../../src/core/kinds';
import type { Json, WebService } from '../../src/core/model';
import { NEVER_READY_IMAGE } from '../support/faulty-images';
import { EVERY_POD_FIELD, POD_PRIORITY_CLASS } from '../support/pod-fields';
import { Random } from './random';
import { METRIC_VALUE, type ChildKind, type Step, type Tamper } from './steps';

/** The WebServices' names: few, so that steps meet (dependencies, recreations, foreign objects). */
export const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo'] as const;

interface Model {
  live: Map<string, Json>;
  /** Each live WebService's specs since it was made, oldest first: what a revert goes back to. */
  past: Map<string, Json[]>;
  foreign: Set<string>;
  controllerUp: boolean;
  /** Steps left until the controller is started again, while it is down. */
  startIn: number;
}

export function generate(seed: number, steps: number): Step[] {
  const rng = new Random(seed);
  const model: Model = { live: new Map(), past: new Map(), foreign: new Set(), controllerUp: true, startIn: 0 };
  const history: Step[] = [];
  while (history.length < steps) {
    if (!model.controllerUp && model.startIn-- <= 0) {
      history.push({ step: 'start' });
      model.controllerUp = true;
      continue;
    }
    const step = nextStep(rng, model);
    if (step === null) continue;
    history.push(step);
    track(model, step, rng);
  }
  return history;
}

/** How the model follows a step. */
function track(model: Model, step: Step, rng: Random): void {
  switch (step.step) {
    case 'create':
    case 'recreate':
      model.live.set(step.name, step.spec);
      model.past.set(step.name, [step.spec]);
      break;
    case 'setSpec':
    case 'killInWrite':
      model.live.set(step.name, step.spec);
      model.past.get(step.name)?.push(step.spec);
      break;
    case 'delete':
      model.live.delete(step.name);
      model.past.delete(step.name);
      break;
    case 'scale': {
      const spec = { ...model.live.get(step.name), replicas: step.replicas };
      model.live.set(step.name, spec);
      model.past.get(step.name)?.push(spec);
      break;
    }
    case 'foreign':
      model.foreign.add(`${step.child}/${step.name}`);
      break;
    case 'unforeign':
      model.foreign.delete(`${step.child}/${step.name}`);
      break;
    case 'start':
    case 'check':
      model.controllerUp = true;
      break;
    case 'kill':
    case 'tamper':
    case 'config':
    case 'rollback':
    case 'promote':
    case 'abort':
    case 'applyAll':
    case 'invalid':
    case 'invalidCreate':
    case 'pause':
      // What a rollback makes of the spec is the cluster's to say: the next edit replaces it whole.
      break;
  }
  if (step.step === 'kill' || step.step === 'killInWrite') {
    model.controllerUp = false;
    model.startIn = rng.int(0, 3);
  }
}

type Maker = () => Step | null;

/** The kinds a foreign object may be made of, on a name a child of that kind would have. */
const FOREIGN_KINDS: readonly ChildKind[] = [
  'configmap',
  'deployment',
  'service',
  'poddisruptionbudget',
  'horizontalpodautoscaler',
];

function nextStep(rng: Random, model: Model): Step | null {
  const live = [...model.live.keys()];
  const free = NAMES.filter((name) => !model.live.has(name));
  const revertible = live.filter((name) => earlierSpecs(model, name).length > 0);
  const canaries = live.filter((name) => model.live.get(name)?.rollout !== undefined);
  const choices: [number, Maker][] = [
    [free.length > 0 ? 6 : 0, () => create(rng, rng.pick(free))],
    [live.length > 0 ? 8 : 0, () => edit(rng, rng.pick(live), model)],
    [live.length > 0 ? 3 : 0, () => dependsOnEdit(rng, rng.pick(live), model)],
    [revertible.length > 0 ? 3 : 0, () => revert(rng, rng.pick(revertible), model)],
    [live.length > 0 ? 2 : 0, () => ({ step: 'delete', name: rng.pick(live) })],
    [live.length > 0 ? 2 : 0, () => recreate(rng, rng.pick(live))],
    [live.length > 0 ? 7 : 0, () => tamper(rng, rng.pick(live), model)],
    [free.length > 0 ? 2 : 0, () => foreign(rng, rng.pick(free), model)],
    [model.foreign.size > 0 ? 2 : 0, () => unforeign(rng, model)],
    [live.length > 0 ? 3 : 0, () => scale(rng, rng.pick(live))],
    [model.controllerUp ? 2 : 0, () => ({ step: 'kill' })],
    [model.controllerUp && live.length > 0 ? 1 : 0, () => killInWrite(rng, rng.pick(live), model)],
    [1, () => ({ step: 'applyAll' })],
    [live.length > 0 ? 2 : 0, () => invalid(rng, rng.pick(live))],
    [1, () => invalidCreate(rng, free)],
    [3, () => ({ step: 'pause', ms: rng.pick([200, 500, 1000, 2000]) })],
    [3, () => configChange(rng)],
    [live.length > 0 ? 2 : 0, () => ({ step: 'rollback', name: rng.pick(live) })],
    [canaries.length > 0 ? 3 : 0, () => ({ step: 'promote', name: rng.pick(canaries), full: rng.chance(0.3) })],
    [canaries.length > 0 ? 1 : 0, () => ({ step: 'abort', name: rng.pick(canaries) })],
    [2, () => ({ step: 'check' })],
  ];
  return rng.weighted(choices)();
}

function create(rng: Random, name: string): Step {
  const step: Step = { step: 'create', name, spec: randomSpec(rng, name) };
  if (rng.chance(0.3)) step.labels = { team: rng.pick(['payments', 'search', 'web']) };
  if (rng.chance(0.2)) step.finalizer = true;
  return step;
}

function configChange(rng: Random): Step {
  return {
    step: 'config',
    object: rng.pick(['secret/db', 'configmap/features'] as const),
    change: rng.chance(0.7) ? 'content' : 'label',
    value: `v${rng.int(1, 1000)}`,
  };
}

function recreate(rng: Random, name: string): Step {
  return { step: 'recreate', name, spec: randomSpec(rng, name) };
}

/** An edit of one field or several, or an optional section removed. */
function edit(rng: Random, name: string, model: Model): Step {
  const spec: Json = structuredClone(model.live.get(name)!);
  const what = rng.weighted<() => string>([
    [3, () => ((spec.image = rng.pick(IMAGES)), 'image')],
    // A canary of an image whose pods never get ready: it aborts by itself at its deadline.
    [
      spec.rollout !== undefined ? 1 : 0,
      () => {
        spec.image = NEVER_READY_IMAGE;
        (spec.rollout as { canary: Json }).canary.readyDeadlineSeconds = 10;
        return 'an image that never gets ready, behind a canary';
      },
    ],
    [2, () => ((spec.replicas = rng.int(0, 3)), 'replicas')],
    [1, () => ((spec.tier = rng.pick(TIERS)), 'tier')],
    [1, () => (delete spec.tier, delete spec.replicas, 'tier and replicas removed')],
    [3, () => ((spec.workload = randomWorkload(rng)), 'workload replaced')],
    [
      3,
      () => {
        const workload = (spec.workload ?? {}) as Json;
        const field = rng.pick(Object.keys(WORKLOAD_FIELDS));
        workload[field] = WORKLOAD_FIELDS[field](rng);
        spec.workload = workload;
        return `workload.${field}`;
      },
    ],
    [
      2,
      () => {
        const workload = spec.workload as Json | undefined;
        const fields = Object.keys(workload ?? {});
        if (!workload || fields.length === 0) return (delete spec.workload, 'workload removed');
        const field = rng.pick(fields);
        delete workload[field];
        return `workload.${field} removed`;
      },
    ],
    [1, () => (delete spec.workload, 'workload removed')],
    [
      2,
      () => {
        if (spec.rollout !== undefined && rng.chance(0.4)) return (delete spec.rollout, 'rollout removed');
        spec.workload ??= randomWorkload(rng);
        spec.rollout = randomRollout(rng);
        return 'rollout';
      },
    ],
    [
      2,
      () => {
        if (spec.expose !== undefined && rng.chance(0.4)) return (delete spec.expose, 'expose removed');
        const workload = (spec.workload ?? {}) as Json;
        workload.port ??= WORKLOAD_FIELDS.port(rng);
        spec.workload = workload;
        spec.expose = randomExpose(rng);
        return 'expose';
      },
    ],
    [
      1,
      () => {
        spec.image = rng.pick(IMAGES);
        spec.replicas = rng.int(0, 3);
        spec.workload = randomWorkload(rng);
        return 'image, replicas and workload';
      },
    ],
  ])();
  const tidied = withoutStrandedRollout(spec, withoutStrandedMounts(spec, withoutStrandedExpose(spec, what)));
  return { step: 'setSpec', name, spec, what: tidied };
}

/** The specs a WebService had before, other than the one it has: [k edits ago, spec], nearest first. */
function earlierSpecs(model: Model, name: string): [number, Json][] {
  const past = model.past.get(name) ?? [];
  const now = JSON.stringify(model.live.get(name));
  return past
    .slice(0, -1)
    .map((spec, i): [number, Json] => [past.length - 1 - i, spec])
    .reverse()
    .filter(([, spec]) => JSON.stringify(spec) !== now);
}

/** The spec set back to one it had k edits ago (Acto's reversibility): its children must be as they were then. */
function revert(rng: Random, name: string, model: Model): Step {
  const [k, spec] = rng.pick(earlierSpecs(model, name).slice(0, 5));
  return { step: 'setSpec', name, spec: structuredClone(spec), what: `back to its spec of ${k} edits ago` };
}

/** dependsOn set to other names, live or not: chains, missing dependencies and cycles. */
function dependsOnEdit(rng: Random, name: string, model: Model): Step {
  const spec: Json = structuredClone(model.live.get(name)!);
  const deps = rng.subset(
    NAMES.filter((other) => other !== name),
    0.3,
  );
  if (deps.length === 0) delete spec.dependsOn;
  else spec.dependsOn = deps;
  return { step: 'setSpec', name, spec, what: deps.length === 0 ? 'dependsOn removed' : 'dependsOn' };
}

function tamper(rng: Random, name: string, model: Model): Step {
  const spec = model.live.get(name)!;
  // The children this spec asks for, as the kind table says.
  const kinds = NAMED_KINDS.filter((row) => row.wanted({ spec } as unknown as WebService)).map(
    (row) => row.kind.toLowerCase() as ChildKind,
  );
  const child = rng.pick(kinds);
  const hows: Tamper[] = ['edit', 'delete', 'label', 'annotation'];
  if (child === 'deployment') hows.push('env', 'container', 'restart', 'scale');
  // A list key of ours: the Service's port, the container's port or an env var's name.
  const workload = spec.workload as Json | undefined;
  if (child === 'service' || (child === 'deployment' && (workload?.port !== undefined || workload?.env !== undefined)))
    hows.push('key');
  const how = rng.pick(hows);
  return { step: 'tamper', name, child, how, value: `v${rng.int(1, 99)}` };
}

function foreign(rng: Random, name: string, model: Model): Step | null {
  const kinds = FOREIGN_KINDS.filter((kind) => !model.foreign.has(`${kind}/${name}`));
  return kinds.length === 0 ? null : { step: 'foreign', name, child: rng.pick(kinds) };
}

function unforeign(rng: Random, model: Model): Step {
  const [child, name] = rng.pick([...model.foreign].sort()).split('/');
  return { step: 'unforeign', name, child: child as ChildKind };
}

function scale(rng: Random, name: string): Step {
  return { step: 'scale', name, replicas: rng.int(0, 3), via: rng.pick(['kubectl', 'hpa'] as const) };
}

function killInWrite(rng: Random, name: string, model: Model): Step {
  const spec: Json = { ...structuredClone(model.live.get(name)!), image: rng.pick(IMAGES) };
  return { step: 'killInWrite', name, spec, at: rng.pick(['child', 'status', 'event'] as const) };
}

/** Changes the CRD's schema refuses. */
const INVALID: readonly { what: string; patch: (name: string) => Json[] }[] = [
  { what: 'replicas -1', patch: () => [{ op: 'add', path: '/spec/replicas', value: -1 }] },
  { what: 'replicas 1001', patch: () => [{ op: 'add', path: '/spec/replicas', value: 1001 }] },
  { what: 'an image with a space', patch: () => [{ op: 'replace', path: '/spec/image', value: 'nginx 1.27' }] },
  { what: 'an empty image', patch: () => [{ op: 'replace', path: '/spec/image', value: '' }] },
  { what: 'tier in capitals', patch: () => [{ op: 'add', path: '/spec/tier', value: 'Prod' }] },
  { what: 'depends on itself', patch: (name) => [{ op: 'add', path: '/spec/dependsOn', value: [name] }] },
  { what: 'port 70000', patch: () => [{ op: 'add', path: '/spec/workload', value: { port: 70000 } }] },
  {
    what: 'podSecurity privileged',
    patch: () => [{ op: 'add', path: '/spec/workload', value: { podSecurity: 'privileged' } }],
  },
  {
    what: 'a file mount naming a ConfigMap and a Secret',
    patch: () => [
      {
        op: 'add',
        path: '/spec/workload',
        value: { files: [{ mountPath: '/etc/x', configMap: 'features', secret: 'db' }] },
      },
    ],
  },
  {
    what: 'a relative mount path',
    patch: () => [{ op: 'add', path: '/spec/workload', value: { files: [{ mountPath: 'etc', secret: 'db' }] } }],
  },
  { what: 'no image', patch: () => [{ op: 'remove', path: '/spec/image' }] },
  {
    what: 'a disruption budget with both bounds',
    patch: () => [{ op: 'add', path: '/spec/workload', value: { disruption: { maxUnavailable: 1, minAvailable: 1 } } }],
  },
  {
    what: 'a disruption budget with neither bound',
    patch: () => [{ op: 'add', path: '/spec/workload', value: { disruption: {} } }],
  },
  {
    what: 'maxUnavailable -1',
    patch: () => [{ op: 'add', path: '/spec/workload', value: { disruption: { maxUnavailable: -1 } } }],
  },
  {
    what: 'minAvailable "half"',
    patch: () => [{ op: 'add', path: '/spec/workload', value: { disruption: { minAvailable: 'half' } } }],
  },
];

function invalid(rng: Random, name: string): Step {
  const choice = rng.pick(INVALID);
  return { step: 'invalid', name, patch: choice.patch(name), what: choice.what };
}

function invalidCreate(rng: Random, free: string[]): Step {
  return rng.weighted<Step>([
    [
      1,
      {
        step: 'invalidCreate',
        // A Deployment's name must be a DNS label: at most 63 characters.
        name: `${'x'.repeat(64)}`,
        spec: { image: 'nginx:1.27', workload: {} },
        what: 'a 64-character name with a workload',
      },
    ],
    [
      1,
      {
        step: 'invalidCreate',
        name: free.length > 0 ? rng.pick(free) : 'foxtrot',
        spec: { image: 'nginx:1.27', workload: { port: 0 } },
        what: 'port 0',
      },
    ],
    [
      1,
      {
        step: 'invalidCreate',
        name: free.length > 0 ? rng.pick(free) : 'foxtrot',
        spec: { image: 'nginx:1.27', replicas: 2000 },
        what: 'replicas 2000',
      },
    ],
  ]);
}

const IMAGES = ['nginx:1.27', 'nginx:1.28', 'registry.example.com/team/app:v2', 'busybox:1.36'];
const TIERS = ['dev', 'prod', 'staging'];

/** A random valid spec: every field the CRD has may appear. */
function randomSpec(rng: Random, name: string): Json {
  const spec: Json = { image: rng.pick(IMAGES) };
  if (rng.chance(0.7)) spec.replicas = rng.int(0, 3);
  if (rng.chance(0.4)) spec.tier = rng.pick(TIERS);
  if (rng.chance(0.25)) {
    const deps = rng.subset(
      NAMES.filter((other) => other !== name),
      0.25,
    );
    if (deps.length > 0) spec.dependsOn = deps;
  }
  if (rng.chance(0.65)) spec.workload = randomWorkload(rng);
  if ((spec.workload as Json | undefined)?.port !== undefined && rng.chance(0.4)) spec.expose = randomExpose(rng);
  if (spec.workload !== undefined && rng.chance(0.3)) spec.rollout = randomRollout(rng);
  return spec;
}

/**
 * A canary: one weight, weights with a short timed pause between them, or a pause until
 * promote (the history's promote steps, or quiescence, which promotes what still waits).
 */
function randomRollout(rng: Random): Json {
  const steps = rng.pick<Json[]>([
    [{ weight: 50 }],
    [{ weight: 20 }, { pause: { duration: '2s' } }, { weight: 60 }],
    [{ weight: 25 }, { pause: {} }, { weight: 75 }],
  ]);
  const canary: Json = { steps };
  // Bounds far from anything the plane makes slow: an abort comes from a check or a person.
  if (rng.chance(0.3)) canary.readyDeadlineSeconds = rng.pick([300, 900]);
  if (rng.chance(0.3)) canary.maxRestarts = rng.pick([3, 10]);
  // A check that the campaign's metrics API (METRIC_VALUE) passes, or one it fails: that canary aborts.
  if (rng.chance(0.4)) {
    canary.check = rng.pick([
      { query: 'sum(rate(campaign_errors[1m]))', max: METRIC_VALUE * 10 },
      { query: 'sum(rate(campaign_requests[1m]))', min: METRIC_VALUE / 10, max: 1 },
      { query: 'sum(rate(campaign_requests[1m]))', min: METRIC_VALUE * 10 },
    ]);
  }
  return { canary };
}

/**
 * A rollout needs a workload (admission refuses it without one): an edit that drops the workload
 * drops it too. And an image that never gets ready is drawn only behind a canary: without one it
 * goes back to a good image.
 */
function withoutStrandedRollout(spec: Json, what: string): string {
  let tidied = what;
  if (spec.rollout !== undefined && spec.workload === undefined) {
    delete spec.rollout;
    tidied = `${tidied}, and the rollout with it`;
  }
  if (spec.image === NEVER_READY_IMAGE && spec.rollout === undefined) {
    spec.image = IMAGES[0];
    tidied = `${tidied}, and a good image`;
  }
  return tidied;
}

/**
 * A public endpoint: an Ingress (a class or the default, HTTPS or not) or an HTTPRoute on a
 * Gateway. The campaign's plane serves no Gateway API, so a route is what a WebService asks
 * for and cannot get: its Exposed condition must say so while it stays Ready.
 */
function randomExpose(rng: Random): Json {
  const expose: Json = { host: rng.pick(['shop.example.com', 'app.example.org']) };
  if (rng.chance(0.5)) expose.path = rng.pick(['/', '/api']);
  if (rng.chance(0.4)) expose.additionalHosts = rng.pick([['www.example.net'], ['a.example.net', 'b.example.net']]);
  if (rng.chance(0.4)) {
    expose.annotations = rng.pick([
      { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
      { 'example.com/timeout': '30s', 'example.com/owner': 'shop' },
    ]);
  }
  if (rng.chance(0.3)) {
    expose.gateway = rng.pick([{ name: 'public' }, { name: 'public', namespace: 'infra' }]);
  } else {
    if (rng.chance(0.5)) expose.ingressClassName = 'nginx';
    if (rng.chance(0.4)) expose.tls = { secretName: 'shop-tls' };
  }
  return expose;
}

/** An exposure needs a workload port (admission refuses it without one): an edit that drops the port drops it too. */
function withoutStrandedExpose(spec: Json, what: string): string {
  if (spec.expose === undefined || (spec.workload as Json | undefined)?.port !== undefined) return what;
  delete spec.expose;
  return `${what}, and expose with the port`;
}

/** Admission refuses a mount of a volume the spec does not have: such mounts go, with the volume. */
function withoutStrandedMounts(spec: Json, what: string): string {
  const workload = spec.workload as Json | undefined;
  const mounts = workload?.volumeMounts as Json[] | undefined;
  if (!workload || !mounts) return what;
  const volumes = ((workload.volumes as Json[] | undefined) ?? []).map((volume) => volume.name);
  const kept = mounts.filter((mount) => volumes.includes(mount.name));
  if (kept.length === mounts.length) return what;
  if (kept.length > 0) workload.volumeMounts = kept;
  else delete workload.volumeMounts;
  return `${what}, and the mounts of the volumes it has not`;
}

/** A random subset of the pod's fields, in the spellings the server rewrites too. */
function randomWorkload(rng: Random): Json {
  const workload: Json = {};
  for (const field of rng.subset(Object.keys(WORKLOAD_FIELDS), 0.35)) workload[field] = WORKLOAD_FIELDS[field](rng);
  withoutStrandedMounts({ workload }, '');
  return workload;
}

/** CPU in millicores and memory in bytes, each with the spellings that mean it. */
const CPU: readonly (readonly [number, readonly (string | number)[]])[] = [
  [250, ['250m', '0.25']],
  [500, ['500m', '0.5']],
  [1000, ['1', 1, '1000m']],
  [1500, ['1.5', '1500m']],
];
const MEMORY: readonly (readonly [number, readonly (string | number)[]])[] = [
  [100_000_000, ['100M', '100000k']],
  [134_217_728, ['128Mi', '134217728']],
  [1_610_612_736, ['1.5Gi', '1536Mi']],
  [2_147_483_648, ['2Gi', '2048Mi']],
];

/** Requests and limits that the server accepts: a limit is never below its request. */
function resources(rng: Random): Json {
  const pair = (table: typeof CPU) => {
    const request = rng.int(0, table.length - 1);
    const limit = rng.int(request, table.length - 1);
    return [rng.pick(table[request][1]), rng.pick(table[limit][1])] as const;
  };
  const [cpuRequest, cpuLimit] = pair(CPU);
  const [memoryRequest, memoryLimit] = pair(MEMORY);
  const result: Json = {};
  if (rng.chance(0.8)) result.requests = { cpu: cpuRequest, memory: memoryRequest };
  if (rng.chance(0.6)) result.limits = { cpu: cpuLimit, memory: memoryLimit };
  return result;
}

/** Each pod field, with values drawn around the ones of EVERY_POD_FIELD. */
const WORKLOAD_FIELDS: Record<string, (rng: Random) => unknown> = {
  port: (rng) => rng.pick([8080, 80, 9090]),
  // Numbers apart from every port drawn above: admission refuses a port twice.
  ports: (rng) =>
    rng.pick([
      [{ name: 'metrics', port: 9100 }],
      [
        { name: 'metrics', port: 9100, protocol: 'TCP' },
        { name: 'dns', port: 53, protocol: 'UDP' },
      ],
    ]),
  progressDeadlineSeconds: (rng) => rng.pick([60, EVERY_POD_FIELD.progressDeadlineSeconds, 600]),
  command: (rng) => rng.pick([EVERY_POD_FIELD.command, ['/bin/sh', '-c', 'exec server']]),
  args: (rng) => rng.pick([EVERY_POD_FIELD.args, ['--verbose']]),
  env: (rng) => {
    const env = rng.subset(EVERY_POD_FIELD.env, 0.6).map((e) => structuredClone(e) as Json);
    for (const e of env) if (e.name === 'LOG_LEVEL') e.value = rng.pick(['debug', 'info', 'warn']);
    return env;
  },
  envFrom: (rng) => rng.subset(EVERY_POD_FIELD.envFrom, 0.6),
  resources,
  readinessProbe: (rng) => ({ httpGet: { path: rng.pick(['/ready', '/healthz']), port: 8080 } }),
  // 0 is how the server spells its default period: it stores 10.
  livenessProbe: (rng) => ({ tcpSocket: { port: 8080 }, periodSeconds: rng.pick([0, 5, 10]) }),
  startupProbe: (rng) => ({ exec: { command: ['true'] }, failureThreshold: rng.pick([3, 30]) }),
  securityContext: (rng) => rng.pick([{ readOnlyRootFilesystem: true }, { runAsUser: 1000 }]),
  podSecurityContext: (rng) => ({ fsGroup: rng.pick([2000, 3000]) }),
  podSecurity: (rng) => rng.pick(['baseline', 'restricted']),
  serviceAccountName: () => EVERY_POD_FIELD.serviceAccountName,
  imagePullSecrets: () => EVERY_POD_FIELD.imagePullSecrets,
  strategy: (rng) =>
    rng.pick([
      EVERY_POD_FIELD.strategy,
      { type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%', maxUnavailable: '25%' } },
      { type: 'Recreate' },
    ]),
  files: (rng) =>
    rng.pick([
      EVERY_POD_FIELD.files,
      [{ mountPath: '/etc/secret', secret: 'db', optional: true }],
      // An app that reloads its files itself: their changes roll nothing.
      [{ mountPath: '/etc/shop', configMap: 'features', restartOnChange: false }],
      [
        { mountPath: '/etc/shop', configMap: 'features' },
        { mountPath: '/etc/secret', secret: 'db' },
      ],
    ]),
  restartOnConfigChange: (rng) => rng.pick([true, false]),
  snapshotSecrets: (rng) => rng.pick([true, false]),
  // Low, so that a history of a few steps reaches it and prunes revisions and their snapshots.
  revisionHistoryLimit: (rng) => rng.int(1, 3),
  // A claim by name (podFieldsPrerequisites binds claim data), an emptyDir {} or of a size, a projected volume.
  volumes: (rng) =>
    rng.pick([
      EVERY_POD_FIELD.volumes,
      [{ name: 'cache', emptyDir: {} }],
      [
        { name: 'cache', emptyDir: { sizeLimit: '1.5Gi' } },
        { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
      ],
    ]),
  volumeMounts: (rng) =>
    rng.pick([
      EVERY_POD_FIELD.volumeMounts,
      [{ name: 'cache', mountPath: '/cache' }],
      [
        { name: 'cache', mountPath: '/var/cache', subPath: 'web' },
        { name: 'data', mountPath: '/data' },
      ],
    ]),
  // Native sidecars (restartPolicy left out or given) and an init container; never of one name.
  sidecars: (rng) =>
    rng.pick([
      [
        {
          name: 'proxy',
          image: 'envoyproxy/envoy:v1.31',
          ports: [{ containerPort: 9901 }],
          startupProbe: { tcpSocket: { port: 9901 } },
        },
      ],
      [{ name: 'log', image: 'busybox:1.36', restartPolicy: 'Always', resources: { requests: { cpu: '0.1' } } }],
    ]),
  initContainers: (rng) =>
    rng.pick([EVERY_POD_FIELD.initContainers, [{ name: 'migrate', image: 'busybox:1.36', command: ['true'] }]]),
  podLabels: (rng) => ({ team: rng.pick(['payments', 'search']) }),
  podAnnotations: (rng) => rng.pick([EVERY_POD_FIELD.podAnnotations, { 'example.com/note': 'campaign' }]),
  nodeSelector: (rng) => rng.pick([EVERY_POD_FIELD.nodeSelector, { 'kubernetes.io/arch': 'amd64' }]),
  // Atomic lists: the operator left out (the server's Equal) or given.
  tolerations: (rng) =>
    rng.pick([
      EVERY_POD_FIELD.tolerations,
      [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
      [{ key: 'dedicated', operator: 'Exists' }],
    ]),
  affinity: (rng) =>
    rng.pick([
      EVERY_POD_FIELD.affinity,
      {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 50, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: {} } },
          ],
        },
      },
    ]),
  topologySpreadConstraints: (rng) =>
    rng.pick([
      EVERY_POD_FIELD.topologySpreadConstraints,
      [{ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' }],
    ]),
  // The default spread on or off; drawn without the fields above too, it is on by default.
  defaultSpread: (rng) => rng.chance(0.5),
  priorityClassName: () => POD_PRIORITY_CLASS,
  terminationGracePeriodSeconds: (rng) => rng.pick([0, 30, EVERY_POD_FIELD.terminationGracePeriodSeconds]),
  lifecycle: (rng) => rng.pick([EVERY_POD_FIELD.lifecycle, { preStop: { httpGet: { path: '/stop', port: 8080 } } }]),
  // A NetworkPolicy: the app's own pods alone, or with the ingress controller's namespace.
  networkPolicy: (rng) =>
    rng.pick([
      {},
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }] },
    ]),
  // A PodDisruptionBudget: one of its two bounds, a count of pods (0 too) or a share of them.
  disruption: (rng) => ({
    [rng.pick(['maxUnavailable', 'minAvailable'])]: rng.pick([0, 1, 2, '0%', '25%', '50%', '100%']),
  }),
  // A HorizontalPodAutoscaler. Its floor is always set, so that spec.replicas (0 among the
  // values drawn) need not lie within its bounds, as it must when the floor is left out.
  autoscaling: (rng) => {
    const minReplicas = rng.int(1, 2);
    // A CPU target, or metrics (admission refuses both), each spelled as the server would not store it.
    const target = rng.pick([
      {},
      { targetCPUUtilizationPercentage: rng.pick([50, 70, 90]) },
      {
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
          { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '0.25Gi' } } },
        ],
      },
    ]);
    // Behavior: the server fills in the rest (policies, selectPolicy, the other direction).
    const behavior = rng.chance(0.5) ? { behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } : {};
    return { minReplicas, maxReplicas: rng.int(minReplicas, 4), ...target, ...behavior };
  },
};

// Issue 40: a canary on the workloads plane, with the Gateway API's CRDs installed for the
// case and removed after. N WebServices of one replica behind an HTTPRoute come up under `run`
// (workload.ts' burst), first without spec.rollout, for the controller's peak RSS to compare
// with; then with a canary, whose new image (one apply of every WebService) stops each at its
// first pause with 10% of the route's traffic. A window of steady state there must hold no
// write of ours. Then `promote`, one WebService at a time: from the annotation's watch event to
// the HTTPRoute's at the next step's weight, on the bench's watches.
import { gatewayApiCrdFiles } from '../../harness/gateway-api-crds';
import { WatchLine, WatchStream, sendLists, webServiceName } from './cluster';
import { ControllerProcess, oneAtATime } from './controller';
import { PLUGIN, kubectl, progress, run, sleep, until } from './proc';
import { CANARY_STEPS, WorkloadCase, WorkloadRun, steadyState, workloadBurst, workloadWebService } from './workload';

/** The route's canary weight where each canary pauses, and at the step a promote takes it to. */
const PAUSED_WEIGHT = String(CANARY_STEPS[0].weight);
const PROMOTED_WEIGHT = String(CANARY_STEPS[2].weight);
/** N canaries start at once: N more pods for kube-controller-manager's throttled clients. */
const PAUSED_TIMEOUT_MS = 30 * 60_000;
/** How long the CRDs' removal may take (test/support/gateway-api.ts says why it is long). */
const REMOVAL_TIMEOUT_MS = 180_000;
const WEBSERVICE_FIELDS = [
  '.metadata.name',
  '.status.rollout.phase',
  '.status.rollout.step',
  '.metadata.annotations.webservice\\.labhub\\.io/promote',
];
/** name, then the backendRefs' weights when the route splits: stable's, the canary's. */
const ROUTE_FIELDS = ['.metadata.name', '.spec.rules[0].backendRefs[*].weight'];

function crds(): { file: string; crd: string }[] {
  const dir = process.env.GATEWAY_API_CRDS;
  if (!dir)
    throw new Error('the canary case needs the Gateway API: no GATEWAY_API_CRDS (scripts/control-plane.sh vars)');
  return gatewayApiCrdFiles(dir);
}

async function installGatewayApi(): Promise<void> {
  const files = crds();
  await kubectl(['apply', '--server-side', ...files.flatMap(({ file }) => ['-f', file])]);
  const wait = [
    'kubectl',
    'wait',
    '--for=condition=Established',
    '--timeout=10s',
    ...files.map(({ crd }) => `crd/${crd}`),
  ];
  // kubectl wait fails at once, rather than waits, on a CRD with no condition yet: ask again.
  const established = async () => (await run(wait)).status === 0;
  await until('the Gateway API CRDs to be established', established, { timeoutMs: 60_000, everyMs: 1000 });
}

/**
 * Removes the CRDs and waits until they are gone, listing each kind meanwhile: the CRD
 * finalizer lists through the watch caches, which a removal of their group drops.
 */
async function removeGatewayApi(): Promise<void> {
  const names = crds().map(({ crd }) => crd);
  await kubectl(['delete', '--ignore-not-found', '--wait=false', ...names.map((crd) => `crd/${crd}`)]);
  const gone = async () => {
    const left = await kubectl(['get', 'crd', '--ignore-not-found', '-o', 'name', ...names], { capture: true });
    if (left.stdout.trim() === '') return true;
    await run(['kubectl', 'get', names.join(','), '-A', '--ignore-not-found', '-o', 'name', '--request-timeout=10s']);
    return false;
  };
  await until("the Gateway API's CRDs to go", gone, { timeoutMs: REMOVAL_TIMEOUT_MS, everyMs: 2000 }).catch(
    (err: Error) => progress(err.message),
  );
}

export async function canaryCase({ tag, samples, ...each }: WorkloadCase) {
  await installGatewayApi();
  try {
    const without = await workloadBurst({ ...each, namespace: `bench-gateway-${tag}` }, 'gateway');
    let paused: Awaited<ReturnType<typeof pauseAndPromote>> | undefined;
    const canary = { ...each, namespace: `bench-canary-${tag}` };
    const burst = await workloadBurst({ ...canary, steadySeconds: 0 }, 'canary', async (controller) => {
      paused = await pauseAndPromote(canary, controller, samples);
    });
    return { n: each.n, without, burst, ...paused! };
  } finally {
    await removeGatewayApi();
  }
}

interface Promotion {
  name: string;
  seenAt?: number;
  routeAt?: number;
}

async function pauseAndPromote(w: WorkloadRun, controller: ControllerProcess, samples: number) {
  const { audit, namespace, n } = w;
  const each = { listEach: true };
  const pausedAt = new Map<string, boolean>();
  const canaryWeight = new Map<string, string>();
  let promotion: Promotion | undefined;
  const onWebService = ({ atMs, fields: [name, phase, step, promote] }: WatchLine) => {
    pausedAt.set(name, phase === 'Paused' && step === '1');
    if (promotion?.name === name && promote) promotion.seenAt ??= atMs;
  };
  const onRoute = ({ atMs, fields: [name, , canary] }: WatchLine) => {
    canaryWeight.set(name, canary);
    if (promotion?.name === name && canary === PROMOTED_WEIGHT) promotion.routeAt ??= atMs;
  };
  const streams = [
    new WatchStream('webservices', namespace, WEBSERVICE_FIELDS, onWebService, each),
    new WatchStream('httproutes', namespace, ROUTE_FIELDS, onRoute, each),
  ];
  try {
    await sleep(2000); // both watches have listed and are streaming
    progress(`canary: a new image for ${n} WebServices, each to pause at ${PAUSED_WEIGHT}%`);
    const started = performance.now();
    const applyMs = await sendLists('apply', namespace, n, workloadWebService('canary', 'nginx:canary'));
    const paused = () => [...pausedAt].filter(([name, p]) => p && canaryWeight.get(name) === PAUSED_WEIGHT).length >= n;
    const what = `${n} canaries paused at ${PAUSED_WEIGHT}%`;
    await until(what, paused, { timeoutMs: PAUSED_TIMEOUT_MS, everyMs: 200, watches: streams });
    const pausedMs = Math.round(performance.now() - started);
    const steady = await steadyState(w);
    const peakRssMiB = controller.peakRssMiB();

    // Each of a different WebService: one promote each, from 10% to 50%.
    const promotes = Math.min(samples, n);
    progress(`canary: ${promotes} promotes, one at a time`);
    const latency = await oneAtATime(audit, n, promotes, streams, async (_, index) => {
      const current: Promotion = { name: webServiceName(index) };
      promotion = current;
      const result = await run([PLUGIN, 'promote', current.name, '-n', namespace], { capture: true });
      if (result.status !== 0) throw new Error(`promote ${current.name} exited ${result.status}: ${result.stderr}`);
      return () =>
        current.seenAt !== undefined && current.routeAt !== undefined ? current.routeAt - current.seenAt : undefined;
    });
    return { applyMs, pausedMs, steady, peakRssMiB, latency };
  } finally {
    await Promise.all(streams.map((s) => s.stop()));
  }
}

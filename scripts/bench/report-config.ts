// RESULTS.md's target rows and section for issue 38: the config the pods read rolls them
// once, quickly, and `run` reads the data of no Secret its pods do not read; and the plugin's
// figures that the issue asks to keep (the no-op pass at 10 000, plan NAME).
import { ConfigRun, ControllerOverConfig, Results } from './results';
import { Add, Format, windowTables, workloadSection } from './report-cases';

const TARGET_N = 1000;
/** plan NAME over kubectl get NAME before issue 38 (bench/RESULTS.md of 2026-12-03). */
const PLAN_BEFORE = 1.78;

function ratioText(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

/** ` (from the run of DATE)` where a case's figures were carried from an earlier run. */
function carriedNote(results: Results, name: string, n?: number): string {
  const entry = results.carried?.find((c) => c.case === name && (n === undefined || c.sizes?.includes(n)));
  return entry ? ` (from the run of ${entry.startedAt.slice(0, 10)})` : '';
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

function rotationTargets(config: ConfigRun, add: Add, { ms }: Format): void {
  const { n, rotation, latency, unreferenced } = config;
  const judged = n === TARGET_N;
  const at = judged ? '' : ` (measured at N=${n}, not ${TARGET_N})`;
  const steady = rotation.steady.byClient;
  const ours = 'controller' in steady ? steady.controller : { writes: 0, events: 0, requests: 0 };
  const once = rotation.rolled['1'] ?? 0;
  const twoReplicaSets = rotation.replicaSets['2'] ?? 0;
  add(
    '#38',
    `${TARGET_N} WebServices, each reading its own Secret, all rotated at once: each rolls exactly once (one new ReplicaSet), then 0 writes at steady state`,
    `${once}/${n} pod templates changed once (by how often: ${JSON.stringify(rotation.rolled)}), ${twoReplicaSets}/${n}` +
      ` Deployments with 2 ReplicaSets (${JSON.stringify(rotation.replicaSets)}); all new templates after` +
      ` ${ms(rotation.templatesMs)}, all Ready on the new revision after ${ms(rotation.readyMs)}; then ${ours.writes} writes,` +
      ` ${ours.events} Events, ${ours.requests} requests of ours over ${rotation.steady.seconds} s${at}`,
    !judged ? 'not measured' : once === n && twoReplicaSets === n && ours.writes + ours.events === 0 ? 'met' : 'missed',
  );
  const port = config.portBurst.peakRssMiB;
  const by = config.portBurstBy === 'every-field' ? "the every-field case's" : "this case's own";
  add(
    '#38',
    `… the controller's peak RSS over that whole run ≤ 1.2× the same burst of ${TARGET_N} without Secrets (port only), same run`,
    `${config.peakRssMiB.whole} MiB (${config.peakRssMiB.rotation} MiB after the rotation's steady state) vs ${port} MiB` +
      ` (${by} port-only burst): ${ratioText(config.peakRssMiB.whole, port)}${at}`,
    !judged ? 'not measured' : config.peakRssMiB.whole <= 1.2 * port ? 'met' : 'missed',
  );
  add(
    '#38',
    `A rotation reaches a new pod template within 1 s of the Secret's write: p50 over 100 rotations at N = ${TARGET_N}, with \`run\``,
    `p50 ${ms(latency.p50Ms)}, p99 ${ms(latency.p99Ms)}, max ${ms(latency.maxMs)} (over ${latency.samples} rotations,` +
      ` N=${latency.n}; ${latency.writes ?? '–'} writes and ${latency.events ?? '–'} Events of ours in all)${at}`,
    !judged || latency.samples < 100 ? 'not measured' : latency.p50Ms <= 1000 ? 'met' : 'missed',
  );
  const { without, with: withThem, count } = unreferenced;
  add(
    '#38',
    `With ${count.toLocaleString('en-US')} unreferenced Secrets of ${kib(unreferenced.bytes)} beside them: the controller's peak RSS ≤ 1.15× the same ${n} without them`,
    `${withThem.peakRssMiB} MiB vs ${without.peakRssMiB} MiB: ${ratioText(withThem.peakRssMiB, without.peakRssMiB)}` +
      ` (\`run\` started over the ${n} converged WebServices, every key reconciled, 60 s of steady state;` +
      ` with them, all ${count.toLocaleString('en-US')} rewritten meanwhile)${at}`,
    !judged ? 'not measured' : withThem.peakRssMiB <= 1.15 * without.peakRssMiB ? 'met' : 'missed',
  );
  const { secrets: audited, received } = withThem;
  add(
    '#38',
    "… and the controller reads the data of none of them (the audit log's GETs by name; the counting proxy's reads and bytes)",
    (audited
      ? `audit log: ${audited.gets} Secret GETs by name, ${audited.unreferencedGets} of an unreferenced one;` +
        ` ${audited.lists} LISTs, ${audited.watches} WATCHes of Secrets. `
      : 'no audit log. ') +
      `Proxy: the data of ${received.read} Secrets read by name (${received.unreferencedRead} unreferenced);` +
      ` ${received.metadataLists} metadata-only lists or watches of Secrets (${kib(received.bytes.metadataLists)}),` +
      ` ${received.lists} whole ones; an unreferenced value's base64 in ${received.marked} answers${at}`,
    !judged || !audited
      ? 'not measured'
      : audited.unreferencedGets + received.unreferencedRead + received.lists + received.marked === 0
        ? 'met'
        : 'missed',
  );
}

/** Issue 38's targets: the config case's, and the plugin's figures it asks to keep. */
export function configTargets(results: Results, add: Add, format: Format): void {
  const { ms } = format;
  if (results.config) rotationTargets(results.config, add, format);
  else
    add(
      '#38',
      `The config case (\`--only=config\`): rotations at N = ${TARGET_N}`,
      'not measured in this run',
      'not measured',
    );
  const noopTarget = 'No-op `apply --all` at 10 000 stays within 2× the raw floor';
  const p10k = results.plugin.find((p) => p.n === 10_000);
  if (p10k) {
    const { noop, floor } = p10k;
    add(
      '#38',
      noopTarget,
      `${ms(noop.wallMs)} vs floor ${ms(floor.wallMs)}: ${ratioText(noop.wallMs, floor.wallMs)}${carriedNote(results, 'plugin', 10_000)}`,
      noop.wallMs <= 2 * floor.wallMs ? 'met' : 'missed',
    );
  } else add('#38', noopTarget, 'not measured in this run', 'not measured');
  const planTarget = `\`plan NAME\` with 1000 children as fast as before issue 38: ≤ ${PLAN_BEFORE}× \`kubectl get webservice NAME -o json\``;
  const p1000 = results.plugin.find((p) => p.n === 1000);
  if (p1000) {
    const plan = p1000.planName.wallMs;
    const get = p1000.kubectlGetName.wallMs;
    add(
      '#38',
      planTarget,
      `${ms(plan)} vs ${ms(get)}: ${ratioText(plan, get)} (medians of ${p1000.planName.runs})${carriedNote(results, 'plugin', 1000)}`,
      plan <= PLAN_BEFORE * get ? 'met' : 'missed',
    );
  } else add('#38', planTarget, 'not measured in this run', 'not measured');
}

function overConfigRow(label: string, c: ControllerOverConfig, ms: Format['ms']): string[] {
  const { received } = c;
  return [
    label,
    ms(c.reconciledMs),
    `${c.peakRssMiB} MiB`,
    `${c.steady.writes ?? '–'} / ${c.steady.events ?? '–'}`,
    c.secrets ? `${c.secrets.gets} (${c.secrets.unreferencedGets})` : '–',
    c.secrets ? `${c.secrets.lists} / ${c.secrets.watches}` : '–',
    `${received.read} (${received.unreferencedRead}): ${kib(received.bytes.read)}`,
    `${received.metadataLists}: ${kib(received.bytes.metadataLists)}`,
    `${received.lists}: ${kib(received.bytes.lists)}`,
    String(received.marked),
  ];
}

/** The config case's section, when the run measured it. */
export function configSection(results: Results, format: Format): string[] {
  const config = results.config;
  if (!config) return [];
  const { ms, table } = format;
  const { rotation, latency, unreferenced, n } = config;
  return [
    ...workloadSection(
      '## The config the pods read (issue 38)',
      `${n} WebServices with \`spec.workload\` of port 8080 and \`DB_PASSWORD\` from a Secret of their own` +
        ` (\`env[].valueFrom.secretKeyRef\`), ${config.burst.replicas} replicas each`,
      results,
      config.burst,
      format,
    ),
    `### Every Secret rotated at once`,
    '',
    `All ${n} Secrets replaced at once (\`kubectl replace\` of Lists, ${ms(rotation.replaceMs)}): every pod template new after` +
      ` **${ms(rotation.templatesMs)}**, every WebService Ready on its new revision after **${ms(rotation.readyMs)}**` +
      " (kube-controller-manager's rollouts). Deployments by how often their template's config digest changed, from the" +
      ` rotation to the end of the steady state: ${JSON.stringify(rotation.rolled)}; by how many ReplicaSets they own:` +
      ` ${JSON.stringify(rotation.replicaSets)}. Our peak RSS: ${config.peakRssMiB.rotation} MiB after it,` +
      ` ${config.peakRssMiB.whole} MiB after the single rotations below; the port-only burst of ${config.portBurst.n}: ${config.portBurst.peakRssMiB} MiB.`,
    '',
    ...windowTables('rotation', rotation, rotation.readyMs, config.burst.controllersAudited, format),
    `### Single rotations`,
    '',
    `${latency.samples} Secrets patched one at a time (N=${latency.n}): from the Secret's watch event to its Deployment's new` +
      ` pod template's, p50 **${ms(latency.p50Ms)}**, p99 ${ms(latency.p99Ms)}, max ${ms(latency.maxMs)}. Our writes meanwhile:` +
      ` ${Object.entries(latency.writesByKind ?? {})
        .map(([kind, count]) => `${count} ${kind}`)
        .join(', ')}.`,
    '',
    `### ${unreferenced.count.toLocaleString('en-US')} unreferenced Secrets`,
    '',
    `\`run\` started over the ${n} converged WebServices through the counting proxy, without and then with` +
      ` ${unreferenced.count.toLocaleString('en-US')} Secrets that no pod reads (${kib(unreferenced.bytes)} each, all rewritten while it ran).` +
      ' From the audit log: *GETs*, its Secret GETs by name (in brackets, of unreferenced ones), and its *LISTs / WATCHes* of' +
      ' Secrets. From the proxy: the Secrets whose data it *read* by name (in brackets, unreferenced ones), its *metadata-only*' +
      ' lists and watches of Secrets and its *whole* ones, each with the bytes of their answers; *marked*, the answers that' +
      " held an unreferenced value's base64.",
    '',
    table(
      [
        'run over',
        'every key reconciled',
        'peak RSS',
        'steady writes / Events',
        'GETs',
        'LISTs / WATCHes',
        'read',
        'metadata-only',
        'whole',
        'marked',
      ],
      [
        overConfigRow(`${n} WebServices`, unreferenced.without, ms),
        overConfigRow(
          `… and ${unreferenced.count.toLocaleString('en-US')} unreferenced Secrets`,
          unreferenced.with,
          ms,
        ),
      ],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
  ];
}

export const CONFIG_NOTE =
  '- **The config case** (issue 38): on the workloads plane, `run` on an empty namespace; N Secrets, then N WebServices' +
  ' each reading its own through env, created at once, until all Ready; every Secret replaced at once; each Deployment' +
  " must change its pod template's config digest once (a `kubectl get -w` of the Deployments counts the changes) and own two" +
  ' ReplicaSets, every WebService be Ready with `currentRevision == updateRevision` past its first; then a steady state. The' +
  " single rotations patch one Secret at a time and time the watch event of the Secret against that of its Deployment's new" +
  ' template, both on `kubectl get -w` streams. The peak RSS of that controller, over all of it, is compared with the port-only' +
  ' burst of the same N in the same run. Then `run` starts twice more over the converged WebServices, through' +
  ' test/support/watch-proxy.cjs unperturbed (plain HTTP to it, TLS on to the API server, the same token), which counts its' +
  " reads of Secrets by kind (by name, whole lists and watches, metadata-only ones, from each request's Accept header), the" +
  ' bytes of their answers, and the answers holding the base64 of the first 30 bytes every unreferenced value begins with:' +
  ' the audit log tells GETs by name, but not a metadata-only list from a full one.';

// RESULTS.md's section and target rows for the scale run (bench --scale, bench/scale.json):
// issue 19's run at 100 000 WebServices, made apart from the other cases.
import { CaseResult, ScaleRun } from './results';
import { Memory } from './proc';
import { Add, Format } from './report-cases';

/** The report's formatting, and its MiB. */
type ScaleFormat = Format & { mib: (value: number | null | undefined) => string };

const MB_PER_MIB = 1.048576;
const TARGET_N = 100_000;

function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toLocaleString('en-US');
}

export function scaleTargets(scale: ScaleRun | undefined, add: Add, { ms, mib }: ScaleFormat): void {
  const at = (n: number) => (n === TARGET_N ? '' : ` (measured at N=${n}, not ${TARGET_N})`);
  const rssTarget = `Controller peak RSS at ${count(TARGET_N)} ≤ 1 GB (\`npm run bench -- --scale\`)`;
  const noopTarget = `No-op \`apply --all\` at ${count(TARGET_N)} ≤ 2× the raw floor (both LISTs fetched raw)`;
  if (!scale) {
    add('#19', rssTarget, 'not measured: no bench/scale.json', 'not measured');
    add('#19', noopTarget, 'not measured: no bench/scale.json', 'not measured');
    return;
  }
  const judged = scale.n === TARGET_N;
  const peakMB = scale.steady.peakRssMiB * MB_PER_MIB;
  add(
    '#19',
    rssTarget,
    `${peakMB.toFixed(0)} MB (${mib(scale.steady.peakRssMiB)} VmHWM, from a cold start to all Ready and 60 s of steady state; run of ${scale.startedAt.slice(0, 10)})${at(scale.n)}`,
    !judged ? 'not measured' : peakMB <= 1000 ? 'met' : 'missed',
  );
  const ratio = scale.noop.wallMs / scale.floor.wallMs;
  add(
    '#19',
    noopTarget,
    `${ms(scale.noop.wallMs)} vs floor ${ms(scale.floor.wallMs)}: ${ratio.toFixed(2)}× (medians of ${scale.noop.runs} and ${scale.floor.runs})${at(scale.n)}`,
    !judged ? 'not measured' : ratio <= 2 ? 'met' : 'missed',
  );
}

function caseRow(label: string, c: CaseResult, { ms, mib }: ScaleFormat): string[] {
  return [
    `${label}${c.runs > 1 ? ` (median of ${c.runs})` : ''}`,
    ms(c.wallMs),
    count(c.requests),
    count(c.writes),
    count(c.events),
    ms(c.cpuMs),
    c.cpuPerWriteMs === null ? '–' : `${c.cpuPerWriteMs.toFixed(2)} ms`,
    mib(c.peakRssMiB),
  ];
}

function memoryCell(memory: Record<string, Memory>, component: string, mib: ScaleFormat['mib']): string {
  const m = memory[component] as Memory | undefined;
  return m ? `${mib(m.rssMiB)} (peak ${mib(m.peakRssMiB)})` : '–';
}

export function scaleSection(scale: ScaleRun | undefined, format: ScaleFormat): string[] {
  if (!scale) return [];
  const { ms, table, mib } = format;
  const c = scale.controller;
  const rows = [
    caseRow('cold `apply --all`', scale.cold, format),
    caseRow('no-op `apply --all`', scale.noop, format),
    caseRow('raw floor (both LISTs)', scale.floor, format),
    [
      '`run` from a cold start → all Ready',
      `${ms(c.readyMs)} (caches synced at ${ms(c.syncedMs)})`,
      count(c.requests),
      count(c.writes),
      count(c.events),
      ms(c.cpuMs),
      c.writes === null || c.events === null ? '–' : `${(c.cpuMs / (c.writes + c.events)).toFixed(2)} ms`,
      mib(c.peakRssMiB),
    ],
    [
      `\`run\` at steady state, ${scale.steady.seconds} s`,
      '–',
      count(scale.steady.requests),
      count(scale.steady.writes),
      count(scale.steady.events),
      ms(scale.steady.cpuMs),
      '–',
      mib(scale.steady.peakRssMiB),
    ],
  ];
  const components = Object.keys({ ...scale.planeAtStart, ...scale.planeAfterApply, ...scale.planeAfterRun });
  const planeRows = components.map((p) => [
    p,
    memoryCell(scale.planeAtStart, p, mib),
    memoryCell(scale.planeAfterApply, p, mib),
    memoryCell(scale.planeAfterRun, p, mib),
  ]);
  const m = scale.machine;
  return [
    `## ${count(scale.n)} WebServices (issue 19, \`npm run bench -- --scale\`)`,
    '',
    `Made on ${scale.startedAt.slice(0, 10)} (${scale.startedAt} to ${scale.finishedAt}), apart from the run above, at commit` +
      ` ${m.commit?.slice(0, 12) ?? 'unknown'}, Node ${m.node}; load average (1 min) ${scale.loadAverage.start[0]} at the start,` +
      ` ${scale.loadAverage.end[0]} at the end. Raw numbers: [scale.json](scale.json). Creating the first ${count(scale.n)}` +
      ` with kubectl took ${ms(scale.setupMs)}.`,
    '',
    table(['case', 'wall', 'requests', 'writes', 'Event creates', 'client CPU', 'CPU / write', 'peak RSS'], rows, [
      'l',
      'r',
      'r',
      'r',
      'r',
      'r',
      'r',
      'r',
    ]),
    '',
    'The control plane beside them (RSS, and VmHWM since the plane started):',
    '',
    table(['process', 'at the start', `after the plugin's passes`, 'after `run`'], planeRows, ['l', 'r', 'r', 'r']),
    '',
  ];
}

export const SCALE_NOTE =
  '- **The scale run** (issue 19, `npm run bench -- --scale`, not part of the default run): N WebServices created with kubectl into' +
  ' a fresh namespace; one cold `apply --all`, three no-op passes, the raw floor three times; the namespace deleted; then N more in' +
  ' another namespace and `run` started over them, timed from its start until a `kubectl get -w` stream shows every one Ready, then' +
  " 60 s of steady state. The control plane's memory from /proc/PID/status of each process, by its pid file.";

// A run of some cases (--only) or sizes (--sizes) written into a results.json that holds more:
// the file keeps what this run did not measure, as the run that measured it left it, and names
// that run (Results.carried), so that no target loses its figures and none is read as this run's.
import { Carried, Results } from './results';

/** Every case, in the order a run takes them. */
export const CASES = [
  'plugin',
  'burst',
  'runtimes',
  'floor',
  'backlog',
  'workload',
  'every-field',
  'config',
  'canary',
  'peer',
] as const;
export type Case = (typeof CASES)[number];

/** The fields of results.json that hold each case kept whole; the plugin case is kept size by size (mergePlugin). */
const FIELDS: Record<Exclude<Case, 'plugin' | 'burst'>, (keyof Results)[]> = {
  runtimes: ['runtimes'],
  floor: ['writeFloor', 'floorBursts'],
  backlog: ['backlog'],
  workload: ['workloadBurst'],
  'every-field': ['everyFieldBurst', 'portBurstSameN'],
  config: ['config'],
  canary: ['canary'],
  peer: ['peer'],
};

/** The run that measured a case (at size n) of a results file: its own, or the one it carried it from. */
function originOf(file: Results, name: Case, n?: number): Omit<Carried, 'case' | 'sizes'> {
  const entry = file.carried?.find((c) => c.case === name && (n === undefined || !c.sizes || c.sizes.includes(n)));
  return entry
    ? { startedAt: entry.startedAt, commit: entry.commit }
    : { startedAt: file.startedAt, commit: file.machine.commit };
}

/** The plugin case's sizes that this run did not measure (all, when it did not run it), kept beside those it did. */
function mergePlugin(previous: Results, current: Results, merged: Results): Carried[] {
  const measured = new Set(current.plugin.map((p) => p.n));
  const keep = <T extends { n: number }>(was: T[], now: T[]) =>
    [...was.filter((p) => !measured.has(p.n)), ...now].sort((a, b) => a.n - b.n);
  merged.plugin = keep(previous.plugin, current.plugin);
  merged.controller.startup = keep(previous.controller.startup, current.controller.startup);
  merged.controller.steady = current.controller.steady ?? previous.controller.steady;
  merged.sizes = [...new Set([...previous.sizes, ...current.sizes])].sort((a, b) => a - b);
  const carried = new Map<string, Carried>();
  for (const { n } of previous.plugin.filter((p) => !measured.has(p.n))) {
    const origin = originOf(previous, 'plugin', n);
    const key = `${origin.startedAt} ${origin.commit}`;
    if (!carried.has(key)) carried.set(key, { case: 'plugin', sizes: [], ...origin });
    carried.get(key)!.sizes!.push(n);
  }
  return [...carried.values()];
}

/**
 * The results of a run that measured `ran`, with every other case the previous file held
 * carried over; the plugin case by size.
 */
export function mergeResults(previous: Results, current: Results, ran: readonly Case[]): Results {
  const merged: Results = { ...current, controller: { ...current.controller } };
  const carried: Carried[] = [];
  if (previous.plugin.length > 0) carried.push(...mergePlugin(previous, current, merged));
  for (const name of CASES) {
    if (name === 'plugin' || ran.includes(name)) continue;
    if (name === 'burst') {
      if (previous.controller.bursts.length === 0) continue;
      merged.controller.bursts = previous.controller.bursts;
      merged.controller.latency = previous.controller.latency;
    } else if (previous[FIELDS[name][0]] === undefined) continue;
    else for (const field of FIELDS[name]) Object.assign(merged, { [field]: previous[field] });
    carried.push({ case: name, ...originOf(previous, name) });
  }
  if (carried.length > 0) merged.carried = carried;
  else delete merged.carried;
  return merged;
}

// A bench run of some cases (--only) or sizes (--sizes) keeps what results.json held of the
// rest, and names the run each kept figure comes from.
import { mergeResults } from '../../scripts/bench/merge';
import { resultsMarkdown } from '../../scripts/bench/report';
import { PluginSize, Results } from '../../scripts/bench/results';
import { caseOf, results, workloadOf } from '../support/bench-results';

function pluginAt(n: number, noopMs: number): PluginSize {
  const c = caseOf(noopMs);
  return { n, setupMs: 0, cold: c, noop: c, oneChange: c, planName: c, kubectlGetName: c, floor: c, kubectlGetAll: c };
}

function run(startedAt: string, commit: string, extra: Partial<Results>): Results {
  const base = results(extra);
  return { ...base, startedAt, machine: { ...base.machine, commit } };
}

const full = run('2026-12-03T07:08:58Z', 'a'.repeat(40), {
  sizes: [10, 1000],
  plugin: [pluginAt(10, 100), pluginAt(1000, 900)],
  workloadBurst: workloadOf(200, 57_000),
  everyFieldBurst: workloadOf(1000, 289_000),
  portBurstSameN: workloadOf(1000, 289_000),
});

describe('bench results of a partial run', () => {
  it('keeps the cases the run did not measure, naming the run that did', () => {
    const configOnly = run('2026-12-05T10:00:00Z', 'b'.repeat(40), { sizes: [10, 1000], only: ['config'] });
    const merged = mergeResults(full, configOnly, ['config']);
    expect(merged.plugin).toEqual(full.plugin);
    expect(merged.workloadBurst).toEqual(full.workloadBurst);
    expect(merged.portBurstSameN).toEqual(full.portBurstSameN);
    expect(merged.startedAt).toBe('2026-12-05T10:00:00Z');
    expect(merged.carried).toEqual([
      { case: 'plugin', sizes: [10, 1000], startedAt: full.startedAt, commit: full.machine.commit },
      { case: 'workload', startedAt: full.startedAt, commit: full.machine.commit },
      { case: 'every-field', startedAt: full.startedAt, commit: full.machine.commit },
    ]);
    expect(resultsMarkdown(merged)).toContain(
      'This run measured only config. The figures of plugin at N = 10, 1000, workload, every-field come from the run of 2026-12-03T07:08:58Z at commit aaaaaaaaaaaa.',
    );
  });

  it('replaces the plugin case size by size, and a carried figure keeps its first run through a later merge', () => {
    const pluginRun = run('2026-12-05T11:00:00Z', 'c'.repeat(40), { sizes: [1000], plugin: [pluginAt(1000, 800)] });
    const merged = mergeResults(full, pluginRun, ['plugin']);
    expect(merged.plugin.map((p) => [p.n, p.noop.wallMs])).toEqual([
      [10, 100],
      [1000, 800],
    ]);
    expect(merged.sizes).toEqual([10, 1000]);
    const workloadRun = run('2026-12-05T12:00:00Z', 'd'.repeat(40), { workloadBurst: workloadOf(200, 50_000) });
    const again = mergeResults(merged, workloadRun, ['workload']);
    expect(again.workloadBurst?.readyMs).toBe(50_000);
    expect(again.carried).toEqual([
      { case: 'plugin', sizes: [10], startedAt: full.startedAt, commit: full.machine.commit },
      { case: 'plugin', sizes: [1000], startedAt: pluginRun.startedAt, commit: pluginRun.machine.commit },
      { case: 'every-field', startedAt: full.startedAt, commit: full.machine.commit },
    ]);
  });

  it('carries nothing when the run measured everything the file held', () => {
    const everything = run('2026-12-05T13:00:00Z', 'e'.repeat(40), { sizes: [10, 1000], plugin: full.plugin });
    expect(mergeResults(results({ plugin: full.plugin }), everything, ['plugin']).carried).toBeUndefined();
  });
});

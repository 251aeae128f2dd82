// run limits V8's old-generation growth at start-up (src/controller/heap.ts), unless the
// operator gave node a factor; and V8 honours the flag set at run time, which is what the
// approach stands on: a node that froze its flags after start would lose it silently.
import { spawnSync } from 'node:child_process';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from '../../src/controller/heap';

describe('limitHeapGrowth', () => {
  const flagsSet = (execArgv: string[], nodeOptions: string): string[] => {
    const set: string[] = [];
    limitHeapGrowth(execArgv, nodeOptions, (flags) => set.push(flags));
    return set;
  };

  it('sets the growing factor when node was given none', () => {
    expect(flagsSet([], '')).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    expect(flagsSet(['--max-semi-space-size=16'], '--no-warnings')).toEqual([
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    ]);
  });

  it("leaves the operator's factor, in either spelling, on the command line or in NODE_OPTIONS", () => {
    expect(flagsSet(['--heap-growing-percent=50'], '')).toEqual([]);
    expect(flagsSet([], '--no-warnings  --heap_growing_percent=100')).toEqual([]);
    expect(flagsSet([], '--heap-growing-percent')).toEqual([]);
  });
});

// Objects that live a while and die old, as a cache's replaced versions do; the old
// generation's peak, in MiB, with the given flags set at run time.
const CHURN = `
const v8 = require('node:v8');
if (process.argv[1]) v8.setFlagsFromString(process.argv[1]);
const cache = new Map();
const young = [];
let [i, peak] = [0, 0];
// In turns of the event loop, as a controller runs: V8 finishes its concurrent marking in tasks.
(function turn() {
  for (const end = i + 5000; i < end; i++) {
    young.push({ name: 'svc-' + i, spec: { ports: [i, i + 1] }, status: { conditions: [{ message: 'm' + i }] } });
    if (young.length > 10000) cache.set(i % 30000, young.shift());
  }
  const old = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
  peak = Math.max(peak, old.space_used_size);
  if (i < 450000) setImmediate(turn);
  else console.log(peak / 1048576);
})();
`;

// --predictable alone leaves V8's collector paced by the wall clock: incremental marking's
// schedule and the memory reducer's timers. On a loaded machine the process is paused at random
// and the peak moved by 1.3 MiB; without both, the churn collects at the same bytes every time.
const DETERMINISTIC = ['--predictable', '--no-incremental-marking', '--no-memory-reducer'];

/** The churn's peak, with V8 deterministic: node's flags, then the flags set at run time. */
function peakOldMiB(nodeFlags: string[], runtimeFlags: string): number {
  const args = ['--max-semi-space-size=16', ...DETERMINISTIC, ...nodeFlags, '-e', CHURN, runtimeFlags];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return Number(result.stdout.trim());
}

describe('V8 with the growing factor set at run time', () => {
  it('collects as it does with the factor given at start, and the factor tells', () => {
    const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
    const atRunTime = peakOldMiB([], flag);
    expect(atRunTime).toBeGreaterThan(0);
    expect(atRunTime).toBeCloseTo(peakOldMiB([flag], ''), 1);
    expect(atRunTime).toBeLessThan(peakOldMiB([], '--heap-growing-percent=300'));
  }, 60_000);
});

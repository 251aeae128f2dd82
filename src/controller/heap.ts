// How V8 manages the controller's memory. A controller's long-lived data is its watch cache,
// and a burst of rollouts replaces each cached object many times, so most of its garbage dies
// old. With V8's defaults, the old generation grew to 66 MiB over 18 MiB live before a full GC
// in a burst of 1000 every-field WebServices, and the young one to its cap (deploy/README.md
// has the figures):
// - a fixed growing factor of 1.2 keeps the old generation close to what is live, at the cost
//   of more frequent full GCs, which mark concurrently;
// - --optimize-for-size keeps the young generation at its minimum, grows the old one in small
//   steps and makes each full GC give memory back, at the cost of CPU.
// Set at start-up, as only `run` wants them: V8 reads both at each GC (test/unit/heap.test.ts
// checks that they take effect when set at run time). The image gives node --optimize-for-size
// on its command line all the same, where it did more, before V8 sized its heap (deploy/README.md).
import { setFlagsFromString } from 'node:v8';

/** The growing factor `run` gives V8's old generation: 1 + this / 100. */
export const HEAP_GROWING_PERCENT = 20;

/** The V8 flags `run` sets, each with what counts as the operator's own setting of it. */
const RUN_V8_FLAGS: readonly { flag: string; given: RegExp }[] = [
  { flag: `--heap-growing-percent=${HEAP_GROWING_PERCENT}`, given: /^--heap[-_]growing[-_]percent(=|$)/ },
  { flag: '--optimize-for-size', given: /^--(no-?)?optimize[-_]for[-_]size(=|$)/ },
];

/**
 * Sets each of V8's flags for the controller that node was not started with (on its command
 * line or in NODE_OPTIONS): the operator's setting wins, `--no-optimize-for-size` included.
 * The flags it set.
 */
export function tuneHeap(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
  setFlags: (flags: string) => void = setFlagsFromString,
): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)];
  const flags = RUN_V8_FLAGS.filter((f) => !given.some((arg) => f.given.test(arg))).map((f) => f.flag);
  for (const flag of flags) setFlags(flag);
  return flags;
}

// How much garbage the controller's old generation may gather before V8 collects it. V8 lets
// the old generation grow to a factor of what the last full GC left (up to 4×, set from its GC
// speed against the program's). A controller's long-lived data is its watch cache, and a burst
// of rollouts replaces each cached object many times: each old version dies in the old
// generation, which grew to 66 MiB over 18 MiB live before a full GC in a burst of 1000
// every-field WebServices (deploy/README.md has the figures). A fixed factor of 1.2 keeps it
// close to what is live, at the cost of more frequent full GCs, which mark concurrently. Set at
// start-up, as only `run` wants it: V8 reads the flag at each full GC (test/unit/heap.test.ts
// checks that it takes effect).
import { setFlagsFromString } from 'node:v8';

/** The growing factor `run` gives V8's old generation: 1 + this / 100. */
export const HEAP_GROWING_PERCENT = 20;

const GIVEN = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Sets V8's heap growing factor for the controller, unless node was started with one (on its
 * command line or in NODE_OPTIONS): the operator's wins. Whether it set it.
 */
export function limitHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
  setFlags: (flags: string) => void = setFlagsFromString,
): boolean {
  if ([...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => GIVEN.test(arg))) return false;
  setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}

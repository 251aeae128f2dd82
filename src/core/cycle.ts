// Dependency cycles: a WebService that reaches itself through dependsOn can never become
// Ready, whatever the length of the loop. Pure: the graph comes in as a lookup function.

/**
 * The shortest cycle through `start`, as the names along it from start back to start
 * (`['a', 'b', 'a']`), or null. Breadth-first over dependsOn in list order, so the
 * answer is the same on every pass. `dependsOn(name)` is undefined for a WebService
 * that is unknown or being deleted: it leads nowhere.
 */
export function findCycle(start: string, dependsOn: (name: string) => readonly string[] | undefined): string[] | null {
  const cameFrom = new Map<string, string>();
  const queue: string[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head];
    for (const next of dependsOn(name) ?? []) {
      if (next === start) return pathBack(cameFrom, name, start);
      if (!cameFrom.has(next)) {
        cameFrom.set(next, name);
        queue.push(next);
      }
    }
  }
  return null;
}

/** start → … → last → start, read backwards through cameFrom. */
function pathBack(cameFrom: Map<string, string>, last: string, start: string): string[] {
  const path = [last];
  for (let name = last; name !== start;) {
    name = cameFrom.get(name)!;
    path.push(name);
  }
  return [...path.reverse(), start];
}

export function describeCycle(cycle: readonly string[]): string {
  return cycle.join(' → ');
}

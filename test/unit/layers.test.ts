// The arrows between the modules of src/, as madge reads them from the imports (type-only and
// lazy ones included): no module reaches itself through its imports, the core imports nothing
// but the core, and the one module that talks to the API server nothing above it.
import * as path from 'node:path';
import madge from 'madge';

const SRC = path.join(__dirname, '..', '..', 'src');

/** Every module of src/ (its path under src/) with the modules and packages it imports. */
let imports: Record<string, string[]>;
let cycles: string[][];
let unresolved: string[];

beforeAll(async () => {
  const graph = await madge(SRC, { fileExtensions: ['ts'], includeNpm: true });
  imports = graph.obj();
  cycles = graph.circular();
  unresolved = graph.warnings().skipped;
});

/** A module's layer: its folder under src/ (a file at the top is its own); a package is "npm". */
function layerOf(module: string): string {
  if (module.includes('node_modules/')) return 'npm';
  if (module.startsWith('../')) return 'outside src';
  return module.split('/')[0];
}

/** The imports out of a layer into any layer but the allowed ones, as `from -> to`. */
function arrowsOutOf(layer: string, allowed: string[]): string[] {
  return Object.entries(imports)
    .filter(([from]) => layerOf(from) === layer)
    .flatMap(([from, targets]) =>
      targets.filter((to) => !allowed.includes(layerOf(to))).map((to) => `${from} -> ${to}`),
    );
}

describe('the imports of src/', () => {
  it('are all read: every module, every import resolved (an import not read is an arrow not checked)', () => {
    expect(unresolved).toEqual([]);
    expect(imports['main.ts']).toContain('commands/apply.ts');
    expect(imports['kube/client.ts']).toEqual(expect.arrayContaining(['core/model.ts', 'kube/transport.ts']));
    expect(imports['kube/client.ts'].some((to) => to.includes('node_modules/@kubernetes/client-node/'))).toBe(true);
  });

  it('make no cycle', () => {
    expect(cycles).toEqual([]);
  });

  it('of the core reach nothing but the core: no package, no shell', () => {
    expect(arrowsOutOf('core', ['core'])).toEqual([]);
  });

  it('of the client reach only the client, the core and packages: never a layer above', () => {
    expect(arrowsOutOf('kube', ['kube', 'core', 'npm'])).toEqual([]);
  });
});

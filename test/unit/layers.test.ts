// The arrows between the modules of src/, as madge reads them from the imports (type-only and
// lazy ones included): no module reaches itself through its imports, the core imports nothing
// but the core, and the one module that talks to the API server nothing above it. Across the
// repository: src/ imports no other folder of code, and scripts/ and test/ never each other;
// what both need is in harness/.
import * as fs from 'node:fs';
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

/** The repository's folders of code, and the folders of code each may import from. */
const FOLDER_ARROWS: Record<string, string[]> = {
  src: ['src'],
  harness: ['harness', 'src'],
  scripts: ['scripts', 'harness', 'src'],
  test: ['test', 'harness', 'src'],
};
const ROOT = path.join(SRC, '..');
const CODE = /\.(ts|js|mjs|cjs)$/;
/** A module's relative imports: import/export … from, import(), require(). */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function codeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(file);
    return CODE.test(entry.name) ? [file] : [];
  });
}

/** The imports from one folder of the repository into a folder it may not import from. */
function arrowsBetweenFolders(folder: string): string[] {
  return codeFiles(path.join(ROOT, folder)).flatMap((file) =>
    [...fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)]
      .map(([, specifier]) => path.relative(ROOT, path.resolve(path.dirname(file), specifier)))
      // Data (the CRD and manifests that src embeds, package.json) may be read from anywhere.
      .filter((target) => Object.hasOwn(FOLDER_ARROWS, target.split(path.sep)[0]))
      .filter((target) => !FOLDER_ARROWS[folder].includes(target.split(path.sep)[0]))
      .map((target) => `${path.relative(ROOT, file)} -> ${target}`),
  );
}

describe('the folders of the repository', () => {
  it('import across only as allowed: src from nothing else, tests and scripts never from each other', () => {
    for (const folder of Object.keys(FOLDER_ARROWS)) expect(arrowsBetweenFolders(folder)).toEqual([]);
    // The check reads imports at all: the bench and the tests both import the shared harness.
    expect(codeFiles(path.join(ROOT, 'test')).length).toBeGreaterThan(50);
    const harnessUsers = (folder: string) =>
      codeFiles(path.join(ROOT, folder)).filter((file) => fs.readFileSync(file, 'utf8').includes('/harness/'));
    expect(harnessUsers('test').length).toBeGreaterThan(0);
    expect(harnessUsers('scripts').length).toBeGreaterThan(0);
  });
});

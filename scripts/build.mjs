// Bundles the plugin into one executable file, dist/kubectl-webservice, that needs
// no node_modules at run time, plus the demo and bench runners (not part of the plugin).
// Run through `npm run build`, which type-checks first.
import { build } from 'esbuild';
import { chmodSync, readFileSync, renameSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  legalComments: 'none',
  // Smaller and faster to load; identifiers stay readable for -v stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

/** Writes beside the target, then renames: a running copy never sees a half-written file. */
async function bundle(entry, outfile, options = {}) {
  const temporary = `${outfile}.tmp-${process.pid}`;
  await build({ ...common, ...options, entryPoints: [entry], outfile: temporary });
  chmodSync(temporary, 0o755);
  renameSync(temporary, outfile);
}

await bundle('src/main.ts', 'dist/kubectl-webservice', {
  banner: { js: '#!/usr/bin/env node' },
  define: { PLUGIN_VERSION: JSON.stringify(pkg.version) },
});
await bundle('scripts/lab/demo.ts', 'dist/lab-demo.js');
await bundle('scripts/bench/bench.ts', 'dist/bench.js');
console.error(`built dist/kubectl-webservice (${pkg.version})`);

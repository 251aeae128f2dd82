// Bundles the plugin into one executable file, dist/kubectl-webservice, that needs
// no node_modules at run time. Run through `npm run build`, which type-checks first.
import { build } from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const outfile = 'dist/kubectl-webservice';

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

await build({
  ...common,
  entryPoints: ['src/main.ts'],
  outfile,
  banner: { js: '#!/usr/bin/env node' },
  define: { PLUGIN_VERSION: JSON.stringify(pkg.version) },
});
// The lab demo (npm run demo) is a separate bundle; it is not part of the plugin.
await build({ ...common, entryPoints: ['scripts/lab/demo.ts'], outfile: 'dist/lab-demo.js' });
await build({ ...common, entryPoints: ['scripts/bench/bench.ts'], outfile: 'dist/bench.js' });
chmodSync(outfile, 0o755);
console.error(`built ${outfile} (${pkg.version})`);

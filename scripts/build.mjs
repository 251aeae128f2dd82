// Bundles the plugin into one executable file, dist/kubectl-webservice, that needs
// no node_modules at run time. Run through `npm run build`, which type-checks first.
import { build } from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const outfile = 'dist/kubectl-webservice';

await build({
  entryPoints: ['src/main.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: false,
  sourcemap: false,
  legalComments: 'none',
  banner: { js: '#!/usr/bin/env node' },
  define: { PLUGIN_VERSION: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
console.error(`built ${outfile} (${pkg.version})`);

// Bundles the plugin into one executable file, dist/kubectl-webservice, that needs
// no node_modules at run time, plus the demo and bench runners (not part of the plugin).
// Run through `npm run build`, which type-checks first.
import { build } from 'esbuild';
import { chmodSync, readFileSync, renameSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * Optional peers that ws (bufferutil, utf-8-validate) and node-fetch (encoding) try to
 * require() and do without; none is installed. Each resolves to a stub that throws like a
 * missing module, so nothing is looked up at run time: the standalone binary's require()
 * knows built-in modules only, and prints a warning when asked for any other.
 */
const optionalPeers = {
  name: 'optional-peers',
  setup(build) {
    build.onResolve({ filter: /^(bufferutil|utf-8-validate|encoding)$/ }, (args) => ({
      path: args.path,
      namespace: 'optional-peer',
    }));
    build.onLoad({ filter: /.*/, namespace: 'optional-peer' }, (args) => ({
      contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${args.path}'`)}), { code: 'MODULE_NOT_FOUND' });`,
      loader: 'js',
    }));
  },
};

/**
 * client-node's KubeConfig imports the generated API (hundreds of model classes) only for
 * makeApiClient, which the plugin never calls: its own transport speaks JSON. Evaluating
 * that module graph cost most of a command's start-up, so KubeConfig gets a stand-in that
 * fails loudly if makeApiClient were ever used.
 */
const kubeConfigWithoutGeneratedApi = {
  name: 'kubeconfig-without-generated-api',
  setup(build) {
    build.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (args) =>
      /client-node[\\/]dist[\\/]config\.js$/.test(args.importer) ? { path: 'generated-api', namespace: 'stand-in' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'stand-in' }, () => ({
      contents:
        'const unused = () => { throw new Error("the generated client-node API is not bundled"); };\n' +
        'export const createConfiguration = unused;\nexport class ServerConfiguration { constructor() { unused(); } }\n',
      loader: 'js',
    }));
  },
};

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
  // install's manifests (crds/, deploy/) travel inside the bundle as text.
  loader: { '.yaml': 'text' },
  plugins: [optionalPeers, kubeConfigWithoutGeneratedApi],
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

// Bundles the plugin into one executable file, dist/kubectl-webservice, that needs
// no node_modules at run time, plus the demo and bench runners (not part of the plugin).
// Run through `npm run build`, which type-checks first.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * The commit the plugin is built from, for `kubectl webservice version`: the newest commit that
 * changed anything but krew-manifest.yaml, with "-dirty" after it when tracked files differ from
 * it. Not HEAD: the manifest holds the sha256 of this build, so the commit that records it
 * must not change what is built (the release test compares the two). "unknown" without git, or
 * in a shallow clone whose history stops before that commit (its oldest commit would look as if
 * it changed every file).
 */
function gitCommit() {
  const git = (...args) =>
    execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const sources = ['--', '.', ':(exclude)krew-manifest.yaml'];
  try {
    const commit = git('log', '-1', '--format=%H', ...sources);
    if (!/^[0-9a-f]{40}$/.test(commit)) return 'unknown';
    if (git('rev-parse', '--is-shallow-repository') === 'true') {
      const boundaries = readFileSync(git('rev-parse', '--path-format=absolute', '--git-path', 'shallow'), 'utf8');
      if (boundaries.split('\n').includes(commit)) return 'unknown';
    }
    const dirty = git('status', '--porcelain', '--untracked-files=no', ...sources) !== '';
    return dirty ? `${commit}-dirty` : commit;
  } catch {
    return 'unknown';
  }
}

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
      /client-node[\\/]dist[\\/]config\.js$/.test(args.importer)
        ? { path: 'generated-api', namespace: 'stand-in' }
        : undefined,
    );
    // node-fetch (with whatwg-url and tr46, a third of the bundle) serves only applyToFetchOptions.
    build.onResolve({ filter: /^node-fetch$/ }, (args) =>
      /client-node[\\/]dist[\\/]config\.js$/.test(args.importer)
        ? { path: 'node-fetch', namespace: 'stand-in' }
        : undefined,
    );
    build.onLoad({ filter: /^generated-api$/, namespace: 'stand-in' }, () => ({
      contents:
        'const unused = () => { throw new Error("the generated client-node API is not bundled"); };\n' +
        'export const createConfiguration = unused;\nexport class ServerConfiguration { constructor() { unused(); } }\n',
      loader: 'js',
    }));
    build.onLoad({ filter: /^node-fetch$/, namespace: 'stand-in' }, () => ({
      contents:
        'export class Headers { constructor() { throw new Error("client-node\'s fetch options are not bundled"); } }\n',
      loader: 'js',
    }));
  },
};

/**
 * What client-node's KubeConfig imports for the rarer kubeconfigs only: proxy agents
 * (proxy-url), openid-client and rfc4648 (the oidc auth provider), jsonpath-plus (azure
 * and gcp). Each import gets a stand-in whose exports load
 * the real module on first use, so a command whose kubeconfig needs none of them never
 * evaluates their module graphs at start-up. The real modules are still in the bundle.
 */
const LAZY_EXPORTS = {
  'socks-proxy-agent': ['SocksProxyAgent'],
  hpagent: ['HttpProxyAgent', 'HttpsProxyAgent'],
  'openid-client': ['discovery', 'refreshTokenGrant'],
  rfc4648: ['base64url'],
  'jsonpath-plus': ['JSONPath'],
};
const lazyKubeConfigDependencies = {
  name: 'lazy-kubeconfig-dependencies',
  setup(build) {
    const filter = new RegExp(`^(${Object.keys(LAZY_EXPORTS).join('|')})$`);
    build.onResolve({ filter }, (args) =>
      /client-node[\\/]dist[\\/](config|oidc_auth|azure_auth|gcp_auth)\.js$/.test(args.importer)
        ? { path: args.path, namespace: 'lazy', pluginData: { resolveDir: args.resolveDir } }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({
      contents: LAZY_EXPORTS[args.path]
        .map(
          (name) =>
            `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get: () => require(${JSON.stringify(args.path)})[${JSON.stringify(name)}] });`,
        )
        .join('\n'),
      loader: 'js',
      resolveDir: args.pluginData.resolveDir,
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
  plugins: [optionalPeers, kubeConfigWithoutGeneratedApi, lazyKubeConfigDependencies],
};

/** Writes beside the target, then renames: a running copy never sees a half-written file. */
async function bundle(entry, outfile, options = {}) {
  mkdirSync(dirname(outfile), { recursive: true });
  const temporary = `${outfile}.tmp-${process.pid}`;
  await build({ ...common, ...options, entryPoints: [entry], outfile: temporary });
  chmodSync(temporary, 0o755);
  renameSync(temporary, outfile);
}

/** Writes beside the target, then renames: a running copy never sees a half-written file. */
function writeExecutable(outfile, text) {
  const temporary = `${outfile}.tmp-${process.pid}`;
  writeFileSync(temporary, text);
  chmodSync(temporary, 0o755);
  renameSync(temporary, outfile);
}

/** What the bundle, the standalone binary (scripts/sea.sh) and the image give node. */
const SEMI_SPACE = '--max-semi-space-size=16';

// The program itself (the standalone binary embeds it, with its own code cache)...
const commit = gitCommit();
await bundle('src/main.ts', 'dist/program/kubectl-webservice.js', {
  define: { BUILD_VERSION: JSON.stringify(pkg.version), BUILD_GIT_COMMIT: JSON.stringify(commit) },
});
// ...and the plugin: a launcher that compiles the program with V8's code cache
// (scripts/launcher.js), with the program after it inside a comment. Still one file.
const program = readFileSync('dist/program/kubectl-webservice.js', 'latin1');
const wrapped = `(function (exports, require, module, __filename, __dirname) {${program}\n})`;
// `*/` would end the comment early: written as `*` \x01 `/`, which the program never has.
const COMMENT_END = '*/';
const COMMENT_END_ESCAPED = '*\x01/';
if (/[^\x00-\x7f]/.test(wrapped) || wrapped.includes('\x01')) {
  throw new Error('the program must be ASCII without \\x01 to travel in the launcher comment');
}
const key = createHash('sha256').update(wrapped).digest('hex').slice(0, 16);
const constants = { PROGRAM_KEY: key, COMMENT_END, COMMENT_END_ESCAPED };
// Started by its shebang, as kubectl starts a plugin, the bundle runs node with V8's young
// generation capped at 16 MiB a semi-space, as the standalone binary does (the controller image
// caps it at 8: deploy/README.md): Node 24 otherwise grows it to 64 MiB on a machine with much
// memory, which was 60-100 MiB of a pass's peak RSS over 10 000 WebServices (bench/RESULTS.md).
// A NODE_OPTIONS that sets the cap wins.
// The second line is sh to sh, and to JavaScript a string and a comment; `node FILE` skips it.
const SHEBANG = [
  '#!/bin/sh',
  `":" //; case " \${NODE_OPTIONS-} " in *" --max-semi-space-size"*) exec node "$0" "$@";; esac; exec node ${SEMI_SPACE} "$0" "$@"`,
];
writeExecutable(
  'dist/kubectl-webservice',
  [
    ...SHEBANG,
    "'use strict';",
    ...Object.entries(constants).map(([name, value]) => `const ${name} = ${JSON.stringify(value)};`),
    readFileSync('scripts/launcher.js', 'utf8'),
    `/*PROGRAM\n${wrapped.replaceAll(COMMENT_END, COMMENT_END_ESCAPED)}*/\n`,
  ].join('\n'),
);

await bundle('scripts/lab/demo.ts', 'dist/lab-demo.js');
await bundle('scripts/bench/bench.ts', 'dist/bench.js');
// The whole CRD, from src/core/spec-schema.ts and a live API server's OpenAPI (npm run crd:generate).
await bundle('scripts/crd/generate.ts', 'dist/crd-generate.js');
console.error(`built dist/kubectl-webservice (${pkg.version}, commit ${commit})`);

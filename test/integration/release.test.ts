// The release path: reproducible archives (the bundled plugin, and the standalone
// linux/amd64 binary), a krew manifest with their real sha256, the standalone binary as
// kubectl finds it with no Node on PATH, and the completion helper as kubectl calls it.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { PACKAGE_VERSION, ROOT, applyYaml, useNamespace, webService } from '../support/cluster';

const version = PACKAGE_VERSION;
const BUNDLE_ARCHIVE = path.join(ROOT, 'dist', 'release', `kubectl-webservice-v${version}.tar.gz`);
const STANDALONE_ARCHIVE = path.join(ROOT, 'dist', 'release', `kubectl-webservice-v${version}-linux-amd64.tar.gz`);
// scripts/package.sh builds the standalone binary, so it runs on linux/x64 only.
const describeOnLinuxX64 = process.platform === 'linux' && process.arch === 'x64' ? describe : describe.skip;

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const listing = (archive: string) =>
  spawnSync('tar', ['tzf', archive], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).sort();

let packageDir: string | undefined;
/** Runs scripts/package.sh, with the krew manifest written in dir. */
function pack(dir: string) {
  return spawnSync('bash', [path.join(ROOT, 'scripts/package.sh')], {
    encoding: 'utf8',
    env: { ...process.env, KREW_MANIFEST_OUT: path.join(dir, 'plugin.yaml') },
  });
}
/** Packages once for this file; returns the directory of its krew manifest. */
function packaged(): string {
  if (packageDir === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'package-'));
    const result = pack(dir);
    if (result.status !== 0) throw new Error(result.stderr);
    packageDir = dir;
  }
  return packageDir;
}
afterAll(() => {
  if (packageDir !== undefined) fs.rmSync(packageDir, { recursive: true, force: true });
});

/** What each archive holds, in tar's sorted order: the plugin, its companions, and every page of docs/. */
const ARCHIVED = [
  './',
  './LICENSE',
  './README.md',
  './docs/',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `./docs/${file}`),
  './kubectl-webservice',
  './kubectl_complete-webservice',
];

describeOnLinuxX64('npm run package', () => {
  let manifest: any;
  const platformOf = (p: any) => `${p.selector.matchLabels.os}/${p.selector.matchLabels.arch}`;

  beforeAll(() => {
    manifest = yaml.load(fs.readFileSync(path.join(packaged(), 'plugin.yaml'), 'utf8'));
  }, 300_000);

  it('archives the bundled plugin, its completion helper, LICENSE, and the README with the docs it links to', () => {
    expect(listing(BUNDLE_ARCHIVE)).toEqual(ARCHIVED);
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map(([, file]) => `./${file}`);
    expect(linked.length).toBeGreaterThan(0);
    expect(ARCHIVED).toEqual(expect.arrayContaining(linked));
  });

  it('archives the standalone linux/amd64 binary as kubectl-webservice, with the same companions', () => {
    expect(listing(STANDALONE_ARCHIVE)).toEqual(ARCHIVED);
    const member = (archive: string, name: string) =>
      spawnSync('tar', ['xzOf', archive, name], { maxBuffer: 1 << 28 }).stdout;
    for (const name of ARCHIVED.filter((entry) => !entry.endsWith('/') && entry !== './kubectl-webservice')) {
      expect(member(STANDALONE_ARCHIVE, name).equals(member(BUNDLE_ARCHIVE, name))).toBe(true);
    }
    const binary = member(STANDALONE_ARCHIVE, './kubectl-webservice');
    expect(binary.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(binary.readUInt16LE(18)).toBe(0x3e); // e_machine: x86-64
    expect(binary.includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1')).toBe(true); // the blob is injected
  });

  it('writes a krew v1alpha2 manifest: the standalone archive for linux/amd64, the bundle for the rest, with real sha256', () => {
    expect(manifest.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(manifest.kind).toBe('Plugin');
    expect(manifest.metadata.name).toBe('webservice');
    expect(manifest.spec.caveats).toMatch(/linux\/amd64 .*needs no Node\.js/);
    expect(manifest.spec.caveats).toMatch(/darwin and linux\/arm64 .*needs Node\.js 20\.19\+, 22\.13\+ or 24\+/);
    // A krew user has no crds/ folder: the plugin installs its own CRD.
    expect(manifest.spec.caveats).toMatch(/^\s*kubectl webservice install\b/m);
    expect(manifest.spec.caveats).not.toContain('crds/');
    expect(manifest.spec.platforms.map(platformOf).sort()).toEqual([
      'darwin/amd64',
      'darwin/arm64',
      'linux/amd64',
      'linux/arm64',
    ]);
    const bundleSha = sha256(BUNDLE_ARCHIVE);
    const standaloneSha = sha256(STANDALONE_ARCHIVE);
    expect(standaloneSha).not.toBe(bundleSha);
    for (const platform of manifest.spec.platforms) {
      expect(platform.bin).toBe('kubectl-webservice');
      if (platformOf(platform) === 'linux/amd64') {
        expect(platform.sha256).toBe(standaloneSha);
        expect(platform.uri).toMatch(new RegExp(`/v${version}/kubectl-webservice-v${version}-linux-amd64\\.tar\\.gz$`));
      } else {
        expect(platform.sha256).toBe(bundleSha);
        expect(platform.uri).toMatch(new RegExp(`/v${version}/kubectl-webservice-v${version}\\.tar\\.gz$`));
      }
    }
  });

  it("is the repository's krew-manifest.yaml: its sha256 are those of what this checkout ships (after a change, run npm run package)", () => {
    const committed = yaml.load(fs.readFileSync(path.join(ROOT, 'krew-manifest.yaml'), 'utf8')) as any;
    expect(committed.spec.platforms.map((p: any) => [platformOf(p), p.sha256])).toEqual(
      manifest.spec.platforms.map((p: any) => [platformOf(p), p.sha256]),
    );
    expect(committed).toEqual(manifest);
  });

  it('is reproducible: packaging again gives the same archives, byte for byte', () => {
    const first = manifest.spec.platforms.map((p: any) => p.sha256);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'package-again-'));
    try {
      const result = pack(dir);
      if (result.status !== 0) throw new Error(result.stderr);
      const again = yaml.load(fs.readFileSync(path.join(dir, 'plugin.yaml'), 'utf8')) as any;
      expect(again.spec.platforms.map((p: any) => p.sha256)).toEqual(first);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

describeOnLinuxX64('the standalone binary, as kubectl finds it', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const fixture = path.join(ROOT, 'test/fixtures/decide/create-defaults');

  beforeAll(() => {
    packaged();
    // Like krew: unpack the release archive. On PATH: the plugin alone in one directory, and
    // kubectl alone in another. No node.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'standalone-'));
    const unpacked = path.join(dir, 'unpacked');
    const pluginDir = path.join(dir, 'plugin');
    const kubectlDir = path.join(dir, 'kubectl');
    for (const d of [unpacked, pluginDir, kubectlDir]) fs.mkdirSync(d);
    const untar = spawnSync('tar', ['xzf', STANDALONE_ARCHIVE, '-C', unpacked], { encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(untar.stderr);
    fs.copyFileSync(path.join(unpacked, 'kubectl-webservice'), path.join(pluginDir, 'kubectl-webservice'));
    fs.chmodSync(path.join(pluginDir, 'kubectl-webservice'), 0o755);
    const kubectl = (process.env.PATH ?? '')
      .split(path.delimiter)
      .map((d) => path.join(d, 'kubectl'))
      .find((file) => fs.existsSync(file));
    if (!kubectl) throw new Error('kubectl not found on PATH');
    fs.symlinkSync(kubectl, path.join(kubectlDir, 'kubectl'));
    env = { ...process.env, PATH: [pluginDir, kubectlDir].join(path.delimiter), NO_COLOR: '1' };
    delete env.NODE_OPTIONS; // V8 flags there would make the binary's code cache unusable
  }, 300_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const webservice = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    spawnSync('kubectl', ['webservice', ...args], { encoding: 'utf8', env: { ...env, ...extra }, timeout: 60_000 });

  it('has no node to lean on', () => {
    expect(spawnSync('/bin/sh', ['-c', 'command -v node'], { env }).status).not.toBe(0);
  });

  it('answers `kubectl webservice --version` and `--help`', () => {
    const result = webservice(['--version']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(version);
    const help = webservice(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('kubectl webservice <command>');
  });

  it('plans offline from a file, with no cluster configured', () => {
    const result = webservice(['plan', '-f', path.join(fixture, 'input.json'), '-o', 'json'], {
      KUBECONFIG: path.join(dir, 'none'),
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(fs.readFileSync(path.join(fixture, 'decision.json'), 'utf8')));
  });

  it("carries install's manifests: install -o yaml prints them with no cluster and no checkout", () => {
    const result = webservice(['install', '--rbac', '--controller', '-o', 'yaml'], {
      KUBECONFIG: path.join(dir, 'none'),
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const objects = (yaml.loadAll(result.stdout) as any[]).filter(Boolean);
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining(['CustomResourceDefinition', 'ClusterRole', 'Namespace', 'Deployment']),
    );
    expect(objects[0].metadata).toMatchObject({
      name: 'webservices.apps.labhub.io',
      labels: { 'webservice.labhub.io/version': version },
    });
  });

  describe('against the apiserver', () => {
    const ns = useNamespace('standalone');
    beforeAll(() => applyYaml(ns(), webService('checkout', { image: 'nginx:1.27' })));

    it('plans, applies and converges, with nothing on stderr', () => {
      const plan = webservice(['plan', 'checkout', '-n', ns(), '-o', 'json']);
      expect(plan.stderr).toBe('');
      expect(JSON.parse(plan.stdout)).toMatchObject({ action: 'create', target: 'configmap/checkout-desired' });
      const applied = webservice(['apply', '--all', '-n', ns(), '-o', 'json']);
      expect(applied.stderr).toBe('');
      expect(JSON.parse(applied.stdout)).toMatchObject({ converged: true, summary: { create: 1, error: 0 } });
      const again = webservice(['plan', 'checkout', '-n', ns(), '-o', 'json']);
      expect(JSON.parse(again.stdout)).toMatchObject({ action: 'noop' });
    });
  });
});

describe('shell completion through kubectl', () => {
  const ns = useNamespace('complete');
  beforeAll(() => {
    applyYaml(ns(), webService('checkout', { image: 'nginx:1.27' }));
    applyYaml(ns(), webService('search', { image: 'nginx:1.27' }));
  });

  const complete = (...words: string[]) => {
    const PATH = [path.join(ROOT, 'dist'), path.join(ROOT, 'scripts/completion'), process.env.PATH].join(
      path.delimiter,
    );
    const result = spawnSync('kubectl', ['__complete', 'webservice', ...words], {
      encoding: 'utf8',
      env: { ...process.env, PATH },
    });
    return result.stdout.split('\n').filter(Boolean);
  };

  it('completes subcommands', () => {
    expect(complete('')).toEqual([
      'observe',
      'plan',
      'describe',
      'apply',
      'status',
      'finalize',
      'run',
      'install',
      'check',
      'uninstall',
      'version',
      ':4',
    ]);
    expect(complete('fi')).toEqual(['finalize', ':4']);
  });

  it('completes WebService names in the namespace given with -n', () => {
    expect(complete('plan', '-n', ns(), '')).toEqual(['checkout', 'search', ':4']);
    expect(complete('plan', '-n', ns(), 'se')).toEqual(['search', ':4']);
  });

  it('completes output formats', () => {
    expect(complete('plan', '-o', '')).toEqual(['table', 'wide', 'json', 'yaml', ':4']);
  });
});

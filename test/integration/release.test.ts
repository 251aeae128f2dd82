// The release path: a reproducible archive, a krew manifest with its real sha256,
// and the completion helper as kubectl calls it.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { ROOT, applyYaml, createNamespace, deleteNamespace, webService } from '../support/cluster';

describe('npm run package', () => {
  let dir: string;
  let manifest: any;
  const archive = () => {
    const version = require(path.join(ROOT, 'package.json')).version as string;
    return path.join(ROOT, 'dist', 'release', `kubectl-webservice-v${version}.tar.gz`);
  };
  const pack = () =>
    spawnSync('bash', [path.join(ROOT, 'scripts/package.sh')], {
      encoding: 'utf8',
      env: { ...process.env, KREW_MANIFEST_OUT: path.join(dir, 'plugin.yaml') },
    });

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'package-'));
    const result = pack();
    if (result.status !== 0) throw new Error(result.stderr);
    manifest = yaml.load(fs.readFileSync(path.join(dir, 'plugin.yaml'), 'utf8'));
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('archives the plugin, its completion helper, LICENSE and README', () => {
    const listing = spawnSync('tar', ['tzf', archive()], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).sort();
    expect(listing).toEqual(['./', './LICENSE', './README.md', './kubectl-webservice', './kubectl_complete-webservice']);
  });

  it('writes a krew v1alpha2 manifest with the archive\'s real sha256 for linux and darwin, amd64 and arm64', () => {
    const sha = createHash('sha256').update(fs.readFileSync(archive())).digest('hex');
    expect(manifest.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(manifest.kind).toBe('Plugin');
    expect(manifest.metadata.name).toBe('webservice');
    expect(manifest.spec.caveats).toMatch(/Node\.js >= 20/);
    const platforms = manifest.spec.platforms.map((p: any) => `${p.selector.matchLabels.os}/${p.selector.matchLabels.arch}`);
    expect(platforms.sort()).toEqual(['darwin/amd64', 'darwin/arm64', 'linux/amd64', 'linux/arm64']);
    for (const platform of manifest.spec.platforms) {
      expect(platform.sha256).toBe(sha);
      expect(platform.bin).toBe('kubectl-webservice');
      expect(platform.uri).toMatch(/kubectl-webservice-v[\d.]+\.tar\.gz$/);
    }
  });

  it('is reproducible: packaging again gives the same sha256', () => {
    const first = manifest.spec.platforms[0].sha256;
    expect(pack().status).toBe(0);
    const again = yaml.load(fs.readFileSync(path.join(dir, 'plugin.yaml'), 'utf8')) as any;
    expect(again.spec.platforms[0].sha256).toBe(first);
  }, 120_000);
});

describe('shell completion through kubectl', () => {
  let ns: string;
  beforeAll(() => {
    ns = createNamespace('complete');
    applyYaml(ns, webService('checkout', { image: 'nginx:1.27' }));
    applyYaml(ns, webService('search', { image: 'nginx:1.27' }));
  });
  afterAll(() => deleteNamespace(ns));

  const complete = (...words: string[]) => {
    const PATH = [path.join(ROOT, 'dist'), path.join(ROOT, 'scripts/completion'), process.env.PATH].join(path.delimiter);
    const result = spawnSync('kubectl', ['__complete', 'webservice', ...words], { encoding: 'utf8', env: { ...process.env, PATH } });
    return result.stdout.split('\n').filter(Boolean);
  };

  it('completes subcommands', () => {
    expect(complete('')).toEqual(['observe', 'plan', 'apply', 'status', 'finalize', ':4']);
    expect(complete('fi')).toEqual(['finalize', ':4']);
  });

  it('completes WebService names in the namespace given with -n', () => {
    expect(complete('plan', '-n', ns, '')).toEqual(['checkout', 'search', ':4']);
    expect(complete('plan', '-n', ns, 'se')).toEqual(['search', ':4']);
  });

  it('completes output formats', () => {
    expect(complete('plan', '-o', '')).toEqual(['table', 'wide', 'json', 'yaml', ':4']);
  });
});

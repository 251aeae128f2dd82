// The bundle compiles its program with V8's code cache, kept in the user's cache
// directory. The cache may only ever save time: a first run writes it, a later run uses
// it, and a cache that is corrupt, stale or impossible to write changes nothing a user sees.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PACKAGE_VERSION, applyYaml, plugin, useNamespace, webService } from '../support/cluster';

const version = PACKAGE_VERSION;

let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'code-cache-'));
});
afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

const cacheDir = () => path.join(home, 'kubectl-webservice');
const cacheFiles = () => (fs.existsSync(cacheDir()) ? fs.readdirSync(cacheDir()) : []);
const run = (args: string[], env: NodeJS.ProcessEnv = {}) => plugin(args, { env: { XDG_CACHE_HOME: home, ...env } });

it('the first run writes the cache (private to the user); the next runs read it and answer the same', () => {
  const first = run(['--version']);
  expect(first).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
  const files = cacheFiles();
  expect(files).toEqual([
    expect.stringMatching(new RegExp(`^code-[0-9a-f]{16}-${process.version}-${process.arch}\\.bin$`)),
  ]);
  const file = path.join(cacheDir(), files[0]);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(fs.statSync(cacheDir()).mode & 0o777).toBe(0o700);
  const written = fs.statSync(file).mtimeMs;

  const second = run(['--version']);
  expect(second).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
  // Accepted, so not written again.
  expect(fs.statSync(file).mtimeMs).toBe(written);
});

it('a corrupt cache is ignored and replaced', () => {
  run(['--version']);
  const [name] = cacheFiles();
  const file = path.join(cacheDir(), name);
  fs.writeFileSync(file, Buffer.alloc(4096, 7));
  const result = run(['--version']);
  expect(result).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
  expect(fs.readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
});

it("another build's cache is removed when this build writes its own", () => {
  fs.mkdirSync(cacheDir(), { recursive: true });
  const stale = path.join(cacheDir(), `code-0123456789abcdef-${process.version}-${process.arch}.bin`);
  fs.writeFileSync(stale, 'stale');
  run(['--version']);
  expect(fs.existsSync(stale)).toBe(false);
  expect(cacheFiles()).toHaveLength(1);
});

it("another node's cache of this build is kept when this node writes its own", () => {
  run(['--version']);
  const [own] = cacheFiles();
  const key = /^code-([0-9a-f]{16})-/.exec(own)![1];
  // As left by the same build on another node (nvm, a CI matrix): alternating, each would
  // otherwise delete the other's and never start from a cache.
  const otherNode = path.join(cacheDir(), `code-${key}-v0.0.1-${process.arch}.bin`);
  fs.writeFileSync(otherNode, 'another node');
  fs.rmSync(path.join(cacheDir(), own));
  run(['--version']);
  expect(cacheFiles().sort()).toEqual([own, path.basename(otherNode)].sort());
});

it('a cache directory that cannot be made costs nothing but the cache', () => {
  // A file where the directory should be (a mode would not stop root).
  const blocked = path.join(home, 'not-a-directory');
  fs.writeFileSync(blocked, '');
  const result = run(['--version'], { XDG_CACHE_HOME: blocked });
  expect(result).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
  expect(fs.readdirSync(home)).toEqual(['not-a-directory']);
});

it('KUBECTL_WEBSERVICE_NO_CODE_CACHE turns it off', () => {
  const result = run(['--version'], { KUBECTL_WEBSERVICE_NO_CODE_CACHE: '1' });
  expect(result).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
  expect(cacheFiles()).toEqual([]);
});

describe('against the apiserver', () => {
  const ns = useNamespace('code-cache');
  beforeAll(() => applyYaml(ns(), webService('cached', { image: 'nginx:1.27' })));

  it('a command run from the cache does what it does without one', () => {
    const without = run(['plan', 'cached', '-n', ns(), '-o', 'json'], { KUBECTL_WEBSERVICE_NO_CODE_CACHE: '1' });
    expect(without.status).toBe(0);
    const writing = run(['plan', 'cached', '-n', ns(), '-o', 'json']);
    expect(cacheFiles()).toHaveLength(1);
    const reading = run(['plan', 'cached', '-n', ns(), '-o', 'json']);
    for (const result of [writing, reading]) {
      expect(result).toMatchObject({ status: 0, stderr: '' });
      expect(JSON.parse(result.stdout)).toEqual(JSON.parse(without.stdout));
    }
  });
});

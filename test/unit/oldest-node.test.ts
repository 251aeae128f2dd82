// The bundle on the oldest Node.js that package.json's engines admits, not only on the pinned
// Node.js 24 that npm scripts run: on darwin and linux/arm64 users run dist/kubectl-webservice
// with their own node. It runs the built bundle as its shebang (sh, then `node` from PATH) does, with
// PATH holding only a directory of PATH, outside node_modules, where such a node is. Skipped,
// saying why, when there is none or the bundle is not built (npm test builds it first).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const BUNDLE = path.join(ROOT, 'dist/kubectl-webservice');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
};

/** The lowest version of engines.node's ranges ("^20.19.0 || ^22.13.0 || >=24": 20.19.0). */
function oldestAdmitted(range: string): number[] {
  const lows = range.split('||').map((part) => {
    const match = /^\s*(?:\^|>=)(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(part);
    if (!match) throw new Error(`engines.node: cannot read "${part}"`);
    return [Number(match[1]), Number(match[2] || 0), Number(match[3] || 0)];
  });
  return lows.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])[0];
}

const OLDEST = oldestAdmitted(pkg.engines.node);

/** A directory of PATH, outside node_modules, whose node is of the oldest admitted major; or why there is none. */
function findOldestNode(): { dir: string; version: string } | { reason: string } {
  const seen: string[] = [];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || dir.split(path.sep).includes('node_modules')) continue;
    const node = path.join(dir, 'node');
    try {
      fs.accessSync(node, fs.constants.X_OK);
    } catch {
      continue;
    }
    const answer = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (answer.error || answer.status !== 0) continue;
    const version = answer.stdout.trim();
    const [major, minor, patch] = version.split('.').map(Number);
    seen.push(`v${version} in ${dir}`);
    if (major !== OLDEST[0]) continue;
    if (minor < OLDEST[1] || (minor === OLDEST[1] && patch < OLDEST[2])) continue;
    return { dir, version: `v${version}` };
  }
  const found = seen.length > 0 ? `only ${seen.join(', ')}` : 'none';
  return { reason: `no Node.js >= ${OLDEST.join('.')} < ${OLDEST[0] + 1} on PATH outside node_modules (${found})` };
}

const oldest = findOldestNode();
const skipReason =
  'reason' in oldest
    ? oldest.reason
    : fs.existsSync(BUNDLE)
      ? undefined
      : `${path.relative(ROOT, BUNDLE)} is not built (npm run build)`;
if (skipReason) console.warn(`skipped: the bundle on the oldest admitted Node.js: ${skipReason}`);

(skipReason ? describe.skip : describe)(
  `dist/kubectl-webservice on Node.js ${'version' in oldest ? oldest.version : OLDEST[0]}${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let home: string;
    beforeAll(() => {
      home = fs.mkdtempSync(path.join(os.tmpdir(), 'oldest-node-'));
    });
    afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

    const run = (args: string[]) => {
      const { dir } = oldest as { dir: string };
      // No NODE_OPTIONS, no node_modules/.bin: the shebang finds that node and no other.
      const result = spawnSync(BUNDLE, args, {
        encoding: 'utf8',
        env: { PATH: dir, HOME: home, XDG_CACHE_HOME: path.join(home, 'cache'), NO_COLOR: '1' },
        timeout: 60_000,
      });
      if (result.error) throw result.error;
      return result;
    };

    it('prints its version, and the Node.js it runs on is that one', () => {
      const result = run(['--version']);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(result.stdout.trim()).toBe(pkg.version);
      const client = run(['version', '--client', '-o', 'json']);
      expect(client.stderr).toBe('');
      expect(client.status).toBe(0);
      expect(JSON.parse(client.stdout).clientVersion.nodeVersion).toBe((oldest as { version: string }).version);
    });

    it('prints --help, run after run, keeping its code cache', () => {
      for (let i = 0; i < 2; i++) {
        const result = run(['--help']);
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
        expect(result.stdout).toContain('kubectl webservice <command>');
        expect(result.stdout).toContain('kubectl webservice version');
      }
      expect(fs.readdirSync(path.join(home, 'cache', 'kubectl-webservice'))).toEqual([
        expect.stringMatching(
          new RegExp(`^code-[0-9a-f]+-${(oldest as { version: string }).version}-${process.arch}\\.bin$`),
        ),
      ]);
    });
  },
);

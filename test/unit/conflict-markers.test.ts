// npm test refuses merge-conflict markers in any tracked file (scripts/check-conflict-markers.sh).
// The check runs on a scratch repository first, with a file that has them, so that the clean
// result on this checkout means something.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/check-conflict-markers.sh');
const marker = (char: string) => char.repeat(7);

function scratchRepository(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conflict-markers-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
  git('init', '-q');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  git('add', '.');
  return dir;
}

const check = (dir: string) => spawnSync('bash', [SCRIPT, dir], { encoding: 'utf8' });

describe('scripts/check-conflict-markers.sh', () => {
  it('fails on a tracked file with conflict markers, naming each line', () => {
    const dir = scratchRepository({
      'README.md': `# Title\n${marker('<')} HEAD\nours\n${marker('=')}\ntheirs\n${marker('>')} partition\n`,
      'clean.md': 'Heading\n=======\n',
    });
    try {
      const result = check(dir);
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(
        'error: merge-conflict markers in tracked files:\n' +
          `README.md:2:${marker('<')} HEAD\nREADME.md:6:${marker('>')} partition\n`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes a Markdown heading underlined with =, and this checkout', () => {
    const dir = scratchRepository({ 'clean.md': `Heading\n${marker('=')}\n` });
    try {
      expect(check(dir)).toMatchObject({ status: 0, stderr: '' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(check(ROOT)).toMatchObject({ status: 0, stderr: '' });
  });
});

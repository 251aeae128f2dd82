// A tracked file that starts with a shebang is a program: the repository stores it with its
// run bit, so that `scripts/tools.sh build`, as docs/development.md and each script's usage
// write it, runs.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Each tracked file as git stores it: its mode (100644, 100755, 120000) and path. */
function trackedFiles(): { mode: string; file: string }[] {
  const listing = execFileSync('git', ['-C', ROOT, 'ls-files', '--stage', '-z'], { encoding: 'utf8' });
  return listing
    .split('\0')
    .filter(Boolean)
    .map((entry) => {
      const [meta, file] = entry.split('\t');
      return { mode: meta.split(' ')[0], file };
    });
}

function startsWithShebang(file: string): boolean {
  const fd = fs.openSync(path.join(ROOT, file), 'r');
  try {
    const head = Buffer.alloc(2);
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head.toString('latin1') === '#!';
  } finally {
    fs.closeSync(fd);
  }
}

describe('tracked programs', () => {
  it('every file with a shebang is stored executable', () => {
    const files = trackedFiles().filter(({ mode }) => mode === '100644' || mode === '100755');
    expect(files.some(({ file }) => file === 'scripts/tools.sh')).toBe(true);
    const notExecutable = files.filter(({ mode, file }) => mode === '100644' && startsWithShebang(file));
    expect(notExecutable.map(({ file }) => file)).toEqual([]);
  });
});

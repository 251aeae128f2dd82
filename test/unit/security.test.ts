// No eval and no shell command built from a string, anywhere in the sources and scripts:
// data must never become code. The checker is tested on bad samples first, so that a
// clean result means something.
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SCANNED_DIRS = ['src', 'scripts', 'test', '.ci', 'deploy'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.cache', 'fixtures']);
const THIS_FILE = path.relative(ROOT, __filename);

interface Rule {
  why: string;
  pattern: RegExp;
  applies: (file: string, text: string) => boolean;
}

const isShell = (file: string, text: string) => file.endsWith('.sh') || /^#!.*\b(ba)?sh\b/.test(text);
const isScript = (file: string) => /\.(ts|mjs|cjs|js)$/.test(file);

const RULES: Rule[] = [
  { why: 'JavaScript eval', pattern: /(^|[^.\w])eval\s*\(/, applies: isScript },
  { why: 'new Function(string)', pattern: /\bnew\s+Function\s*\(/, applies: isScript },
  {
    why: 'child_process exec/execSync (runs a command line through a shell)',
    pattern: /\bexec(Sync)?\s*[,}]|\.exec(Sync)?\s*\(\s*[`'"]/,
    applies: (file, text) => isScript(file) && /child_process/.test(text),
  },
  { why: 'a child process with shell: true', pattern: /\bshell\s*:\s*true\b/, applies: isScript },
  { why: 'shell eval', pattern: /(^|[\s;&|(])eval(\s|$)/, applies: isShell },
  { why: 'a command line handed to sh -c / bash -c', pattern: /\b(ba)?sh\s+-c\b/, applies: isShell },
  { why: 'a trap whose command is built from expanded variables', pattern: /\btrap\s+"[^"]*\$/, applies: isShell },
  { why: 'sourcing generated code', pattern: /(^|\s)(source|\.)\s+<\(/, applies: isShell },
];

interface Finding {
  file: string;
  line: number;
  why: string;
  text: string;
}

function scan(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  const rules = RULES.filter((rule) => rule.applies(file, text));
  text.split('\n').forEach((line, i) => {
    const code = line.trim();
    if (code.startsWith('#') || code.startsWith('//') || code.startsWith('*')) return; // comments may name what is forbidden
    for (const rule of rules) {
      if (rule.pattern.test(line)) findings.push({ file, line: i + 1, why: rule.why, text: code });
    }
  });
  return findings;
}

function sourceFiles(dir: string): string[] {
  const absolute = path.join(ROOT, dir);
  if (!fs.existsSync(absolute)) return [];
  return fs.readdirSync(absolute, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_DIRS.has(entry.name)) return [];
    const relative = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(relative) : [relative];
  });
}

describe('the checker', () => {
  it.each([
    ['a.ts', 'const x = eval(input);'],
    ['a.ts', 'const f = new Function("return " + input);'],
    ['a.ts', "import { exec } from 'node:child_process';\nexec(`kubectl get ${name}`);"],
    ['a.ts', "import * as cp from 'node:child_process';\ncp.execSync('kubectl get ' + name);"],
    ['a.ts', "spawnSync('kubectl', args, { shell: true });"],
    ['a.sh', 'eval "$(control-plane.sh env)"'],
    ['a.sh', 'bash -c "kubectl get ${name}"'],
    ['a.sh', 'trap "rm -rf \'${work}\'" EXIT'],
    ['a.sh', 'source <(control-plane.sh env)'],
  ])('catches %s: %s', (file, text) => {
    expect(scan(file, text)).not.toEqual([]);
  });

  it.each([
    ['a.ts', "spawnSync('kubectl', ['get', name], { encoding: 'utf8' });"],
    ['a.ts', 'const match = /x/.exec(text);'],
    ['a.sh', 'trap cleanup EXIT'],
    ['a.sh', '"${KUBECTL}" get webservice "${name}" -n "${namespace}"'],
    ['a.sh', '# never eval: data stays data'],
  ])('lets %s through: %s', (file, text) => {
    expect(scan(file, text)).toEqual([]);
  });
});

describe('the sources and scripts', () => {
  const files = SCANNED_DIRS.flatMap(sourceFiles).filter((file) => file !== THIS_FILE);

  it('are found (the scan is not vacuous)', () => {
    expect(files).toEqual(
      expect.arrayContaining(['src/main.ts', 'scripts/lab/reconcile.sh', 'scripts/control-plane.sh', '.ci/run']),
    );
    expect(files.length).toBeGreaterThan(50);
  });

  it('contain no eval and no shell command built from a string', () => {
    const findings = files.flatMap((file) => scan(file, fs.readFileSync(path.join(ROOT, file), 'utf8')));
    expect(findings).toEqual([]);
  });
});

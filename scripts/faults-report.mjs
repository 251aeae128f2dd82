// Usage: node scripts/faults-report.mjs [RESULTS.jsonl]      (npm run faults:report)
//
// Writes the figures of the last fault-suite run (npm run test:faults appends one line per
// scenario to .cache/faults-results.jsonl) into docs/RELIABILITY.md, between the markers
// `<!-- figures:start -->` and `<!-- figures:end -->`. The prose around them is kept.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const RESULTS = process.argv[2] ?? '.cache/faults-results.jsonl';
const DOC = 'docs/RELIABILITY.md';
const START = '<!-- figures:start -->';
const END = '<!-- figures:end -->';

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

if (!existsSync(RESULTS)) fail(`${RESULTS} not found: run npm run test:faults first`);
const lines = readFileSync(RESULTS, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '');
if (lines.length === 0) fail(`${RESULTS} is empty: run npm run test:faults first`);
const results = lines.map((line) => JSON.parse(line));

const COUNTED = [
  'lost',
  'foreignModified',
  'orphans',
  'stuckFinalizers',
  'steadyStateWrites',
  'nonLeaderWrites',
  'nonLeaderWritesRefused',
];

/** One row per scenario and mode, in the order they ran. */
const groups = new Map();
for (const r of results) {
  const key = `${r.scenario}\u0000${r.mode}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(r);
}

const sum = (rows, field) => rows.reduce((total, r) => total + (r[field] ?? 0), 0);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function row(rows) {
  const [first] = rows;
  const passed = rows.filter((r) => r.passed).length;
  const cells = [
    first.scenario,
    `\`${first.mode}\``,
    `${passed}/${rows.length}`,
    ...COUNTED.map((field) => String(sum(rows, field))),
    String(sum(rows, 'writesChecked')),
    seconds(Math.max(...rows.map((r) => r.settledInMs ?? r.convergedInMs ?? 0))),
  ];
  return `| ${cells.join(' | ')} |`;
}

const all = [...groups.values()];
const total = [
  '**all**',
  '',
  `**${results.filter((r) => r.passed).length}/${results.length}**`,
  ...COUNTED.map((field) => `**${sum(results, field)}**`),
  `**${sum(results, 'writesChecked')}**`,
  '',
];

/** The commit the results name (recorded since they carry one), else the checkout's HEAD. */
function commit() {
  const recorded = [...new Set(results.map((r) => r.commit).filter(Boolean))];
  if (recorded.length > 0) return recorded.join(', ');
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--untracked-files=no', '--', 'src', 'test', 'scripts'],
      { encoding: 'utf8' },
    ).trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

const violations = results.flatMap((r) => (r.violations ?? []).map((v) => `- ${r.scenario} (\`${r.mode}\`): ${v}`));
const first = results[0].at;
const last = results[results.length - 1].at;

const figures = [
  START,
  `Run of \`npm run test:faults\` from ${first} to ${last}, at commit ${commit()}: ${results.length} trials of ${groups.size} scenarios.`,
  '',
  '| scenario | mode | trials passed | objects lost | foreign objects modified | orphans | stuck finalizers | steady-state writes | writes by a non-leader, admitted | writes by a non-leader, refused by the apiserver | writes checked against the Lease | settled, from the start of the check |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...all.map(row),
  `| ${total.join(' | ')} |`,
  '',
  violations.length === 0 ? 'No invariant was violated.' : ['Violations:', '', ...violations].join('\n'),
  '',
  'What each scenario did, trial by trial (kill points, 409s seen, relists, watchdog restarts):',
  '',
  '| scenario | mode | details |',
  '| --- | --- | --- |',
  ...results.map((r) => `| ${r.scenario} | \`${r.mode}\` | ${detailText(r.details)} |`),
  END,
].join('\n');

function detailText(details) {
  const entries = Object.entries(details ?? {}).filter(
    ([, value]) => value !== '' && !(Array.isArray(value) && value.every((v) => v === '')),
  );
  if (entries.length === 0) return '–';
  return entries
    .map(
      ([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value).replaceAll('|', '\\|') : value}`,
    )
    .join('; ');
}

const doc = readFileSync(DOC, 'utf8');
const from = doc.indexOf(START);
const to = doc.indexOf(END);
if (from < 0 || to < from) fail(`${DOC} has no ${START} … ${END} section`);
writeFileSync(DOC, `${doc.slice(0, from)}${figures}${doc.slice(to + END.length)}`);
process.stderr.write(`${DOC}: ${results.length} trials, ${results.filter((r) => r.passed).length} passed\n`);

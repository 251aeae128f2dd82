// The console blocks of the README and of every page of docs/, run against the plane, so that
// the examples cannot drift from the program. Each block follows a comment that says how its
// namespace is prepared (`<!-- doctest: SETUP -->`) or why it is not run
// (`<!-- doctest: skip: WHY -->`); a block without one fails this test, which names blocks by
// file and line. Each `$ command` runs with crd-lab replaced by a namespace of
// its own, and its output (stdout, then stderr) is compared with the lines under it after
// normalisation: the server's address, ages, and runs of spaces (column widths).
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ROOT,
  applyYaml,
  backgroundPlugin,
  createNamespace,
  deleteNamespace,
  eventually,
  plugin,
  run,
  tryGetJson,
} from '../support/cluster';
import { DOC_FILES, readDoc } from '../support/docs';

const SAMPLES = path.join(ROOT, 'crds/samples');

interface Step {
  command: string;
  expected: string[];
}

interface Block {
  /** Where it is: `docs/install.md:42`. */
  where: string;
  marker: string | undefined;
  steps: Step[];
  /** The last ```yaml block above it in its file, if any. */
  yamlAbove: string | undefined;
}

function consoleBlocks(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let yamlAbove: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === '```yaml') {
      const end = lines.indexOf('```', i + 1);
      yamlAbove = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    if (lines[i] !== '```console') continue;
    const marker = /^<!-- doctest: (.*) -->$/.exec(lines[i - 1] ?? '')?.[1];
    const steps: Step[] = [];
    let j = i + 1;
    for (; lines[j] !== '```'; j++) {
      if (lines[j].startsWith('$ ')) steps.push({ command: lines[j].slice(2).replace(/\s+#.*$/, ''), expected: [] });
      // (A block of excerpts may begin with output: it is no step's.)
      else if (lines[j] !== '^C' && steps.length > 0) steps[steps.length - 1].expected.push(lines[j]);
    }
    blocks.push({ where: `${file}:${i + 1}`, marker, steps, yamlAbove });
    i = j;
  }
  return blocks;
}

/** What may differ from run to run: the server's address, ages, column widths. */
function normalise(lines: string[], ns: string): string[] {
  return lines
    .map((line) =>
      line
        .replaceAll(ns, 'crd-lab')
        .replace(/https:\/\/[^\s]+/g, 'https://SERVER')
        .replace(/(^|\s)\d+[smhd](?=\s|$)/g, '$1AGE')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter(Boolean);
}

/** A README command, in the namespace given: `kubectl webservice …` runs the bundled plugin. */
function argv(command: string, ns: string): { plugin: boolean; args: string[] } {
  const words = command.replaceAll('crd-lab', ns).split(/\s+/);
  if (words[0] !== 'kubectl') throw new Error(`not a kubectl command: ${command}`);
  return words[1] === 'webservice' ? { plugin: true, args: words.slice(2) } : { plugin: false, args: words.slice(1) };
}

function runStep(command: string, ns: string): string[] {
  const { plugin: ours, args } = argv(command, ns);
  const result = ours ? plugin(args) : run('kubectl', args);
  return `${result.stdout}${result.stderr}`.split('\n');
}

const applySamples = (ns: string, names: string[]) => {
  for (const name of names) applyYaml(ns, fs.readFileSync(path.join(SAMPLES, `${name}.yaml`), 'utf8'));
};

/** How each marker prepares its namespace; `meanwhile` is the other terminal of a -w block. */
const SETUPS: Record<string, { prepare?: (ns: string, block: Block) => void; meanwhile?: (ns: string) => void }> = {
  'empty-namespace': {},
  // The WebService of the ```yaml block above the console block, created.
  'the-yaml-above': {
    prepare: (ns, block) => {
      if (block.yamlAbove === undefined) throw new Error(`${block.where}: no yaml block above it`);
      applyYaml(ns, block.yamlAbove);
    },
  },
  // After the block before it: kubectl webservice install, on a cluster where no controller has
  // run (a Lease that another test's controller released is gone, as on a new cluster).
  installed: {
    prepare: () => {
      const installed = plugin(['install']);
      if (installed.status !== 0) throw new Error(installed.stderr);
      const lease = ['lease', 'webservice-controller', '-n', 'webservice-system'];
      if (!tryGetJson(['get', ...lease])?.spec?.holderIdentity) {
        run('kubectl', ['delete', ...lease, '--ignore-not-found']);
      }
    },
  },
  'plan-all': {
    prepare: (ns) => {
      applySamples(ns, ['checkout', 'frontend', 'search']);
      const applied = plugin(['apply', 'checkout', '-n', ns]);
      if (applied.status !== 0) throw new Error(applied.stderr);
    },
  },
  'samples-watched': {
    prepare: (ns) => applySamples(ns, ['billing', 'checkout', 'ephemeral', 'frontend', 'search']),
    meanwhile: (ns) => {
      plugin(['apply', '--all', '-n', ns]);
    },
  },
};

const blocks = DOC_FILES.flatMap((file) => consoleBlocks(file, readDoc(file)));

it('every console block of the README and docs/ says how it is run, or why not', () => {
  expect(DOC_FILES).toEqual(expect.arrayContaining(['README.md', 'docs/install.md', 'docs/commands.md']));
  expect(blocks.filter((b) => b.where.startsWith('README.md:')).length).toBeGreaterThan(0);
  expect(blocks.length).toBeGreaterThan(4);
  const unmarked = blocks.filter((b) => b.marker === undefined).map((b) => b.where);
  expect(unmarked).toEqual([]);
  const unknown = blocks
    .filter((b) => b.marker !== undefined && !b.marker.startsWith('skip: ') && !(b.marker in SETUPS))
    .map((b) => `${b.where}: ${b.marker}`);
  expect(unknown).toEqual([]);
});

const runnable = blocks.filter((b) => b.marker !== undefined && b.marker in SETUPS);

describe.each(runnable.map((b) => [`${b.where} (${b.marker})`, b] as const))('%s', (_, block) => {
  let ns = '';
  const setup = SETUPS[block.marker!];
  beforeAll(() => {
    ns = createNamespace('readme');
    setup.prepare?.(ns, block);
  });
  afterAll(() => deleteNamespace(ns));

  it.each(block.steps.map((step) => [step.command, step] as const))('$ %s', async (_command, step) => {
    const expected = normalise(step.expected, ns);
    if (!/\s-w(\s|$)/.test(step.command)) {
      expect(normalise(runStep(step.command, ns), ns)).toEqual(expected);
      return;
    }
    // A watch: its first table, then what the other terminal does, then Ctrl-C.
    const { args } = argv(step.command, ns);
    const watch = backgroundPlugin(args);
    try {
      const lines = () => normalise(watch.stdout.split('\n'), ns);
      // The rows of the first table: up to the first name that comes again.
      const names = expected.slice(1).map((line) => line.split(' ')[0]);
      const first = names.findIndex((name, i) => names.indexOf(name) < i);
      // The table: the header and one line each, before anything is reconciled.
      await eventually(() => lines().length >= 1 + first);
      setup.meanwhile?.(ns);
      await eventually(() => lines().length >= expected.length);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await watch.end('SIGINT', 10_000)).toEqual({ code: 0, signal: null });
      const seen = lines();
      // The table comes in order; the lines after it as passes finish, in any order.
      expect(seen.slice(0, 1 + first)).toEqual(expected.slice(0, 1 + first));
      expect(seen.slice(1 + first).sort()).toEqual(expected.slice(1 + first).sort());
    } finally {
      await watch.end('SIGKILL', 1_000);
    }
  });
});

// The progress line of apply --all and plan --all: on a real terminal only (`script` gives
// the plugin one), on stderr, rewritten in place and cleared at the end; never with -o json,
// NO_COLOR or --no-color, and never when stderr is not a terminal.
import { spawnSync } from 'node:child_process';
import {
  PLUGIN,
  applyYaml,
  createNamespace,
  deleteNamespace,
  eventually,
  kubectl,
  plugin,
  webService,
} from '../support/cluster';
import { FINALIZER } from '../../src/core/model';

const COUNT = 12;
let ns: string;
beforeAll(() => {
  ns = createNamespace('progress');
  const items = Array.from({ length: COUNT }, (_, i) => JSON.parse(webService(`web-${i}`, { image: 'nginx:1.27' })));
  applyYaml(ns, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
});
afterAll(() => deleteNamespace(ns));

/** What a terminal shows (stdout and stderr together), with the plugin on a pseudo-terminal. */
const onTerminal = (env: string, args: string) =>
  spawnSync('script', ['-qfec', `${env} ${PLUGIN} ${args} -n ${ns}`, '/dev/null'], { encoding: 'utf8' }).stdout;
const CLEAR = '\r\u001b[2K';

describe('on a terminal', () => {
  it('plan --all counts, ends on the total and clears the line before the table', () => {
    const screen = onTerminal('env -u NO_COLOR', 'plan --all');
    expect(screen).toContain(`${CLEAR}planned 0/${COUNT}`);
    expect(screen).toContain(`${CLEAR}planned ${COUNT}/${COUNT}${CLEAR}`);
    expect(screen.indexOf(`planned ${COUNT}/${COUNT}`)).toBeLessThan(screen.indexOf('NAME '));
  });

  it('apply --all counts the WebServices reconciled', () => {
    const screen = onTerminal('env -u NO_COLOR', 'apply --all');
    expect(screen).toMatch(new RegExp(`reconciled \\d+/${COUNT}`));
    expect(screen).toContain(`${CLEAR}reconciled ${COUNT}/${COUNT}${CLEAR}`);
    expect(screen).toContain(`${COUNT} create; converged: true`);
  });

  it('never with -o json or yaml, NO_COLOR or --no-color', () => {
    for (const [env, args] of [
      ['env -u NO_COLOR', 'apply --all -o json'],
      ['env -u NO_COLOR', 'plan --all -o yaml'],
      ['NO_COLOR=1', 'plan --all'],
      ['env -u NO_COLOR', 'plan --all --no-color'],
    ]) {
      expect(onTerminal(env, args)).not.toMatch(/planned \d|reconciled \d|\u001b\[2K/);
    }
  });
});

it('never when stderr is not a terminal', () => {
  const result = plugin(['apply', '--all', '-n', ns], { env: { NO_COLOR: '' } });
  expect(result.status).toBe(0);
  expect(result.stderr).toBe('');
});

describe('finalize --all on a terminal', () => {
  it('counts the deletions it finishes', async () => {
    // Our finalizer, as a user or another tool may put it there: it holds each deletion.
    const items = Array.from({ length: COUNT }, (_, i) =>
      JSON.parse(webService(`web-${i}`, { image: 'nginx:1.27' }, { finalizers: [FINALIZER] })),
    );
    applyYaml(ns, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    kubectl(['delete', 'webservice', '--all', '-n', ns, '--wait=false']);
    const screen = onTerminal('env -u NO_COLOR', 'finalize --all');
    expect(screen).toContain(`${CLEAR}finalized 0/${COUNT}`);
    expect(screen).toContain(`${CLEAR}finalized ${COUNT}/${COUNT}${CLEAR}`);
    await eventually(() => kubectl(['get', 'webservice', '-n', ns, '-o', 'name']).trim() === '');
  });
});

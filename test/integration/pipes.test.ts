// `... | head`: a reader that goes away before the plugin has written everything. Through a
// real pipe, with more output than the pipe holds, the plugin ends as kubectl does: quietly,
// with the status of a process killed by SIGPIPE.
import { PLUGIN, createWebServices, numbered, plugin, run, useNamespace } from '../support/cluster';

const COUNT = 300;
/** Linux's default pipe capacity: output past this blocks until the reader reads. */
const PIPE_CAPACITY = 65536;

const ns = useNamespace('pipes');
beforeAll(() => createWebServices(ns(), numbered('ws', COUNT)));

/** Runs the plugin into `head -c 100`; returns the plugin's own exit status and its stderr. */
function intoHead(args: string[]): { status: string; stderr: string } {
  // The plugin's path and arguments go in as positional parameters, never into the script.
  const script = '"$@" | head -c 100 >/dev/null; echo "${PIPESTATUS[0]}"';
  const result = run('bash', ['-c', script, 'bash', PLUGIN, ...args]);
  return { status: result.stdout.trim(), stderr: result.stderr };
}

describe.each([
  ['observe', '--all', '-o', 'yaml'],
  ['plan', '--all', '-o', 'json'],
  ['status', '--all', '-o', 'json', '--dry-run'],
])('%s %s %s %s | head', (...command) => {
  // ns is known only once beforeAll has run.
  const args = () => [...command, '-n', ns()];

  it('writes more than a pipe holds (so the reader really goes away first)', () => {
    const full = plugin(args());
    expect(full.status).toBe(0);
    expect(full.stdout.length).toBeGreaterThan(PIPE_CAPACITY);
  });

  it('exits 141 with nothing on stderr', () => {
    expect(intoHead(args())).toEqual({ status: '141', stderr: '' });
  });
});

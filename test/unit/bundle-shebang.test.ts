// The bundle's first two lines, as kubectl starts a plugin: sh runs node with V8's young
// generation capped (--max-semi-space-size=16, as the standalone binary and the image do),
// unless NODE_OPTIONS sets the cap itself; and to JavaScript those lines are nothing. Tested
// on the built bundle's own lines (npm test builds it first), followed by a probe.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const BUNDLE = path.resolve(__dirname, '../../dist/kubectl-webservice');
const built = fs.existsSync(BUNDLE);
if (!built) console.warn('skipped: the bundle is not built (npm run build)');

(built ? describe : describe.skip)("the bundle's shebang", () => {
  let dir: string;
  let probe: string;
  /** A program made of the bundle's first two lines, then body. */
  const writeProbe = (name: string, body: string): string => {
    const file = path.join(dir, name);
    const [shebang, line] = fs.readFileSync(BUNDLE, 'latin1').split('\n');
    fs.writeFileSync(file, `${shebang}\n${line}\n${body}\n`, { mode: 0o755 });
    return file;
  };
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shebang-'));
    probe = writeProbe('probe', "'use strict';\nconsole.log(JSON.stringify(process.execArgv));");
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** What node's execArgv is when the probe is started as a program, with this NODE_OPTIONS. */
  const execArgv = (nodeOptions?: string): string[] => {
    const env: NodeJS.ProcessEnv = { PATH: `${path.dirname(process.execPath)}${path.delimiter}/usr/bin:/bin` };
    if (nodeOptions !== undefined) env.NODE_OPTIONS = nodeOptions;
    const result = spawnSync(probe, [], { encoding: 'utf8', env });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout) as string[];
  };

  it('starts node with the young generation capped', () => {
    expect(execArgv()).toEqual(['--max-semi-space-size=16']);
    expect(execArgv('--no-warnings')).toEqual(['--max-semi-space-size=16']);
  });

  it('leaves the cap to a NODE_OPTIONS that sets it', () => {
    expect(execArgv('--max-semi-space-size=32')).toEqual([]);
    expect(execArgv('--no-warnings --max-semi-space-size=8')).toEqual([]);
  });

  it('passes the arguments through untouched, and node alone reads the lines as nothing', () => {
    const argsProbe = writeProbe('args', 'console.log(JSON.stringify(process.argv.slice(2)));');
    const args = ['a b', '$HOME', '"quoted"', '--max-semi-space-size=1', ''];
    const viaShebang = spawnSync(argsProbe, args, { encoding: 'utf8', env: { PATH: path.dirname(process.execPath) } });
    expect(JSON.parse(viaShebang.stdout)).toEqual(args);
    const viaNode = spawnSync(process.execPath, [argsProbe, ...args], { encoding: 'utf8' });
    expect(viaNode.stderr).toBe('');
    expect(JSON.parse(viaNode.stdout)).toEqual(args);
  });
});

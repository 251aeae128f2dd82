// The tools scripts/tools.sh builds into the version-keyed cache (helm, promtool), for the
// tests of the chart and of the alert rules; npm test builds them before jest starts.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, run, type RunResult } from './cluster';

/** The cached binary of a tool; throws, saying how to build it, if it is missing. */
function toolPath(name: 'helm' | 'promtool'): string {
  const file = execFileSync('bash', [path.join(ROOT, 'scripts/tools.sh'), 'path', name], { encoding: 'utf8' }).trim();
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run "bash scripts/tools.sh build" (npm test does)`);
  return file;
}

// helm keeps its configuration, cache and data here, not in the user's home.
const helmHome = fs.mkdtempSync(path.join(os.tmpdir(), 'helm-home-'));

/** Runs helm with the test plane's KUBECONFIG and a home of its own. */
export function helm(args: string[]): RunResult {
  return run(toolPath('helm'), args, {
    env: {
      HELM_CACHE_HOME: path.join(helmHome, 'cache'),
      HELM_CONFIG_HOME: path.join(helmHome, 'config'),
      HELM_DATA_HOME: path.join(helmHome, 'data'),
    },
  });
}

/** Runs promtool (it reads a test file's rule_files relative to that file). */
export function promtool(args: string[]): RunResult {
  return run(toolPath('promtool'), args);
}

// Shortcuts for the command tests (test/integration/commands/), which each work in one
// namespace of their own: the plugin with -o json, the child of a WebService, the WebService;
// and the plugin stopped right before its status write, for a change to slip in.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { childName } from '../../src/core/model';
import {
  AuditWindow,
  MUTATING,
  ROOT,
  backgroundPlugin,
  describeEvent,
  eventually,
  fromPlugin,
  getJson,
  plugin,
  tryGetJson,
  type RunResult,
} from './cluster';

export function inNamespace(ns: () => string) {
  return {
    /** The plugin in the namespace with -o json, and its output parsed (undefined if empty). */
    json: (args: string[]): RunResult & { value: any } => {
      const result = plugin([...args, '-n', ns(), '-o', 'json']);
      return { ...result, value: result.stdout ? JSON.parse(result.stdout) : undefined };
    },
    /** The ConfigMap child of a WebService, or null. */
    child: (name: string) => tryGetJson(['get', 'configmap', childName(name), '-n', ns()]),
    ws: (name: string) => getJson(['get', 'webservice', name, '-n', ns()]),
  };
}

export const rv = (obj: { metadata: { resourceVersion: string } }) => obj.metadata.resourceVersion;

/**
 * Runs the plugin until it is about to send its status patch for `name`, stops it there
 * (test/support/stop-in-write.cjs), runs `meanwhile`, then lets it go on.
 */
export async function stoppedBeforeStatusWrite(
  ns: string,
  args: string[],
  name: string,
  meanwhile: () => void,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const triggers = fs.mkdtempSync(path.join(os.tmpdir(), 'stop-in-write-'));
  try {
    const trigger = path.join(triggers, `${name}-${args[0]}`);
    fs.writeFileSync(trigger, '');
    const proc = backgroundPlugin([...args, '-n', ns, '-o', 'json'], {
      NODE_OPTIONS: `--require ${path.join(ROOT, 'test/support/stop-in-write.cjs')}`,
      STOP_IN_WRITE: trigger,
      STOP_IN_WRITE_MATCH: `^PATCH \\S+/namespaces/${ns}/webservices/${name}/status `,
    });
    const state = () => fs.readFileSync(`/proc/${proc.pid}/stat`, 'utf8').replace(/^.*\) /, '')[0];
    await eventually(() => state() === 'T', 30_000);
    meanwhile();
    proc.signal('SIGCONT');
    const { code } = await proc.exited;
    return { status: code, stdout: proc.stdout, stderr: proc.stderr };
  } finally {
    fs.rmSync(triggers, { recursive: true, force: true });
  }
}

/** The plugin's writes since audit.mark(), as `verb resource[/subresource] code`. */
export const pluginWrites = async (audit: AuditWindow) =>
  (await audit.mutating())
    .filter(fromPlugin)
    .map(
      (e) =>
        `${e.verb} ${e.objectRef?.resource}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''} ${e.responseStatus?.code}`,
    );

/**
 * The plugin's apply of one WebService, -o json, waiting for it (`wait`: a duration, or false):
 * it must succeed with nothing on stderr; its report.
 */
export function appliedQuietly(ns: string, name: string, wait: string | false = '3m'): any {
  const result = plugin(['apply', name, '-n', ns, ...(wait ? [`--wait=${wait}`] : []), '-o', 'json']);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout);
}

/** The plugin's mutating requests since audit.mark(), as `verb resource/name`. */
export const pluginMutations = async (audit: AuditWindow) =>
  (await audit.events()).filter((e) => fromPlugin(e) && MUTATING.has(e.verb)).map(describeEvent);

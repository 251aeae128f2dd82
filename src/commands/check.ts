// kubectl webservice check: is this setup right? One line per check (✓, ‼ or ✗) and a
// hint under anything that is not; exits 1 when a check fails. Warnings do not fail.
import type { CommandModule } from 'yargs';
import { Context } from '../cli/context';
import { parseDuration } from '../cli/duration';
import { withContext } from '../cli/handler';
import type { CheckResult } from '../check/verdicts';
import { checkName, checkNamespace } from '../core/validate';
import { PLUGIN_VERSION } from '../core/version';
import { UserError } from '../kube/errors';
import { checkMark } from '../print/output';

interface Args {
  'stuck-after': string;
  lease: string;
  'metrics-url'?: string;
  'stuck-worker-after': string;
}

export const checkCommand: CommandModule<object, Args> = {
  command: 'check',
  describe: 'Check the setup: server version, CRD, your permissions, the controller, stuck or orphaned objects',
  builder: (yargs) =>
    yargs
      .option('stuck-after', {
        type: 'string',
        default: '5m',
        describe: 'A WebService terminating for longer than this is stuck on its finalizer',
      })
      .option('lease', {
        type: 'string',
        default: 'webservice-system/webservice-controller',
        describe: "NAMESPACE/NAME of the controller's leader-election Lease",
      })
      .option('metrics-url', {
        type: 'string',
        describe: "The controller's /metrics (e.g. through kubectl port-forward), to check for stuck workers",
      })
      .option('stuck-worker-after', {
        type: 'string',
        default: '1m',
        describe: 'With --metrics-url: a reconcile running for longer than this holds its worker',
      })
      .example('$0 check', 'every check, for the current namespace')
      .example('$0 check -A -o json', 'for every namespace, as data'),
  handler: withContext<Args>(async (ctx, args) => {
    const stuckAfterSeconds = parseDuration(args['stuck-after'], '--stuck-after');
    const lease = parseLease(args.lease);
    const stuckWorkerAfterSeconds = parseDuration(args['stuck-worker-after'], '--stuck-worker-after');
    const metricsUrl = args['metrics-url'] === undefined ? undefined : parseMetricsUrl(args['metrics-url']);
    const scope = await ctx.scopeNamespace();
    const { runChecks } = await import('../check/run-checks');
    const results = await runChecks(await ctx.client(), {
      namespace: scope === null ? null : checkNamespace(scope),
      lease,
      stuckAfterSeconds,
      metricsUrl,
      stuckWorkerAfterSeconds,
      bundledVersion: PLUGIN_VERSION,
      now: () => ctx.now(),
    });
    printChecks(ctx, results);
    return results.some((r) => r.status === 'fail') ? 1 : 0;
  }),
};

function parseLease(text: string): { namespace: string; name: string } {
  const parts = text.split('/');
  if (parts.length !== 2) throw new UserError(`--lease must be NAMESPACE/NAME, got "${text}"`);
  return { namespace: checkNamespace(parts[0], '--lease'), name: checkName(parts[1], '--lease') };
}

function parseMetricsUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UserError(`--metrics-url must be an http:// or https:// URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(`--metrics-url must be an http:// or https:// URL, got "${text}"`);
  }
  return url.toString();
}

function printChecks(ctx: Context, results: CheckResult[]): void {
  const { out } = ctx;
  const summary = { ok: 0, warn: 0, fail: 0, skip: 0 };
  for (const result of results) summary[result.status]++;
  if (out.machine) {
    out.data({ checks: results, summary, passed: summary.fail === 0 });
    return;
  }
  for (const result of results) {
    out.line(`${checkMark(out.color, result.status)} ${result.message}`);
    if (result.status === 'ok') continue;
    for (const item of result.items ?? []) out.line(`    ${item}`);
    if (result.hint) out.line(`    ${out.color.dim('hint:')} ${result.hint}`);
  }
  const warnings = summary.warn === 1 ? '1 warning' : `${summary.warn} warnings`;
  const skipped = summary.skip > 0 ? `, ${summary.skip} not checked` : '';
  out.line(`\n${summary.ok} passed, ${warnings}, ${summary.fail} failed${skipped}`);
}

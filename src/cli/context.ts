// Global flags and the per-invocation context every command receives.
import type { Argv } from 'yargs';
import type { DryRun } from '../kube/api';
import type { KubeClient } from '../kube/client';
import { DryRunArgs, parseDryRun } from './dry-run';
import type { TargetArgs } from './target';
import { parseDuration } from './duration';
import { UserError } from '../kube/errors';
import { Printer, createPrinter, parseOutput } from '../print/output';
import { MetricsApi, prometheusApi } from '../engine/canary-check';

export interface GlobalArgs {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  'all-namespaces'?: boolean;
  output: string;
  color: boolean;
  verbose: boolean;
  'request-timeout': number;
  as?: string;
  'as-group'?: string[];
  server?: string;
  token?: string;
  'prometheus-url'?: string;
}

export function globalOptions<T>(yargs: Argv<T>): Argv<T & GlobalArgs> {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: yargs' chained types do not narrow to this
  return yargs
    .option('kubeconfig', { type: 'string', describe: 'Path to the kubeconfig file to use', global: true })
    .option('context', { type: 'string', describe: 'The name of the kubeconfig context to use', global: true })
    .option('namespace', {
      alias: 'n',
      type: 'string',
      describe: 'Namespace of the WebServices (default: the context\'s namespace, else "default")',
      global: true,
    })
    .option('all-namespaces', {
      alias: 'A',
      type: 'boolean',
      describe: 'Every namespace instead of one (on a command that takes NAMEs, it implies --all)',
      global: true,
    })
    .option('output', {
      alias: 'o',
      type: 'string',
      default: 'table',
      // Checked here, so a bad -o is refused before any request.
      coerce: (value: string) => (parseOutput(value), value),
      describe: 'Output format: wide, json, yaml, name, jsonpath=TEMPLATE or custom-columns=NAME:.path,...',
      global: true,
    })
    .option('color', {
      type: 'boolean',
      default: true,
      describe: 'Colour tables on a terminal (--no-color or NO_COLOR turn it off)',
      global: true,
    })
    .option('verbose', {
      alias: 'v',
      type: 'boolean',
      default: false,
      describe: 'Explain more; show stack traces',
      global: true,
    })
    .option('as', { type: 'string', describe: 'Username to impersonate for the operation', global: true })
    .option('as-group', {
      type: 'string',
      array: true,
      describe: 'Group to impersonate for the operation (repeat for several); needs --as',
      global: true,
    })
    .option('server', {
      alias: 's',
      type: 'string',
      describe: 'The address and port of the Kubernetes API server',
      global: true,
    })
    .option('token', { type: 'string', describe: 'Bearer token for authentication to the API server', global: true })
    .option('request-timeout', {
      type: 'string',
      default: '30s',
      // Seconds from here on, whether given as 30 or as 30s.
      coerce: (value: string) => parseDuration(value, '--request-timeout'),
      describe: 'How long to wait for one API request before giving up (30, 30s, 1m)',
      global: true,
    })
    .option('prometheus-url', {
      type: 'string',
      describe:
        "The Prometheus-compatible API that canaries' checks query (e.g. http://prometheus.monitoring:9090); unset, no check is evaluated",
      // Checked here, so a bad URL is refused before any request.
      coerce: (value: string | undefined) => (value === undefined ? value : (metricsUrl(value), value)),
      global: true,
    }) as Argv<T & GlobalArgs>;
}

export interface Context {
  args: GlobalArgs;
  /** The command's --dry-run; the client it connects refuses (client) or dry-runs (server) every write. */
  dryRun: DryRun;
  out: Printer;
  /**
   * Connects on first use, so commands that work offline (-f) never need a cluster; the
   * client module (and client-node with it) loads then, not at start-up.
   */
  client(): Promise<KubeClient>;
  /** Whether client() has connected, i.e. the command talked to a cluster. */
  connected(): boolean;
  /** --namespace, else the kubeconfig context's (which connects). */
  namespace(): Promise<string>;
  /** null means every namespace (-A). */
  scopeNamespace(): Promise<string | null>;
  now(): Date;
  /** --prometheus-url's API, where canaries' checks are asked; undefined without it. */
  metricsApi: MetricsApi | undefined;
}

/** --prometheus-url as a URL: http or https, nothing else. */
function metricsUrl(value: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UserError(`--prometheus-url must be an http or https URL, not ${JSON.stringify(value)}`);
  }
  return url;
}

export function createContext(args: GlobalArgs): Context {
  let client: KubeClient | undefined;
  let connecting: Promise<KubeClient> | undefined;
  const dryRunFlag = (args as Partial<DryRunArgs>)['dry-run'];
  const dryRun = dryRunFlag === undefined ? 'none' : parseDryRun(dryRunFlag);
  // client-node is most of the bundle: load it only when a command talks to a cluster,
  // so --help, --version and offline -f runs start fast.
  const connect = async (): Promise<KubeClient> => {
    const { KubeClient } = await import('../kube/client');
    return (client = KubeClient.connect({
      kubeconfig: args.kubeconfig,
      context: args.context,
      requestTimeoutMs: args['request-timeout'] * 1000,
      dryRun,
      server: args.server,
      token: args.token,
      asUser: args.as,
      asGroups: args['as-group'],
    }));
  };
  // One connection per command, however many ask for it at once.
  const sharedClient = () => (connecting ??= connect());
  const namespace = async () => args.namespace || (await sharedClient()).connection.namespace;
  return {
    args,
    dryRun,
    out: createPrinter({
      ...parseOutput(args.output),
      colorFlag: args.color,
      namespaceColumn: Boolean(args['all-namespaces']),
    }),
    client: sharedClient,
    connected: () => client !== undefined,
    namespace,
    scopeNamespace: async () => (args['all-namespaces'] ? null : namespace()),
    now: () => new Date(),
    metricsApi: args['prometheus-url'] === undefined ? undefined : prometheusApi(args['prometheus-url']),
  };
}

/** NAME or --all, never both, never neither. */
export function requireTarget(target: TargetArgs, extra = ''): void {
  if (!target.name && !target.many && !target.all) throw new UserError(`give a WebService NAME or --all${extra}`);
}

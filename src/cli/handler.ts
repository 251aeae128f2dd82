// Adapts a command body to a yargs handler: builds the context, sets the exit code.
import { Context, GlobalArgs, createContext } from './context';
import { TargetArgs, resolveTarget } from './target';

export function withContext<A>(
  body: (ctx: Context, args: A & GlobalArgs) => Promise<number | void>,
): (args: A) => Promise<void> {
  return async (args: A) => {
    const ctx = createContext(args as A & GlobalArgs);
    if ('names' in (args as object)) resolveTarget(args as TargetArgs, Boolean(ctx.args['all-namespaces']));
    try {
      const code = await body(ctx, args as A & GlobalArgs);
      if (typeof code === 'number') process.exitCode = code;
      if (ctx.args.verbose) ctx.out.progress(await usage(ctx));
    } finally {
      if (ctx.connected()) (await ctx.client()).close();
    }
  };
}

/** What -v reports last: requests, connections, CPU and memory (the bench reads this line). */
async function usage(ctx: Context): Promise<string> {
  const { maxRSS, userCPUTime, systemCPUTime } = process.resourceUsage();
  const footprint = `cpu ${((userCPUTime + systemCPUTime) / 1000).toFixed(0)} ms; max RSS ${(maxRSS / 1024).toFixed(1)} MiB`;
  if (!ctx.connected()) return `requests: 0 read, 0 write over 0 connection(s); ${footprint}`;
  const { requests, transport } = await ctx.client();
  return `requests: ${requests.reads} read, ${requests.writes} write over ${transport.stats.connections} connection(s); ${footprint}`;
}

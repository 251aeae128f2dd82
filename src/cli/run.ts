// Adapts a command body to a yargs handler: builds the context, sets the exit code.
import { Context, GlobalArgs, createContext } from './context';

export function withContext<A>(
  body: (ctx: Context, args: A & GlobalArgs) => Promise<number | void>,
): (args: A) => Promise<void> {
  return async (args: A) => {
    const ctx = createContext(args as A & GlobalArgs);
    const code = await body(ctx, args as A & GlobalArgs);
    if (typeof code === 'number') process.exitCode = code;
    if (ctx.args.verbose) {
      const requests = ctx.connected() ? ctx.client().requests : { reads: 0, writes: 0 };
      const rssMiB = (process.resourceUsage().maxRSS / 1024).toFixed(1);
      ctx.out.progress(`requests: ${requests.reads} read, ${requests.writes} write; max RSS ${rssMiB} MiB`);
    }
  };
}

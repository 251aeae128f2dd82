// kubectl webservice history: a WebService's revisions, newest first, as `kubectl rollout
// history` lists a Deployment's: each with its age, whether the pods run it, its image, the
// config its pods read (by name and short keyed digest, never a value) and what changed.
import type { CommandModule } from 'yargs';
import { withContext } from '../cli/handler';
import { configTarget, parsePins, CONFIG_PINS_ANNOTATION } from '../core/config';
import { historyOf } from '../core/history';
import { isOurs } from '../core/ownership';
import { ControllerRevision, asRevision } from '../core/revision';
import { gatherOne } from '../engine/gather';
import { age } from '../print/output';
import { TargetArgs, singleTarget } from './shared';

export const historyCommand: CommandModule<object, TargetArgs> = {
  command: 'history <names..>',
  describe:
    "List a WebService's revisions: each change that rolled its pods, with its image, config and what changed; writes nothing",
  builder: (yargs) =>
    yargs
      .positional('names', { type: 'string', array: true, describe: 'The WebService (NAME or webservice/NAME)' })
      .example('$0 history web', 'every revision kept, newest first, and which one the pods run')
      .example('$0 history web -o json', 'the same, as data'),
  handler: withContext<TargetArgs>(async (ctx, args) => {
    const { namespace, name } = await singleTarget(ctx, args, 'history');
    const input = await gatherOne(await ctx.client(), namespace, name, { readConfig: false });
    const revisions = ourRevisions(input.parent, input.children);
    const rows = historyOf(input.parent, revisions);
    const pins = parsePins(input.parent.metadata.annotations?.[CONFIG_PINS_ANNOTATION]);
    if (ctx.out.machine) {
      ctx.out.data({ name, namespace, revisions: rows, pinned: pins.map(configTarget) });
      return;
    }
    if (rows.length === 0) {
      ctx.out.progress(
        `webservice/${name} has no revisions${input.parent.spec.workload ? ' yet' : ': it has no spec.workload'}.`,
      );
      return;
    }
    const now = ctx.now();
    ctx.out.table(
      ['revision', 'age', 'status', 'image', 'config', 'change'],
      rows.map((row) => [
        { text: String(row.revision) },
        { text: age(row.creationTimestamp, now) },
        { text: row.status || '-' },
        { text: row.image },
        { text: row.config.join(', ') || '-' },
        { text: row.change },
      ]),
    );
    if (pins.length > 0) {
      ctx.out.progress(
        `pinned by a rollback: ${pins.map(configTarget).join(', ')} (each until its source changes again)`,
      );
    }
    if (rows.some((row) => row.config.some((config) => config.endsWith('(live)')))) {
      ctx.out.progress(
        '(live): the pods read it as it is now; a rollback cannot bring back an old value (spec.workload.snapshotSecrets keeps one)',
      );
    }
  }),
};

/** The WebService's own revisions among the children read. */
export function ourRevisions(parent: { metadata: { uid?: string } }, children: unknown[]): ControllerRevision[] {
  return children.flatMap((child) => {
    const revision = asRevision(child as ControllerRevision);
    return revision && isOurs(revision, parent.metadata.uid ?? '') ? [revision] : [];
  });
}

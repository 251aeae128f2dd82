// A decision's writes as the server would store them, on a sync input: for unit tests that
// follow a WebService through several passes without a cluster. Each created or applied child
// gets a uid and a resourceVersion (and keeps the live one's status), each deleted one goes, a
// revision is renumbered, and the WebService's pins change as released.
import { CONFIG_PINS_ANNOTATION } from '../../src/core/config';
import { Decision, decide } from '../../src/core/decide';
import { Child, ConfigState, Deployment, SyncInput, WorkloadSpec, kindOf } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { parseSyncInput } from '../../src/core/validate';

let version = 5000;

/** The input once every op of the decision landed. */
export function afterWrites(input: SyncInput, decision: Decision): SyncInput {
  let children = [...input.children];
  let parent = input.parent;
  const same = (kind: string, name: string) => (c: Child) => kindOf(c) === kind && c.metadata.name === name;
  const stored = (object: object, live?: Child): Child => {
    const child = structuredClone(object) as Child;
    child.metadata = {
      ...child.metadata,
      uid: live?.metadata.uid ?? `uid-${version}`,
      resourceVersion: String(++version),
    };
    const status = (live as { status?: unknown } | undefined)?.status;
    if (status !== undefined) (child as { status?: unknown }).status = status;
    return child;
  };
  for (const op of decision.ops) {
    switch (op.op) {
      case 'createChild':
      case 'copyChild': {
        const object = op.op === 'copyChild' ? { ...op.object, data: { copied: op.from.digest } } : op.object;
        children.push(stored(object));
        break;
      }
      case 'takeOverChild':
        // Only its managedFields change, which these objects do not carry: the apply after it stores ours whole.
        break;
      case 'applyChild': {
        const live = children.find(same(op.kind, op.name));
        children = children.filter((c) => c !== live);
        // A handover's fields join the live object's; our apply replaces what we own (all of it, here).
        const object =
          op.handover && live
            ? { ...live, spec: { ...(live as { spec?: object }).spec, ...op.object.spec } }
            : op.object;
        children.push(stored(object, live));
        break;
      }
      case 'patchChild': {
        const live = children.find(same(op.kind, op.name));
        if (!live) break;
        const { resourceVersion: _condition, ...metadata } = (op.patch as { metadata: { resourceVersion?: string } })
          .metadata;
        const patched = mergePatched(live, { ...op.patch, metadata }) as Child;
        children = children.map((c) => (c === live ? stored(patched, live) : c));
        break;
      }
      case 'deleteChild':
        children = children.filter((c) => !same(op.kind, op.name)(c));
        break;
      case 'releasePins': {
        const annotations = { ...parent.metadata.annotations };
        if (op.pins === null) delete annotations[CONFIG_PINS_ANNOTATION];
        else annotations[CONFIG_PINS_ANNOTATION] = op.pins;
        parent = { ...parent, metadata: { ...parent.metadata, annotations } };
        break;
      }
      case 'removeFinalizer':
        parent = { ...parent, metadata: { ...parent.metadata, finalizers: op.finalizers } };
        break;
    }
  }
  return { ...input, parent, children };
}

/** An object with an RFC 7386 merge patch applied: null removes, objects merge, the rest replaces. */
function mergePatched(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatched(out[key], value);
  }
  return out;
}

/**
 * The input with this workload, converged: every write of the pass that applied it landed, and
 * its Deployment rolled out (as the input's own did: its status). edit changes the live
 * Deployment as someone else would, after that.
 */
export function convergedWorkload(
  input: SyncInput,
  workload: WorkloadSpec,
  options: { config?: ConfigState[]; edit?: (live: Deployment) => void } = {},
): SyncInput {
  const parent = { ...input.parent, spec: { ...input.parent.spec, workload } };
  const live = input.children.find((c): c is Deployment => kindOf(c) === 'Deployment');
  const status = live?.status;
  const start: SyncInput = {
    ...input,
    parent,
    ...(options.config ? { config: options.config } : {}),
    children: input.children.filter((c) => kindOf(c) !== 'Deployment'),
  };
  const written = afterWrites(start, decide(observe(parseSyncInput(start))));
  const children = written.children.map((c) => {
    if (kindOf(c) !== 'Deployment') return c;
    const live = { ...(c as Deployment), status };
    live.metadata = { ...live.metadata, generation: status?.observedGeneration ?? 1 };
    options.edit?.(live);
    return live;
  });
  return { ...written, children };
}

/** The input with the revision and config snapshots that a pass of its spec makes: its history is up to date. */
export function withHistory(input: SyncInput): SyncInput {
  const decision = decide(observe(parseSyncInput(input)));
  const history = decision.ops.filter(
    (op) =>
      op.op === 'copyChild' ||
      ((op.op === 'createChild' || op.op === 'patchChild') && op.kind === 'ControllerRevision'),
  );
  return afterWrites(input, { ...decision, ops: history });
}

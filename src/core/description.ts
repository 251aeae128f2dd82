// What `describe` says about one WebService, as data: the spec in short, the conditions, the
// tree of what it owns, what a pass would do now (the decision plan makes, and the Ready it
// would hold), and the Events of it all. Pure: the reads and the decision come in.
import { CANARY_DEPLOYMENT_ID } from './canary-requests';
import { Decision, Op, childVerdicts, weighed } from './decide';
import { childTarget } from './kinds';
import { Condition, Expose, SyncInput } from './model';
import type { Observation } from './observation';
import { eventsAbout, DescribedEvent, RawEvent } from './recent-events';
import { ReadyCondition, computeStatus, readyOf } from './status';
import { LiveObject, RelatedObjects, TreeNode, buildTree, treeObjects } from './tree';

export interface Description {
  name: string;
  namespace: string;
  uid?: string;
  creationTimestamp?: string;
  labels: Record<string, string>;
  spec: {
    image: string;
    replicas: number;
    tier: string;
    dependsOn: string[];
    /** null without spec.workload; else its port and the names of the other fields it sets. */
    workload: { port?: number; fields: string[] } | null;
    /** spec.expose as it is; null without it. */
    expose: Expose | null;
  };
  generation: number;
  observedGeneration?: number;
  conditions: Condition[];
  tree: TreeNode;
  decision: {
    action: Decision['action'];
    reason: string;
    target: string;
    after_seconds?: number;
    /** The requests a pass would send: `patch configmap/web-desired`. */
    writes: string[];
    /** The Ready condition a pass would leave (computed as status computes it); null while deleting. */
    ready: ReadyCondition | null;
  };
  /** While a canary runs: where it stands after a pass now (the decision's status.rollout), and its step. */
  canary: (NonNullable<Decision['rollout']> & { steps: number; stepText: string; canaryReady: number }) | null;
  events: DescribedEvent[];
  /** Reads that were refused (e.g. no permission to list pods): what the description lacks. */
  unread?: string[];
}

export interface DescribeInputs {
  input: SyncInput;
  observation: Observation;
  decision: Decision;
  related: RelatedObjects;
  events: RawEvent[];
  unread: string[];
  now: string;
}

export function describeWebService({
  input,
  observation,
  decision,
  related,
  events,
  unread,
  now,
}: DescribeInputs): Description {
  const { parent } = input;
  const tree = buildTree(
    parent,
    observation,
    childVerdicts(weighed(observation, now)),
    input.children as unknown as LiveObject[],
    related,
  );
  const computed = computeStatus(observation, decision, { kind: 'planned' }, now).status;
  const ready = readyOf(computed ?? undefined);
  const { port, ...fields } = observation.desired.workload ?? {};
  const description: Description = {
    name: observation.name,
    namespace: observation.namespace,
    uid: parent.metadata.uid,
    creationTimestamp: parent.metadata.creationTimestamp,
    labels: parent.metadata.labels ?? {},
    spec: {
      image: observation.desired.image,
      replicas: observation.desired.replicas,
      tier: observation.desired.tier,
      dependsOn: observation.desired.dependsOn ?? [],
      workload: observation.desired.workload
        ? { ...(port !== undefined ? { port } : {}), fields: Object.keys(fields).sort() }
        : null,
      expose: observation.desired.expose ?? null,
    },
    generation: observation.generation,
    observedGeneration: parent.status?.observedGeneration,
    conditions: parent.status?.conditions ?? [],
    tree,
    decision: {
      action: decision.action,
      reason: decision.reason,
      target: decision.target,
      ...(decision.after_seconds !== undefined ? { after_seconds: decision.after_seconds } : {}),
      writes: decision.ops.map(describeOp),
      ready: ready ? { status: ready.status, reason: ready.reason, message: ready.message } : null,
    },
    canary: canaryOf(observation, decision),
    events: eventsAbout(events, treeObjects(tree)),
  };
  if (unread.length > 0) description.unread = unread;
  return description;
}

/** The canary as describe shows it: its status, what its step is, and its ready pods. */
function canaryOf(observation: Observation, decision: Decision): Description['canary'] {
  const rollout = decision.rollout;
  const steps = observation.desired.rollout?.canary.steps ?? [];
  if (!rollout) return null;
  const step = steps[rollout.step] as (typeof steps)[number] | undefined;
  const stepText = !step
    ? 'the promotion'
    : step.weight !== undefined
      ? `weight ${step.weight}%`
      : step.pause?.duration !== undefined
        ? `pause ${step.pause.duration}`
        : 'pause until promote';
  const live = observation.children[CANARY_DEPLOYMENT_ID]?.object as
    { status?: { readyReplicas?: number } } | undefined;
  return { ...rollout, steps: steps.length, stepText, canaryReady: live?.status?.readyReplicas ?? 0 };
}

/** The fields of a handover's spec, by name: spec.replicas. */
function fieldsOf(spec: Record<string, unknown>): string {
  return Object.keys(spec)
    .map((key) => `spec.${key}`)
    .join(', ');
}

/** One write of a decision, as kubectl would name it. */
function describeOp(op: Op): string {
  switch (op.op) {
    case 'createChild':
      return `create ${childTarget(op, op.object.metadata.name)}`;
    case 'patchChild':
      return `patch ${childTarget(op, op.name)}`;
    case 'copyChild':
      return `create ${op.kind.toLowerCase()}/${op.name} (a copy of ${op.kind.toLowerCase()}/${op.from.name})`;
    case 'releasePins':
      return 'patch the config pins of the webservice';
    case 'takeOverChild':
      return `take over ${op.entries.map((entry) => entry.path).join(', ')} of ${op.kind.toLowerCase()}/${op.name} (managedFields)`;
    case 'applyChild': {
      const handedOver = op.handover ? op.object.spec : op.handedOver?.spec;
      return `apply ${op.kind.toLowerCase()}/${op.name}${handedOver ? ` (hand over ${fieldsOf(handedOver)})` : ''}`;
    }
    case 'deleteChild':
      return `delete ${childTarget(op, op.name)}`;
    case 'removeFinalizer':
      return 'patch finalizers of the webservice';
  }
}

// The steps of a campaign history, as plain data: a history is printed as JSON, written to a
// file and replayed from it (--replay), so every step says exactly what it does, with no
// randomness left to draw when it runs.
import type { Json } from '../../src/core/model';

/** The kinds of child a WebService has, as kubectl names them (its kind in lower case). */
export type ChildKind = 'configmap' | 'deployment' | 'service' | 'poddisruptionbudget' | 'horizontalpodautoscaler';

/** What a tamper does to one child of ours. */
export type Tamper =
  | 'edit' // one of our fields, to a value the spec does not say
  | 'delete'
  | 'label' // a foreign label
  | 'annotation' // a foreign annotation
  | 'env' // a foreign env var (Deployment)
  | 'container' // a foreign sidecar container (Deployment)
  | 'restart' // kubectl rollout restart (Deployment)
  | 'scale' // kubectl scale of the Deployment itself
  | 'key'; // the key of an entry of ours in a keyed list: a Service's port, a container's port, an env var's name

/** Where killInWrite stops the controller: before a write to a child, the status, or an Event. */
export type WritePoint = 'child' | 'status' | 'event';

export type Step =
  /** kubectl create of a WebService; with `finalizer`, ours, which the controller must take off on deletion. */
  | { step: 'create'; name: string; spec: Json; labels?: Record<string, string>; finalizer?: boolean }
  /** The whole spec replaced (one JSON patch): an edit of one field or several, or optional sections removed. */
  | { step: 'setSpec'; name: string; spec: Json; what: string }
  | { step: 'delete'; name: string }
  /** Deleted, waited for, and created again at once: the same name with a new uid. */
  | { step: 'recreate'; name: string; spec: Json }
  | { step: 'tamper'; name: string; child: ChildKind; how: Tamper; value: string }
  /** A foreign object (no owner, not our label) on the name a child of `name` would have. */
  | { step: 'foreign'; name: string; child: ChildKind }
  | { step: 'unforeign'; name: string; child: ChildKind }
  /** spec.replicas through the scale subresource: `kubectl scale`, or a merge patch as an HPA writes it. */
  | { step: 'scale'; name: string; replicas: number; via: 'kubectl' | 'hpa' }
  /** SIGKILL the controller; a later `start` step (or quiescence) starts it again. */
  | { step: 'kill' }
  /**
   * The spec replaced, and the controller stopped before its next write of that kind goes
   * out (stop-in-write): a child's, the status', or an Event's; then SIGKILLed. A reconcile
   * cut between two of its writes.
   */
  | { step: 'killInWrite'; name: string; spec: Json; at: WritePoint }
  | { step: 'start' }
  /** `kubectl webservice apply --all` in the background, racing the controller. */
  | { step: 'applyAll' }
  /** A change the API server must refuse: a JSON patch on the spec, or a create. Nothing may change. */
  | { step: 'invalid'; name: string; patch: Json[]; what: string }
  | { step: 'invalidCreate'; name: string; spec: Json; what: string }
  | { step: 'pause'; ms: number }
  /**
   * A change to the config that pods may read, Secret db or ConfigMap features: its content,
   * which rolls the pods of every WebService that reads it, or only a label, which rolls none.
   */
  | { step: 'config'; object: ConfigObject; change: 'content' | 'label'; value: string }
  /** `kubectl webservice rollback NAME`: back to the revision before the pods' own, config included. */
  | { step: 'rollback'; name: string }
  /** `kubectl webservice promote NAME [--full]`: the canary's next step, or all the rest. */
  | { step: 'promote'; name: string; full: boolean }
  /** `kubectl webservice abort NAME`: all traffic back to the stable pods. */
  | { step: 'abort'; name: string }
  /** Quiescence in the middle of a history: the controller runs, and the oracles are checked. */
  | { step: 'check' };

/** What the campaign's metrics API answers every canary check's query: a check passes or fails by its bounds. */
export const METRIC_VALUE = 0.001;

/** The config objects the generated specs read (harness/every-pod-field.ts). */
export type ConfigObject = 'secret/db' | 'configmap/features';

/** Every kind of step: the compiler holds this to the Step type, so none can be left out. */
const KINDS: Record<Step['step'], true> = {
  create: true,
  setSpec: true,
  delete: true,
  recreate: true,
  tamper: true,
  foreign: true,
  unforeign: true,
  scale: true,
  kill: true,
  killInWrite: true,
  start: true,
  applyAll: true,
  invalid: true,
  invalidCreate: true,
  pause: true,
  config: true,
  rollback: true,
  promote: true,
  abort: true,
  check: true,
};
export const STEP_KINDS = Object.keys(KINDS) as Step['step'][];

/** One line for a person: what the step does. */
export function describeStep(step: Step): string {
  switch (step.step) {
    case 'create':
      return `create ${step.name}${step.finalizer ? ' (with our finalizer)' : ''} ${JSON.stringify(step.spec)}`;
    case 'setSpec':
      return `edit ${step.name} (${step.what}) ${JSON.stringify(step.spec)}`;
    case 'delete':
      return `delete ${step.name}`;
    case 'recreate':
      return `delete ${step.name} and create it again ${JSON.stringify(step.spec)}`;
    case 'tamper':
      return `tamper with ${step.child}/${step.name}: ${step.how} ${step.value}`;
    case 'foreign':
      return `a foreign ${step.child} on ${step.name}'s child name`;
    case 'unforeign':
      return `remove the foreign ${step.child} on ${step.name}'s child name`;
    case 'scale':
      return `scale ${step.name} to ${step.replicas} (${step.via})`;
    case 'kill':
      return 'SIGKILL the controller';
    case 'killInWrite':
      return `edit ${step.name}, stop the controller before its next ${step.at} write, SIGKILL it ${JSON.stringify(step.spec)}`;
    case 'start':
      return 'start the controller';
    case 'applyAll':
      return 'apply --all in the background';
    case 'invalid':
      return `invalid edit of ${step.name} (${step.what})`;
    case 'invalidCreate':
      return `invalid create of ${step.name} (${step.what})`;
    case 'pause':
      return `pause ${step.ms}ms`;
    case 'config':
      return `change ${step.object}'s ${step.change === 'content' ? 'content' : 'labels only'} (${step.value})`;
    case 'rollback':
      return `roll ${step.name} back to its previous revision`;
    case 'promote':
      return `promote ${step.name}'s canary${step.full ? ' fully' : ''}`;
    case 'abort':
      return `abort ${step.name}'s canary`;
    case 'check':
      return 'start the controller if it is down, wait for quiescence and check the oracles';
  }
}

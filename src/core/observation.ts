// What observe (observe.ts) makes of the raw objects: the facts a decision needs. Types only,
// in a module of their own: the kind table and the builders it calls name an observation
// without importing observe, which reads that table.
import type { ConfigPin, ConfigReference, ConfigSnapshot } from './config';
import type {
  CanaryCheckResult,
  Child,
  ConfigState,
  Expose,
  OwnerReference,
  RolloutSpec,
  RolloutStatus,
  WebServiceStatus,
  WorkloadSpec,
} from './model';

/** What the CR asks for, with the CRD's defaults filled in. */
export interface DesiredState {
  image: string;
  replicas: number;
  tier: string;
  dependsOn?: string[];
  /** Only when the spec asks for one: a Deployment (and a Service with a port). */
  workload?: WorkloadSpec;
  /** Only when the spec asks for one: an Ingress or an HTTPRoute to the Service. */
  expose?: Expose;
  /** Only when the spec asks for one: how a new revision reaches users (a canary). */
  rollout?: RolloutSpec;
  /** Only while a canary runs: where it stands, as decide weighs it at this pass (canary.ts). */
  canary?: CanaryPlan;
  /** Only with a rollout: the revision the spec makes (decide sets it), which the Deployment says it was written for. */
  revision?: string;
  /**
   * Only when the pods read config that rolls them: the digest of its content, for the pod
   * template (config.ts). Where the shell did not read the config, the live Deployment's.
   */
  configDigest?: string;
  /** Only when the pods read any: the snapshots they read instead of their sources (config.ts). */
  configSnapshots?: ConfigSnapshot[];
  /**
   * Only with config that rolls the pods, and only as read (or as the live pods have it): what
   * the pods read of each Secret and ConfigMap, by keyed digest (null: absent). Their revision records it.
   */
  configStates?: ConfigState[];
  /**
   * Only when the live Deployment has it: it selects its pods by the selector of before the
   * recommended labels, which it keeps, since a Deployment's selector cannot change (labels.ts).
   */
  legacySelector?: true;
}

/** The child's content that we own; `{}` while the child does not exist. */
export interface ActualState {
  image?: string;
  replicas?: string;
  tier?: string;
}

/** What every child is known by: who it is, and whether it is ours. */
export interface OwnedFacts {
  name: string;
  uid?: string;
  resourceVersion?: string;
  /** A controller ownerReference carries the parent's uid. */
  controlledByParent: boolean;
  /** Our managed-by label is set to our value. */
  managedByUs: boolean;
  labels: Record<string, string>;
  ownerReferences: OwnerReference[];
}

/** A child as read, with the live object. */
export interface LiveChildFacts<T = Child> extends OwnedFacts {
  object: T;
}

/** The children of one per WebService (kinds.ts' NAMED_KINDS) by kind: null where none has the name. */
type NamedChildren = Record<string, LiveChildFacts | null>;

/** Our children of each set row (kinds.ts' SET_KINDS), by the row's id: revisions, config snapshots. */
export type ChildSets = Record<string, LiveChildFacts[]>;

/** Where a canary stands at one pass, and what that makes the children (canary.ts decides it). */
export interface CanaryPlan {
  /** The status.rollout this pass holds. */
  status: Required<Pick<RolloutStatus, 'revision' | 'stableRevision' | 'step' | 'stepStartedAt' | 'weight' | 'phase'>> &
    Pick<RolloutStatus, 'message' | 'pauseEndsAt' | 'stableReplicas' | 'canaryReplicas'>;
  /**
   * The stable Deployment is held: only its replica count is written (by a field manager of its
   * own), never its pod template, so its pods stay the stable revision's. False once promoting.
   */
  holdStable: boolean;
  stableReplicas: number;
  canaryReplicas: number;
  /** The route splits between the stable and the canary Services; false: all to the WebService's Service. */
  split: boolean;
  /** When to look again (a pause's end, a deadline), in seconds; unset: an event will come. */
  after?: number;
}

/** What kubectl webservice promote and abort asked for, from the WebService's annotations. */
export interface RolloutRequests {
  /** `<revision>/<step>` (promote that step) or `<revision>/full`. */
  promote?: string;
  /** The revision whose canary to abort. */
  abort?: string;
}

export interface ChildRef {
  kind: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

type DependencyState = 'Ready' | 'NotFound' | 'NotReady' | 'Deleting';

export interface DependencyFacts {
  name: string;
  state: DependencyState;
  message: string;
}

export interface Observation {
  desired: DesiredState;
  actual: ActualState;
  namespace: string;
  name: string;
  uid: string;
  /** The WebService's own labels, when it has any: its workload's children carry them too. */
  labels?: Record<string, string>;
  generation: number;
  resourceVersion?: string;
  deleting: boolean;
  finalizers: string[];
  /** Every child that carries our label and a controller reference to this CR. */
  ownedChildren: ChildRef[];
  children: NamedChildren;
  dependencies: DependencyFacts[];
  /** Set when the CR reaches itself through dependsOn: the names from it back to it. */
  dependencyCycle?: string[];
  /** Only when some are: kinds of child whose API the cluster does not serve (never read nor written). */
  absentKinds?: string[];
  /** Only when some are: Secrets and ConfigMaps the pods must read that do not exist. */
  missingConfig?: ConfigReference[];
  /** Only with a workload, or children of a set row: our revisions and config snapshots, by row id. */
  childSets?: ChildSets;
  /** Only when a rollback pinned config and the pins hold: the references that stay on their snapshot. */
  pins?: ConfigPin[];
  /** Only while a canary with a check runs, and the shell asked: the query's result, or why there is none. */
  canaryCheck?: CanaryCheckResult;
  /** Only while a canary runs, where the shell read its pods: the most restarts in any one of them. */
  canaryRestarts?: number;
  /** Only when some are: what promote and abort asked for. */
  rolloutRequests?: RolloutRequests;
  /** Only when some are: pins that no longer hold (their source changed since); the annotation loses them. */
  releasedPins?: ConfigPin[];
  status: WebServiceStatus;
}

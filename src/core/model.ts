// The data model shared by the core and the shell. Plain types only: the core
// never imports client-node, so these mirror just the fields we read or own.
import type {
  Autoscaling,
  CanaryStep,
  Condition,
  Disruption,
  Expose,
  FileMount,
  RolloutSpec,
  RolloutStatus,
  WebServiceSpec,
  WebServiceStatus,
  WorkloadSpec,
} from './spec.generated';

export const GROUP = 'apps.labhub.io';
export const CRD_VERSION = 'v1';
export const API_VERSION = `${GROUP}/${CRD_VERSION}`;
export const KIND = 'WebService';
export const PLURAL = 'webservices';
export const RESOURCE = `${PLURAL}.${GROUP}`;

export const FINALIZER = 'webservice.labhub.io/cleanup';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'webservice-controller';
export const NAME_LABEL = 'app.kubernetes.io/name';
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';
/** Selects the ConfigMaps that carry our label: reads of children are sized to what we own. */
export const OWNED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;
export const READY = 'Ready';
/** Tells apart the children of one kind that play different parts (the lab's ConfigMap, a config snapshot). */
export const ROLE_LABEL = 'webservice.labhub.io/role';

export const DEFAULT_REPLICAS = 1;
export const DEFAULT_TIER = 'dev';
export const DEFAULT_REQUEUE_AFTER_SECONDS = 10;

/** The suffix of the lab's ConfigMap: `<name>-desired`. */
export const CONFIG_MAP_SUFFIX = '-desired';

/** The name of the lab's ConfigMap of the WebService of this name. */
export function childName(parentName: string): string {
  return `${parentName}${CONFIG_MAP_SUFFIX}`;
}

/** Object names are DNS subdomains of at most 253 characters, the child's included. */
const MAX_OBJECT_NAME = 253;
/** The longest WebService name whose child `<name>-desired` is still a valid name: 245. */
export const MAX_NAME_LENGTH = MAX_OBJECT_NAME - CONFIG_MAP_SUFFIX.length;
/** Label values are at most 63 characters. */
export const MAX_LABEL_VALUE = 63;
const LABEL_HASH_LENGTH = 8;

/**
 * The app.kubernetes.io/instance label's value: the name itself when it fits in a label
 * value, else its first 54 characters, a dash and 8 hex digits of a hash of the whole
 * name. Deterministic, so every pass writes the same value and a converged child stays
 * converged; names that share a prefix still get different values.
 */
export function instanceLabelValue(name: string): string {
  if (name.length <= MAX_LABEL_VALUE) return name;
  const prefix = name.slice(0, MAX_LABEL_VALUE - LABEL_HASH_LENGTH - 1);
  return `${prefix}-${fnv1a32(name)}`;
}

/** FNV-1a, 32 bits, as 8 hex digits: tiny, pure and stable across Node versions. */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(LABEL_HASH_LENGTH, '0');
}

/** A JSON object whose fields are not typed here: read as parsed, or built to be sent. */
export type Json = Record<string, unknown>;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

// The spec's and the status' types are generated from the CRD's schema (spec-schema.ts).
export type {
  Autoscaling,
  CanaryStep,
  Condition,
  Disruption,
  Expose,
  FileMount,
  RolloutSpec,
  RolloutStatus,
  WebServiceStatus,
  WorkloadSpec,
};
export type ConditionStatus = Condition['status'];

export interface WebService {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: WebServiceSpec;
  status?: WebServiceStatus;
}

export interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  data?: Record<string, string>;
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}

interface Container {
  name: string;
  image?: string;
  ports?: { containerPort: number; name?: string; protocol?: string }[];
  envFrom?: { configMapRef?: { name?: string }; secretRef?: { name?: string }; prefix?: string }[];
  [field: string]: unknown;
}

interface DeploymentCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface Deployment {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    replicas?: number;
    progressDeadlineSeconds?: number;
    selector?: LabelSelector;
    template?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: { containers?: Container[]; [field: string]: unknown };
    };
    [field: string]: unknown;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    conditions?: DeploymentCondition[];
  };
}

interface ServicePort {
  port: number;
  targetPort?: number | string;
  name?: string;
  protocol?: string;
  [field: string]: unknown;
}

export interface Service {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { type?: string; selector?: Record<string, string>; ports?: ServicePort[]; [field: string]: unknown };
}

/** A child of any kind we own (kinds.ts has them); an object without a kind is a ConfigMap (metadata-only reads). */
export type Child = ConfigMap | Deployment | Service;

/** The kind of a child: an object without a kind is a ConfigMap (metadata-only reads carry none). */
export function kindOf(child: { kind?: string }): string {
  return child.kind ?? 'ConfigMap';
}

export type ConfigKind = 'Secret' | 'ConfigMap';

/** What the shell found of one Secret or ConfigMap the pods read: a keyed digest of the keys read, or null when it does not exist. */
export interface ConfigState {
  kind: ConfigKind;
  name: string;
  digest: string | null;
}

/** The parent with its children and the WebServices it may depend on:
 *  everything one reconcile needs, as data (metacontroller's sync request). */
export interface SyncInput {
  parent: WebService;
  children: Child[];
  related: WebService[];
  /**
   * The kinds of child whose API the cluster does not serve (the kind table's optional rows,
   * found absent by discovery): none of them is read or written. Unset: every API is served.
   */
  absentKinds?: string[];
  /**
   * The Secrets and ConfigMaps the workload's pods read, as the shell found them (a keyed
   * digest of their content, never a value). Unset: not read, and the pods' config digest stays
   * as the live Deployment has it.
   */
  config?: ConfigState[];
  /**
   * Only while a canary with a check runs, and only where the shell has a metrics API to ask:
   * the check's query's result, or why there is none.
   */
  canaryCheck?: CanaryCheckResult;
  /**
   * Only while a canary runs, where the shell read its pods: the most restarts of the
   * containers of any one of them (the pods of the canary's revision, not being deleted).
   */
  canaryRestarts?: number;
}

/** A canary check's query, as the shell evaluated it: one number, or why there is none. */
export type CanaryCheckResult = { value: number } | { error: string };

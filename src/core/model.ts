// The data model shared by the core and the shell. Plain types only: the core
// never imports client-node, so these mirror just the fields we read or own.

export const GROUP = 'apps.labhub.io';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}`;
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

export const DEFAULT_REPLICAS = 1;
export const DEFAULT_TIER = 'dev';
export const DEFAULT_REQUEUE_AFTER_SECONDS = 10;

export function childName(parentName: string): string {
  return `${parentName}-desired`;
}

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

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface WebServiceSpec {
  image: string;
  replicas?: number;
  tier?: string;
  dependsOn?: string[];
}

export interface WebServiceStatus {
  replicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

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

/** The parent with its children and the WebServices it may depend on:
 *  everything one reconcile needs, as data (metacontroller's sync request). */
export interface SyncInput {
  parent: WebService;
  children: ConfigMap[];
  related: WebService[];
}

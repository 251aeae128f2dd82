// The kinds the program reads and writes besides the kind table's children: the WebService
// itself, the Lease, Events, and the objects `install` ships (of which the controller's
// Deployment, NetworkPolicy and PodDisruptionBudget are the kind table's rows). With the kind
// table (kinds.ts) this is the one registry of resource types the client's generic verbs take.
// Pure data.
import { DEPLOYMENT, NETWORK_POLICY, POD_DISRUPTION_BUDGET, ResourceType } from './kinds';
import { CRD_VERSION, GROUP, PLURAL } from './model';

export const WEBSERVICE_TYPE: ResourceType = {
  kind: 'WebService',
  apiVersion: `${GROUP}/${CRD_VERSION}`,
  group: GROUP,
  resource: PLURAL,
};

/** The leader election's Lease. */
export const LEASE: ResourceType = {
  kind: 'Lease',
  apiVersion: 'coordination.k8s.io/v1',
  group: 'coordination.k8s.io',
  resource: 'leases',
};

/** An Event as the controller and apply report them (events.k8s.io/v1). */
export const EVENTS_V1: ResourceType = {
  kind: 'Event',
  apiVersion: 'events.k8s.io/v1',
  group: 'events.k8s.io',
  resource: 'events',
};

export const CUSTOM_RESOURCE_DEFINITION: ResourceType = {
  kind: 'CustomResourceDefinition',
  apiVersion: 'apiextensions.k8s.io/v1',
  group: 'apiextensions.k8s.io',
  resource: 'customresourcedefinitions',
  namespaced: false,
};

const rbac = (kind: string, resource: string, namespaced: boolean): ResourceType => ({
  kind,
  apiVersion: 'rbac.authorization.k8s.io/v1',
  group: 'rbac.authorization.k8s.io',
  resource,
  ...(namespaced ? {} : { namespaced: false }),
});

const admission = (kind: string, resource: string): ResourceType => ({
  kind,
  apiVersion: 'admissionregistration.k8s.io/v1',
  group: 'admissionregistration.k8s.io',
  resource,
  namespaced: false,
});

/** The kinds `install` ships (the CRD, RBAC, the controller's Deployment...). */
const INSTALLED_TYPES: readonly ResourceType[] = [
  CUSTOM_RESOURCE_DEFINITION,
  { kind: 'Namespace', apiVersion: 'v1', group: '', resource: 'namespaces', namespaced: false },
  { kind: 'ServiceAccount', apiVersion: 'v1', group: '', resource: 'serviceaccounts' },
  rbac('ClusterRole', 'clusterroles', false),
  rbac('ClusterRoleBinding', 'clusterrolebindings', false),
  rbac('Role', 'roles', true),
  rbac('RoleBinding', 'rolebindings', true),
  admission('ValidatingAdmissionPolicy', 'validatingadmissionpolicies'),
  admission('ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings'),
  NETWORK_POLICY,
  POD_DISRUPTION_BUDGET,
  DEPLOYMENT,
];

/** The installed type of an object's apiVersion and kind, or null when the plugin does not ship that kind. */
export function installedType(object: { apiVersion: string; kind: string }): ResourceType | null {
  return INSTALLED_TYPES.find((type) => type.apiVersion === object.apiVersion && type.kind === object.kind) ?? null;
}

// The objects `install` ships, and where each of their kinds lives in the REST API. Apart from
// the client so that unit tests can check every bundled manifest against it without loading
// client-node, and so that the client imports it, never the other way round.
import type { ObjectMeta } from '../core/model';
import { UserError } from './errors';

/** An object of one of the kinds `install` ships (CRD, RBAC, the controller's Deployment...). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** The kinds `install` ships: their resource name and whether they live in a namespace. */
interface InstallableKind {
  resource: string;
  namespaced: boolean;
}

const INSTALLABLE_KINDS: Record<string, InstallableKind> = {
  'apiextensions.k8s.io/v1 CustomResourceDefinition': { resource: 'customresourcedefinitions', namespaced: false },
  'v1 Namespace': { resource: 'namespaces', namespaced: false },
  'v1 ServiceAccount': { resource: 'serviceaccounts', namespaced: true },
  'rbac.authorization.k8s.io/v1 ClusterRole': { resource: 'clusterroles', namespaced: false },
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding': { resource: 'clusterrolebindings', namespaced: false },
  'rbac.authorization.k8s.io/v1 Role': { resource: 'roles', namespaced: true },
  'rbac.authorization.k8s.io/v1 RoleBinding': { resource: 'rolebindings', namespaced: true },
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy': {
    resource: 'validatingadmissionpolicies',
    namespaced: false,
  },
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding': {
    resource: 'validatingadmissionpolicybindings',
    namespaced: false,
  },
  'networking.k8s.io/v1 NetworkPolicy': { resource: 'networkpolicies', namespaced: true },
  'policy/v1 PodDisruptionBudget': { resource: 'poddisruptionbudgets', namespaced: true },
  'apps/v1 Deployment': { resource: 'deployments', namespaced: true },
};

/** The REST path of an installable object, and how kubectl names it in messages. */
export function objectLocation(object: KubeObject): { path: string; resource: string; what: string } {
  const key = `${object.apiVersion} ${object.kind}`;
  const kind = Object.hasOwn(INSTALLABLE_KINDS, key) ? INSTALLABLE_KINDS[key] : null;
  if (!kind) throw new UserError(`cannot install ${object.apiVersion} ${object.kind}: not a kind the plugin ships`);
  const { name, namespace } = object.metadata;
  if (kind.namespaced && !namespace) throw new UserError(`${object.kind} "${name}" has no metadata.namespace`);
  const group = object.apiVersion.includes('/') ? object.apiVersion.split('/')[0] : '';
  const base = group ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  const scope = kind.namespaced ? `/namespaces/${encodeURIComponent(namespace!)}` : '';
  const resource = group ? `${kind.resource}.${group}` : kind.resource;
  return {
    path: `${base}${scope}/${kind.resource}/${encodeURIComponent(name)}`,
    resource: kind.resource,
    what: `${resource} "${name}"`,
  };
}

// Where each type's objects live in the REST API, and which type an object `install` ships is
// of. Apart from the client so that unit tests can check every bundled manifest against it
// without loading client-node, and so that the client imports it, never the other way round.
import { ResourceType, resourceName } from '../core/kinds';
import type { ObjectMeta } from '../core/model';
import { installedType } from '../core/resource-types';
import { UserError } from './errors';

/** An object of one of the kinds `install` ships (CRD, RBAC, the controller's Deployment...). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/**
 * The REST path of a type's objects: /api/v1/namespaces/NS/configmaps/NAME,
 * /apis/apps/v1/namespaces/NS/deployments, /apis/apiextensions.k8s.io/v1/customresourcedefinitions/NAME.
 * A namespaced type with namespace null: its objects in every namespace. A cluster-scoped type
 * has no namespace in its path.
 */
export function resourcePath(
  type: ResourceType,
  namespace: string | null,
  name?: string,
  subresource?: string,
): string {
  const base = type.group ? `/apis/${type.apiVersion}` : `/api/${type.apiVersion}`;
  const scope = type.namespaced === false || namespace === null ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  const object = name === undefined ? '' : `/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
  return `${base}${scope}/${type.resource}${object}`;
}

/** The type of an object `install` ships, and its namespace (null for a cluster-scoped kind). */
export function installedLocation(object: KubeObject): { type: ResourceType; namespace: string | null } {
  const type = installedType(object);
  if (!type) throw new UserError(`cannot install ${object.apiVersion} ${object.kind}: not a kind the plugin ships`);
  const { name, namespace } = object.metadata;
  if (type.namespaced === false) return { type, namespace: null };
  if (!namespace) throw new UserError(`${object.kind} "${name}" has no metadata.namespace`);
  return { type, namespace };
}

/** The REST path of an object `install` ships, its resource, and how kubectl names it in messages. */
export function objectLocation(object: KubeObject): { path: string; resource: string; what: string } {
  const { type, namespace } = installedLocation(object);
  const { name } = object.metadata;
  return {
    path: resourcePath(type, namespace, name),
    resource: type.resource,
    what: whatOf(type, name),
  };
}

/** How kubectl names one object in messages: configmaps "checkout-desired", deployments.apps "checkout". */
export function whatOf(type: ResourceType, name: string): string {
  return `${resourceName(type)} "${name}"`;
}

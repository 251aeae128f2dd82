// The objects `install` ships, read, applied and deleted through the generic verbs: each
// object's type is found in the registry by its apiVersion and kind (object-location.ts).
import type { ApplyOptions, DeleteOptions, ResourceClient } from './api';
import { orNull } from './errors';
import type { FieldOwned } from './field-owner';
import { KubeObject, installedLocation } from './object-location';

/** The live copy of an object `install` ships, or null when there is none. */
export function getInstalled<T extends KubeObject>(
  client: Pick<ResourceClient, 'get'>,
  object: KubeObject,
): Promise<T | null> {
  const { type, namespace } = installedLocation(object);
  return orNull(client.get<T>(type, namespace, object.metadata.name));
}

/** Server-side apply of a whole object, as the client's field owner. */
export function applyInstalled(
  client: Pick<FieldOwned<ResourceClient>, 'apply'>,
  object: KubeObject,
  options: ApplyOptions = {},
): Promise<KubeObject> {
  const { type, namespace } = installedLocation(object);
  return client.apply(type, namespace, object, options);
}

/** Deletes an object `install` ships, in the background; false when it was already gone. */
export function deleteInstalled(
  client: Pick<ResourceClient, 'delete'>,
  object: KubeObject,
  options: DeleteOptions = {},
): Promise<boolean> {
  const { type, namespace } = installedLocation(object);
  return client.delete(type, namespace, object.metadata.name, options);
}

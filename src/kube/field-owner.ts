// The field manager, around the generic verbs: a client whose writes name owner as their field
// manager unless they name one, as controller-runtime's client.WithFieldOwner. The client
// itself names none: whoever writes as a manager (the engine's child writes, install) wraps it.
import type { ResourceType } from '../core/kinds';
import type { ObjectMeta } from '../core/model';
import type { ApplyRequest, ResourceClient, WriteOptions } from './api';

/** The verbs that take a field manager. */
type Writes = Pick<ResourceClient, 'create' | 'patch' | 'apply'>;

/** C, whose writes go as fieldOwner: an apply needs no field manager of its own. */
export type FieldOwned<C extends Writes> = Omit<C, 'apply'> & {
  readonly fieldOwner: string;
  apply<T extends { metadata: ObjectMeta }>(
    type: ResourceType,
    namespace: string | null,
    object: T,
    options?: Partial<ApplyRequest>,
  ): Promise<T>;
};

/**
 * client, whose create, patch and apply name owner as their field manager unless their options
 * name another. Everything else is client's own: the copy inherits from it, and each verb runs
 * with the copy as `this`, so a copy made of the copy (withSignal) keeps its own interceptors.
 */
export function withFieldOwner<C extends Writes>(client: C, owner: string): FieldOwned<C> {
  const { create, patch, apply } = client;
  const as = <O extends WriteOptions>(options: O | undefined) => ({ fieldManager: owner, ...options });
  // (Each verb is generic in what it answers; call loses that, and each answers what it was asked for.)
  const verbs: Writes & { fieldOwner: string } = {
    fieldOwner: owner,
    create<T extends { metadata: { name?: string } }>(
      type: ResourceType,
      namespace: string | null,
      object: T,
      options?: WriteOptions,
    ): Promise<T> {
      return create.call(this, type, namespace, object, as(options)) as Promise<T>;
    },
    patch<T extends object>(
      type: ResourceType,
      namespace: string | null,
      name: string,
      body: object,
      options?: WriteOptions,
    ): Promise<T> {
      return patch.call(this, type, namespace, name, body, as(options)) as Promise<T>;
    },
    apply<T extends { metadata: ObjectMeta }>(
      type: ResourceType,
      namespace: string | null,
      object: T,
      options?: Partial<ApplyRequest>,
    ): Promise<T> {
      return apply.call(this, type, namespace, object, as(options)) as Promise<T>;
    },
  };
  return Object.assign(Object.create(client) as object, verbs) as FieldOwned<C>;
}

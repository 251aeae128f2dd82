// The writes of a child that are not one request, as functions over the generic verbs (so the
// same code runs against the API server and the unit tests' fake): an apply that must create (a
// POST, then its fields made ours as an apply's), and the take-over of keyed list entries (a GET
// of managedFields, then a merge patch of them). Whose fields they are is the client's field
// owner (field-owner.ts): the caller wraps the client once, and names the manager there.
import type { ResourceType } from '../core/kinds';
import type { Child } from '../core/model';
import { ManagedFieldsEntry, MovedEntry, takeOverEntries } from '../core/moved';
import { CONVERSION_ATTEMPTS, CONVERSION_BACKOFF } from '../core/retry';
import type { ApplyPrecondition, DryRun, ResourceClient } from './api';
import { ConflictError } from './errors';
import type { FieldOwned } from './field-owner';
import { whatOf } from './object-location';
import { retryOnConflict } from './retry';

/**
 * What a child's writes need of the client: the verbs, as its field owner; whether it is a
 * server dry run; and its abort signal, if any, which ends a wait between its requests.
 */
export type ChildWriter = Pick<FieldOwned<ResourceClient>, 'get' | 'create' | 'patch' | 'apply' | 'fieldOwner'> & {
  readonly dryRun: DryRun;
  readonly signal?: AbortSignal;
};

/**
 * The field manager of a handover: fields we hand to another controller (a Deployment's
 * replicas, to its autoscaler) are applied by it just before our apply stops setting them.
 * The other controller's first update of a field takes it whole, and then this manager owns
 * nothing and leaves managedFields.
 */
function handoverManager(owner: string): string {
  return `${owner}-handover`;
}

/**
 * The object's managedFields, with our manager's Update entry made an Apply entry. Fields
 * handed over (a create's handover, as fieldsV1) go from that entry to an Apply entry of the
 * handover's manager: the server then keeps them when our apply leaves them out.
 */
function asApplied(
  object: { metadata: { managedFields?: ManagedFieldsEntry[] } },
  owner: string,
  handedOver: FieldSet = {},
): ManagedFieldsEntry[] {
  return (object.metadata.managedFields ?? []).flatMap((entry) => {
    if (entry.manager !== owner || entry.operation !== 'Update') return [entry];
    const ours = structuredClone((entry.fieldsV1 ?? {}) as FieldSet);
    const moved = takeFields(ours, handedOver);
    const applied = { ...entry, operation: 'Apply', fieldsV1: ours };
    // None left to move: another manager (the autoscaler) has taken them already.
    if (moved === null) return [applied];
    return [applied, { ...entry, manager: handoverManager(owner), operation: 'Apply', fieldsV1: moved }];
  });
}

/** A set of fields as managedFields' fieldsV1 has it: {"f:spec": {"f:replicas": {}}}. */
type FieldSet = { [field: string]: FieldSet };

/** The fields an object sets, as a FieldSet: each member of a plain object, down to the leaves. */
function fieldSetOf(value: Record<string, unknown>): FieldSet {
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [
      `f:${key}`,
      typeof member === 'object' && member !== null && !Array.isArray(member)
        ? fieldSetOf(member as Record<string, unknown>)
        : {},
    ]),
  );
}

/** Takes the fields `wanted` names out of `from`; what it took, or null when none of them is there. */
function takeFields(from: FieldSet, wanted: FieldSet): FieldSet | null {
  const taken: FieldSet = {};
  for (const [key, below] of Object.entries(wanted)) {
    if (!Object.hasOwn(from, key)) continue;
    if (Object.keys(below).length === 0) {
      taken[key] = from[key];
      delete from[key];
      continue;
    }
    const inner = takeFields(from[key], below);
    if (inner === null) continue;
    taken[key] = inner;
    if (Object.keys(from[key]).length === 0) delete from[key];
  }
  return Object.keys(taken).length > 0 ? taken : null;
}

function withoutManagedFields<T extends { metadata: object }>(object: T): T {
  const { managedFields: _dropped, ...metadata } = object.metadata as { managedFields?: unknown };
  return { ...object, metadata };
}

/**
 * Server-side apply of a whole child as the client's field owner, forced: the fields it sets
 * are ours, the server drops those we stopped setting and keeps everyone else's. With a uid
 * (and resourceVersion), the child we read and nothing else: a successor of the same name, or
 * a change since, is refused (409). Without, the child must not exist yet.
 */
export function applyChild(
  client: ChildWriter,
  row: ResourceType,
  namespace: string,
  object: Child,
  precondition: ApplyPrecondition,
): Promise<Child> {
  if (precondition.uid === undefined) return createApplied(client, row, namespace, object, precondition.handedOver);
  const metadata = { ...object.metadata, uid: precondition.uid, resourceVersion: precondition.resourceVersion };
  // A handover at the live values only shares them (no conflict, so force takes nothing);
  // one that raises a count to the autoscaler's minimum takes the field from our own manager.
  const handover = precondition.handover ? { fieldManager: handoverManager(client.fieldOwner) } : {};
  return client.apply(row, namespace, { ...object, metadata }, { ...handover, force: true });
}

/**
 * Makes entries of the child's keyed lists ours (core/moved.ts): its managedFields, read now,
 * with those entries' fields moved to our Apply entry, written back with the resourceVersion
 * the decision read (409 if the child changed since). Nothing is written when no other
 * manager holds them. The apply that follows, which does not set them, removes them.
 */
export async function takeOverChild(
  client: ChildWriter,
  row: ResourceType,
  namespace: string,
  name: string,
  entries: MovedEntry[],
  precondition: ApplyPrecondition,
): Promise<void> {
  const current = await client.get<Child & { metadata: { managedFields?: ManagedFieldsEntry[] } }>(
    row,
    namespace,
    name,
  );
  if (precondition.uid !== undefined && current.metadata.uid !== precondition.uid)
    throw new ConflictError(`${whatOf(row, name)} is not the object that was read (uid ${precondition.uid})`);
  const managedFields = takeOverEntries(
    current.metadata.managedFields ?? [],
    entries.map((entry) => entry.steps),
    client.fieldOwner,
    row.apiVersion,
  );
  if (!managedFields) return;
  await client.patch(row, namespace, name, {
    metadata: { resourceVersion: precondition.resourceVersion ?? current.metadata.resourceVersion, managedFields },
  });
}

/**
 * An apply that must create. Server-side apply has no "create only": on an object that
 * appeared meanwhile (someone else's, which the label-selected cache cannot see) it would
 * take it over. So a POST, which is refused with AlreadyExists, and then its fields are made
 * ours as an apply's would be (our manager's Update entry becomes an Apply entry, as kubectl's
 * client-side-apply upgrade does): without that, a field set at creation would stay forever,
 * however the spec changes later. Fields handed over at creation go to the handover's manager.
 */
async function createApplied(
  client: ChildWriter,
  row: ResourceType,
  namespace: string,
  object: Child,
  handedOver: { spec: Record<string, unknown> } | undefined,
): Promise<Child> {
  const handedFields = handedOver ? fieldSetOf({ spec: handedOver.spec }) : {};
  const { name } = object.metadata;
  type WithManagedFields = Child & { metadata: { managedFields?: ManagedFieldsEntry[] } };
  const created = await client.create<WithManagedFields>(row, namespace, object, { keepManagedFields: true });
  // A server dry run stored nothing to convert.
  if (client.dryRun === 'server') return withoutManagedFields(created);
  // Its controller may change it at once (a Deployment's revision annotation, its status):
  // then read it again a moment later and convert what it holds now.
  const wait = { policy: CONVERSION_BACKOFF, signal: client.signal };
  return retryOnConflict(
    async (attempt) => {
      const current = attempt === 1 ? created : await client.get<WithManagedFields>(row, namespace, name);
      return client.patch<Child>(row, namespace, name, {
        metadata: {
          resourceVersion: current.metadata.resourceVersion,
          managedFields: asApplied(current, client.fieldOwner, handedFields),
        },
      });
    },
    CONVERSION_ATTEMPTS,
    wait,
  );
}

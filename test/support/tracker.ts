// The store behind the unit tests' API server (fake-api.ts), as client-go's ObjectTracker is:
// objects in memory by kind, namespace and name, each write answered the server's way. A
// create gets a uid and a resourceVersion, and is refused with AlreadyExists where the name is
// taken; an update or patch of nothing is NotFound, one carrying a stale resourceVersion (or
// another uid) a Conflict; a delete of an object with finalizers only marks it, and it goes when
// its last finalizer does. Kinds are the key without their group: no two kinds the program
// reads share a name, and the server serves core and events.k8s.io Events from one store.
import type { ObjectMeta } from '../../src/core/model';
import { ConflictError, NotFoundError } from '../../src/kube/errors';

export interface StoredObject {
  apiVersion?: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** What a write must find: this uid, this resourceVersion. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** Far from the resourceVersions tests give their objects, so a write's is always new. */
const FIRST_VERSION = 1000;

export class ObjectTracker {
  private readonly objects = new Map<string, StoredObject>();
  private version = FIRST_VERSION;

  /** Stores objects as they are (the cluster's state before the test), with a uid and resourceVersion where they lack one. */
  seed(objects: StoredObject[]): void {
    for (const object of objects) {
      const stored = structuredClone(object);
      stored.metadata.uid ??= `uid-${stored.kind.toLowerCase()}-${stored.metadata.name}`;
      stored.metadata.resourceVersion ??= this.nextVersion();
      this.objects.set(keyOf(stored.kind, stored.metadata.namespace, stored.metadata.name), stored);
    }
  }

  /** The current resourceVersion, as a LIST answers it. */
  get resourceVersion(): string {
    return String(this.version);
  }

  get<T = StoredObject>(kind: string, namespace: string | undefined, name: string): T | null {
    const found = this.objects.get(keyOf(kind, namespace, name));
    return found ? (structuredClone(found) as T) : null;
  }

  /** The objects of a kind, in a namespace (or every one: null), that a label selector selects. */
  list<T = StoredObject>(kind: string, namespace: string | null, labelSelector?: string): T[] {
    return [...this.objects.values()]
      .filter((o) => o.kind === kind && (namespace === null || (o.metadata.namespace ?? '') === namespace))
      .filter((o) => selects(labelSelector, o.metadata.labels ?? {}))
      .map((o) => structuredClone(o) as T);
  }

  /** Every stored object, of every kind. */
  all(): StoredObject[] {
    return [...this.objects.values()].map((o) => structuredClone(o));
  }

  /** POST: refused where the name is taken. dryRun: answered, not stored. */
  create<T extends StoredObject>(object: T, what: string, options: { dryRun?: boolean } = {}): T {
    const { metadata } = object;
    const key = keyOf(object.kind, metadata.namespace, metadata.name);
    if (this.objects.has(key)) throw new ConflictError(`${what} already exists`, true);
    const stored = structuredClone(object);
    stored.metadata.uid = `uid-${this.version + 1}`;
    stored.metadata.resourceVersion = this.nextVersion();
    delete stored.metadata.deletionTimestamp;
    if (!options.dryRun) this.objects.set(key, stored);
    return structuredClone(stored);
  }

  /**
   * PUT: the object replaces the stored one, which must be there, with the preconditions' uid
   * and resourceVersion. Taking off an object's last finalizer while it is being deleted deletes it.
   */
  update<T extends StoredObject>(
    object: T,
    what: string,
    preconditions: Preconditions = {},
    options: { dryRun?: boolean } = {},
  ): T {
    const { kind, metadata } = object;
    const key = keyOf(kind, metadata.namespace, metadata.name);
    const current = this.objects.get(key);
    if (!current) throw new NotFoundError(`${what} not found`);
    checkPreconditions(current, preconditions, what);
    const stored = structuredClone(object);
    stored.metadata = {
      ...stored.metadata,
      uid: current.metadata.uid,
      resourceVersion: this.nextVersion(),
      ...(current.metadata.deletionTimestamp ? { deletionTimestamp: current.metadata.deletionTimestamp } : {}),
    };
    if (options.dryRun) return structuredClone(stored);
    if (stored.metadata.deletionTimestamp && (stored.metadata.finalizers ?? []).length === 0) this.objects.delete(key);
    else this.objects.set(key, stored);
    return structuredClone(stored);
  }

  /**
   * DELETE: gone at once, or, while finalizers hold it, marked with a deletionTimestamp. False
   * when there was nothing to delete (the server's 404, which the client turns into false).
   */
  delete(
    kind: string,
    namespace: string | undefined,
    name: string,
    what: string,
    preconditions: Preconditions = {},
    options: { dryRun?: boolean } = {},
  ): boolean {
    const key = keyOf(kind, namespace, name);
    const current = this.objects.get(key);
    if (!current) return false;
    checkPreconditions(current, preconditions, what);
    if (options.dryRun) return true;
    if ((current.metadata.finalizers ?? []).length === 0) this.objects.delete(key);
    else if (!current.metadata.deletionTimestamp) {
      current.metadata.deletionTimestamp = new Date(0).toISOString();
      current.metadata.resourceVersion = this.nextVersion();
    }
    return true;
  }

  /** Changes a stored object in place, as someone else would (no precondition, a new resourceVersion). */
  change(kind: string, namespace: string | undefined, name: string, change: (object: StoredObject) => void): void {
    const found = this.objects.get(keyOf(kind, namespace, name));
    if (!found) throw new Error(`no ${kind} ${namespace ?? ''}/${name} to change`);
    change(found);
  }

  /** Removes a stored object at once, finalizers or not (its owner's doing, or a CRD's deletion). */
  remove(kind: string, namespace: string | undefined, name: string): boolean {
    return this.objects.delete(keyOf(kind, namespace, name));
  }

  private nextVersion(): string {
    return String(++this.version);
  }
}

function keyOf(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

function checkPreconditions(current: StoredObject, preconditions: Preconditions, what: string): void {
  const { uid, resourceVersion } = preconditions;
  if (uid !== undefined && current.metadata.uid !== uid) {
    throw new ConflictError(
      `Operation cannot be fulfilled on ${what}: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`,
    );
  }
  if (resourceVersion !== undefined && current.metadata.resourceVersion !== resourceVersion) {
    throw new ConflictError(
      `Operation cannot be fulfilled on ${what}: the object has been modified; please apply your changes to the latest version and try again`,
    );
  }
}

/** A label selector's terms, comma-separated: `k=v`, `k==v`, `k!=v`, `k` and `!k`. */
function selects(selector: string | undefined, labels: Record<string, string>): boolean {
  return (selector ?? '')
    .split(',')
    .map((term) => term.trim())
    .filter(Boolean)
    .every((term) => {
      const unequal = term.split('!=');
      if (unequal.length === 2) return labels[unequal[0]] !== unequal[1];
      const equal = term.split(/==?/);
      if (equal.length === 2) return labels[equal[0]] === equal[1];
      return term.startsWith('!') ? !(term.slice(1) in labels) : term in labels;
    });
}

// Reads the Secrets and ConfigMaps a WebService's pods read, and hands the core a digest of
// the keys they read (core/config.ts), never a value. The digest is an HMAC keyed with a
// random secret of the namespace (the Secret webservice-config-key, made by whichever of
// `apply` and `run` needs it first), so someone who can read Deployments but not Secrets
// cannot confirm a guess of a value from it: a plain hash of a short password would let them.
// `run` keeps each object's per-key digests by resourceVersion, so a pass whose config did not
// change reads nothing.
import { createHmac, randomBytes } from 'node:crypto';
import { ConfigReference, configReferences, configTarget } from '../core/config';
import type { ResourceType } from '../core/kinds';
import { ConfigKind, ConfigState, MANAGED_BY_LABEL, MANAGED_BY_VALUE, ObjectMeta, WebService } from '../core/model';
import type { KubeApi } from '../kube/api';
import { ConflictError, KubeError, orNull } from '../kube/errors';

export const CONFIG_TYPES: Record<ConfigKind, ResourceType> = {
  Secret: { kind: 'Secret', apiVersion: 'v1', group: '', resource: 'secrets' },
  ConfigMap: { kind: 'ConfigMap', apiVersion: 'v1', group: '', resource: 'configmaps' },
};

/** The Secret, one per namespace, whose random key the config digests are made with. */
export const CONFIG_KEY_SECRET = 'webservice-config-key';
const KEY_FIELD = 'key';
const KEY_BYTES = 32;
/** Hex digits of a digest: 64 bits, far from a collision among one object's versions. */
const DIGEST_LENGTH = 16;

interface ConfigObject {
  metadata: ObjectMeta;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/** One object as last read: its version and a keyed digest of each of its values (never the values). */
interface ReadObject {
  resourceVersion?: string;
  /** When it was read (options.now). */
  readAt: number;
  /** null: it does not exist. */
  values: Map<string, string> | null;
}

export interface ConfigReaderOptions {
  /** Make the namespace's key where there is none (a writer); else a reader keeps a random one to itself. */
  makeKey?: boolean;
  /**
   * Whether a kept reading is still current: `run`'s metadata watch of Secrets and ConfigMaps
   * is synced, and tells the reader of every change (`changed`). Unset: every pass reads.
   */
  watched?: () => boolean;
  /**
   * A kept reading is read again once this old, watched or not: a change whose event was lost
   * (a proxy that dropped it) reaches the pods within this bound. Unset: kept until an event.
   */
  maxAgeMs?: number;
  /** Milliseconds, for the age of a reading (a test's clock). */
  now?: () => number;
}

export class ConfigReader {
  private readonly keys = new Map<string, Promise<Buffer>>();
  /** The resourceVersion of each namespace's key as read or made: its own watch event changes nothing. */
  private readonly keyVersions = new Map<string, string>();
  private readonly objects = new Map<string, ReadObject>();

  constructor(
    private readonly client: KubeApi,
    private readonly options: ConfigReaderOptions = {},
  ) {}

  /**
   * The state of every Secret and ConfigMap the WebService's pods read; undefined without a
   * workload. A read that fails (a user who may not read a Secret) fails with its name.
   */
  async statesFor(parent: WebService, client: KubeApi = this.client): Promise<ConfigState[] | undefined> {
    const { workload } = parent.spec;
    if (!workload) return undefined;
    const references = configReferences(workload);
    if (references.length === 0) return [];
    const namespace = parent.metadata.namespace ?? '';
    const who = `webservice/${parent.metadata.name}`;
    // The key is read beside the objects, and waited for after all of them: a user who may
    // read neither is told of the object the pods read.
    const key = this.keyFor(client, namespace, who);
    const fetched = await Promise.all(references.map((reference) => this.fetch(client, namespace, reference, who)));
    const secret = await key;
    return references.map((reference, i) => {
      const read = this.reading(namespace, reference, fetched[i], secret);
      return {
        kind: reference.kind,
        name: reference.name,
        digest: read.values && digestOf(secret, reference, read.values),
      };
    });
  }

  /**
   * What a config snapshot holds (core/revision.ts): the keys of the source that the pods read,
   * read now, provided that their keyed digest is still the one decided on. Anything else means
   * the source changed since the decision was made, which is then stale: a 409, so the caller
   * reads again and decides again, as it does after any conflict.
   */
  async snapshotContent(
    client: KubeApi,
    namespace: string,
    kind: ConfigKind,
    from: { name: string; keys: string[] | null; digest: string },
  ): Promise<{ data?: Record<string, string>; binaryData?: Record<string, string> }> {
    const reference: ConfigReference = {
      kind,
      name: from.name,
      keys: from.keys,
      optional: false,
      rolls: true,
      readBy: [],
    };
    const target = configTarget(reference);
    const who = `a snapshot of ${target}`;
    const [source, key] = await Promise.all([
      named(orNull(client.get<ConfigObject>(CONFIG_TYPES[kind], namespace, from.name)), `${who} reads ${target}`),
      this.keyFor(client, namespace, who),
    ]);
    if (!source || digestOf(key, reference, valueDigests(key, source)) !== from.digest) {
      throw new ConflictError(`${target} changed since it was read; reading it again`);
    }
    const keep = (map: Record<string, string> | undefined) => {
      const entries = Object.entries(map ?? {}).filter(([name]) => from.keys === null || from.keys.includes(name));
      return entries.length > 0 ? Object.fromEntries(entries) : undefined;
    };
    const data = keep(source.data);
    const binaryData = keep(source.binaryData);
    return { ...(data ? { data } : {}), ...(binaryData ? { binaryData } : {}) };
  }

  /**
   * A watched object changed (or went) at this version: forgets what was kept of it, and says
   * whether its WebServices must look again (false only when the kept reading is of this version).
   */
  changed(kind: ConfigKind, namespace: string, name: string, resourceVersion: string | undefined): boolean {
    if (kind === 'Secret' && name === CONFIG_KEY_SECRET) {
      if (resourceVersion !== undefined && this.keyVersions.get(namespace) === resourceVersion) return false;
      const had = this.keys.has(namespace);
      this.keys.delete(namespace);
      this.keyVersions.delete(namespace);
      for (const id of this.objects.keys()) if (id.split('/')[1] === namespace) this.objects.delete(id);
      return had;
    }
    const id = objectId(kind, namespace, name);
    const kept = this.objects.get(id);
    // Nothing kept: a reading may be on its way with an older version, so its readers look again.
    if (kept && resourceVersion !== undefined && kept.resourceVersion === resourceVersion) return false;
    this.objects.delete(id);
    return true;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private tooOld(read: ReadObject): boolean {
    const { maxAgeMs } = this.options;
    return maxAgeMs !== undefined && this.now() - read.readAt >= maxAgeMs;
  }

  /** A kept reading (while watched), or the object as the server has it now (null: there is none). */
  private async fetch(
    client: KubeApi,
    namespace: string,
    reference: ConfigReference,
    who: string,
  ): Promise<ReadObject | ConfigObject | null> {
    const kept = this.objects.get(objectId(reference.kind, namespace, reference.name));
    if (kept && this.options.watched?.() && !this.tooOld(kept)) return kept;
    return named(
      orNull(client.get<ConfigObject>(CONFIG_TYPES[reference.kind], namespace, reference.name)),
      `${who} reads ${configTarget(reference)}`,
    );
  }

  /** What was fetched, as digests of its values, kept while watched. */
  private reading(
    namespace: string,
    reference: ConfigReference,
    fetched: ReadObject | ConfigObject | null,
    key: Buffer,
  ): ReadObject {
    if (fetched && 'values' in fetched) return fetched;
    const readAt = this.now();
    const read: ReadObject = fetched
      ? { resourceVersion: fetched.metadata.resourceVersion, readAt, values: valueDigests(key, fetched) }
      : { readAt, values: null };
    if (this.options.watched) this.objects.set(objectId(reference.kind, namespace, reference.name), read);
    return read;
  }

  /** The namespace's digest key: read, or made when there is none yet (a client dry run makes one it keeps to itself). */
  private keyFor(client: KubeApi, namespace: string, who: string): Promise<Buffer> {
    let key = this.keys.get(namespace);
    if (!key) {
      const make = this.options.makeKey === true && client.dryRun !== 'client';
      key = named(
        readOrMakeKey(client, namespace, make),
        `${who} reads config, whose digests need secret/${CONFIG_KEY_SECRET}`,
      ).then(({ secret, resourceVersion }) => {
        if (resourceVersion !== undefined) this.keyVersions.set(namespace, resourceVersion);
        return secret;
      });
      this.keys.set(namespace, key);
      key.catch(() => this.keys.delete(namespace));
    }
    return key;
  }
}

interface Key {
  secret: Buffer;
  /** Unset for a key made for a reader alone, which no watch reports. */
  resourceVersion?: string;
}

async function readOrMakeKey(client: KubeApi, namespace: string, make: boolean): Promise<Key> {
  const type = CONFIG_TYPES.Secret;
  const asKey = (object: ConfigObject | null): Key | null =>
    object?.data?.[KEY_FIELD]
      ? { secret: Buffer.from(object.data[KEY_FIELD], 'base64'), resourceVersion: object.metadata.resourceVersion }
      : null;
  const found = asKey(await orNull(client.get<ConfigObject>(type, namespace, CONFIG_KEY_SECRET)));
  if (found) return found;
  const fresh = randomBytes(KEY_BYTES);
  if (!make) return { secret: fresh };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: CONFIG_KEY_SECRET, namespace, labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } },
    type: 'Opaque',
    immutable: true,
    data: { [KEY_FIELD]: fresh.toString('base64') },
  };
  try {
    const made = await client.create(type, namespace, secret);
    return { secret: fresh, resourceVersion: (made as ConfigObject).metadata.resourceVersion };
  } catch (err) {
    // `apply` and `run` (or two replicas) made it at once: the one that landed is the key.
    if (!(err instanceof ConflictError && err.alreadyExists)) throw err;
    const landed = asKey(await orNull(client.get<ConfigObject>(type, namespace, CONFIG_KEY_SECRET)));
    if (!landed) throw err;
    return landed;
  }
}

/** Each value's keyed digest, by key: data and binaryData (a ConfigMap's keys are in one or the other). */
function valueDigests(key: Buffer, object: ConfigObject): Map<string, string> {
  const values = new Map<string, string>();
  for (const [field, map] of [
    ['data', object.data],
    ['binaryData', object.binaryData],
  ] as const) {
    for (const [name, value] of Object.entries(map ?? {})) values.set(name, `${field}:${hmac(key, value)}`);
  }
  return values;
}

/** The reference's digest: over the keys the pods read (every key when they read all), in order. */
function digestOf(key: Buffer, reference: ConfigReference, values: Map<string, string>): string {
  const keys = reference.keys ?? [...values.keys()].sort();
  const read = keys.map((name) => [name, values.get(name) ?? null]);
  return hmac(key, JSON.stringify([reference.kind, reference.name, read])).slice(0, DIGEST_LENGTH);
}

function hmac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

function objectId(kind: ConfigKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** The request's error, with what it was for in front: one line that names the object. */
async function named<T>(request: Promise<T>, what: string): Promise<T> {
  try {
    return await request;
  } catch (err) {
    if (err instanceof KubeError) err.message = `${what}: ${err.message}`;
    throw err;
  }
}

// What -f reads: YAML or JSON, one document or several, a single object or a list (kubectl's
// `kind: List`, a `WebServiceList`, or this plugin's own `{items: [...]}`), from a file or
// from stdin ("-"). What each document is (raw objects, an observation, a decision) is for
// the command to say; the objects as `kubectl get` prints them are grouped here.
import { readFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import { UserError } from '../kube/errors';
import type { Json } from '../core/model';

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every document in the file, lists flattened. */
export function readDocuments(file: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let documents: unknown[];
  try {
    // JSON first: its error messages say where; YAML (a superset) for the rest.
    documents = [JSON.parse(text)];
  } catch {
    try {
      documents = yaml.loadAll(text).filter((doc) => doc !== null && doc !== undefined);
    } catch (err) {
      throw new UserError(`${file} is neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const flat = documents.flatMap(flatten);
  if (flat.length === 0) throw new UserError(`${file} holds no object`);
  return flat;
}

function flatten(doc: unknown): unknown[] {
  if (
    isObject(doc) &&
    Array.isArray(doc.items) &&
    (doc.kind === undefined || (typeof doc.kind === 'string' && doc.kind.endsWith('List')))
  ) {
    return doc.items.flatMap(flatten);
  }
  return [doc];
}

/** An object as `kubectl get -o json|yaml` prints it: apiVersion and kind (metadata is checked later). */
export function isKubeObject(value: unknown): value is Json & { kind: string } {
  return isObject(value) && typeof value.kind === 'string' && typeof value.apiVersion === 'string';
}

/**
 * Raw objects grouped the way gather groups what it reads: each WebService becomes a
 * {parent, children, related} with the other objects of its namespace as its possible
 * children (observe picks its own by name and owner) and the other WebServices as related.
 */
export function groupObjects(objects: (Json & { kind: string })[], childKinds: readonly string[]): Json[] {
  const namespaceOf = (o: Json) => (isObject(o.metadata) ? (o.metadata.namespace as string | undefined) : undefined);
  const parents = objects.filter((o) => o.kind === 'WebService');
  const others = objects.filter((o) => o.kind !== 'WebService');
  const stranger = others.find((o) => !childKinds.includes(o.kind));
  if (stranger) {
    throw new UserError(`-f takes WebServices and their children (${childKinds.join(', ')}), not a ${stranger.kind}`);
  }
  if (parents.length === 0) throw new UserError('-f holds no WebService');
  return parents.map((parent) => ({
    parent,
    children: others.filter((o) => namespaceOf(o) === namespaceOf(parent)),
    related: parents.filter((p) => p !== parent && namespaceOf(p) === namespaceOf(parent)),
  }));
}

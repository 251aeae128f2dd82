// The reads describe adds to plan's: what the cluster made of the children (the descendant
// table: ReplicaSets, pods, EndpointSlices) and the Events. One LIST per kind whatever the
// number of WebServices; none for a kind no child leads to. Reads only.
import { resourceName } from '../core/kinds';
import { podSelectorString } from '../core/labels';
import { SyncInput, kindOf } from '../core/model';
import { observe } from '../core/observe';
import { EVENT, RawEvent } from '../core/recent-events';
import { LiveObject, RelatedObjects, descendantsOf } from '../core/tree';
import type { KubeApi } from '../kube/api';
import { ForbiddenError } from '../kube/errors';

export interface DescribeReads {
  related: RelatedObjects;
  /** By namespace. */
  events: Map<string, RawEvent[]>;
  /** Reads refused for want of permission: describe says what it could not show. */
  unread: string[];
}

/**
 * For one WebService, its own objects only (by its pods' selector, its Service's name); for
 * several, every one of our objects in the scope (namespace, or null for all).
 */
export async function gatherDescribeReads(
  client: KubeApi,
  inputs: SyncInput[],
  scope: string | null,
): Promise<DescribeReads> {
  const reads: DescribeReads = { related: {}, events: new Map(), unread: [] };
  if (inputs.length === 0) return reads;
  const one = inputs.length === 1 ? inputs[0].parent.metadata : undefined;
  const namespace = one ? (one.namespace ?? scope) : scope;
  const childKinds = [...new Set(inputs.flatMap((input) => input.children.map(kindOf)))];
  // One WebService's pods, by the selector its status gives.
  const pods = one ? podSelectorString(one.name, observe(inputs[0]).desired) : '';
  const refused = (what: string) => (err: unknown) => {
    if (!(err instanceof ForbiddenError)) throw err;
    reads.unread.push(`${what}: ${err.message}`);
    return null;
  };
  await Promise.all([
    ...descendantsOf(childKinds).map(async (row) => {
      const labelSelector = one ? row.selector(one.name, pods) : row.scopeSelector;
      const list = await client
        .list<LiveObject>(row.type, namespace, labelSelector ? { labelSelector } : {})
        .catch(refused(resourceName(row.type)));
      if (list) reads.related[row.type.kind] = list.items;
    }),
    (async () => {
      const list = await client.list<RawEvent>(EVENT, namespace).catch(refused(resourceName(EVENT)));
      for (const event of list?.items ?? []) {
        const ns = event.metadata.namespace ?? namespace ?? '';
        const inNamespace = reads.events.get(ns) ?? [];
        inNamespace.push(event);
        reads.events.set(ns, inNamespace);
      }
    })(),
  ]);
  return reads;
}

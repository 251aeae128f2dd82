// Reads what the core needs from the API server, with a constant number of requests.
import { SyncInput, WebService, ConfigMap } from '../core/model';
import type { KubeClient } from '../kube/client';

/** One CR: GET it, LIST the ConfigMaps of its namespace, LIST WebServices only if it has dependencies. */
export async function gatherOne(client: KubeClient, namespace: string, name: string): Promise<SyncInput> {
  const parent = await client.getWebService(namespace, name);
  const [children, related] = await Promise.all([
    client.listConfigMaps(namespace),
    parent.spec?.dependsOn?.length ? client.listWebServices(namespace) : Promise.resolve([]),
  ]);
  return { parent, children, related };
}

/** Every CR in a namespace (or in all, for null): two LISTs, however many CRs there are. */
export async function gatherAll(client: KubeClient, namespace: string | null): Promise<SyncInput[]> {
  const [parents, children] = await Promise.all([client.listWebServices(namespace), client.listConfigMaps(namespace)]);
  const childrenByNamespace = groupByNamespace(children);
  const parentsByNamespace = groupByNamespace(parents);
  return parents.map((parent) => {
    const ns = parent.metadata.namespace ?? '';
    return { parent, children: childrenByNamespace.get(ns) ?? [], related: parentsByNamespace.get(ns) ?? [] };
  });
}

function groupByNamespace<T extends WebService | ConfigMap>(objects: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const obj of objects) {
    const ns = obj.metadata.namespace ?? '';
    const group = groups.get(ns);
    if (group) group.push(obj);
    else groups.set(ns, [obj]);
  }
  return groups;
}

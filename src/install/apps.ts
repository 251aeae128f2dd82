// What uninstall does to the apps the WebServices run: names them (the refusal, the report)
// and, with --cascade=orphan, lets them go. Every kind of child comes from the kind table.
import { KindRow, WATCHED_KINDS, childTarget, kindRow } from '../core/kinds';
import { Child, OWNED_SELECTOR, WebService, kindOf } from '../core/model';
import { isOurs, ownerReferencesWithout } from '../core/ownership';
import { mapBounded } from '../engine/reconcile';
import { retryOnConflict } from '../kube/retry';
import { absentKinds } from '../kube/discovery';
import { ignoreNotFound, orNull } from '../kube/errors';
import type { KubeApi } from '../kube/api';

/** A WebService and the children it controls. */
export interface App {
  webService: WebService;
  children: Child[];
}

/** An app as uninstall reports it: the WebService, and its children as kubectl names them. */
export interface AppSummary {
  namespace: string;
  name: string;
  children: string[];
}

export function summarize(app: App): AppSummary {
  const { namespace = '', name } = app.webService.metadata;
  return { namespace, name, children: app.children.map(childRef) };
}

/** How many apps a message names before it says how many more there are. */
const NAMED_APPS = 10;

/**
 * Each WebService with its children: one LIST per kind of child that the cluster serves, in
 * every namespace, by our label; a child belongs to the WebService that is its controller.
 */
export async function appsOf(client: KubeApi, webServices: WebService[]): Promise<App[]> {
  const absent = await absentKinds(client);
  const served = WATCHED_KINDS.filter((row) => !absent.includes(row.kind));
  const lists = await Promise.all(
    served.map((row) => client.list<Child>(row, null, { labelSelector: OWNED_SELECTOR })),
  );
  return groupChildren(
    webServices,
    lists.flatMap((list) => list.items),
  );
}

/** The children of each WebService: ours (our label, it their controller), in its namespace, in table order. */
export function groupChildren(webServices: WebService[], children: Child[]): App[] {
  const order = (child: Child) => WATCHED_KINDS.findIndex((row) => row.kind === kindOf(child));
  return webServices.map((webService) => ({
    webService,
    children: children
      .filter(
        (child) =>
          child.metadata.namespace === webService.metadata.namespace && isOurs(child, webService.metadata.uid ?? ''),
      )
      .sort((a, b) => order(a) - order(b) || a.metadata.name.localeCompare(b.metadata.name)),
  }));
}

/** shop/web (configmap/web-desired, deployment/web, service/web); a WebService without children: shop/web. */
function describeApp(app: App): string {
  const { namespace, name, children } = summarize(app);
  return `${namespace}/${name}${children.length > 0 ? ` (${children.join(', ')})` : ''}`;
}

/** The first apps, described, and how many more there are. */
export function describeApps(apps: App[]): string {
  const named = apps.slice(0, NAMED_APPS).map(describeApp).join(', ');
  return apps.length > NAMED_APPS ? `${named} and ${apps.length - NAMED_APPS} more` : named;
}

/** How a message names a child: deployment/web. */
function childRef(child: Child): string {
  return childTarget(rowOf(child), child.metadata.name);
}

function rowOf(child: Child): KindRow {
  const row = kindRow(kindOf(child));
  if (!row) throw new Error(`${kindOf(child)} is not a kind of child`);
  return row;
}

/**
 * Takes the WebService's ownerReference off each of its children, and nothing else: a JSON
 * merge patch of the list without it, conditional on the resourceVersion read; on 409, read
 * again. A child that is gone, replaced (another uid) or no longer references the WebService
 * is left alone. Returns the children it changed.
 */
export async function releaseChildren(client: KubeApi, app: App): Promise<Child[]> {
  const parentUid = app.webService.metadata.uid ?? '';
  const released = await mapBounded(app.children, 4, (child) => releaseChild(client, child, parentUid));
  return app.children.filter((_, i) => released[i]);
}

async function releaseChild(client: KubeApi, child: Child, parentUid: string): Promise<boolean> {
  const row = rowOf(child);
  const namespace = child.metadata.namespace ?? '';
  const { name, uid } = child.metadata;
  return retryOnConflict(async (attempt) => {
    const current = attempt === 1 ? child : await orNull(client.get<Child>(row, namespace, name));
    if (!current || current.metadata.uid !== uid) return false;
    const refs = current.metadata.ownerReferences ?? [];
    const kept = ownerReferencesWithout(current, parentUid);
    if (kept.length === refs.length) return false;
    const patched = client.patch<Child>(row, namespace, name, {
      metadata: { resourceVersion: current.metadata.resourceVersion, ownerReferences: kept.length > 0 ? kept : null },
    });
    // Gone (404) meanwhile: nothing left to release.
    return ignoreNotFound(
      patched.then(() => true),
      false,
    );
  });
}

// install and uninstall through the one API module. install compares before it writes:
// an object whose every bundled field already has the same value live is left alone, so
// a second install makes no write at all (a server-side apply that changes nothing is
// still a PATCH in the audit log, and still costs the API server a write path).
import { FINALIZER, WebService } from '../core/model';
import { mapBounded } from '../engine/reconcile';
import { retryOnConflict, sleep } from '../kube/retry';
import { KubeError, UserError, ignoreNotFound, orNull } from '../kube/errors';
import type { CustomResourceDefinition, DryRun, InstallApi } from '../kube/api';
import type { KubeObject } from '../kube/object-location';
import { App, AppSummary, appsOf, describeApps, releaseChildren, summarize } from './apps';
import { containedIn, crdVersionState } from './compare';
import { VERSION_LABEL, displayName, installedVersion, isCrd } from './manifests';
import { CUSTOM_RESOURCE_DEFINITION, WEBSERVICE_TYPE } from '../core/resource-types';
import { getInstalled, applyInstalled, deleteInstalled } from '../kube/installed-objects';
import { withFieldOwner } from '../kube/field-owner';

type InstallAction = 'created' | 'configured' | 'unchanged';

export interface InstallResult {
  object: KubeObject;
  action: InstallAction;
  /** Why a server dry run could not check this object. */
  note?: string;
}

export interface InstallOptions {
  /** client: read and compare, send nothing; server: every write a server-side dry run. */
  dryRun: DryRun;
  /** How long to wait for a new or changed CRD to be Established. */
  establishTimeoutMs: number;
  version: string;
}

const POLL_MS = 250;
/** The field manager of everything `install` applies (server-side apply). */
const INSTALL_FIELD_OWNER = 'kubectl-webservice';

export async function install(
  client: InstallApi,
  objects: KubeObject[],
  options: InstallOptions,
): Promise<InstallResult[]> {
  const live = await readLive(client, objects);
  // Refuse before anything changes: a newer CRD belongs to a newer plugin.
  objects.forEach((object, i) => {
    const current = live[i];
    if (isCrd(object) && current) refuseNewer(current, options.version);
  });
  const owned = withFieldOwner(client, INSTALL_FIELD_OWNER);
  const namespacesToCreate = new Set(
    objects.filter((o, i) => o.kind === 'Namespace' && !live[i]).map((o) => o.metadata.name),
  );
  const results: InstallResult[] = [];
  for (const [i, object] of objects.entries()) {
    const current = live[i];
    if (current && containedIn(object, current)) {
      results.push({ object, action: 'unchanged' });
      continue;
    }
    const namespace = object.metadata.namespace;
    if (options.dryRun === 'server' && namespace && namespacesToCreate.has(namespace)) {
      // A dry run creates no namespace, so the server cannot admit what would go in it.
      results.push({ object, action: 'created', note: `namespace ${namespace} does not exist yet` });
      continue;
    }
    if (options.dryRun !== 'client')
      await applyInstalled(owned, object, { force: true, dryRun: options.dryRun === 'server' });
    results.push({ object, action: current ? 'configured' : 'created' });
  }
  const crdChanged = results.find((r) => isCrd(r.object) && r.action !== 'unchanged');
  if (crdChanged && options.dryRun === 'none')
    await waitEstablished(client, crdChanged.object.metadata.name, options.establishTimeoutMs);
  return results;
}

function refuseNewer(live: KubeObject, version: string): void {
  const liveVersion = installedVersion(live);
  if (crdVersionState(liveVersion, version) === 'newer') {
    throw new UserError(
      `${displayName(live)} is at version ${liveVersion} (label ${VERSION_LABEL}), newer than this plugin's ${version}: ` +
        'upgrade the plugin (kubectl krew upgrade webservice) rather than downgrade the CRD; nothing was changed',
    );
  }
}

/**
 * Waits for the CRD to be Established and its WebServices to be listed: for a moment after
 * Established the API server still answers "storage is (re)initializing". Then
 * `install && kubectl webservice apply --all` just works.
 */
async function waitEstablished(client: InstallApi, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let crd: CustomResourceDefinition | null = null;
  let established = false;
  let lastError: Error | undefined;
  while (Date.now() < deadline) {
    if (!established) {
      crd = await orNull(client.get<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITION, null, name));
      established = Boolean(crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'));
    }
    if (established) {
      try {
        await client.list<WebService>(WEBSERVICE_TYPE, null, { limit: 1 });
        return;
      } catch (err) {
        if (err instanceof KubeError && (err.kind === 'Forbidden' || err.kind === 'Unauthorized')) return; // not ours to see
        if (!(err instanceof KubeError) || (err.kind !== 'Server' && err.kind !== 'NotFound')) throw err;
        lastError = err;
      }
    }
    await sleep(POLL_MS);
  }
  if (established) {
    throw new UserError(
      `customresourcedefinition ${name} is Established, but its WebServices cannot be listed after ${timeoutMs / 1000}s: ${lastError?.message}`,
    );
  }
  const names = crd?.status?.conditions?.find((c) => c.type === 'NamesAccepted' && c.status !== 'True');
  throw new UserError(
    `customresourcedefinition ${name} was applied but is not Established after ${timeoutMs / 1000}s` +
      (names?.message ? `: ${names.message}` : ''),
  );
}

// --- uninstall ------------------------------------------------------------------

type UninstallAction = 'deleted' | 'not found';

interface UninstallResult {
  object: KubeObject;
  action: UninstallAction;
}

/**
 * What becomes of what the WebServices run. background: it goes with them (only with
 * --force); orphan: the WebServices go, and their children stay, running, without our
 * ownerReference, as `kubectl delete --cascade=orphan` leaves them.
 */
export type Cascade = 'background' | 'orphan';

export interface UninstallOptions {
  /** With cascade background: uninstall although WebServices exist, deleting them and all they run. */
  force: boolean;
  cascade: Cascade;
  /** client: read and report, write nothing; server: every write a server-side dry run. */
  dryRun: DryRun;
  /** Wait until every deleted object is gone; 0 returns at once. */
  timeoutMs: number;
}

export interface UninstallReport {
  results: UninstallResult[];
  cascade: Cascade;
  /** The WebServices that went (or, in a dry run, would go), each with its children: deleted with it, or orphaned. */
  apps: AppSummary[];
  /** WebServices that went (or, in a dry run, would go) with the CRD, children and all. */
  webServicesLost: number;
  /** Our finalizer removed from this many, so neither the CRD's deletion nor theirs waits on it. */
  finalizersRemoved: number;
}

/**
 * Deletes every bundled object that exists, the controller first (so it stops writing) and
 * the CRD last. While WebServices exist it refuses, naming them and their children, unless
 * told what becomes of them. Forced: our finalizer is taken off each (with a resourceVersion
 * precondition), and the CRD's deletion takes them and the garbage collector their children.
 * Orphaned: each child loses the WebService's ownerReference, then each WebService loses our
 * finalizer and is deleted with propagationPolicy Orphan; once they are gone, the CRD goes.
 */
export async function uninstall(
  client: InstallApi,
  objects: KubeObject[],
  options: UninstallOptions,
): Promise<UninstallReport> {
  const live = await readLive(client, objects);
  const crdIndex = objects.findIndex(isCrd);
  const webServices = crdIndex >= 0 && live[crdIndex] ? await webServicesLeft(client) : [];
  let apps = webServices.length > 0 ? await appsOf(client, webServices) : [];
  if (apps.length > 0 && options.cascade === 'background' && !options.force) {
    throw new UserError(uninstallRefusal(apps));
  }
  const deadline = Date.now() + options.timeoutMs;
  const order = objects.map((object, i) => ({ object, current: live[i] })).reverse();
  const results: UninstallResult[] = [];
  let finalizersRemoved = 0;
  for (const { object, current } of order) {
    if (!current) {
      results.push({ object, action: 'not found' });
      continue;
    }
    if (isCrd(object) && apps.length > 0) {
      if (options.cascade === 'orphan') {
        const orphaned = await orphanApps(client, apps, options);
        apps = orphaned.apps;
        finalizersRemoved += orphaned.finalizersRemoved;
        if (options.dryRun === 'none' && options.timeoutMs > 0)
          await waitWebServicesGone(client, apps, deadline, options);
      } else if (options.dryRun === 'none') {
        finalizersRemoved += await removeOurFinalizers(client, webServices);
      }
    }
    const deleted =
      options.dryRun === 'client' ||
      (await deleteInstalled(client, object, { uid: current.metadata.uid, dryRun: options.dryRun === 'server' }));
    results.push({ object, action: deleted ? 'deleted' : 'not found' });
  }
  if (options.timeoutMs > 0 && options.dryRun === 'none') {
    finalizersRemoved += await waitGone(
      client,
      results.filter((r) => r.action === 'deleted').map((r) => r.object),
      options,
    );
  }
  const webServicesLost = options.cascade === 'orphan' ? 0 : webServices.length;
  return { results, cascade: options.cascade, apps: apps.map(summarize), webServicesLost, finalizersRemoved };
}

/** Why uninstall will not go on while WebServices exist: what would be lost, and the two ways on. */
export function uninstallRefusal(apps: App[]): string {
  const namespaces = new Set(apps.map((app) => app.webService.metadata.namespace)).size;
  const children = apps.reduce((n, app) => n + app.children.length, 0);
  return (
    `${countOf(apps.length, 'WebService')} exist${apps.length === 1 ? 's' : ''} in ${countOf(namespaces, 'namespace')}, ` +
    `and deleting the CRD deletes ${apps.length === 1 ? 'it' : 'them all'} and ${countOf(children, 'child', 'children')} ` +
    `with ${apps.length === 1 ? 'it' : 'them'}: ${describeApps(apps)}. ` +
    'Delete them first, or pass --cascade=orphan to keep their children running without them, ' +
    'or --force to delete the children too; nothing was changed'
  );
}

/** How many orphan passes look again for WebServices made meanwhile (by someone still applying). */
const ORPHAN_ROUNDS = 3;

/**
 * Lets each app go: its children lose the WebService's ownerReference, the WebService loses
 * our finalizer (so no finalize deletes anything) and is deleted, Orphan. Then it looks again,
 * for a WebService made meanwhile, which the CRD's deletion would otherwise take with its
 * children. A client dry run writes nothing and reports the apps as they are.
 */
async function orphanApps(
  client: InstallApi,
  apps: App[],
  options: UninstallOptions,
): Promise<{ apps: App[]; finalizersRemoved: number }> {
  if (options.dryRun === 'client') return { apps, finalizersRemoved: 0 };
  const handled = new Set<string>();
  const orphaned: App[] = [];
  let finalizersRemoved = 0;
  let next = apps;
  for (let round = 0; round < ORPHAN_ROUNDS && next.length > 0; round++) {
    const removed = await mapBounded(next, 4, async (app) => {
      const { namespace = '', name, uid = '' } = app.webService.metadata;
      await releaseChildren(client, app);
      const finalizer = await removeFinalizer(client, app.webService);
      await client.delete(WEBSERVICE_TYPE, namespace, name, { uid, propagationPolicy: 'Orphan' });
      return finalizer;
    });
    finalizersRemoved += removed.filter(Boolean).length;
    for (const app of next) handled.add(app.webService.metadata.uid ?? '');
    orphaned.push(...next);
    // A server dry run deleted nothing: every WebService is still there, and already handled.
    const fresh = (await webServicesLeft(client)).filter(
      (ws) => !handled.has(ws.metadata.uid ?? '') && !ws.metadata.deletionTimestamp,
    );
    next = fresh.length > 0 ? await appsOf(client, fresh) : [];
  }
  return { apps: orphaned, finalizersRemoved };
}

/**
 * Waits until the orphaned WebServices are gone: the garbage collector takes its orphan
 * finalizer off each once no object references it. The CRD is deleted only then, so its
 * deletion never meets one of them and cascades.
 */
async function waitWebServicesGone(
  client: InstallApi,
  apps: App[],
  deadline: number,
  options: UninstallOptions,
): Promise<void> {
  const uids = new Set(apps.map((app) => app.webService.metadata.uid));
  for (;;) {
    const left = (await webServicesLeft(client)).filter((ws) => uids.has(ws.metadata.uid));
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      const finalizers = [...new Set(left.flatMap((ws) => ws.metadata.finalizers ?? []))];
      throw new UserError(
        `${countOf(left.length, 'WebService')} still being deleted after ${options.timeoutMs / 1000}s` +
          (finalizers.length > 0 ? `, held by finalizers ${finalizers.join(', ')}` : '') +
          '; their children are orphaned already, and the CRD is left until they are gone: run uninstall --cascade=orphan again',
      );
    }
    await sleep(POLL_MS * 2);
  }
}

/** One GET after another: a handful of objects, over one kept-alive connection. */
async function readLive(client: InstallApi, objects: KubeObject[]): Promise<(KubeObject | null)[]> {
  const live: (KubeObject | null)[] = [];
  for (const object of objects) live.push(await getInstalled(client, object));
  return live;
}

/**
 * Polls until every object is gone. While the CRD is still there its WebServices are being
 * deleted: any that (again) carries our finalizer, say from a controller that was still
 * stopping, has it removed, so the deletion never waits on a reconcile that will not come.
 */
async function waitGone(client: InstallApi, objects: KubeObject[], options: UninstallOptions): Promise<number> {
  const deadline = Date.now() + options.timeoutMs;
  let removed = 0;
  let remaining = objects;
  for (;;) {
    const still = await readLive(client, remaining);
    remaining = remaining.filter((_, i) => still[i] !== null);
    if (remaining.length === 0) return removed;
    if (Date.now() > deadline) {
      throw new UserError(
        `still being deleted after ${options.timeoutMs / 1000}s: ${remaining.map(displayName).join(', ')}` +
          (await lingeringFinalizers(client, remaining)),
      );
    }
    if (options.force && remaining.some(isCrd))
      removed += await removeOurFinalizers(client, await webServicesLeft(client));
    await sleep(POLL_MS * 2);
  }
}

/** What holds the remaining WebServices, for the timeout message: finalizers that are not ours. */
async function lingeringFinalizers(client: InstallApi, remaining: KubeObject[]): Promise<string> {
  if (!remaining.some(isCrd)) return '';
  const held = (await webServicesLeft(client)).filter((ws) => (ws.metadata.finalizers ?? []).length > 0);
  if (held.length === 0) return '';
  const finalizers = [...new Set(held.flatMap((ws) => ws.metadata.finalizers ?? []))];
  return `; ${countOf(held.length, 'WebService')} still carry finalizers ${finalizers.join(', ')}`;
}

/** The WebServices still there while the CRD is deleted; none once it no longer serves them (404). */
async function webServicesLeft(client: InstallApi): Promise<WebService[]> {
  return (await orNull(client.list<WebService>(WEBSERVICE_TYPE, null)))?.items ?? [];
}

/** Takes our finalizer off each WebService that has it; returns how many it changed. */
async function removeOurFinalizers(client: InstallApi, webServices: WebService[]): Promise<number> {
  const held = webServices.filter((ws) => ws.metadata.finalizers?.includes(FINALIZER));
  const changed = await mapBounded(held, 4, (ws) => removeFinalizer(client, ws));
  return changed.filter(Boolean).length;
}

/** A merge patch of the finalizer list, conditional on the resourceVersion read; on 409, read again. */
async function removeFinalizer(client: InstallApi, ws: WebService): Promise<boolean> {
  const namespace = ws.metadata.namespace ?? '';
  const { name } = ws.metadata;
  return retryOnConflict(async (attempt) => {
    // Gone (404) at any step: the finalizer went with it.
    const current = attempt === 1 ? ws : await orNull(client.get<WebService>(WEBSERVICE_TYPE, namespace, name));
    const finalizers = current?.metadata.finalizers ?? [];
    if (!current || !finalizers.includes(FINALIZER)) return false;
    const patched = client.patch<WebService>(WEBSERVICE_TYPE, namespace, name, {
      metadata: {
        resourceVersion: current.metadata.resourceVersion,
        finalizers: finalizers.filter((f) => f !== FINALIZER),
      },
    });
    return ignoreNotFound(
      patched.then(() => true),
      false,
    );
  });
}

function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

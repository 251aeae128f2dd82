// What each command needs from the authorizer, read from what it does: the requests of
// engine/gather.ts and engine/reconcile.ts over the kind table, as granted by
// crds/rbac/webservice-reconciler.yaml (whose children's rules are made from the same table).
import {
  APPLIED_KINDS,
  onePerKind,
  CONFIG_MAP,
  CONFIG_READ_KINDS,
  REVISION,
  ResourceType,
  SET_KINDS,
  rowVerbs,
} from '../core/kinds';
import { GROUP, PLURAL } from '../core/model';

export interface Access {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** Set when the command still works without it: what is lost then (a warning, not a failure). */
  optional?: string;
}

export const COMMANDS = ['observe', 'plan', 'status', 'apply', 'finalize', 'run'] as const;
export type CommandName = (typeof COMMANDS)[number];

const webServices = (verb: string, subresource?: string): Access => ({
  verb,
  group: GROUP,
  resource: PLURAL,
  subresource,
});
const children = (row: ResourceType, verb: string): Access => ({ verb, group: row.group, resource: row.resource });
const configMaps = (verb: string): Access => children(CONFIG_MAP, verb);
const workloads = (verb: string): Access[] => onePerKind(APPLIED_KINDS).map((row) => children(row, verb));
const EVENTS: Access = {
  verb: 'create',
  group: 'events.k8s.io',
  resource: 'events',
  optional: 'no Events are recorded',
};
/** blockOwnerDeletion on the child's ownerReference, where OwnerReferencesPermissionEnforcement is on. */
const FINALIZERS: Access = {
  ...webServices('update', 'finalizers'),
  optional: 'creating a child fails where the OwnerReferencesPermissionEnforcement admission plugin is on',
};

/** NAME reads with GET, --all with LIST; both read WebServices and ConfigMaps. */
const READ = [webServices('get'), webServices('list'), configMaps('get'), configMaps('list')];
const STATUS = webServices('patch', 'status');
/** apply creates, patches and (finalizing) deletes the child, and patches our finalizer on the parent. */
const RECONCILE = [
  configMaps('create'),
  configMaps('patch'),
  configMaps('delete'),
  webServices('patch'),
  STATUS,
  FINALIZERS,
  EVENTS,
];

export const COMMAND_ACCESS: Record<CommandName, Access[]> = {
  observe: READ,
  plan: READ,
  status: [...READ, STATUS],
  apply: [...READ, ...RECONCILE],
  finalize: [...READ, configMaps('delete'), webServices('patch'), EVENTS],
  // The controller always watches our Deployments, Services and revisions: without them its caches never sync.
  run: [
    ...READ,
    webServices('watch'),
    configMaps('watch'),
    ...workloads('list'),
    ...workloads('watch'),
    children(REVISION, 'list'),
    children(REVISION, 'watch'),
    ...RECONCILE,
  ],
};

/**
 * What a WebService with spec.workload needs besides: reading, writing and deleting its
 * Deployment and Service. Reviewed only when some WebService in scope has a workload.
 */
export const WORKLOAD_ACCESS: Access[] = [
  ...['get', 'list', 'create', 'patch', 'delete'].flatMap(workloads),
  // Its revisions: listed, made, renumbered by a rollback, pruned past the history limit.
  ...['list', 'create', 'patch', 'delete'].map((verb) => children(REVISION, verb)),
];

/**
 * What a WebService that snapshots Secrets needs besides: listing our copies, making and
 * deleting them. Reviewed only when some WebService in scope sets snapshotSecrets.
 */
export const SECRET_SNAPSHOT_ACCESS: Access[] = SET_KINDS.filter((row) => row.kind === 'Secret').flatMap((row) =>
  rowVerbs(row)
    .filter((verb) => verb !== 'watch')
    .map((verb) => children(row, verb)),
);

/**
 * What a WebService whose pods read Secrets or ConfigMaps needs besides: reading them (the
 * controller watches their metadata), and making the namespace's config key (a Secret).
 * Reviewed only when some WebService in scope reads config.
 */
export const CONFIG_ACCESS: Access[] = CONFIG_READ_KINDS.flatMap((kind) =>
  kind.verbs.map((verb) => children(kind, verb)),
);

/** The same access, however many commands need it: one review each. */
export function accessKey(access: Access): string {
  return [access.verb, access.group, access.resource, access.subresource ?? ''].join('|');
}

/** kubectl's name for what is missing: `create configmaps`, `patch webservices.apps.labhub.io/status`. */
export function describeAccess(access: Access): string {
  const resource = access.group ? `${access.resource}.${access.group}` : access.resource;
  return `${access.verb} ${resource}${access.subresource ? `/${access.subresource}` : ''}`;
}

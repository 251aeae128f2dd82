// The judgements of `kubectl webservice check`, pure: what was read goes in, one result per
// check comes out, with a hint under anything that is not right. `now` is passed in.
import { Decision } from '../core/decide';
import { CONFIG_MAP, NAMED_KINDS, onePerKind } from '../core/kinds';
import {
  DEFAULT_REPLICAS,
  Deployment,
  FINALIZER,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  ObjectMeta,
  WebService,
} from '../core/model';
import { childKey } from '../core/object-index';
import { controllerOf } from '../core/ownership';
import { isConverged, readyOf } from '../core/status';
import { DEFAULT_PROGRESS_DEADLINE_SECONDS, rolloutOf } from '../core/rollout';
import { crdVersionState } from '../install/compare';
import type { CustomResourceDefinition, Lease, ServerVersion } from '../kube/api';
import { Access, describeAccess } from './access';

/** skip: the check could not be made, and its message says why. */
type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** Stable name of the check, for -o json: server, crd, access/apply, controller, ... */
  check: string;
  status: CheckStatus;
  message: string;
  /** The objects the message is about, one per line. */
  items?: string[];
  /** What to do about it. */
  hint?: string;
}

/** The oldest Kubernetes the plugin supports: CRD validation rules (CEL) are on by default from 1.25; 1.27 is what it promises. */
const MIN_KUBERNETES = { major: 1, minor: 27 };
const MAX_ITEMS = 10;

export function serverVerdict(server: string, version: ServerVersion): CheckResult {
  const major = parseInt(version.major, 10);
  const minor = parseInt(version.minor, 10); // "29+" on some managed clusters
  const minimum = `${MIN_KUBERNETES.major}.${MIN_KUBERNETES.minor}`;
  const supported = major > MIN_KUBERNETES.major || (major === MIN_KUBERNETES.major && minor >= MIN_KUBERNETES.minor);
  if (!Number.isFinite(major) || !Number.isFinite(minor) || !supported) {
    return {
      check: 'server',
      status: 'fail',
      message: `the server ${server} runs Kubernetes ${version.gitVersion || `${version.major}.${version.minor}`}; the plugin needs ≥ ${minimum}`,
      hint: `upgrade the cluster to Kubernetes ${minimum} or newer`,
    };
  }
  return {
    check: 'server',
    status: 'ok',
    message: `the server ${server} is reachable: Kubernetes ${version.gitVersion} (≥ ${minimum} supported)`,
  };
}

export function unreachableVerdict(error: Error & { kind?: string }): CheckResult {
  if (error.kind === 'Unauthorized') {
    return {
      check: 'server',
      status: 'fail',
      message: `the server rejected the credentials: ${error.message}`,
      hint: 'log in again, or check the user of the context: kubectl config view --minify',
    };
  }
  return {
    check: 'server',
    status: 'fail',
    message: `the server is not reachable: ${error.message}`,
    hint: 'check the context (kubectl config current-context) and that the cluster is up: kubectl version',
  };
}

/** The CRD as read, or, when it may not be read, whether discovery serves webservices. */
export type CrdObservation =
  { kind: 'read'; crd: CustomResourceDefinition | null } | { kind: 'forbidden'; served: boolean; message: string };

export function crdVerdict(
  name: string,
  observed: CrdObservation,
  bundledVersion: string,
  versionLabel: string,
): CheckResult {
  const install = 'kubectl webservice install';
  if (observed.kind === 'forbidden') {
    return observed.served
      ? {
          check: 'crd',
          status: 'warn',
          message: `${name} is served, but its CRD cannot be read, so its version is not checked: ${observed.message}`,
          hint: 'ask a cluster admin to run: kubectl webservice check',
        }
      : {
          check: 'crd',
          status: 'fail',
          message: `the CRD ${name} is not installed`,
          hint: `a cluster admin runs: ${install}`,
        };
  }
  const { crd } = observed;
  if (!crd)
    return { check: 'crd', status: 'fail', message: `the CRD ${name} is not installed`, hint: `run: ${install}` };
  const established = crd.status?.conditions?.find((c) => c.type === 'Established');
  if (established?.status !== 'True') {
    return {
      check: 'crd',
      status: 'fail',
      message: `the CRD ${name} is not Established${established?.message ? `: ${established.message}` : ''}`,
      hint: `kubectl describe crd ${name} says why (a name conflict with another CRD?)`,
    };
  }
  const live = crd.metadata.labels?.[versionLabel];
  switch (crdVersionState(live, bundledVersion)) {
    case 'current':
      return {
        check: 'crd',
        status: 'ok',
        message: `the CRD ${name} is installed, Established, at version ${bundledVersion}`,
      };
    case 'newer':
      return {
        check: 'crd',
        status: 'fail',
        message: `the CRD ${name} is at version ${live}, newer than this plugin (${bundledVersion})`,
        hint: 'upgrade the plugin: kubectl krew upgrade webservice',
      };
    default:
      return {
        check: 'crd',
        status: 'fail',
        message: `the CRD ${name} is ${live ? `at version ${live}` : `not labelled with a version (${versionLabel})`}, older than this plugin (${bundledVersion})`,
        hint: `upgrade it: ${install}`,
      };
  }
}

/** What `kubectl webservice version` says of the CRD: crdVerdict's judgement, and the versions it compared. */
export interface CrdReport {
  name: string;
  bundledVersion: string;
  /** The version label of the live CRD; null if none is installed or it has no label; absent if it cannot be read. */
  installedVersion?: string | null;
  /** ok: the CRD this plugin bundles, installed and Established. */
  status: CheckStatus;
  message: string;
  hint?: string;
}

export function crdReport(
  name: string,
  observed: CrdObservation,
  bundledVersion: string,
  versionLabel: string,
): CrdReport {
  const { status, message, hint } = crdVerdict(name, observed, bundledVersion, versionLabel);
  return {
    name,
    bundledVersion,
    ...(observed.kind === 'read' ? { installedVersion: observed.crd?.metadata.labels?.[versionLabel] ?? null } : {}),
    status,
    message,
    ...(hint ? { hint } : {}),
  };
}

/** Where the reviews were asked: a namespace, or every namespace (-A). */
function scopeText(namespace: string | null): string {
  return namespace === null ? 'in every namespace' : `in namespace ${namespace}`;
}

export function accessVerdict(
  command: string,
  needs: Access[],
  allowed: (access: Access) => boolean,
  namespace: string | null,
): CheckResult {
  const missing = needs.filter((access) => !allowed(access));
  const required = missing.filter((access) => !access.optional);
  const scope = scopeText(namespace);
  if (required.length > 0) {
    const binding =
      namespace === null
        ? 'kubectl create clusterrolebinding webservice-reconciler --clusterrole=webservice-reconciler --user=<you>'
        : `kubectl create rolebinding webservice-reconciler -n ${namespace} --clusterrole=webservice-reconciler --user=<you>`;
    return {
      check: `access/${command}`,
      status: 'fail',
      message: `${command} is not allowed ${scope}: missing ${required.map(describeAccess).join(', ')}`,
      hint: `bind the ClusterRole webservice-reconciler (kubectl webservice install --rbac makes it): ${binding}`,
    };
  }
  if (missing.length > 0) {
    return {
      check: `access/${command}`,
      status: 'warn',
      message: `${command} is allowed ${scope}, but not ${missing.map(describeAccess).join(', ')}`,
      items: missing.map((access) => `without ${describeAccess(access)}: ${access.optional}`),
      hint: 'the ClusterRole webservice-reconciler grants these too (kubectl webservice install --rbac)',
    };
  }
  return { check: `access/${command}`, status: 'ok', message: `${command} is allowed ${scope}` };
}

export type LeaseObservation = { kind: 'read'; lease: Lease | null } | { kind: 'forbidden'; message: string };

/**
 * The controller's Deployment (what install --controller, the chart, kustomize and deploy/
 * make), read when no controller holds the Lease: it is installed, and yet nothing leads.
 */
export interface InstalledController {
  /** NAMESPACE/NAME. */
  where: string;
  replicas: number;
  ready: number;
  image?: string;
  /** Its image is deploy/'s placeholder, which no registry serves. */
  placeholderImage: boolean;
  /** NAMESPACE/NAME of the Helm release that made it (its meta.helm.sh annotations), if one did. */
  helmRelease?: string;
}

export function controllerVerdict(
  where: string,
  observed: LeaseObservation,
  now: Date,
  installed?: InstalledController,
): CheckResult {
  const noController = {
    check: 'controller',
    status: 'warn' as const,
    hint:
      'the plugin works without one (kubectl webservice apply --all reconciles on demand); ' +
      'to keep WebServices reconciled, kubectl webservice install --controller',
  };
  if (observed.kind === 'forbidden') {
    const message = `cannot tell whether a controller runs: the Lease ${where} cannot be read (${observed.message})`;
    return installed ? installedVerdict(message, installed) : { ...noController, message };
  }
  const { lease } = observed;
  // A run without --leader-elect holds no Lease, so it may run unseen: say what was looked for.
  const unelected =
    'a kubectl webservice run without --leader-elect holds no Lease, so check cannot see it (with --leader-elect it can); ';
  if (!lease) {
    const message = `no elected controller: there is no Lease ${where}`;
    return installed
      ? installedVerdict(message, installed)
      : { ...noController, message, hint: `${unelected}${noController.hint}` };
  }
  const holder = lease.spec?.holderIdentity;
  if (!holder) {
    const message = `no elected controller holds the Lease ${where} (the last one let it go)`;
    return installed
      ? installedVerdict(message, installed)
      : { ...noController, message, hint: `${unelected}${noController.hint}` };
  }
  const renewed = Date.parse(lease.spec?.renewTime ?? lease.spec?.acquireTime ?? '');
  const durationSeconds = lease.spec?.leaseDurationSeconds ?? 15;
  // Another machine's clock wrote renewTime: allow twice the lease duration before calling it stale.
  const staleAfterMs = 2 * durationSeconds * 1000;
  const ageMs = now.getTime() - renewed;
  if (!Number.isFinite(renewed) || ageMs > staleAfterMs) {
    const namespace = where.split('/')[0];
    return {
      check: 'controller',
      status: 'fail',
      message: `the Lease ${where} is held by ${holder}, but was last renewed ${Number.isFinite(renewed) ? `${shortDuration(ageMs)} ago` : 'never'} (lease duration ${durationSeconds}s): its controller is gone or cannot reach the API server`,
      hint: `kubectl -n ${namespace} get pods -l app.kubernetes.io/name=webservice-controller; kubectl -n ${namespace} logs deployment/webservice-controller`,
    };
  }
  return {
    check: 'controller',
    status: 'ok',
    message: `a controller (${holder}) holds the Lease ${where}, renewed ${shortDuration(Math.max(0, ageMs))} ago`,
  };
}

/**
 * No controller leads, but one is installed: say so, with its replicas, and what to look at,
 * rather than advise installing one.
 */
function installedVerdict(leaseMessage: string, installed: InstalledController): CheckResult {
  const [namespace, name] = installed.where.split('/');
  const origin = installed.helmRelease ? ` (Helm release ${installed.helmRelease})` : '';
  const look = `kubectl -n ${namespace} get pods -l app.kubernetes.io/name=${name}; kubectl -n ${namespace} logs deployment/${name}`;
  const [releaseNamespace, release] = (installed.helmRelease ?? '').split('/');
  const setImage = installed.helmRelease
    ? `helm upgrade ${release} -n ${releaseNamespace} --reuse-values --set image.repository=REPOSITORY,image.tag=TAG`
    : 'kubectl webservice install --controller --image IMAGE';
  return {
    check: 'controller',
    status: 'warn',
    message:
      `${leaseMessage}, though the controller Deployment ${installed.where}${origin} is installed ` +
      `with ${installed.ready}/${installed.replicas} replicas ready`,
    hint: installed.placeholderImage
      ? `its image ${installed.image} is the placeholder of deploy/, which no registry serves: build one from deploy/Dockerfile and set it: ${setImage}`
      : look,
  };
}

export type FenceObservation =
  | { kind: 'read'; policy: boolean; paramRef: { namespace?: string; name?: string } | null }
  | { kind: 'forbidden'; message: string };

/**
 * Asked only while a controller holds the Lease `where`: does the API server refuse a write
 * that a replica sends after losing it (deploy/15-leader-fence.yaml)? Without the fence, a
 * replica paused between its write gate and the socket can still write late.
 */
export function fenceVerdict(where: string, name: string, observed: FenceObservation): CheckResult {
  const check = 'leader-fence';
  if (observed.kind === 'forbidden') {
    return {
      check,
      status: 'warn',
      message: `cannot tell whether the leader fence is installed (${observed.message})`,
      hint: `a cluster admin can: kubectl get validatingadmissionpolicy,validatingadmissionpolicybinding ${name}`,
    };
  }
  if (!observed.policy || !observed.paramRef) {
    return {
      check,
      status: 'warn',
      message: `no leader fence: the API server would admit a write that a replica sends late, after losing the Lease ${where}`,
      hint: 'kubectl webservice install --controller installs it (a ValidatingAdmissionPolicy and its binding)',
    };
  }
  const fenced = `${observed.paramRef.namespace ?? ''}/${observed.paramRef.name ?? ''}`;
  if (fenced !== where) {
    const [namespace, lease] = where.split('/');
    return {
      check,
      status: 'warn',
      message: `the leader fence follows the Lease ${fenced}, not ${where}: it does not fence this controller`,
      hint: `kubectl patch validatingadmissionpolicybinding ${name} --type=merge -p '${JSON.stringify({ spec: { paramRef: { namespace, name: lease } } })}'`,
    };
  }
  return {
    check,
    status: 'ok',
    message: `the leader fence refuses writes from replicas that do not hold the Lease ${where}`,
  };
}

export function stuckVerdict(
  webServices: WebService[],
  stuckAfterSeconds: number,
  namespace: string | null,
  now: Date,
): CheckResult {
  const stuck = webServices.filter((ws) => {
    const since = Date.parse(ws.metadata.deletionTimestamp ?? '');
    return Number.isFinite(since) && now.getTime() - since > stuckAfterSeconds * 1000;
  });
  const limit = shortDuration(stuckAfterSeconds * 1000);
  if (stuck.length === 0) {
    return {
      check: 'stuck',
      status: 'ok',
      message: `no WebService has been terminating for longer than ${limit} ${scopeText(namespace)}`,
    };
  }
  const ours = stuck.filter((ws) => ws.metadata.finalizers?.includes(FINALIZER));
  const first = ours[0];
  const finalize =
    ours.length === 1
      ? `kubectl webservice finalize ${first.metadata.name} -n ${first.metadata.namespace}`
      : `kubectl webservice finalize --all ${namespace === null ? '-A' : `-n ${namespace}`}`;
  const foreign = [...new Set(stuck.flatMap((ws) => ws.metadata.finalizers ?? []).filter((f) => f !== FINALIZER))];
  const hints = [
    ...(ours.length > 0 ? [`${finalize} finishes the deletion (a running controller would have)`] : []),
    ...(foreign.length > 0
      ? [`finalizers that are not ours (${foreign.join(', ')}) are for whoever set them to remove`]
      : []),
  ];
  return {
    check: 'stuck',
    status: 'fail',
    message: `${count(stuck.length, 'WebService')} ${stuck.length === 1 ? 'has' : 'have'} been terminating for longer than ${limit}`,
    items: listed(
      stuck.map(
        (ws) =>
          `${ws.metadata.namespace}/${ws.metadata.name}: terminating for ${shortDuration(now.getTime() - Date.parse(ws.metadata.deletionTimestamp!))}, ` +
          `finalizers ${(ws.metadata.finalizers ?? []).join(', ') || '<none>'}`,
      ),
    ),
    hint: hints.join('; '),
  };
}

/** An object of a kind we make, by its metadata: what the orphans check judges. */
export interface LabelledObject {
  kind: OrphanKind;
  metadata: ObjectMeta;
}

/** A kind of the kind table. */
export type OrphanKind = string;
/** A kind's name in the plural, as a sentence says it: Services, Ingresses, NetworkPolicies. */
export function pluralKind(kind: string): string {
  if (/[^aeiou]y$/i.test(kind)) return `${kind.slice(0, -1)}ies`;
  return /(s|x|z|ch|sh)$/.test(kind) ? `${kind}es` : `${kind}s`;
}

const ORPHAN_KINDS: OrphanKind[] = onePerKind(NAMED_KINDS).map((row) => row.kind);

/**
 * Objects with our managed-by label that no WebService in scope owns: their controller
 * owner's uid is gone, or they have no controller owner and no WebService of their name
 * (a ConfigMap is <name>-desired; a Deployment and a Service are named after the WebService).
 * The garbage collector deletes dependents of a deleted owner; these it will not.
 * unchecked: kinds that could not be listed, and why; they make an otherwise clean result a warning.
 */
export function orphanVerdict(
  objects: LabelledObject[],
  webServices: WebService[],
  namespace: string | null,
  unchecked: { kinds: OrphanKind[]; reason: string } | null = null,
): CheckResult {
  const uids = new Set(webServices.map((ws) => ws.metadata.uid));
  // The name each kind of child of each WebService would have.
  const children = new Set(
    webServices.flatMap(({ metadata: { namespace: ns, name } }) =>
      NAMED_KINDS.map((row) => childKey(row.kind, ns, row.nameFor(name))),
    ),
  );
  const orphans = objects.filter((o) => {
    if (o.metadata.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY_VALUE) return false;
    const owner = controllerOf(o)?.uid;
    return owner ? !uids.has(owner) : !children.has(childKey(o.kind, o.metadata.namespace, o.metadata.name));
  });
  const checked = ORPHAN_KINDS.filter((kind) => !unchecked?.kinds.includes(kind));
  if (orphans.length === 0) {
    const message = `no orphaned ${enumerate(checked.map(pluralKind), 'or')} ${scopeText(namespace)}`;
    if (!unchecked) return { check: 'orphans', status: 'ok', message };
    return {
      check: 'orphans',
      status: 'warn',
      message: `${message}; ${enumerate(unchecked.kinds.map(pluralKind), 'and')} not checked: ${unchecked.reason}`,
      hint: 'the access checks above say what is missing',
    };
  }
  const first = orphans[0];
  const byKind = ORPHAN_KINDS.map((kind) => [kind, orphans.filter((o) => o.kind === kind).length] as const).filter(
    ([, n]) => n > 0,
  );
  const one = orphans.length === 1;
  return {
    check: 'orphans',
    status: 'fail',
    message: `${enumerate(
      byKind.map(([kind, n]) => count(n, kind)),
      'and',
    )} labelled ${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE} ${one ? 'has' : 'have'} no WebService owning ${one ? 'it' : 'them'}`,
    items: listed(
      orphans.map(
        (o) =>
          `${o.metadata.namespace}/${o.kind === CONFIG_MAP.kind ? '' : `${o.kind.toLowerCase()}/`}${o.metadata.name}: ` +
          (controllerOf(o) ? 'its owner is gone' : 'no owner reference'),
      ),
    ),
    hint:
      `delete ${one ? 'it' : 'them'}, e.g. kubectl delete ${first.kind.toLowerCase()} ${first.metadata.name} -n ${first.metadata.namespace} ` +
      '(the garbage collector deletes the children of a deleted WebService: is kube-controller-manager running?)',
  };
}

/**
 * Rollouts that have stalled: a WebService's own Deployment (its controller owner) whose
 * Progressing condition says ProgressDeadlineExceeded and that has not finished since.
 * Judged from the Deployment as read, so it holds whether or not a controller runs.
 */
export function rolloutVerdict(
  webServices: WebService[],
  deployments: Deployment[],
  namespace: string | null,
): CheckResult {
  const byOwner = new Map(deployments.map((d) => [controllerOf(d)?.uid, d]));
  const stalled = webServices.flatMap((ws) => {
    const deployment = ws.spec.workload && !ws.metadata.deletionTimestamp ? byOwner.get(ws.metadata.uid) : undefined;
    if (!deployment || deployment.metadata.name !== ws.metadata.name) return [];
    const rollout = rolloutOf(deployment, ws.spec.replicas ?? DEFAULT_REPLICAS, false);
    return rollout.stalled ? [{ ws, deployment, rollout }] : [];
  });
  if (stalled.length === 0)
    return { check: 'rollouts', status: 'ok', message: `no stalled rollouts ${scopeText(namespace)}` };
  const first = stalled[0].deployment.metadata;
  return {
    check: 'rollouts',
    status: 'fail',
    message: `${count(stalled.length, 'rollout')} ${stalled.length === 1 ? 'has' : 'have'} stalled: no progress within the progress deadline`,
    items: listed(
      stalled.map(
        ({ ws, deployment, rollout }) =>
          `${ws.metadata.namespace}/${ws.metadata.name}: deployment/${deployment.metadata.name} ${rollout.ready}/${rollout.desired} ready, ` +
          `no progress for ${deployment.spec?.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS}s`,
      ),
    ),
    hint:
      `kubectl describe deployment ${first.name} -n ${first.namespace} says why (pods that cannot be scheduled? an image that cannot be pulled?); ` +
      'the WebService is Ready again once the rollout can finish',
  };
}

/** a, b or c */
function enumerate(items: string[], last: string): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

export function conflictVerdict(decisions: Decision[], namespace: string | null): CheckResult {
  const conflicts = decisions.filter((d) => d.action === 'conflict');
  if (conflicts.length === 0)
    return {
      check: 'conflicts',
      status: 'ok',
      message: `no WebService conflicts with a foreign ConfigMap ${scopeText(namespace)}`,
    };
  return {
    check: 'conflicts',
    status: 'fail',
    message: `${count(conflicts.length, 'WebService')} cannot be reconciled: a ConfigMap that is not ${conflicts.length === 1 ? 'its' : 'theirs'} sits on the child's name`,
    items: listed(conflicts.map((d) => `${d.namespace}/${d.name}: ${d.reason}`)),
    hint: 'the plugin never touches a ConfigMap it does not own: rename the WebService, or delete or move that ConfigMap',
  };
}

export function readyVerdict(webServices: WebService[], namespace: string | null): CheckResult {
  const live = webServices.filter((ws) => !ws.metadata.deletionTimestamp);
  const notReady = live.filter((ws) => !isConverged(ws.metadata.generation ?? 0, ws.status));
  if (notReady.length === 0) {
    return {
      check: 'ready',
      status: 'ok',
      message: `${live.length === 0 ? 'no WebServices' : `every WebService is Ready (${live.length})`} ${scopeText(namespace)}`,
    };
  }
  return {
    check: 'ready',
    status: 'warn',
    message: `${count(notReady.length, 'WebService')} of ${live.length} ${notReady.length === 1 ? 'is' : 'are'} not Ready`,
    items: listed(notReady.map((ws) => `${ws.metadata.namespace}/${ws.metadata.name}: ${notReadyReason(ws)}`)),
    hint: `kubectl webservice plan NAME says why; kubectl webservice apply --all ${namespace === null ? '-A' : `-n ${namespace}`} reconciles`,
  };
}

function notReadyReason(ws: WebService): string {
  const ready = readyOf(ws.status);
  if (!ready) return 'never reconciled';
  if ((ws.status?.observedGeneration ?? 0) !== (ws.metadata.generation ?? 0))
    return `generation ${ws.metadata.generation} not reconciled yet`;
  return `${ready.reason}${ready.message ? `: ${ready.message}` : ''}`;
}

function listed(items: string[]): string[] {
  return items.length > MAX_ITEMS ? [...items.slice(0, MAX_ITEMS), `... and ${items.length - MAX_ITEMS} more`] : items;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A short duration: 45s, 12m, 5h. */
function shortDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h`;
}

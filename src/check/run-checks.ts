// Reads what `check` judges, through the one API module, and hands it to the verdicts.
// A check that cannot read what it needs says so (a warning when forbidden) instead of
// stopping the others; only an unreachable server ends the run early.
import { decide } from '../core/decide';
import { APPLIED_KINDS, CONFIG_MAP, DEPLOYMENT, onePerKind } from '../core/kinds';
import { API_VERSION, Deployment, OWNED_SELECTOR, kindOf, Child } from '../core/model';
import { observe } from '../core/observe';
import { gatherAll } from '../engine/gather';
import { absentKinds } from '../kube/discovery';
import { configReferences } from '../core/config';
import { ForbiddenError, LEADER_FENCE_POLICY, orNull } from '../kube/errors';
import type { CheckApi, CustomResourceDefinition, Lease, ObjectMetadata } from '../kube/api';
import type { KubeObject } from '../kube/object-location';
import { CRD_NAME, VERSION_LABEL, isPlaceholderImage } from '../install/manifests';
import {
  Access,
  COMMANDS,
  COMMAND_ACCESS,
  CONFIG_ACCESS,
  SECRET_SNAPSHOT_ACCESS,
  WORKLOAD_ACCESS,
  accessKey,
} from './access';
import { WorkersObservation, parseMetrics, workersVerdict } from './workers';
import {
  CheckResult,
  CrdObservation,
  FenceObservation,
  InstalledController,
  LabelledObject,
  LeaseObservation,
  OrphanKind,
  accessVerdict,
  conflictVerdict,
  controllerVerdict,
  crdVerdict,
  fenceVerdict,
  orphanVerdict,
  readyVerdict,
  rolloutVerdict,
  serverVerdict,
  stuckVerdict,
  unreachableVerdict,
} from './verdicts';
import { CUSTOM_RESOURCE_DEFINITION, LEASE } from '../core/resource-types';
import { getInstalled } from '../kube/installed-objects';

export interface CheckOptions {
  /** The scope of the WebService checks and of the access reviews; null: every namespace. */
  namespace: string | null;
  lease: { namespace: string; name: string };
  stuckAfterSeconds: number;
  /** The controller's /metrics, when the user gave it. */
  metricsUrl?: string;
  stuckWorkerAfterSeconds: number;
  bundledVersion: string;
  now: () => Date;
}

export async function runChecks(client: CheckApi, options: CheckOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  try {
    results.push(serverVerdict(client.connection.server, await client.serverVersion()));
  } catch (err) {
    // Nothing else can be checked without a server that answers.
    return [unreachableVerdict(err as Error)];
  }
  const crd = await observeCrd(client).catch((err: Error) => err);
  results.push(
    crd instanceof Error ? failed('crd', crd) : crdVerdict(CRD_NAME, crd, options.bundledVersion, VERSION_LABEL),
  );
  results.push(
    ...(await guarded(
      COMMANDS.map((command) => `access/${command}`),
      () => accessChecks(client, options.namespace),
    )),
  );
  const where = `${options.lease.namespace}/${options.lease.name}`;
  const lease = await observeLease(client, options).catch((err: Error) => err);
  results.push(
    lease instanceof Error
      ? failed('controller', lease)
      : controllerVerdict(where, lease, options.now(), await installedController(client, options.lease, lease)),
  );
  if (!(lease instanceof Error) && lease.kind === 'read' && lease.lease?.spec?.holderIdentity) {
    results.push(
      ...(await guarded(['leader-fence'], async () => [
        fenceVerdict(where, LEADER_FENCE_POLICY, await observeFence(client)),
      ])),
    );
    results.push(workersVerdict(await observeWorkers(options.metricsUrl), options.stuckWorkerAfterSeconds));
  }
  const served = !(crd instanceof Error) && (crd.kind === 'read' ? crd.crd !== null : crd.served);
  if (served) results.push(...(await guarded(WEBSERVICE_CHECKS, () => webServiceChecks(client, options))));
  return results;
}

const WEBSERVICE_CHECKS = ['stuck', 'orphans', 'conflicts', 'ready'];

/** A check whose reads fail for an unexpected reason fails itself, and the others still run. */
async function guarded(checks: string[], run: () => Promise<CheckResult[]>): Promise<CheckResult[]> {
  try {
    return await run();
  } catch (err) {
    return checks.map((check) => failed(check, err as Error));
  }
}

function failed(check: string, error: Error): CheckResult {
  return {
    check,
    status: 'fail',
    message: `${check}: could not check: ${error.message}`,
    hint: 'the API server failed this read; run check again in a moment',
  };
}

/** The CRD, or when it may not be read, whether discovery serves webservices (check, and version). */
export async function observeCrd(client: CheckApi): Promise<CrdObservation> {
  try {
    return {
      kind: 'read',
      crd: await orNull(client.get<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITION, null, CRD_NAME)),
    };
  } catch (err) {
    if (!(err instanceof ForbiddenError)) throw err;
    const resources = await client.servedResources(API_VERSION);
    return { kind: 'forbidden', served: Boolean(resources?.includes('webservices')), message: err.message };
  }
}

/** One SelfSubjectAccessReview per distinct access, asked at once; then a verdict per command. */
async function accessChecks(client: CheckApi, namespace: string | null): Promise<CheckResult[]> {
  const distinct = new Map<string, Access>();
  for (const command of COMMANDS) for (const access of COMMAND_ACCESS[command]) distinct.set(accessKey(access), access);
  const answers = new Map<string, boolean>();
  await Promise.all(
    [...distinct].map(async ([key, access]) => {
      const review = await client.reviewAccess({
        verb: access.verb,
        group: access.group,
        resource: access.resource,
        subresource: access.subresource,
        namespace: namespace ?? '',
      });
      answers.set(key, review.allowed);
    }),
  );
  return COMMANDS.map((command) =>
    accessVerdict(command, COMMAND_ACCESS[command], (access) => answers.get(accessKey(access)) === true, namespace),
  );
}

/** May spec.workload's children (or the config its pods read) be read, written and deleted here? */
async function featureAccess(
  client: CheckApi,
  namespace: string | null,
  feature: string,
  needed: Access[],
): Promise<CheckResult> {
  const answers = new Map<string, boolean>();
  await Promise.all(
    needed.map(async (access) => {
      const review = await client.reviewAccess({ ...access, namespace: namespace ?? '' });
      answers.set(accessKey(access), review.allowed);
    }),
  );
  return accessVerdict(feature, needed, (access) => answers.get(accessKey(access)) === true, namespace);
}

/** The controller's /metrics, read once; it is not the API server, so a plain fetch. */
async function observeWorkers(url: string | undefined): Promise<WorkersObservation> {
  if (url === undefined) return { kind: 'not-asked' };
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(METRICS_TIMEOUT_MS) });
    if (!response.ok) return { kind: 'unreachable', url, message: `HTTP ${response.status}` };
    return { kind: 'read', url, samples: parseMetrics(await response.text()) };
  } catch (err) {
    const cause = (err as Error & { cause?: Error }).cause;
    return { kind: 'unreachable', url, message: (cause ?? (err as Error)).message };
  }
}

const METRICS_TIMEOUT_MS = 5_000;

async function observeLease(client: CheckApi, options: CheckOptions): Promise<LeaseObservation> {
  try {
    return { kind: 'read', lease: await orNull(client.get<Lease>(LEASE, options.lease.namespace, options.lease.name)) };
  } catch (err) {
    if (err instanceof ForbiddenError) return { kind: 'forbidden', message: err.message };
    throw err;
  }
}

/**
 * When no controller holds the Lease: the controller's Deployment, which every way of
 * installing it names as its Lease (deploy/, the chart), if it is there and may be read.
 */
async function installedController(
  client: CheckApi,
  where: { namespace: string; name: string },
  lease: LeaseObservation,
): Promise<InstalledController | undefined> {
  if (lease.kind === 'read' && lease.lease?.spec?.holderIdentity) return undefined;
  const child = await orNull(client.get<Child>(DEPLOYMENT, where.namespace, where.name)).catch((err: Error) => {
    if (err instanceof ForbiddenError) return null;
    throw err;
  });
  if (!child) return undefined;
  const deployment = child as Deployment;
  const annotations = deployment.metadata.annotations ?? {};
  const release = annotations[HELM_RELEASE_NAME];
  const image = deployment.spec?.template?.spec?.containers?.[0]?.image;
  return {
    where: `${where.namespace}/${where.name}`,
    replicas: deployment.spec?.replicas ?? 1,
    ready: deployment.status?.readyReplicas ?? 0,
    ...(image ? { image } : {}),
    placeholderImage: image !== undefined && isPlaceholderImage(image),
    ...(release ? { helmRelease: `${annotations[HELM_RELEASE_NAMESPACE] ?? where.namespace}/${release}` } : {}),
  };
}

/** The annotations Helm puts on every object of a release. */
const HELM_RELEASE_NAME = 'meta.helm.sh/release-name';
const HELM_RELEASE_NAMESPACE = 'meta.helm.sh/release-namespace';

/** The fence's policy and binding; the binding's paramRef says which Lease it follows. */
async function observeFence(client: CheckApi): Promise<FenceObservation> {
  const object = (kind: string) =>
    getInstalled<KubeObject & { spec?: { paramRef?: { namespace?: string; name?: string } } }>(client, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name: LEADER_FENCE_POLICY },
    });
  try {
    const [policy, binding] = await Promise.all([
      object('ValidatingAdmissionPolicy'),
      object('ValidatingAdmissionPolicyBinding'),
    ]);
    return { kind: 'read', policy: policy !== null, paramRef: binding ? (binding.spec?.paramRef ?? {}) : null };
  } catch (err) {
    if (err instanceof ForbiddenError) return { kind: 'forbidden', message: err.message };
    throw err;
  }
}

/**
 * The workload's children that carry our label (metadata only), for the orphans check;
 * in every scope, since a WebService deleted with its workload may have left them behind.
 * A user who may not list them still gets the rest of the check, which says what it skipped.
 */
async function labelledWorkloads(
  client: CheckApi,
  namespace: string | null,
): Promise<{ objects: LabelledObject[]; unchecked: { kinds: OrphanKind[]; reason: string } | null }> {
  // A kind whose API the cluster does not serve has no objects to be orphans.
  const absent = await absentKinds(client);
  const served = onePerKind(APPLIED_KINDS).filter((row) => !absent.includes(row.kind));
  try {
    const lists = await Promise.all(
      served.map(async (row) =>
        (
          await client.list<ObjectMetadata>(row, namespace, { labelSelector: OWNED_SELECTOR, metadataOnly: true })
        ).items.map((item) => ({
          kind: row.kind,
          metadata: item.metadata,
        })),
      ),
    );
    return { objects: lists.flat(), unchecked: null };
  } catch (err) {
    if (!(err instanceof ForbiddenError)) throw err;
    return { objects: [], unchecked: { kinds: served.map((row) => row.kind), reason: err.message } };
  }
}

/** Stuck deletions, orphans, conflicts and readiness, from one gather (the same reads as apply --all). */
async function webServiceChecks(client: CheckApi, options: CheckOptions): Promise<CheckResult[]> {
  const { namespace } = options;
  // An empty namespace and one that does not exist both hold no WebService: tell them apart.
  if (namespace !== null) {
    let found: unknown = 'not read';
    try {
      found = await getInstalled(client, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    } catch (err) {
      // A user who may not read namespaces still gets the WebService checks.
      if (!(err instanceof ForbiddenError)) throw err;
    }
    if (found === null) {
      return [
        {
          check: 'namespace',
          status: 'warn',
          message: `namespace ${namespace} does not exist: it holds no WebService to check`,
          hint: 'check -n NAMESPACE for a namespace that exists, or -A for every one',
        },
      ];
    }
  }
  try {
    const [inputs, labelled, workloads] = await Promise.all([
      // What the pods read is not check's to read: their config digest is taken as live.
      gatherAll(client, namespace, { readConfig: false }),
      client.list<ObjectMetadata>(CONFIG_MAP, namespace, { labelSelector: OWNED_SELECTOR, metadataOnly: true }),
      labelledWorkloads(client, namespace),
    ]);
    const webServices = inputs.map((input) => input.parent);
    const at = new Date().toISOString();
    const decisions = inputs.map((input) => decide(observe(input), { at }));
    const objects: LabelledObject[] = [
      ...labelled.items.map((item) => ({ kind: CONFIG_MAP.kind, metadata: item.metadata })),
      ...workloads.objects,
    ];
    const results = [
      stuckVerdict(webServices, options.stuckAfterSeconds, namespace, options.now()),
      orphanVerdict(objects, webServices, namespace, workloads.unchecked),
      conflictVerdict(decisions, namespace),
      readyVerdict(webServices, namespace),
    ];
    // Only where workloads are used: a scope without them needs none of this access.
    if (webServices.some((ws) => ws.spec.workload !== undefined)) {
      const deployments = inputs.flatMap((input) =>
        input.children.filter((child): child is Deployment => kindOf(child) === DEPLOYMENT.kind),
      );
      results.push(rolloutVerdict(webServices, deployments, namespace));
      results.push(await featureAccess(client, namespace, 'spec.workload', WORKLOAD_ACCESS));
      if (webServices.some((ws) => configReferences(ws.spec.workload).length > 0)) {
        results.push(await featureAccess(client, namespace, 'config', CONFIG_ACCESS));
      }
      if (webServices.some((ws) => ws.spec.workload?.snapshotSecrets === true)) {
        results.push(await featureAccess(client, namespace, 'snapshotSecrets', SECRET_SNAPSHOT_ACCESS));
      }
    }
    return results;
  } catch (err) {
    if (!(err instanceof ForbiddenError)) throw err;
    return WEBSERVICE_CHECKS.map((check) => ({
      check,
      status: 'warn' as const,
      message: `not checked: WebServices and ConfigMaps cannot be listed (${err.message})`,
      hint: 'the access checks above say what is missing',
    }));
  }
}

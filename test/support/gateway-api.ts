// The Gateway API's standard CRDs on the test plane: control-plane.sh build copies them into
// its cache, and `up` leaves them out (most clusters have none). A test file that needs them,
// present or absent, installs or removes them itself; no other file may depend on either.
import { gatewayApiCrdFiles } from '../../harness/gateway-api-crds';
import { OPTIONAL_KINDS } from '../../src/core/kinds';
import type { CustomResourceDefinition } from '../../src/kube/api';
import { kubectl, run, waitEstablished } from './cluster';
import { eventually } from './wait';
import { planeCommand } from './plane';

/** Where control-plane.sh keeps the CRD files (its vars' GATEWAY_API_CRDS). */
function crdDirectory(): string {
  // It would delete a cluster's own Gateway API, and every object of its kinds.
  if (process.env.USE_EXISTING_CLUSTER === 'true') {
    throw new Error(
      'this file installs and removes the Gateway API: it runs on the test plane only, not USE_EXISTING_CLUSTER',
    );
  }
  const line = planeCommand('vars')
    .split('\n')
    .find((l) => l.startsWith('GATEWAY_API_CRDS='));
  if (!line) throw new Error('control-plane.sh vars names no GATEWAY_API_CRDS: run "scripts/control-plane.sh build"');
  return line.slice('GATEWAY_API_CRDS='.length);
}

/** Whether the plane serves a kind's API, by discovery (as the plugin asks). */
export function served(row: { apiVersion: string; resource: string }): boolean {
  const result = run('kubectl', ['get', '--raw', `/apis/${row.apiVersion}`]);
  if (result.status !== 0) return false;
  const document = JSON.parse(result.stdout) as { resources?: { name: string }[] };
  return (document.resources ?? []).some((r) => r.name === row.resource);
}

/** A request that asks discovery whether an optional kind's API is served (what run repeats while it is not). */
export function isDiscoveryProbe(event: { requestURI?: string }): boolean {
  return OPTIONAL_KINDS.some((row) => event.requestURI === `/apis/${row.apiVersion}`);
}

/** The kind table's optional kinds the plane does not serve now. */
export function absentOptionalKinds(): string[] {
  return OPTIONAL_KINDS.filter((row) => !served(row)).map((row) => row.kind);
}

function crdFiles(): { file: string; crd: string }[] {
  return gatewayApiCrdFiles(crdDirectory());
}

/** Installs the CRDs (server-side apply) and waits until they are established. */
export function installGatewayApi(): void {
  const files = crdFiles();
  kubectl(['apply', '--server-side', ...files.flatMap(({ file }) => ['-f', file])]);
  waitEstablished(...files.map(({ crd }) => crd));
}

/**
 * How long removing the CRDs may take. The API server's CRD finalizer lists a CRD's objects
 * through its watch cache, and a cache that is (re)initializing answers 429; the finalizer then
 * retries with a backoff that doubles each time. Deleting CRDs of one group drops the watch
 * caches of the others, so each removal first lists every kind (which starts its cache), and
 * lists those still there again while it waits. A controller that makes an object again after
 * the finalizer deleted them (run does, for a WebService that wants a route, if its create
 * lands before the server refuses creates for a terminating CRD) costs a minute more: the
 * finalizer checks for that long that none is left before it tries again.
 */
export const REMOVAL_TIMEOUT_MS = 180_000;

/** Removes the CRDs (and with them every object of their kinds), and waits until they are gone. */
export async function removeGatewayApi(): Promise<void> {
  const crds = crdFiles().map(({ crd }) => crd);
  warmWatchCaches(crds);
  kubectl(['delete', '--ignore-not-found', '--wait=false', ...crds.map((crd) => `crd/${crd}`)]);
  let left: CustomResourceDefinition[] = [];
  try {
    await eventually(() => {
      left = remainingCrds(crds);
      warmWatchCaches(left.map((crd) => crd.metadata.name));
      return left.length === 0;
    }, REMOVAL_TIMEOUT_MS);
  } catch {
    const why = left.map((crd) => {
      const terminating = crd.status?.conditions?.find((c) => c.type === 'Terminating');
      return `${crd.metadata.name}: ${terminating ? `${terminating.reason}: ${terminating.message}` : 'not terminating'}`;
    });
    throw new Error(`the Gateway API's CRDs are not gone after ${REMOVAL_TIMEOUT_MS / 1000} s: ${why.join('; ')}`);
  }
}

/**
 * Lists each kind once, which makes the API server start its watch cache (a CRD's cache is
 * made on first use). Whether the list itself succeeds does not matter: it may be answered 429
 * while the cache fills, or 404 once the CRD is gone.
 */
function warmWatchCaches(crds: string[]): void {
  if (crds.length === 0) return;
  run('kubectl', [
    'get',
    crds.join(','),
    '--all-namespaces',
    '--ignore-not-found',
    '-o',
    'name',
    '--request-timeout=10s',
  ]);
}

/** Which of these CRDs still exist (kubectl prints nothing when none does). */
function remainingCrds(names: string[]): CustomResourceDefinition[] {
  const stdout = kubectl(['get', 'crd', '--ignore-not-found', '-o', 'json', ...names]);
  return stdout.trim() ? (JSON.parse(stdout) as { items: CustomResourceDefinition[] }).items : [];
}

// The Gateway API's standard CRDs on the test plane: control-plane.sh build copies them into
// its cache, and `up` leaves them out (most clusters have none). A test file that needs them,
// present or absent, installs or removes them itself; no other file may depend on either.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OPTIONAL_KINDS } from '../../src/core/kinds';
import { kubectl, run } from './cluster';
import { planeCommand } from './plane';

/** Where control-plane.sh keeps the CRD files (its vars' GATEWAY_API_CRDS). */
function crdDirectory(): string {
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

/**
 * The CRD files (gateway.networking.k8s.io_httproutes.yaml…) with their CRDs' names; not the
 * bundle's ValidatingAdmissionPolicy against downgrades, which would judge every CRD write of
 * the shared plane.
 */
function crdFiles(): { file: string; crd: string }[] {
  const dir = crdDirectory();
  return fs
    .readdirSync(dir)
    .filter((name) => /^gateway\.networking\.k8s\.io_[a-z]+\.yaml$/.test(name) && !name.includes('vap_'))
    .map((name) => ({
      file: path.join(dir, name),
      crd: `${name.slice('gateway.networking.k8s.io_'.length, -'.yaml'.length)}.gateway.networking.k8s.io`,
    }));
}

/** Installs the CRDs (server-side apply) and waits until they are established. */
export function installGatewayApi(): void {
  const files = crdFiles();
  kubectl(['apply', '--server-side', ...files.flatMap(({ file }) => ['-f', file])]);
  kubectl(['wait', '--for=condition=Established', '--timeout=60s', ...files.map(({ crd }) => `crd/${crd}`)]);
}

/** Removes the CRDs (and with them every object of their kinds), and waits until they are gone. */
export function removeGatewayApi(): void {
  kubectl(['delete', '--ignore-not-found', '--wait=true', ...crdFiles().map(({ crd }) => `crd/${crd}`)]);
}

// The Gateway API's standard CRDs as control-plane.sh build keeps them (its GATEWAY_API_CRDS):
// the files and their CRDs' names, for the tests and the bench that install and remove them.
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The CRD files (gateway.networking.k8s.io_httproutes.yaml…) with their CRDs' names; not the
 * bundle's ValidatingAdmissionPolicy against downgrades, which would judge every CRD write of
 * the shared plane.
 */
export function gatewayApiCrdFiles(dir: string): { file: string; crd: string }[] {
  return fs
    .readdirSync(dir)
    .filter((name) => /^gateway\.networking\.k8s\.io_[a-z]+\.yaml$/.test(name) && !name.includes('vap_'))
    .map((name) => ({
      file: path.join(dir, name),
      crd: `${name.slice('gateway.networking.k8s.io_'.length, -'.yaml'.length)}.gateway.networking.k8s.io`,
    }));
}

// Usage: npm run crd:generate     (needs kubectl and a cluster that serves the Gateway API's
//                                  HTTPRoute: the test control plane, with its CRDs applied)
//
// Writes:
// - the whole CRD, crds/webservices.apps.labhub.io.yaml, from the WebService's schema
//   (src/core/spec-schema.ts) with the Kubernetes types it embeds expanded from the API
//   server's OpenAPI (see harness/crd/schema.ts and harness/crd/webservice-crd.ts), and the
//   chart's copy of it;
// - the types of a WebService's spec and status into src/core/spec.generated.ts, from the same
//   schema (see harness/crd/spec-types.ts);
// - from the OpenAPI too, the keyed lists of every kind of child we write into
//   src/core/list-keys.generated.ts (see harness/crd/list-keys.ts), which the comparison as
//   the server stores reads.
// Tests check the CRD's embedded types and the keyed lists against a live API server's OpenAPI
// (and the CRD and the types against the schema), so a change of Kubernetes' types shows up
// as a failing test, not as drift.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  LIST_KEYS_MODULE,
  WRITTEN_KINDS,
  keyedLists,
  listKeysModule,
  openApiPath,
  writtenApiVersions,
} from '../../harness/crd/list-keys';
import { OpenApiDocument, embeddedSchemas } from '../../harness/crd/schema';
import { SPEC_TYPES_MODULE, specTypesModule } from '../../harness/crd/spec-types';
import { CRD_FILE, crdFileText, webServiceCrd } from '../../harness/crd/webservice-crd';

function openApi(kubectl: string, apiVersion: string): OpenApiDocument {
  const at = `/openapi/v3/${openApiPath(apiVersion)}`;
  try {
    return JSON.parse(
      execFileSync(kubectl, ['get', '--raw', at], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: 'pipe' }),
    ) as OpenApiDocument;
  } catch (error) {
    throw new Error(`cannot read ${at} (is ${apiVersion} served? install its CRDs first): ${String(error)}`, {
      cause: error,
    });
  }
}

function main(): void {
  fs.writeFileSync(path.join(process.cwd(), SPEC_TYPES_MODULE), specTypesModule());
  console.log(`wrote ${SPEC_TYPES_MODULE}`);
  const kubectl = process.env.KUBECTL ?? 'kubectl';
  const documents = Object.fromEntries(writtenApiVersions().map((version) => [version, openApi(kubectl, version)]));
  const embedded = embeddedSchemas(Object.values(documents));
  fs.writeFileSync(path.join(process.cwd(), CRD_FILE), crdFileText(webServiceCrd(({ at }) => embedded[at])));
  console.log(`wrote ${CRD_FILE}, with ${Object.keys(embedded).length} embedded Kubernetes types`);

  const table = keyedLists(Object.values(documents), WRITTEN_KINDS);
  fs.writeFileSync(path.join(process.cwd(), LIST_KEYS_MODULE), listKeysModule(table));
  const count = Object.values(table).reduce((sum, lists) => sum + Object.keys(lists).length, 0);
  console.log(`wrote ${count} keyed lists of ${WRITTEN_KINDS.length} kinds into ${LIST_KEYS_MODULE}`);
}

main();

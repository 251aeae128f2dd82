// Usage: npm run crd:generate     (needs kubectl and a cluster: the test control plane will do)
//
// Writes the schemas of spec.workload's pod fields into crds/webservices.apps.labhub.io.yaml,
// taken from the API server's OpenAPI (see schema.ts). Everything else in the file, comments
// included, stays as written by hand. A test checks the file against a live API server's
// OpenAPI, so a change of Kubernetes' types shows up as a failing test, not as drift.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDocument } from 'yaml';
import { OpenApiDocument, fieldPath, workloadFieldSchemas } from './schema';

const CRD_FILE = path.join(process.cwd(), 'crds', 'webservices.apps.labhub.io.yaml');

function openApi(kubectl: string, groupVersion: string): OpenApiDocument {
  return JSON.parse(
    execFileSync(kubectl, ['get', '--raw', `/openapi/v3/${groupVersion}`], { encoding: 'utf8', maxBuffer: 64 << 20 }),
  ) as OpenApiDocument;
}

function main(): void {
  const kubectl = process.env.KUBECTL ?? 'kubectl';
  const fields = workloadFieldSchemas([openApi(kubectl, 'api/v1'), openApi(kubectl, 'apis/apps/v1')]);
  const document = parseDocument(fs.readFileSync(CRD_FILE, 'utf8'));
  for (const [name, schema] of Object.entries(fields)) {
    document.setIn(fieldPath(name), document.createNode(schema, { aliasDuplicateObjects: false }));
  }
  fs.writeFileSync(CRD_FILE, document.toString({ lineWidth: 120, flowCollectionPadding: false }));
  console.log(`wrote ${Object.keys(fields).length} field schemas into ${path.relative(process.cwd(), CRD_FILE)}`);
}

main();

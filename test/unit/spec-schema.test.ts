// The CRD in crds/ and the spec's types are generated (npm run crd:generate) from the
// WebService's schema in src/core/spec-schema.ts: it fails here when one changed without the
// other. The Kubernetes types the CRD embeds are taken from the committed file;
// test/integration/crd-schema.test.ts checks them against a live API server's OpenAPI.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { SPEC_TYPES_MODULE, specTypesModule } from '../../harness/crd/spec-types';
import { CRD_FILE, crdFileText, embeddedIn, webServiceCrd } from '../../harness/crd/webservice-crd';
import type { Json } from '../../src/core/model';

const ROOT = path.join(__dirname, '../..');

describe('the committed CRD', () => {
  const committed = fs.readFileSync(path.join(ROOT, CRD_FILE), 'utf8');

  it('is what npm run crd:generate makes of the schema source', () => {
    const generated = crdFileText(webServiceCrd(embeddedIn(parse(committed) as Json)));
    expect(committed).toEqual(generated);
  });
});

describe("the committed spec's types", () => {
  it('are what npm run crd:generate makes of the schema source', () => {
    expect(fs.readFileSync(path.join(ROOT, SPEC_TYPES_MODULE), 'utf8')).toEqual(specTypesModule());
  });
});

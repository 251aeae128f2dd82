// The CRD in crds/ and the spec's types are generated (npm run crd:generate) from the
// WebService's schema in src/core/spec-schema.ts: it fails here when one changed without the
// other. The Kubernetes types the CRD embeds are taken from the committed file;
// test/integration/crd-schema.test.ts checks them against a live API server's OpenAPI.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { shapeOfSchema } from '../../harness/crd/schema';
import { SPEC_TYPES_MODULE, specTypesModule } from '../../harness/crd/spec-types';
import { CRD_FILE, crdFileText, embeddedIn, webServiceCrd } from '../../harness/crd/webservice-crd';
import type { Json } from '../../src/core/model';
import { SchemaNode, embeddedFields, isEmbedded, ownSchema } from '../../src/core/spec-schema';
import { parseSyncInput } from '../../src/core/validate';

const ROOT = path.join(__dirname, '../..');

describe('the committed CRD', () => {
  const committed = fs.readFileSync(path.join(ROOT, CRD_FILE), 'utf8');

  it('is what npm run crd:generate makes of the schema source', () => {
    const generated = crdFileText(webServiceCrd(embeddedIn(parse(committed) as Json)));
    expect(committed).toEqual(generated);
  });

  it('fits in the annotation where client-side kubectl apply keeps what it applied (256 KiB)', () => {
    // The API server takes at most 256 KiB of annotations per object; `kubectl apply -f` (not
    // --server-side) stores the whole CRD, as JSON, in this one.
    const lastApplied = `${JSON.stringify(parse(committed))}\n`;
    const size = Buffer.byteLength('kubectl.kubernetes.io/last-applied-configuration') + Buffer.byteLength(lastApplied);
    expect(size).toBeLessThanOrEqual(256 * 1024);
  });

  it("embeds, at each marker, a Kubernetes type of the marker's shape", () => {
    const embedded = embeddedIn(parse(committed) as Json);
    const shapes = embeddedFields().map((field) => [field.at, shapeOfSchema(embedded(field))]);
    expect(shapes).toEqual(embeddedFields().map(({ at, marker }) => [at, marker.shape]));
  });
});

describe("the committed spec's types", () => {
  it('are what npm run crd:generate makes of the schema source', () => {
    expect(fs.readFileSync(path.join(ROOT, SPEC_TYPES_MODULE), 'utf8')).toEqual(specTypesModule());
  });
});

describe("a file's WebService is refused where the schema's shapes are not met", () => {
  const input = (workload: Json) => ({
    parent: { metadata: { name: 'shop', namespace: 'ns' }, spec: { image: 'nginx:1.27', workload } },
    children: [],
    related: [],
  });
  const notNumbers = (schema: SchemaNode) =>
    Object.entries(schema.properties ?? {})
      .filter(([, field]) => isEmbedded(field) || !(field.type === 'integer' || field['x-kubernetes-int-or-string']))
      .map(([key]) => key);
  const file = { mountPath: '/etc/app', configMap: 'app' };

  it.each(notNumbers(ownSchema('spec', 'workload')))('spec.workload.%s', (key) => {
    expect(() => parseSyncInput(input({ [key]: 7 }))).toThrow(new RegExp(`spec\\.workload\\.${key} must `));
  });

  const files = ownSchema('spec', 'workload', 'files').items as SchemaNode;
  it.each(notNumbers(files))('spec.workload.files[].%s', (key) => {
    expect(() => parseSyncInput(input({ files: [{ ...file, [key]: 7 }] }))).toThrow(
      new RegExp(`spec\\.workload\\.files\\[0\\]\\.${key} must `),
    );
  });

  it('and taken where they are', () => {
    expect(() =>
      parseSyncInput(input({ files: [{ ...file, optional: true, items: [{ key: 'a', path: 'a' }] }] })),
    ).not.toThrow();
  });
});

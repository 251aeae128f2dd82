// The lists the comparison matches item by item, and their keys, are what the generator makes
// from this API server's OpenAPI, so a change of either shows up here, as crd-schema.test.ts
// does for the CRD. The kinds served only where their API is installed (HTTPRoute) are checked
// where their CRDs are: exposure.test.ts installs the Gateway API, and no other file may touch it.
import { WRITTEN_KINDS } from '../../harness/crd/list-keys';
import { OPTIONAL_KINDS } from '../../src/core/kinds';
import { KEYED_LISTS } from '../../src/core/list-keys.generated';
import { typeName } from '../../src/core/list-keys';
import { expectKeyedListsOfServer } from '../support/keyed-lists';

const optional = (kind: { apiVersion: string; kind: string }) =>
  OPTIONAL_KINDS.some((row) => row.apiVersion === kind.apiVersion && row.kind === kind.kind);

describe('the keyed lists of the kinds we write', () => {
  it("are this API server's (npm run crd:generate writes them)", () => {
    expect(Object.keys(KEYED_LISTS)).toEqual(WRITTEN_KINDS.map((kind) => typeName(kind.apiVersion, kind.kind)));
    expectKeyedListsOfServer(WRITTEN_KINDS.filter((kind) => !optional(kind)));
    expect(KEYED_LISTS['v1 Service']['spec.ports']).toEqual({
      keys: ['port', 'protocol'],
      defaults: { port: 0, protocol: 'TCP' },
    });
  });
});

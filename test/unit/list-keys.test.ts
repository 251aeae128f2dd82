// The keyed lists the comparison reads, from the table generated from the API server's OpenAPI
// (harness/crd/list-keys.ts): every kind we write has its row, and keys belong to a place in a
// kind, with the OpenAPI's defaults.
import { CHILD_KINDS } from '../../src/core/kinds';
import { KEYED_LISTS } from '../../src/core/list-keys.generated';
import { keyedListsOf, listKey, typeName } from '../../src/core/list-keys';

describe('the generated table', () => {
  it('names every kind of child we write, so no kind has its lists compared whole by omission', () => {
    const kinds = new Set(CHILD_KINDS.map((row) => typeName(row.apiVersion, row.kind)));
    expect(Object.keys(KEYED_LISTS).sort()).toEqual([...kinds].sort());
    for (const row of CHILD_KINDS) expect(keyedListsOf(row)).toHaveProperty(['metadata.ownerReferences']);
  });

  it("has a Service's ports keyed by port and protocol, a container's by containerPort and protocol, TCP by default", () => {
    const service = keyedListsOf({ apiVersion: 'v1', kind: 'Service' });
    const deployment = keyedListsOf({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(service['spec.ports']).toMatchObject({ keys: ['port', 'protocol'], defaults: { protocol: 'TCP' } });
    expect(deployment['spec.template.spec.containers[].ports']).toMatchObject({
      keys: ['containerPort', 'protocol'],
      defaults: { protocol: 'TCP' },
    });
    expect(listKey(deployment, 'spec.ports')).toBeUndefined();
  });
});

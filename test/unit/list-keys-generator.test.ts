// What npm run crd:generate reads of the API server's OpenAPI for the keyed lists (list types,
// merge keys, defaults, from each kind's root down), and that the committed table is in the form
// it writes. That the table matches a live API server's OpenAPI is checked against the test
// plane (test/integration/list-keys.test.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KEYED_LISTS } from '../../src/core/list-keys.generated';
import { listKey } from '../../src/core/list-keys';
import { LIST_KEYS_MODULE, keyedLists, listKeysModule } from '../../harness/crd/list-keys';
import type { OpenApiDocument } from '../../harness/crd/schema';

const ref = (type: string) => ({ $ref: `#/components/schemas/${type}` });

/** A small OpenAPI: a kind Widget whose spec holds lists of each sort. */
function openApi(protocolDefault = 'SCTP'): OpenApiDocument {
  return {
    components: {
      schemas: {
        Widget: {
          'x-kubernetes-group-version-kind': [{ group: 'example.io', version: 'v1', kind: 'Widget' }],
          properties: {
            spec: { allOf: [ref('WidgetSpec')], default: {} },
            status: { properties: { ports: portsList() } },
          },
        },
        WidgetSpec: {
          properties: {
            ports: portsList(),
            byMergeKey: {
              type: 'array',
              items: ref('Named'),
              'x-kubernetes-patch-merge-key': 'name',
              'x-kubernetes-patch-strategy': 'merge',
            },
            mergeKeyNoStrategy: { type: 'array', items: ref('Named'), 'x-kubernetes-patch-merge-key': 'name' },
            atomic: {
              type: 'array',
              items: ref('Named'),
              'x-kubernetes-list-type': 'atomic',
              'x-kubernetes-patch-merge-key': 'name',
              'x-kubernetes-patch-strategy': 'merge',
            },
            set: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
        Port: {
          required: ['port'],
          properties: {
            port: { type: 'integer', default: 0 },
            protocol: { type: 'string', default: protocolDefault },
            nested: {
              type: 'array',
              items: ref('Named'),
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
            },
          },
        },
        Named: { properties: { name: { type: 'string' } } },
      },
    },
  };
}

function portsList() {
  return {
    type: 'array',
    items: ref('Port'),
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['port', 'protocol'],
    'x-kubernetes-patch-merge-key': 'port',
    'x-kubernetes-patch-strategy': 'merge',
  };
}

const WIDGET = [{ apiVersion: 'example.io/v1', kind: 'Widget' }];

describe('keyedLists', () => {
  it('reads the keys of each list as server-side apply does, with the defaults of the key fields', () => {
    expect(keyedLists([openApi()], WIDGET)).toEqual({
      'example.io/v1 Widget': {
        'spec.byMergeKey': { keys: ['name'] },
        'spec.ports': { keys: ['port', 'protocol'], defaults: { port: 0, protocol: 'SCTP' } },
        'spec.ports[].nested': { keys: ['name'] },
      },
    });
  });

  it("takes a key field's default from the OpenAPI: an unset protocol is what it says", () => {
    const lists = keyedLists([openApi('UDP')], WIDGET)['example.io/v1 Widget'];
    expect(listKey(lists, 'spec.ports')?.({ port: 53 })).toBe('53/UDP');
    expect(listKey(lists, 'spec.ports')?.({ port: 53, protocol: 'TCP' })).toBe('53/TCP');
    expect(listKey(lists, 'spec.set')).toBeUndefined();
  });

  it('says what it cannot read: a kind the OpenAPI lacks, a keyed list in a map, a key field the items lack', () => {
    expect(() => keyedLists([openApi()], [{ apiVersion: 'v1', kind: 'Gadget' }])).toThrow(
      'the OpenAPI has no v1 Gadget: is its API installed?',
    );
    const inMap = openApi();
    (inMap.components!.schemas!.WidgetSpec.properties as Record<string, unknown>).byName = {
      type: 'object',
      additionalProperties: ref('Port'),
    };
    expect(() => keyedLists([inMap], WIDGET)).toThrow('a keyed list within the map at spec.byName');
    const noKey = openApi();
    (noKey.components!.schemas!.WidgetSpec.properties as Record<string, unknown>).byUid = {
      type: 'array',
      items: ref('Named'),
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
    };
    expect(() => keyedLists([noKey], WIDGET)).toThrow('the items of spec.byUid have no key field uid');
  });
});

describe('the generated table', () => {
  it('is in the form the generator writes (npm run crd:generate writes it; never edit it by hand)', () => {
    const text = fs.readFileSync(path.join(__dirname, '../..', LIST_KEYS_MODULE), 'utf8');
    expect(text).toBe(listKeysModule(KEYED_LISTS));
  });
});

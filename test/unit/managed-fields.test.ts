import { ManagedFieldsStripper, withoutManagedFields } from '../../src/kube/managed-fields';

/** What dropping managedFields after parsing would give: the reference. */
function parsedThenDropped(text: string): unknown {
  const value = JSON.parse(text);
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if ((record.metadata as Record<string, unknown> | undefined)?.managedFields)
        delete (record.metadata as Record<string, unknown>).managedFields;
      Object.values(record).forEach(visit);
    }
  };
  visit(value);
  return value;
}

const strip = (text: string) => JSON.parse(withoutManagedFields(Buffer.from(text)).toString('utf8'));

const managedFields = [
  {
    manager: 'kubectl-webservice',
    operation: 'Update',
    fieldsType: 'FieldsV1',
    // Keys with brackets, braces, escaped quotes and backslashes, as fieldsV1 has them.
    fieldsV1: {
      'f:metadata': { 'f:finalizers': { '.': {}, 'v:"webservice.labhub.io/cleanup"': {} } },
      'k:{"uid":"]}[{"}': {},
      'v:"a\\\\"': {},
    },
  },
  {
    manager: 'kubectl-create',
    operation: 'Update',
    fieldsV1: { 'f:spec': { 'f:args': { 'v:"]"': {}, 'v:"["': {} } } },
  },
];

function item(name: string, position: 'first' | 'middle' | 'last' | 'only'): Record<string, unknown> {
  const before = {
    name,
    namespace: 'ns',
    annotations: { note: '"managedFields":[1,2] in a value, [ and ] and \\" too' },
  };
  const metadata =
    position === 'first'
      ? { managedFields, ...before }
      : position === 'last'
        ? { ...before, managedFields }
        : position === 'only'
          ? { managedFields }
          : { name, managedFields, namespace: 'ns' };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata,
    data: { managedFields: '[1]', tricky: '{"managedFields":[]}' },
  };
}

it('removes the member wherever it sits in metadata, and nothing else', () => {
  const list = JSON.stringify({
    kind: 'ConfigMapList',
    metadata: { resourceVersion: '42' },
    items: (['first', 'middle', 'last', 'only'] as const).map((position) => item(position, position)),
  });
  const stripped = strip(list);
  expect(stripped).toEqual(parsedThenDropped(list));
  expect(JSON.stringify(stripped)).not.toMatch(/"manager"/);
  // The data that merely mentions it is untouched.
  expect(stripped.items[0].data).toEqual({ managedFields: '[1]', tricky: '{"managedFields":[]}' });
});

it('returns the very same buffer when there is nothing to remove', () => {
  const body = Buffer.from(JSON.stringify({ items: [{ metadata: { name: 'a' } }] }));
  expect(withoutManagedFields(body)).toBe(body);
});

it('leaves a key that merely ends in managedFields alone (an escaped quote before it)', () => {
  const text = JSON.stringify({ metadata: { name: 'a' }, spec: { 'x"managedFields': [1, 2] } });
  expect(strip(text)).toEqual(JSON.parse(text));
});

it('leaves pretty-printed JSON as it is (parsing stays correct, only slower)', () => {
  const text = JSON.stringify({ metadata: { name: 'a', managedFields } }, null, 2);
  expect(withoutManagedFields(Buffer.from(text)).toString('utf8')).toBe(text);
});

it('leaves a truncated body as it was, for JSON.parse to report', () => {
  const text = JSON.stringify({ metadata: { name: 'a', managedFields } }).slice(0, 80);
  expect(withoutManagedFields(Buffer.from(text)).toString('utf8')).toBe(text);
});

it('keeps multi-byte characters intact', () => {
  const text = JSON.stringify({ items: [{ metadata: { name: 'ä', managedFields, labels: { é: 'ü' } } }] });
  expect(strip(text)).toEqual(parsedThenDropped(text));
});

describe('a body that arrives in chunks', () => {
  /** The body cut at these offsets, through one stripper. */
  const streamed = (body: Buffer, cuts: number[]): Buffer => {
    const stripper = new ManagedFieldsStripper();
    const kept: Buffer[] = [];
    let from = 0;
    for (const cut of [...cuts, body.length]) {
      kept.push(...stripper.push(body.subarray(from, cut)));
      from = cut;
    }
    return Buffer.concat([...kept, ...stripper.end()]);
  };
  const lists = [
    JSON.stringify({
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '42' },
      items: (['first', 'middle', 'last', 'only'] as const).map((position) => item(position, position)),
    }),
    JSON.stringify({ metadata: { name: 'a' }, spec: { 'x"managedFields': [1, 2] } }),
    JSON.stringify({ items: [{ metadata: { name: 'ä', managedFields, labels: { é: 'ü' } } }] }),
  ];

  it('keeps what the whole body keeps, wherever the chunks are cut (every single cut)', () => {
    for (const text of lists) {
      const body = Buffer.from(text);
      const whole = withoutManagedFields(body);
      const differ = Array.from({ length: body.length + 1 }, (_, cut) => cut).filter(
        (cut) => !streamed(body, [cut]).equals(whole),
      );
      expect(differ).toEqual([]);
    }
  });

  it('keeps what the whole body keeps, a byte at a time and in random chunks', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const text of lists) {
      const body = Buffer.from(text);
      const whole = withoutManagedFields(body);
      expect(JSON.parse(whole.toString('utf8'))).toEqual(parsedThenDropped(text));
      expect(
        streamed(
          body,
          Array.from({ length: body.length - 1 }, (_, i) => i + 1),
        ),
      ).toEqual(whole);
      const differ: number[][] = [];
      for (let trial = 0; trial < 200; trial++) {
        const cuts = Array.from({ length: 1 + Math.floor(random() * 8) }, () => Math.floor(random() * body.length));
        const sorted = [...new Set(cuts)].sort((a, b) => a - b);
        if (!streamed(body, sorted).equals(whole)) differ.push(sorted);
      }
      expect(differ).toEqual([]);
    }
  });

  it('holds back no more than a member still open and the bytes that may begin one', () => {
    const stripper = new ManagedFieldsStripper();
    const text = JSON.stringify({ items: [{ metadata: { name: 'a', managedFields }, data: { k: 'v'.repeat(1000) } }] });
    const openMember = text.indexOf('"managedFields"') + 30;
    const passed = Buffer.concat(stripper.push(Buffer.from(text.slice(0, openMember))));
    // Everything before the member's comma is passed on at once.
    expect(passed.toString('utf8')).toBe(text.slice(0, text.indexOf(',"managedFields"')));
  });
});

// Pure pieces of the CLI: tables, colour rules, durations, input validation.
import { parseDuration } from '../../src/cli/duration';
import { observe } from '../../src/core/observe';
import { InputError, isValidName, isValidNamespace, parseDecision, parseSyncInput } from '../../src/core/validate';
import { COUNTER_MIN_ITEMS, age, createPrinter, formatTable, wantsColor } from '../../src/print/output';

describe('formatTable', () => {
  it('pads columns with three spaces like kubectl, uppercase headers, no trailing blanks', () => {
    const table = formatTable(
      ['name', 'action'],
      [
        [{ text: 'checkout' }, { text: 'noop' }],
        [{ text: 'search' }, { text: 'create' }],
      ],
    );
    expect(table).toBe('NAME       ACTION\ncheckout   noop\nsearch     create\n');
  });

  it('applies styles after padding so colour does not break alignment', () => {
    const table = formatTable(['a', 'b'], [[{ text: 'x', style: (s) => `<${s}>` }, { text: 'y' }]]);
    expect(table.split('\n')[1]).toBe('<x   >y');
  });
});

describe('wantsColor', () => {
  it('only on a TTY, never with NO_COLOR or --no-color', () => {
    expect(wantsColor(true, { isTTY: true }, {})).toBe(true);
    expect(wantsColor(true, { isTTY: false }, {})).toBe(false);
    expect(wantsColor(true, { isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor(false, { isTTY: true }, {})).toBe(false);
  });
});

describe('age', () => {
  it('prints kubectl-style ages', () => {
    const now = new Date('2026-11-29T12:00:00Z');
    expect(age('2026-11-29T11:59:15Z', now)).toBe('45s');
    expect(age('2026-11-29T11:00:00Z', now)).toBe('60m');
    expect(age('2026-11-29T02:00:00Z', now)).toBe('10h');
    expect(age('2026-11-20T12:00:00Z', now)).toBe('9d');
  });
});

describe('parseDuration', () => {
  it('reads seconds, units and compounds', () => {
    expect(parseDuration('90', '--wait')).toBe(90);
    expect(parseDuration('2m', '--wait')).toBe(120);
    expect(parseDuration('1m30s', '--wait')).toBe(90);
    expect(parseDuration('500ms', '--wait')).toBe(0.5);
  });

  it('refuses nonsense with the flag name', () => {
    expect(() => parseDuration('soon', '--wait')).toThrow('invalid duration for --wait: "soon"');
    expect(() => parseDuration('0s', '--wait')).toThrow('--wait must be longer than zero');
  });
});

describe('input validation', () => {
  const parent = { metadata: { name: 'checkout', namespace: 'ns', uid: 'u' }, spec: { image: 'nginx:1.27' } };

  it('accepts raw objects and fills defaults in desired', () => {
    const obs = observe(parseSyncInput({ parent }));
    expect(obs.desired).toEqual({ image: 'nginx:1.27', replicas: 1, tier: 'dev' });
    expect(obs.actual).toEqual({});
    expect(obs.children.ConfigMap).toBeNull();
  });

  it('names the field that is wrong', () => {
    expect(() => parseSyncInput({ parent: { ...parent, spec: { image: 5 } } })).toThrow(
      'parent.spec.image must be a non-empty string',
    );
    expect(() => parseSyncInput({ parent, children: [{ metadata: { name: 'x' }, data: { a: 1 } }] })).toThrow(
      'children[0].data must map strings to strings',
    );
    expect(() => parseSyncInput([])).toThrow(InputError);
  });

  it('refuses names and namespaces that could escape a URL path', () => {
    expect(isValidName('checkout')).toBe(true);
    expect(isValidName('web.v2')).toBe(true);
    for (const bad of ['a/status', '../x', 'Checkout', 'a b', '', 'x'.repeat(254)])
      expect(isValidName(bad)).toBe(false);
    expect(isValidNamespace('crd-lab')).toBe(true);
    for (const bad of ['bad ns', 'a.b', 'x'.repeat(64)]) expect(isValidNamespace(bad)).toBe(false);
    expect(() => parseDecision({ namespace: 'n', name: 'x/status', action: 'noop', ops: [] })).toThrow(
      'invalid decision.name "x/status"',
    );
  });

  it('refuses decisions with unknown ops', () => {
    expect(() => parseDecision({ namespace: 'n', name: 'x', action: 'noop', ops: [{ op: 'rm -rf' }] })).toThrow(
      'decision.ops[0].op must be one of',
    );
    expect(() => parseDecision({ namespace: 'n', name: 'x', action: 'explode', ops: [] })).toThrow('decision.action');
  });
});

describe('counter (progress on stderr)', () => {
  const stream = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { chunks, isTTY, write: (chunk: string) => chunks.push(chunk) > 0 } as unknown as NodeJS.WriteStream & {
      chunks: string[];
    };
  };
  const printer = (format: 'table' | 'json', isTTY: boolean, env: NodeJS.ProcessEnv = {}, colorFlag = true) => {
    const stderr = stream(isTTY);
    return { stderr, out: createPrinter({ format, colorFlag, stdout: stream(isTTY), stderr, env }) };
  };

  it('rewrites one line in place on a terminal, ends on the total and clears it', () => {
    const { out, stderr } = printer('table', true);
    const counter = out.counter('reconciled', 12);
    for (let i = 0; i < 12; i++) counter.tick();
    counter.done();
    const text = stderr.chunks.join('');
    expect(text.startsWith('\r\u001b[2Kreconciled 0/12')).toBe(true);
    expect(text).toContain('\r\u001b[2Kreconciled 12/12');
    expect(text.endsWith('\r\u001b[2K')).toBe(true);
    expect(text).not.toContain('\n');
  });

  it('clears itself before a note, so notes never share its line', () => {
    const { out, stderr } = printer('table', true);
    out.counter('reconciled', 20);
    out.error('webservice ns/x: boom');
    expect(stderr.chunks.join('')).toBe('\r\u001b[2Kreconciled 0/20\r\u001b[2Kerror: webservice ns/x: boom\n');
  });

  it('never off a terminal, with -o json, with NO_COLOR or --no-color, or for a few items', () => {
    const silent = [
      printer('table', false),
      printer('json', true),
      printer('table', true, { NO_COLOR: '1' }),
      printer('table', true, {}, false),
    ];
    for (const { out, stderr } of silent) {
      const counter = out.counter('reconciled', 50);
      counter.tick();
      counter.done();
      expect(stderr.chunks).toEqual([]);
    }
    const { out, stderr } = printer('table', true);
    out.counter('reconciled', COUNTER_MIN_ITEMS - 1).done();
    expect(stderr.chunks).toEqual([]);
  });
});

describe('tableStream (status -w)', () => {
  it('prints the header with the first rows, then rows in the same widths', () => {
    const chunks: string[] = [];
    const stdout = { isTTY: false, write: (c: string) => chunks.push(c) > 0 } as unknown as NodeJS.WriteStream;
    const out = createPrinter({ format: 'table', colorFlag: false, stdout, stderr: stdout, env: {} });
    const table = out.tableStream(['name', 'ready']);
    table.rows([]);
    expect(chunks).toEqual([]);
    table.rows([[{ text: 'checkout' }, { text: 'False' }]]);
    table.rows([[{ text: 'web' }, { text: 'True' }]]);
    expect(chunks.join('')).toBe('NAME       READY\ncheckout   False\nweb        True\n');
  });

  it('keeps every line under a header of its widths: a wider cell widens its column and the header comes again', () => {
    const chunks: string[] = [];
    const stdout = { isTTY: false, write: (c: string) => chunks.push(c) > 0 } as unknown as NodeJS.WriteStream;
    const out = createPrinter({ format: 'table', colorFlag: false, stdout, stderr: stdout, env: {} });
    const table = out.tableStream(['name', 'reason', 'age', 'message'], { reason: 'ProgressDeadlineExceeded'.length });
    const row = (reason: string, message = '') => [
      { text: 'web' },
      { text: reason },
      { text: '5s' },
      { text: message },
    ];
    table.rows([row('Reconciled')]);
    // Within the reserved width, and a longer last column (it is not padded): the same columns.
    table.rows([row('ProgressDeadlineExceeded', 'a message longer than its header')]);
    table.rows([row('SomeoneElsesReasonThatIsLonger')]);
    table.rows([row('Reconciled')]);
    expect(chunks.join('')).toBe(
      [
        'NAME   REASON                     AGE   MESSAGE',
        'web    Reconciled                 5s',
        'web    ProgressDeadlineExceeded   5s    a message longer than its header',
        'NAME   REASON                           AGE   MESSAGE',
        'web    SomeoneElsesReasonThatIsLonger   5s',
        'web    Reconciled                       5s',
        '',
      ].join('\n'),
    );
  });
});

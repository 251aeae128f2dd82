// kubectl's -o jsonpath and -o custom-columns, and the usage errors in kubectl's words.
import { commandWord, kubectlUsageMessage, unknownCommand } from '../../src/cli/usage';
import { customColumns, renderJsonPath } from '../../src/print/jsonpath';
import { parseOutput } from '../../src/print/output';

const list = {
  items: [
    { name: 'a', action: 'create' },
    { name: 'b', action: 'noop', after_seconds: 5 },
  ],
};

describe('jsonpath', () => {
  it('prints a path, several values space-separated, and literal text', () => {
    expect(renderJsonPath('{.items[*].name}', list)).toBe('a b');
    expect(renderJsonPath('names: {.items[0].name}{"\\n"}', list)).toBe('names: a\n');
  });

  it('renders a range body once per value', () => {
    expect(renderJsonPath('{range .items[*]}{.name}={.action}{"\\n"}{end}', list)).toBe('a=create\nb=noop\n');
  });

  it('prints nothing for a path that finds nothing, and objects as JSON', () => {
    expect(renderJsonPath('{.items[*].missing}', list)).toBe('');
    expect(renderJsonPath('{.items[1]}', list)).toBe('{"name":"b","action":"noop","after_seconds":5}');
  });

  it('refuses what it cannot read, in one line', () => {
    expect(() => renderJsonPath('{.items', list)).toThrow('jsonpath: unclosed "{"');
    expect(() => renderJsonPath('{range .items[*]}{.name}', list)).toThrow('{range} without {end}');
    expect(() => renderJsonPath('{items}', list)).toThrow('must start with "."');
  });
});

describe('custom-columns', () => {
  it('a header per column, a row per item, <none> where a path finds nothing', () => {
    expect(customColumns('NAME:.name,AFTER:{.after_seconds}', list.items)).toEqual({
      headers: ['NAME', 'AFTER'],
      rows: [
        ['a', '<none>'],
        ['b', '5'],
      ],
    });
  });

  it('refuses a column without NAME:', () => {
    expect(() => customColumns('.name', list.items)).toThrow('custom-columns: ".name" is not NAME:.path');
  });
});

describe('parseOutput', () => {
  it('takes the formats and the two templates', () => {
    expect(parseOutput('yaml')).toEqual({ format: 'yaml' });
    expect(parseOutput('jsonpath={.name}')).toEqual({ format: 'jsonpath', template: '{.name}' });
    expect(parseOutput('custom-columns=N:.name')).toEqual({ format: 'custom-columns', template: 'N:.name' });
  });

  it("refuses anything else in kubectl's words", () => {
    expect(() => parseOutput('yml')).toThrow(
      'unable to match a printer suitable for the output format "yml", allowed formats are: wide,json,yaml,name,jsonpath,custom-columns',
    );
  });
});

describe('usage', () => {
  it('finds the command past global flags and their values', () => {
    expect(commandWord(['-n', 'crd-lab', '--context=x', 'plan', 'a'])).toBe('plan');
    expect(commandWord(['-o', 'json'])).toBeUndefined();
  });

  it('suggests a command within two edits', () => {
    expect(unknownCommand('aply', ['apply', 'plan'])).toBe(
      'error: unknown command "aply" for "kubectl webservice"\n\nDid you mean this?\n\tapply\n',
    );
    expect(unknownCommand('zzz', ['apply'])).toBe('error: unknown command "zzz" for "kubectl webservice"\n');
  });

  it('names an unknown flag as typed', () => {
    expect(kubectlUsageMessage('Unknown argument: frob', ['plan', '--frob'])).toBe('unknown flag: --frob');
    expect(kubectlUsageMessage('Unknown arguments: x, y', ['plan', 'a', 'x'])).toBe('unexpected argument "x"');
    expect(kubectlUsageMessage('Not enough arguments', ['plan'])).toBeNull();
  });
});

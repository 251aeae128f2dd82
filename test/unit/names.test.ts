// Long names: every name the CRD accepts must give a child the API server accepts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { MAX_LABEL_VALUE, MAX_NAME_LENGTH, childName, instanceLabelValue } from '../../src/core/model';
import { isValidName } from '../../src/core/validate';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const nameOf = (length: number, prefix = 'web-') => `${prefix}${'x'.repeat(length - prefix.length)}`;

describe('instanceLabelValue', () => {
  it('is the name itself up to 63 characters', () => {
    expect(instanceLabelValue(nameOf(63))).toBe(nameOf(63));
    expect(instanceLabelValue('checkout')).toBe('checkout');
  });

  it.each([64, 100, 200, MAX_NAME_LENGTH])('fits a label value for a %i-character name', (length) => {
    const value = instanceLabelValue(nameOf(length));
    expect(value).toHaveLength(MAX_LABEL_VALUE);
    expect(value).toMatch(LABEL_VALUE);
    expect(value.startsWith(nameOf(length).slice(0, 54))).toBe(true);
  });

  it('is deterministic, and differs for names that share their first 63 characters', () => {
    const a = `${nameOf(63)}-a`;
    const b = `${nameOf(63)}-b`;
    expect(instanceLabelValue(a)).toBe(instanceLabelValue(a));
    expect(instanceLabelValue(a)).not.toBe(instanceLabelValue(b));
  });

  it('stays a valid label value when the cut falls on a dot or a dash', () => {
    const dotted = `${'a'.repeat(53)}.b${'c'.repeat(20)}`;
    const dashed = `${'a'.repeat(53)}-b${'c'.repeat(20)}`;
    expect(instanceLabelValue(dotted)).toMatch(LABEL_VALUE);
    expect(instanceLabelValue(dashed)).toMatch(LABEL_VALUE);
  });
});

describe('the longest accepted name', () => {
  it('is 245: its child <name>-desired is exactly 253 characters, a valid object name', () => {
    expect(MAX_NAME_LENGTH).toBe(245);
    expect(childName(nameOf(MAX_NAME_LENGTH))).toHaveLength(253);
    expect(isValidName(childName(nameOf(MAX_NAME_LENGTH)))).toBe(true);
    expect(isValidName(childName(nameOf(MAX_NAME_LENGTH + 1)))).toBe(false);
  });

  it('is the limit the CRD enforces at admission', () => {
    const crd = yaml.load(
      fs.readFileSync(path.join(__dirname, '../../crds/webservices.apps.labhub.io.yaml'), 'utf8'),
    ) as { spec: { versions: { schema: { openAPIV3Schema: { 'x-kubernetes-validations': { rule: string }[] } } }[] } };
    const rules = crd.spec.versions[0].schema.openAPIV3Schema['x-kubernetes-validations'].map((v) => v.rule);
    expect(rules).toContain(`size(self.metadata.name) <= ${MAX_NAME_LENGTH}`);
  });
});

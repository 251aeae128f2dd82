// The rules npm run rbac:generate writes: each file holds what the kind table makes now, made
// anew between its markers, the rest of the file kept.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GENERATED_FILES, regenerate } from './rules';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('the rules made from the kind table', () => {
  it.each(Object.keys(GENERATED_FILES))('in %s are what the table makes now (npm run rbac:generate)', (file) => {
    const text = read(file);
    expect(regenerate(file, text)).toBe(text);
  });

  it('are made anew between the markers, and the rest of the file is kept', () => {
    const file = 'deploy/10-rbac.yaml';
    const text = read(file);
    const stale = text
      .replace('resources: ["controllerrevisions"]', 'resources: ["statefulsets"]')
      .replace('kind: ServiceAccount', 'kind: ServiceAccount # by hand');
    expect(regenerate(file, stale)).toBe(text.replace('kind: ServiceAccount', 'kind: ServiceAccount # by hand'));
    expect(() => regenerate(file, 'rules: []\n')).toThrow(/has no region of generated rules/);
    expect(() => regenerate('deploy/20-deployment.yaml', text)).toThrow(/holds no generated rules/);
  });
});

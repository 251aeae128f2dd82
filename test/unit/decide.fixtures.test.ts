// jq-style triples for the core: each folder under test/fixtures/decide holds the raw
// objects (input.json) and the decision they must produce (decision.json).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decide } from '../../src/core/decide';
import { observe } from '../../src/core/observe';
import { parseSyncInput } from '../../src/core/validate';

const FIXTURES = path.join(__dirname, '../fixtures/decide');
const cases = fs.readdirSync(FIXTURES).sort();

function load(dir: string, file: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, dir, file), 'utf8'));
}

describe('decide on fixtures', () => {
  it('has fixtures for every action', () => {
    const actions = new Set(cases.map((c) => (load(c, 'decision.json') as { action: string }).action));
    expect([...actions].sort()).toEqual(['conflict', 'create', 'finalize', 'noop', 'requeue', 'update']);
  });

  it.each(cases)('%s', (name) => {
    const decision = decide(observe(parseSyncInput(load(name, 'input.json'))));
    expect(JSON.parse(JSON.stringify(decision))).toEqual(load(name, 'decision.json'));
  });

  it.each(cases)('%s is deterministic and leaves its input alone', (name) => {
    const input = parseSyncInput(load(name, 'input.json'));
    const before = JSON.stringify(input);
    expect(decide(observe(input))).toEqual(decide(observe(input)));
    expect(JSON.stringify(input)).toBe(before);
  });
});

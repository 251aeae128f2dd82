// The decide fixtures (test/fixtures/decide/NAME/input.json) as sync inputs, and the input of
// the pass after a decision, for tests that follow one pass with the next.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Decision } from '../../src/core/decide';
import { Child, SyncInput, kindOf } from '../../src/core/model';

export function decideFixture(name: string): SyncInput {
  const file = path.join(__dirname, '../fixtures/decide', name, 'input.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SyncInput;
}

/**
 * The input of the next pass once the decision's writes went through: a child applied is the
 * object last applied to it, with the live one's identity and status; a child created is the
 * object sent, with an identity of its own.
 */
export function afterApplies(input: SyncInput, decision: Decision): SyncInput {
  const written = new Map<string, Child>();
  for (const op of decision.ops) {
    if (op.op === 'applyChild' || op.op === 'createChild') {
      written.set(`${kindOf(op.object)}/${op.object.metadata.name}`, structuredClone(op.object));
    }
  }
  const children = input.children.map((child) => {
    const key = `${kindOf(child)}/${child.metadata.name}`;
    const object = written.get(key);
    written.delete(key);
    return object ? { ...child, ...object, metadata: { ...child.metadata, ...object.metadata } } : child;
  });
  for (const [key, object] of written) {
    children.push({ ...object, metadata: { ...object.metadata, uid: `${key}-uid`, resourceVersion: '1' } });
  }
  return { ...input, children };
}

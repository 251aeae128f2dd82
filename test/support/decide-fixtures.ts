// The decide fixtures (test/fixtures/decide/NAME/input.json) as sync inputs, and the decision
// the pure core makes for an input, as the shells call it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Decision, decide } from '../../src/core/decide';
import type { Deployment, SyncInput } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { parseSyncInput } from '../../src/core/validate';

export function decideFixture(name: string): SyncInput {
  const file = path.join(__dirname, '../fixtures/decide', name, 'input.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SyncInput;
}

/** What decide makes of a sync input, validated first as the shells validate it. */
export const decisionOf = (input: SyncInput): Decision => decide(observe(parseSyncInput(input)));

/** The Deployment a decision applies. */
export function appliedDeployment(decision: Decision): Deployment {
  const op = decision.ops.find((o) => o.op === 'applyChild' && o.kind === 'Deployment');
  if (op?.op !== 'applyChild') throw new Error(`no Deployment applied: ${decision.reason}`);
  return op.object;
}

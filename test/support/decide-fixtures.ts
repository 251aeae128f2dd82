// The decide fixtures (test/fixtures/decide/NAME/input.json) as sync inputs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SyncInput } from '../../src/core/model';

export function decideFixture(name: string): SyncInput {
  const file = path.join(__dirname, '../fixtures/decide', name, 'input.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SyncInput;
}

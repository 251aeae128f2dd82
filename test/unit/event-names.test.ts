// The Events of one reconcile go out in the same millisecond: their names must differ by more
// than chance. A 1000-WebService burst makes 3000 such pairs; with 16 random bits, one in
// twenty bursts had two Events of one name, and the second create was refused (409).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SyncInput } from '../../src/core/model';
import { reconcile } from '../../src/engine/reconcile';
import { FakeApi } from '../support/fake-api';

const NOW = '2026-12-02T14:05:09Z';

afterEach(() => jest.restoreAllMocks());

it('names the Events of one reconcile apart, even when their random part is the same', async () => {
  const start = JSON.parse(
    fs.readFileSync(path.join(__dirname, '../fixtures/decide/create-workload/input.json'), 'utf8'),
  ) as SyncInput;
  const client = new FakeApi({ webServices: [start.parent] });
  jest.spyOn(Math, 'random').mockReturnValue(0.5);
  await reconcile(client, start, { now: () => NOW, reportingInstance: 'test' });
  const names = client.writes.filter((w) => w.resource === 'events').map((w) => w.name);
  expect(names).toHaveLength(3);
  expect(new Set(names).size).toBe(3);
  for (const name of names) expect(name).toMatch(/^checkout\.[0-9a-f]+$/);
});

// A watch's stream, as the server cuts it: events split anywhere (inside a managedFields
// member, inside a multi-byte character) arrive whole and in order, each without its
// managedFields when asked, and each as soon as its newline is in: nothing waits for the
// next chunk, which on a quiet watch may be minutes away.
import * as http from 'node:http';
import type { WatchEvent } from '../../src/kube/transport';
import { useLocalServer } from '../support/local-transport';
import { until } from '../support/wait';

/** The open watch's response: the test writes the stream's bytes. */
let stream: Promise<http.ServerResponse>;
let answer: (res: http.ServerResponse) => void = () => undefined;
beforeEach(() => {
  stream = new Promise((resolve) => (answer = resolve));
});
const { transport } = useLocalServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.flushHeaders();
  answer(res);
});

const managedFields = [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:data': { 'f:k': {} } } }];
const event = (name: string, value: string) => ({
  type: 'MODIFIED',
  object: { metadata: { name, managedFields, labels: { a: 'b' } }, data: { k: value } },
});
const withoutFields = (e: ReturnType<typeof event>) => ({
  ...e,
  object: { ...e.object, metadata: { name: e.object.metadata.name, labels: { a: 'b' } } },
});

function watch(dropManagedFields: boolean) {
  const heard: WatchEvent<unknown>[] = [];
  const abort = new AbortController();
  const done = transport().watch(
    { method: 'GET', path: '/api/v1/configmaps', query: { watch: true }, what: 'configmaps', dropManagedFields },
    (e) => heard.push(e),
    { idleTimeoutMs: 10_000, signal: abort.signal },
  );
  return { heard, stop: () => abort.abort(), done };
}

it('delivers events cut anywhere whole, in order, without their managedFields', async () => {
  const events = ['é', 'ü€', 'plain', '𝄞'].map((value, i) => event(`cm-${i}`, value));
  const bytes = Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  const { heard, stop, done } = watch(true);
  const res = await stream;
  // Cut every 7 bytes: inside the member's name, its array, and the characters of 2 to 4 bytes.
  for (let at = 0; at < bytes.length; at += 7) {
    res.write(bytes.subarray(at, at + 7));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await until(() => heard.length === events.length);
  expect(heard).toEqual(events.map(withoutFields));
  stop();
  await done;
});

it('keeps managedFields when not asked to drop them', async () => {
  const { heard, stop, done } = watch(false);
  (await stream).write(`${JSON.stringify(event('cm', 'v'))}\n`);
  await until(() => heard.length === 1);
  expect(heard).toEqual([event('cm', 'v')]);
  stop();
  await done;
});

it('hands over each event as soon as its newline is in, with nothing after it', async () => {
  const { heard, stop, done } = watch(true);
  const res = await stream;
  // The stream stays open after the line: a quiet watch.
  res.write(`${JSON.stringify(event('first', 'v'))}\n`);
  await until(() => heard.length === 1);
  expect(heard).toEqual([withoutFields(event('first', 'v'))]);
  stop();
  await done;
});

// The interceptors around the client's requests (src/kube/send.ts): the dry runs, the write
// guard and the abort signal, each checked on what it passes on to the next sender.
import { abortOn } from '../../src/kube/abort-signal';
import { dryRun } from '../../src/kube/dry-run';
import type { ApiRequest, Send } from '../../src/kube/send';
import { guardWrites } from '../../src/kube/write-guard';

/** A sender that records what reaches it and answers { sent: true }. */
function recorder() {
  const sent: ApiRequest[] = [];
  const send: Send = <T>(req: ApiRequest) => {
    sent.push(req);
    return Promise.resolve({ sent: true } as T);
  };
  return { sent, send };
}

const READ: ApiRequest = { verb: 'read', resource: 'configmaps', method: 'GET', path: '/api/v1/configmaps', what: 'x' };
const PATCH: ApiRequest = {
  verb: 'patch',
  resource: 'configmaps',
  method: 'PATCH',
  path: '/api/v1/namespaces/ns/configmaps/x',
  query: { fieldManager: 'me' },
  body: { data: { a: '1' } },
  what: 'configmaps "x"',
};
const DELETE: ApiRequest = {
  verb: 'delete',
  resource: 'configmaps',
  method: 'DELETE',
  path: '/api/v1/namespaces/ns/configmaps/x',
  body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
  what: 'configmaps "x"',
};

describe('a client dry run', () => {
  it('sends no write, and answers what the server would have been sent', async () => {
    const { sent, send } = recorder();
    const dry = dryRun('client')(send);
    expect(await dry(PATCH)).toEqual({ data: { a: '1' } });
    expect(await dry(READ)).toEqual({ sent: true });
    expect(sent).toEqual([READ]);
  });
});

describe('a server dry run', () => {
  it('sends each write with dryRun=All (a DELETE in its body too), and reads as they are', async () => {
    const { sent, send } = recorder();
    const dry = dryRun('server')(send);
    await dry(READ);
    await dry(PATCH);
    await dry(DELETE);
    expect(sent[0]).toBe(READ);
    expect(sent[1].query).toEqual({ fieldManager: 'me', dryRun: 'All' });
    expect(sent[2].query).toEqual({ dryRun: 'All' });
    expect(sent[2].body).toMatchObject({ propagationPolicy: 'Background', dryRun: ['All'] });
  });
});

describe('the write guard', () => {
  it('refuses a write unsent, gates one it lets through, tells the observer; reads pass', async () => {
    const { sent, send } = recorder();
    let leading = false;
    const guard = () => {
      if (!leading) throw new Error('not the leader');
    };
    const observed: string[] = [];
    const guarded = guardWrites(guard, (verb, resource) => observed.push(`${verb} ${resource}`))(send);
    await expect(guarded(PATCH)).rejects.toThrow('not the leader');
    expect(sent).toEqual([]);
    await guarded(READ);
    leading = true;
    await guarded(PATCH);
    expect(sent.map((r) => r.verb)).toEqual(['read', 'patch']);
    expect(sent[0].gate).toBeUndefined();
    expect(sent[1].gate).toBe(guard);
    expect(observed).toEqual(['patch configmaps']);
  });
});

describe('an abort signal', () => {
  it('goes with every request', async () => {
    const { sent, send } = recorder();
    const signal = new AbortController().signal;
    const aborting = abortOn(signal)(send);
    await aborting(READ);
    await aborting(PATCH);
    expect(sent.map((r) => r.signal)).toEqual([signal, signal]);
  });
});

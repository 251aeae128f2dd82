// The controller's Event recorder: in the background, a few at a time, bounded, drained at shutdown.
import { EventRecorder } from '../../src/controller/event-recorder';
import type { KubeEvent } from '../../src/kube/api';
import { NotLeaderError } from '../../src/kube/errors';

function eventOf(name: string): KubeEvent {
  return {
    metadata: { name, namespace: 'ns' },
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'webservice-controller',
    reportingInstance: 'test',
    action: 'Create',
    reason: 'Created',
    note: name,
    type: 'Normal',
    regarding: { apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name, namespace: 'ns' },
  };
}

/** A send whose answers the test gives, one request at a time. */
function scriptedSend() {
  const calls: { name: string; answer: (err?: Error) => void }[] = [];
  const send = (event: KubeEvent) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ name: event.metadata.name!, answer: (err) => (err ? reject(err) : resolve()) });
    });
  return { calls, send };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('EventRecorder', () => {
  it('returns at once and sends in order of arrival, at most inFlight at a time', async () => {
    const { calls, send } = scriptedSend();
    const recorder = new EventRecorder({ send, inFlight: 2, log: () => {} });
    recorder.record('ns/a', [eventOf('a1'), eventOf('a2')]);
    recorder.record('ns/b', [eventOf('b1')]);
    expect(calls.map((c) => c.name)).toEqual(['a1', 'a2']);
    expect(recorder.pending()).toBe(3);
    calls[0].answer();
    await settle();
    expect(calls.map((c) => c.name)).toEqual(['a1', 'a2', 'b1']);
    calls[1].answer();
    calls[2].answer();
    await settle();
    expect(recorder.pending()).toBe(0);
  });

  it('drops Events beyond its bound, and says so once per time it fills', async () => {
    const { calls, send } = scriptedSend();
    const log = jest.fn();
    const recorder = new EventRecorder({ send, inFlight: 1, log, maxQueued: 2 });
    // One in flight, two queued: the fourth and fifth are dropped.
    recorder.record('ns/a', ['1', '2', '3', '4', '5'].map(eventOf));
    expect(recorder.pending()).toBe(3);
    expect(log.mock.calls.filter(([level]) => level === 'warn')).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      calls[i].answer();
      await settle();
    }
    expect(calls.map((c) => c.name)).toEqual(['1', '2', '3']);
    // Drained, then full again: a second warning.
    recorder.record('ns/a', ['6', '7', '8', '9'].map(eventOf));
    expect(log.mock.calls.filter(([level]) => level === 'warn')).toHaveLength(2);
  });

  it('logs a failed create with its key, and keeps quiet when its own gate refused it unsent', async () => {
    const { calls, send } = scriptedSend();
    const log = jest.fn();
    const recorder = new EventRecorder({ send, inFlight: 3, log });
    recorder.record('ns/a', [eventOf('a')]);
    recorder.record('ns/b', [eventOf('b')]);
    recorder.record('ns/c', [eventOf('c')]);
    calls[0].answer(new Error('etcdserver: request timed out'));
    calls[1].answer(new NotLeaderError('not the leader: refusing to write'));
    // Sent, then refused by the API server's leader fence: that one is said.
    calls[2].answer(new NotLeaderError('the replica does not hold the Lease', true));
    await settle();
    expect(log.mock.calls).toEqual([
      ['error', 'recording an Event failed', { key: 'ns/a', error: 'etcdserver: request timed out' }],
      ['error', 'recording an Event failed', { key: 'ns/c', error: 'the replica does not hold the Lease' }],
    ]);
  });

  it('drains what is queued before shutdown, then takes no more', async () => {
    const { calls, send } = scriptedSend();
    const recorder = new EventRecorder({ send, inFlight: 1, log: () => {} });
    recorder.record('ns/a', [eventOf('a'), eventOf('b')]);
    let drained = false;
    const drain = recorder.drain(10_000).then(() => (drained = true));
    calls[0].answer();
    await settle();
    expect(drained).toBe(false);
    calls[1].answer();
    await drain;
    recorder.record('ns/c', [eventOf('c')]);
    expect(calls.map((c) => c.name)).toEqual(['a', 'b']);
  });

  it('gives up on a drain after its timeout and says how many were left unsent', async () => {
    const { send } = scriptedSend();
    const log = jest.fn();
    const recorder = new EventRecorder({ send, inFlight: 1, log });
    recorder.record('ns/a', [eventOf('a'), eventOf('b'), eventOf('c')]);
    await recorder.drain(20);
    expect(log).toHaveBeenCalledWith('warn', 'shutting down with Events not recorded', { unsent: 2 });
  });
});

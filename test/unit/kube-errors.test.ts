// The API module's error helpers (a 404 read as "nothing there" without a catch block at
// every call) and the typed error of an idle watch.
import {
  ConflictError,
  KubeError,
  NotFoundError,
  UnreachableError,
  WatchIdleError,
  ignoreNotFound,
  orNull,
} from '../../src/kube/errors';

describe('ignoreNotFound and orNull', () => {
  it('give what the request gives when it succeeds', async () => {
    await expect(orNull(Promise.resolve({ name: 'a' }))).resolves.toEqual({ name: 'a' });
    await expect(ignoreNotFound(Promise.resolve(true), false)).resolves.toBe(true);
  });

  it('give null, or the fallback, when the API answers 404', async () => {
    const notFound = () => Promise.reject(new NotFoundError('configmaps "a" not found'));
    await expect(orNull(notFound())).resolves.toBeNull();
    await expect(ignoreNotFound(notFound(), false)).resolves.toBe(false);
    await expect(ignoreNotFound(notFound(), [])).resolves.toEqual([]);
  });

  it('throw every other error as it is', async () => {
    const conflict = new ConflictError('the object has been modified');
    await expect(orNull(Promise.reject(conflict))).rejects.toBe(conflict);
    const plain = new Error('socket hang up');
    await expect(ignoreNotFound(Promise.reject(plain), false)).rejects.toBe(plain);
  });
});

describe('WatchIdleError', () => {
  it('is a Timeout like any unreachable server, with the message it always had', () => {
    const err = new WatchIdleError('webservices.apps.labhub.io', 180_000);
    expect(err).toBeInstanceOf(UnreachableError);
    expect(err).toBeInstanceOf(KubeError);
    expect(err.kind).toBe('Timeout');
    expect(err.idleTimeoutMs).toBe(180_000);
    expect(err.message).toBe('watch webservices.apps.labhub.io: no event or bookmark for 180s');
  });
});

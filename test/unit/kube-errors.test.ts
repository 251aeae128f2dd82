// The API module's error helpers: a 404 read as "nothing there" without a catch block at
// every call.
import { ConflictError, NotFoundError, ignoreNotFound, orNull } from '../../src/kube/errors';

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

// status -w's warnings: an error once while it lasts, however many reflectors and retries meet it.
import { WORKS_AGAIN } from '../../src/controller/reflector';
import { warnOncePerCause } from '../../src/watch/warnings';

const FAILED = 'list/watch failed; retrying in 0.8s';
const DOWN = 'the connection to the server was refused';

describe('warnOncePerCause', () => {
  it('prints an error once for every reflector and retry, and again once it came back after working', () => {
    const printed: string[] = [];
    const log = warnOncePerCause((text) => printed.push(text));
    for (let retry = 0; retry < 30; retry++) {
      for (const reflector of ['webservices', 'configmaps', 'deployments'])
        log('error', FAILED, { reflector, error: DOWN });
    }
    expect(printed).toEqual([`warning: ${FAILED}: ${DOWN}`]);
    // Back for two of them: the cause lasts while one still meets it.
    log('info', WORKS_AGAIN, { reflector: 'webservices' });
    log('info', WORKS_AGAIN, { reflector: 'configmaps' });
    log('error', FAILED, { reflector: 'webservices', error: DOWN });
    expect(printed).toHaveLength(1);
    log('info', WORKS_AGAIN, { reflector: 'webservices' });
    log('info', WORKS_AGAIN, { reflector: 'deployments' });
    log('error', FAILED, { reflector: 'deployments', error: DOWN });
    expect(printed).toEqual([`warning: ${FAILED}: ${DOWN}`, `warning: ${FAILED}: ${DOWN}`]);
  });

  it('prints a new cause at once, and what is not a reflector failure every time', () => {
    const printed: string[] = [];
    const log = warnOncePerCause((text) => printed.push(text));
    log('error', FAILED, { reflector: 'webservices', error: DOWN });
    log('error', FAILED, { reflector: 'webservices', error: 'the server could not find the requested resource' });
    log('error', 'cannot read the child of shop/web', { error: 'Forbidden' });
    log('error', 'cannot read the child of shop/web', { error: 'Forbidden' });
    log('info', 'watch expired (410 Gone); relisting', { reflector: 'webservices' });
    expect(printed).toEqual([
      `warning: ${FAILED}: ${DOWN}`,
      `warning: ${FAILED}: the server could not find the requested resource`,
      'warning: cannot read the child of shop/web: Forbidden',
      'warning: cannot read the child of shop/web: Forbidden',
    ]);
  });
});

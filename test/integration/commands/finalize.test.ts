// finalize, driven as a user would (the bundled plugin in a child process) against the
// real apiserver, with writes counted in the audit log.
import {
  AuditWindow,
  applyYaml,
  eventually,
  kubectl,
  patchWebService,
  plugin,
  tryGetJson,
  useNamespace,
  webService,
} from '../../support/cluster';
import { inNamespace, rv } from '../../support/commands';
import { FINALIZER } from '../../../src/core/model';

const ns = useNamespace('finalize');
const audit = new AuditWindow(ns);
const { json, child, ws } = inNamespace(ns);

describe('finalize', () => {
  it('refuses a live CR and touches nothing', async () => {
    applyYaml(ns(), webService('alive', { image: 'nginx:1.27' }));
    json(['apply', 'alive']);
    const before = rv(ws('alive'));
    audit.mark();
    const result = plugin(['finalize', 'alive', '-n', ns()]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: webservice "alive" is not being deleted; .*nothing was touched\n$/);
    expect(await audit.mutating()).toEqual([]);
    expect(rv(ws('alive'))).toBe(before);
  });

  it('on a terminating CR: deletes its child, removes only our finalizer, and the CR goes away', async () => {
    // Our finalizer as a user puts it there (apply adds none), beside someone else's.
    applyYaml(ns(), webService('gone', { image: 'nginx:1.27' }, { finalizers: ['example.com/keep-me', FINALIZER] }));
    json(['apply', 'gone']);
    expect(ws('gone').metadata.finalizers).toEqual(['example.com/keep-me', FINALIZER]);
    kubectl(['delete', 'webservice', 'gone', '-n', ns(), '--wait=false']);
    expect(ws('gone').metadata.deletionTimestamp).toBeTruthy();

    const { status, value } = json(['finalize', 'gone']);
    expect(status).toBe(0);
    expect(value).toEqual({
      namespace: ns(),
      name: 'gone',
      cleaned: ['configmap/gone-desired'],
      finalizerRemoved: true,
    });
    expect(child('gone')).toBeNull();
    expect(ws('gone').metadata.finalizers).toEqual(['example.com/keep-me']);

    patchWebService(ns(), 'gone', [{ op: 'remove', path: '/metadata/finalizers' }]);
    await eventually(() => tryGetJson(['get', 'webservice', 'gone', '-n', ns()]) === null);
  });

  it('prints what it cleaned up as a table', async () => {
    applyYaml(ns(), webService('tidy', { image: 'nginx:1.27' }, { finalizers: [FINALIZER] }));
    json(['apply', 'tidy']);
    kubectl(['delete', 'webservice', 'tidy', '-n', ns(), '--wait=false']);
    const result = plugin(['finalize', 'tidy', '-n', ns()]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^NAME\s+CLEANED\s+FINALIZER\n/);
    expect(result.stdout).toMatch(/tidy\s+configmap\/tidy-desired\s+removed webservice\.labhub\.io\/cleanup/);
    await eventually(() => tryGetJson(['get', 'webservice', 'tidy', '-n', ns()]) === null);
  });
});

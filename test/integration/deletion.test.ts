// A deletion never hangs because the plugin was used once without a controller: apply adds
// no finalizer, and the garbage collector removes the child through its ownerReference.
import { applyYaml, createNamespace, eventually, kubectl, plugin, tryGetJson, webService } from '../support/cluster';

it('kubectl delete webservice completes after one apply, and the child goes with it', async () => {
  const ns = createNamespace('delete-ws');
  applyYaml(ns, webService('once', { image: 'nginx:1.27' }));
  expect(plugin(['apply', 'once', '-n', ns]).status).toBe(0);
  expect(tryGetJson(['get', 'configmap', 'once-desired', '-n', ns])).not.toBeNull();
  // kubectl's own wait: it returns only once the object is gone.
  kubectl(['delete', 'webservice', 'once', '-n', ns, '--timeout=30s']);
  expect(tryGetJson(['get', 'webservice', 'once', '-n', ns])).toBeNull();
  // The garbage collector's pace, on a loaded machine: allow it a minute.
  await eventually(() => tryGetJson(['get', 'configmap', 'once-desired', '-n', ns]) === null, 60_000);
  kubectl(['delete', 'namespace', ns, '--wait=false']);
});

it('kubectl delete namespace completes after one apply --all, with no controller running', () => {
  const ns = createNamespace('delete-ns');
  for (const name of ['a', 'b', 'c']) applyYaml(ns, webService(name, { image: 'nginx:1.27' }));
  expect(plugin(['apply', '--all', '-n', ns]).status).toBe(0);
  kubectl(['delete', 'namespace', ns, '--timeout=90s']);
  expect(tryGetJson(['get', 'namespace', ns])).toBeNull();
});

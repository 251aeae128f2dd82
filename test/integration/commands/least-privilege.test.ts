// apply, status and finalize as the shipped least-privilege ClusterRole allows them, on the
// real apiserver.
import * as path from 'node:path';
import {
  ROOT,
  applyYaml,
  kubectl,
  plugin,
  serviceAccountKubeconfig,
  useNamespace,
  webService,
} from '../../support/cluster';
import { FINALIZER } from '../../../src/core/model';

const ns = useNamespace('rbac');

describe('the shipped least-privilege role', () => {
  let kubeconfig: string;
  beforeAll(() => {
    kubectl(['apply', '-f', path.join(ROOT, 'crds/rbac/webservice-reconciler.yaml')]);
    kubeconfig = serviceAccountKubeconfig(ns(), 'reconciler', ['--clusterrole=webservice-reconciler']);
    applyYaml(ns(), webService('api', { image: 'nginx:1.27' }, { finalizers: [FINALIZER] }));
  });

  it('is enough for apply, status and finalize', () => {
    const as = (args: string[]) => plugin([...args, '--kubeconfig', kubeconfig, '-o', 'json']);
    const applied = as(['apply', '--all']);
    expect(applied.stderr).toBe('');
    expect(JSON.parse(applied.stdout)).toMatchObject({ converged: true, summary: { create: 1, error: 0 } });
    expect(as(['status', 'api']).status).toBe(0);
    kubectl(['delete', 'webservice', 'api', '-n', ns(), '--wait=false']);
    const finalized = as(['finalize', 'api']);
    expect(finalized.status).toBe(0);
    expect(JSON.parse(finalized.stdout)).toMatchObject({ cleaned: ['configmap/api-desired'], finalizerRemoved: true });
  });
});

// The kustomize base (deploy/Kustomization, with crds/Kustomization): `kubectl apply -k deploy/`
// makes exactly the objects `kubectl webservice install --controller -o yaml` prints, so
// neither can drift from the other, and the apiserver accepts them.
import * as path from 'node:path';
import { ROOT, kubectl } from '../support/cluster';
import { canonical, displayName, installManifests, kubectlResult, parseManifests } from '../support/manifests';

beforeAll(() => {
  // A dry-run of namespaced objects needs their namespace; deploy/'s tests keep it too.
  kubectl(['apply', '-f', path.join(ROOT, 'deploy/00-namespace.yaml')]);
});

describe('the kustomize base, deploy/', () => {
  it('renders exactly the objects of `install --controller -o yaml`', () => {
    const rendered = parseManifests(kubectl(['kustomize', path.join(ROOT, 'deploy')]));
    expect(canonical(rendered)).toEqual(canonical(installManifests()));
  });

  it('installs them with `kubectl apply -k deploy/`, as a server-side dry-run the apiserver accepts without a warning', () => {
    const result = kubectlResult([
      'apply',
      '-k',
      path.join(ROOT, 'deploy'),
      '--server-side',
      '--dry-run=server',
      '--validate=strict',
      '--field-manager=kubectl-webservice',
      '-o',
      'name',
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trim().split('\n').sort()).toEqual(installManifests().map(displayName).sort());
  });

  it('is passed over by `kubectl apply -f deploy/`, which takes the numbered files only', () => {
    const result = kubectlResult(['apply', '--dry-run=client', '-f', path.join(ROOT, 'deploy'), '-o', 'name']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain('customresourcedefinition');
  });
});

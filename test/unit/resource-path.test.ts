// One path builder for every type of the registry: namespaced or cluster-scoped, core group
// or not, one object, a collection, or a status subresource.
import { CONFIG_MAP, DEPLOYMENT } from '../../src/core/kinds';
import { CUSTOM_RESOURCE_DEFINITION, LEASE, WEBSERVICE_TYPE } from '../../src/core/resource-types';
import { installedLocation, resourcePath } from '../../src/kube/object-location';

describe('resourcePath', () => {
  it('puts the core group under /api and the others under /apis', () => {
    expect(resourcePath(CONFIG_MAP, 'ns', 'a')).toBe('/api/v1/namespaces/ns/configmaps/a');
    expect(resourcePath(DEPLOYMENT, 'ns', 'web')).toBe('/apis/apps/v1/namespaces/ns/deployments/web');
    expect(resourcePath(LEASE, 'kube-system', 'l')).toBe(
      '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l',
    );
  });

  it('reads a collection in one namespace, or in every one with null', () => {
    expect(resourcePath(WEBSERVICE_TYPE, 'ns')).toBe('/apis/apps.labhub.io/v1/namespaces/ns/webservices');
    expect(resourcePath(WEBSERVICE_TYPE, null)).toBe('/apis/apps.labhub.io/v1/webservices');
  });

  it('leaves the namespace out for a cluster-scoped type, and names a subresource after the object', () => {
    expect(resourcePath(CUSTOM_RESOURCE_DEFINITION, 'ignored', 'x')).toBe(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x',
    );
    expect(resourcePath(WEBSERVICE_TYPE, 'ns', 'web', 'status')).toBe(
      '/apis/apps.labhub.io/v1/namespaces/ns/webservices/web/status',
    );
  });

  it('encodes names and namespaces', () => {
    expect(resourcePath(CONFIG_MAP, 'a b', 'c/d')).toBe('/api/v1/namespaces/a%20b/configmaps/c%2Fd');
  });
});

describe('installedLocation', () => {
  it('finds a shipped kind in the registry, and says so in one line for another', () => {
    expect(installedLocation({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } })).toEqual({
      type: expect.objectContaining({ resource: 'namespaces' }),
      namespace: null,
    });
    expect(() =>
      installedLocation({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' } }),
    ).toThrow('cannot install v1 Secret: not a kind the plugin ships');
    expect(() => installedLocation({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } })).toThrow(
      'Deployment "d" has no metadata.namespace',
    );
  });
});

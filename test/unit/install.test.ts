// install's pure parts: what counts as already installed, version order, the bundled manifests.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { compareVersions, containedIn, crdVersionState } from '../../src/install/compare';
import {
  CRD_NAME,
  VERSION_LABEL,
  allBundledManifests,
  bundledManifests,
  checkImage,
  controllerImage,
  displayName,
  isPlaceholderImage,
  isCrd,
} from '../../src/install/manifests';
import { toYamlStream } from '../../src/print/output';
import { objectLocation } from '../../src/kube/object-location';

const ROOT = path.resolve(__dirname, '../..');
const fromRepo = (file: string) =>
  (yaml.loadAll(fs.readFileSync(path.join(ROOT, file), 'utf8')) as any[]).filter(Boolean);

describe('containedIn (desired ⊆ live)', () => {
  const live = {
    metadata: { name: 'x', uid: 'u', labels: { a: '1', added: 'by-someone' } },
    spec: { replicas: 2, rules: [{ verbs: ['get', 'list'], extra: true }], subresources: { status: {} } },
  };

  it('holds when every bundled field has the same value live, whatever the server or others added', () => {
    expect(containedIn({ metadata: { name: 'x', labels: { a: '1' } }, spec: { replicas: 2 } }, live)).toBe(true);
    expect(containedIn({ spec: { rules: [{ verbs: ['get', 'list'] }], subresources: { status: {} } } }, live)).toBe(
      true,
    );
  });

  it('fails on a changed value, a missing field, or a list of another length or order', () => {
    expect(containedIn({ spec: { replicas: 3 } }, live)).toBe(false);
    expect(containedIn({ metadata: { labels: { b: '2' } } }, live)).toBe(false);
    expect(containedIn({ spec: { rules: [{ verbs: ['get'] }] } }, live)).toBe(false);
    expect(containedIn({ spec: { rules: [{ verbs: ['list', 'get'] }] } }, live)).toBe(false);
    expect(containedIn({ spec: { rules: [] } }, live)).toBe(false);
    expect(containedIn({ spec: { replicas: '2' } }, live)).toBe(false);
  });

  it('compares scalars strictly and objects structurally', () => {
    expect(containedIn('a', 'a')).toBe(true);
    expect(containedIn({}, {})).toBe(true);
    expect(containedIn({}, [])).toBe(false);
    expect(containedIn({ a: null }, {})).toBe(true);
    expect(containedIn({ a: {} }, { a: null })).toBe(false);
  });
});

describe('versions', () => {
  it('orders major.minor.patch numerically', () => {
    expect(compareVersions('0.1.0', '0.1.0')).toBe(0);
    expect(compareVersions('0.9.0', '0.10.0')).toBe(-1);
    expect(compareVersions('v1.2.3', '1.2.2')).toBe(1);
    expect(compareVersions('1.0.0-rc.1', '1.0.0')).toBe(0);
    expect(compareVersions('dev', '1.0.0')).toBeNull();
  });

  it('places a live CRD against the bundled one: unlabelled and unreadable labels are older', () => {
    expect(crdVersionState(undefined, '0.2.0')).toBe('unlabelled');
    expect(crdVersionState('', '0.2.0')).toBe('unlabelled');
    expect(crdVersionState('0.1.0', '0.2.0')).toBe('older');
    expect(crdVersionState('something', '0.2.0')).toBe('older');
    expect(crdVersionState('0.2.0', '0.2.0')).toBe('current');
    expect(crdVersionState('1.0.0', '0.2.0')).toBe('newer');
  });
});

describe('the bundled manifests', () => {
  it('are the CRD by default; --rbac adds the reconciler ClusterRole; --controller adds deploy/, in apply order', () => {
    const names = (objects: { kind: string; metadata: { name: string } }[]) =>
      objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(names(bundledManifests())).toEqual([`CustomResourceDefinition/${CRD_NAME}`]);
    expect(names(bundledManifests({ rbac: true }))).toEqual([
      `CustomResourceDefinition/${CRD_NAME}`,
      'ClusterRole/webservice-reconciler',
    ]);
    const all = names(bundledManifests({ rbac: true, controller: true }));
    expect(all.slice(0, 3)).toEqual([
      `CustomResourceDefinition/${CRD_NAME}`,
      'ClusterRole/webservice-reconciler',
      'Namespace/webservice-system',
    ]);
    expect(all[all.length - 1]).toBe('Deployment/webservice-controller');
    expect(names(allBundledManifests())).toEqual(all);
  });

  it('are each of a kind the API module can install and uninstall', () => {
    for (const object of allBundledManifests()) {
      expect(objectLocation(object).path).toContain(`/${encodeURIComponent(object.metadata.name)}`);
    }
  });

  it('are the repository files, each object stamped with the version label', () => {
    const objects = allBundledManifests('1.2.3');
    const files = [
      'crds/webservices.apps.labhub.io.yaml',
      'crds/rbac/webservice-reconciler.yaml',
      'deploy/00-namespace.yaml',
      'deploy/10-rbac.yaml',
      'deploy/15-leader-fence.yaml',
      'deploy/17-network-policy.yaml',
      'deploy/18-disruption-budget.yaml',
      'deploy/20-deployment.yaml',
    ].flatMap(fromRepo);
    expect(objects).toHaveLength(files.length);
    objects.forEach((object, i) => {
      expect(object.metadata.labels?.[VERSION_LABEL]).toBe('1.2.3');
      const { [VERSION_LABEL]: _stamp, ...labels } = object.metadata.labels ?? {};
      expect({ ...object, metadata: { ...object.metadata, labels } }).toEqual({
        ...files[i],
        metadata: { ...files[i].metadata, labels: files[i].metadata.labels ?? {} },
      });
    });
    expect(objects.filter(isCrd)).toHaveLength(1);
  });

  it('print as a YAML stream that reads back as the same objects', () => {
    const objects = allBundledManifests('1.2.3');
    expect(yaml.loadAll(toYamlStream(objects)).filter(Boolean)).toEqual(objects);
  });

  it('are named the way kubectl names them', () => {
    const [crd, role] = bundledManifests({ rbac: true });
    expect(displayName(crd)).toBe(`customresourcedefinition.apiextensions.k8s.io/${CRD_NAME}`);
    expect(displayName(role)).toBe('clusterrole.rbac.authorization.k8s.io/webservice-reconciler');
    expect(displayName(bundledManifests({ controller: true })[1])).toBe('namespace/webservice-system');
  });

  it("with --image, run that image in the controller's Deployment and change nothing else", () => {
    const image = 'registry.example.com/team/webservice-controller:v1.2.3';
    const placeholder = bundledManifests({ controller: true });
    const mine = bundledManifests({ controller: true, image });
    expect(controllerImage(placeholder)).toBe(
      fromRepo('deploy/20-deployment.yaml')[0].spec.template.spec.containers[0].image,
    );
    expect(controllerImage(mine)).toBe(image);
    const deployment = mine[mine.length - 1] as any;
    expect(deployment.spec.template.spec.containers.map((c: { image: string }) => c.image)).toEqual([image]);
    // Only the image differs, and the placeholder objects are left as they were.
    deployment.spec.template.spec.containers[0].image = controllerImage(placeholder);
    expect(mine).toEqual(placeholder);
    expect(controllerImage(bundledManifests({ controller: true }))).not.toBe(image);
  });

  it("know deploy/'s placeholder image at any tag, and no other", () => {
    const placeholder = controllerImage(bundledManifests({ controller: true }))!;
    const repository = placeholder.split(':')[0];
    for (const image of [placeholder, `${repository}:v9.9.9`, repository, `${repository}@sha256:${'b'.repeat(64)}`]) {
      expect([image, isPlaceholderImage(image)]).toEqual([image, true]);
    }
    for (const image of [
      'registry.example.com/webservice-controller:v0.1.0',
      `${repository}-fork:v1`,
      'localhost:5000/x',
    ]) {
      expect([image, isPlaceholderImage(image)]).toEqual([image, false]);
    }
  });

  it('refuse an --image that is not an image reference, in one line', () => {
    for (const good of ['nginx', 'registry.example.com:5000/a/b:v1', `r.example.com/c@sha256:${'a'.repeat(64)}`]) {
      expect(checkImage(good)).toBe(good);
    }
    for (const bad of ['', ' nginx', 'nginx:1 ; rm -rf /', '-v', 'a'.repeat(256)]) {
      expect(() => checkImage(bad)).toThrow(/^--image must be an image reference such as [^\n]*$/);
      expect(() => checkImage(bad)).toThrow(`, got "${bad}"`);
    }
  });
});

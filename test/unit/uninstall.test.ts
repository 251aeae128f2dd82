// uninstall's pure parts: which children belong to which WebService, what an orphaned child
// keeps of its ownerReferences, and the refusal that names every app and its children.
import { NAMED_KINDS } from '../../src/core/kinds';
import type { Child, OwnerReference, WebService } from '../../src/core/model';
import { desiredLabels, desiredOwnerReference, ownerReferencesWithout } from '../../src/core/ownership';
import { describeApps, groupChildren, summarize } from '../../src/install/apps';
import { uninstallRefusal } from '../../src/install/installer';

const ws = (namespace: string, name: string): WebService => ({
  metadata: { namespace, name, uid: `uid-${namespace}-${name}` },
  spec: { image: 'nginx:1.27' },
});

/** A child of every kind in the table, as the parent's apply makes it. */
function childrenOf(parent: WebService): Child[] {
  const { namespace, name, uid = '' } = parent.metadata;
  return NAMED_KINDS.map((row) => ({
    apiVersion: row.apiVersion,
    kind: row.kind,
    metadata: {
      namespace,
      name: row.nameFor(name),
      uid: `uid-${row.kind}-${name}`,
      labels: desiredLabels(name),
      ownerReferences: [desiredOwnerReference({ name, uid })],
    },
  }));
}

describe('groupChildren', () => {
  it('gives each WebService the children it controls, in the order of the kind table, every kind included', () => {
    const web = ws('shop', 'web');
    const api = ws('shop', 'api');
    const [app] = groupChildren([web], [...childrenOf(api), ...[...childrenOf(web)].reverse()]);
    // Kind by kind in the table's order, and by name within a kind (the canary's beside the rest).
    const kindOrder = (kind: string) => NAMED_KINDS.findIndex((row) => row.kind === kind);
    const expected = [...NAMED_KINDS].sort(
      (a, b) => kindOrder(a.kind) - kindOrder(b.kind) || a.nameFor('web').localeCompare(b.nameFor('web')),
    );
    expect(app.children.map((c) => c.kind)).toEqual(expected.map((row) => row.kind));
    expect(summarize(app)).toEqual({
      namespace: 'shop',
      name: 'web',
      children: expected.map((row) => `${row.kind.toLowerCase()}/${row.nameFor('web')}`),
    });
  });

  it('leaves out what is not ours: no label of ours, another controller, or another namespace', () => {
    const web = ws('shop', 'web');
    const [cm, deployment, service] = childrenOf(web);
    const foreign = { ...cm, metadata: { ...cm.metadata, labels: {} } };
    const otherController = {
      ...deployment,
      metadata: { ...deployment.metadata, ownerReferences: [{ ...deployment.metadata.ownerReferences![0], uid: 'x' }] },
    };
    const elsewhere = { ...service, metadata: { ...service.metadata, namespace: 'other' } };
    expect(groupChildren([web], [foreign, otherController, elsewhere])[0].children).toEqual([]);
  });
});

describe('ownerReferencesWithout', () => {
  it("drops the WebService's reference alone, and keeps everyone else's in order", () => {
    const ours = desiredOwnerReference({ name: 'web', uid: 'uid-web' });
    const theirs: OwnerReference = { apiVersion: 'example.com/v1', kind: 'Thing', name: 't', uid: 'uid-t' };
    const other: OwnerReference = { ...ours, name: 'api', uid: 'uid-api', controller: false };
    expect(ownerReferencesWithout({ metadata: { ownerReferences: [theirs, ours, other] } }, 'uid-web')).toEqual([
      theirs,
      other,
    ]);
    expect(ownerReferencesWithout({ metadata: { ownerReferences: [ours] } }, 'uid-web')).toEqual([]);
    expect(ownerReferencesWithout({ metadata: {} }, 'uid-web')).toEqual([]);
  });
});

describe('the refusal', () => {
  it('names every WebService and its children, and the two ways on', () => {
    const web = ws('shop', 'web');
    const lab = ws('lab', 'lab');
    const apps = groupChildren([web, lab], [...childrenOf(web).slice(0, 3), childrenOf(lab)[0]]);
    expect(uninstallRefusal(apps)).toBe(
      '2 WebServices exist in 2 namespaces, and deleting the CRD deletes them all and 4 children with them: ' +
        'shop/web (configmap/web-desired, deployment/web, service/web), lab/lab (configmap/lab-desired). ' +
        'Delete them first, or pass --cascade=orphan to keep their children running without them, ' +
        'or --force to delete the children too; nothing was changed',
    );
    expect(uninstallRefusal(apps.slice(1))).toMatch(
      /^1 WebService exists in 1 namespace, and deleting the CRD deletes it and 1 child with it: lab\/lab \(configmap\/lab-desired\)\. /,
    );
  });

  it('names ten apps, and counts the rest', () => {
    const many = Array.from({ length: 13 }, (_, i) => ws('ns', `app-${i}`));
    const text = describeApps(groupChildren(many, []));
    expect(text).toBe(
      `${many
        .slice(0, 10)
        .map((w) => `ns/${w.metadata.name}`)
        .join(', ')} and 3 more`,
    );
  });
});

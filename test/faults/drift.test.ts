// Others touching what we own, all at once: a child edited by hand, a child deleted, and
// a foreign ConfigMap sitting on the name of a child not made yet. For run (it must notice
// by itself) and for apply (the next pass must put things right). The foreign object must
// keep its resourceVersion, and its WebService must say ChildConflict.
import { applyYaml, createNamespace, getJson, kubectl, plugin } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { checkInvariants } from '../support/invariants';
import { cleanNamespace, createWebServices, numbered, recordResult } from './support';

describe.each(['run', 'apply'] as const)('%s', (mode) => {
  let ns: string;
  let ctl: ControllerProcess | undefined;
  beforeAll(async () => {
    ns = createNamespace(`drift-${mode}`);
    if (mode === 'run') {
      ctl = new ControllerProcess(['-n', ns, '--kubeconfig', controllerKubeconfig()]);
      await ctl.waitForLog(/controller working/);
    }
  });
  afterAll(async () => {
    await ctl?.stop();
    cleanNamespace(ns);
  });

  /** run converges by itself; apply is asked to (exit 1: the conflict is reported). */
  const reconcile = () => {
    if (mode === 'apply') plugin(['apply', '--all', '--wait=1m', '-n', ns, '-o', 'json']);
  };

  it('edited and deleted children are put back; the foreign ConfigMap is left alone and reported', async () => {
    const names = numbered('svc', 12);
    createWebServices(ns, names);
    reconcile();
    const settled = await checkInvariants({ namespace: ns, live: names, withinMs: 60_000, steadyWindowMs: 1_000 });
    expect(settled.violations).toEqual([]);

    for (const name of names.slice(0, 4)) {
      kubectl([
        'patch',
        'configmap',
        `${name}-desired`,
        '-n',
        ns,
        '--type=merge',
        '-p',
        '{"data":{"image":"evil:1","replicas":"99","mine":"keep"}}',
      ]);
    }
    kubectl(['delete', 'configmap', ...names.slice(4, 8).map((name) => `${name}-desired`), '-n', ns]);
    applyYaml(
      ns,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'taken-desired' },
        data: { theirs: 'yes' },
      }),
    );
    const foreign = getJson(['get', 'configmap', 'taken-desired', '-n', ns]);
    createWebServices(ns, ['taken']);
    reconcile();

    const report = await checkInvariants({
      namespace: ns,
      live: [...names, 'taken'],
      notReady: { taken: 'ChildConflict' },
      foreign: [{ resource: 'configmaps', name: 'taken-desired', resourceVersion: foreign.metadata.resourceVersion }],
      withinMs: 60_000,
      steadyWindowMs: 10_000,
      duringSteadyState: reconcile,
    });
    recordResult("a hand-edited child, a deleted child, a foreign ConfigMap on a child's name", mode, report, {
      edited: 4,
      deleted: 4,
    });
    expect(report.violations).toEqual([]);
    expect(getJson(['get', 'configmap', `${names[0]}-desired`, '-n', ns]).data.mine).toBe('keep');
  });
});

// uninstall --force on the real apiserver: it deletes the CRD every other test needs, and
// the CRD's deletion waits for every WebService of the plane, so it runs here, in the fault
// suite (npm run test:faults), and not in npm test's shared plane.
import { MUTATING, plugin, tryGetJson, CRD, CRD_REF, crd, describeEvent } from '../support/cluster';
import { useInstallNamespace, useLegacyWebServices } from '../support/install';

const { ns, audit } = useInstallNamespace();

describe('uninstall', () => {
  useLegacyWebServices(ns);

  it('--force takes our finalizer off each WebService and deletes everything install made, without hanging', async () => {
    const installed = plugin(['install', '--rbac', '--controller']);
    expect(installed.status).toBe(0);
    audit.mark();
    const started = Date.now();
    const result = plugin(['uninstall', '--force']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('deployment.apps/webservice-controller deleted');
    expect(lines).toContain('namespace/webservice-system deleted');
    expect(lines).toContain('clusterrole.rbac.authorization.k8s.io/webservice-reconciler deleted');
    expect(lines[lines.length - 2]).toBe(`${CRD_REF} deleted`);
    expect(lines[lines.length - 1]).toMatch(
      /^\d+ WebService\(s\) deleted with the CRD; our finalizer removed from \d+$/,
    );

    // Everything is gone when uninstall returns: it waited.
    expect(tryGetJson(['get', 'crd', CRD])).toBeNull();
    expect(tryGetJson(['get', 'namespace', 'webservice-system'])).toBeNull();
    expect(tryGetJson(['get', 'clusterrole', 'webservice-reconciler'])).toBeNull();
    expect(tryGetJson(['get', 'validatingadmissionpolicy', 'webservice-controller-leader-fence'])).toBeNull();
    expect(tryGetJson(['get', 'validatingadmissionpolicybinding', 'webservice-controller-leader-fence'])).toBeNull();
    const writes = (await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb));
    const ours = writes
      .filter((e) => e.objectRef?.namespace === ns())
      .map(describeEvent)
      .sort();
    expect(ours).toEqual(['patch webservices/also-kept', 'patch webservices/kept']);
    expect(writes.filter((e) => e.verb === 'delete').map(describeEvent)).toContain(
      `delete customresourcedefinitions/${CRD}`,
    );
  });

  it('check then fails on the missing CRD, with the install hint', () => {
    const result = plugin(['check', '-n', ns()]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(`✗ the CRD ${CRD} is not installed\n    hint: run: kubectl webservice install\n`);
  });

  it('install brings the CRD back, Established', () => {
    const result = plugin(['install']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${CRD_REF} created\n`);
    expect(crd().status.conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
  });
});

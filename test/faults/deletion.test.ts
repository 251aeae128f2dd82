// Deletions around dependencies: a CR deleted while the dependency it waits for is missing
// (both one that never got our finalizer and one that had been Ready), and a dependency
// deleted under a Ready dependent. Nothing may be stuck, nothing orphaned; the dependent
// says DependencyNotReady and keeps its child. For run and for apply.
import { createNamespace, kubectl, plugin } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { FINALIZER } from '../../src/core/model';
import { checkInvariants } from '../support/invariants';
import { cleanNamespace, createWebServices, recordResult } from './support';

describe.each(['run', 'apply'] as const)('%s', (mode) => {
  let ns: string;
  let ctl: ControllerProcess | undefined;
  beforeAll(async () => {
    ns = createNamespace(`deletion-${mode}`);
    if (mode === 'run') {
      ctl = new ControllerProcess(['-n', ns, '--kubeconfig', controllerKubeconfig(), '--requeue-after', '2']);
      await ctl.waitForLog(/controller working/);
    }
  });
  afterAll(async () => {
    await ctl?.stop();
    cleanNamespace(ns);
  });

  /** One pass then another for what the first finalized (apply exits 2 while something waits). */
  const reconcile = () => {
    if (mode === 'apply') {
      plugin(['apply', '--all', '-n', ns, '-o', 'json']);
      plugin(['apply', '--all', '-n', ns, '-o', 'json']);
    }
  };

  it('a CR deleted while its dependency is missing is gone, with or without our finalizer', async () => {
    createWebServices(ns, ['waiting'], () => ({ image: 'nginx:1.27', dependsOn: ['ghost'] }));
    createWebServices(ns, ['was-ready']);
    reconcile();
    const ready = await checkInvariants({
      namespace: ns,
      live: ['was-ready'],
      notReady: { waiting: 'DependencyNotReady' },
      withinMs: 60_000,
      steadyWindowMs: 1_000,
    });
    expect(ready.violations).toEqual([]);
    // was-ready holds our finalizer, as an older version added it, and a child; now it waits
    // on a dependency that is not there.
    kubectl([
      'patch',
      'webservice',
      'was-ready',
      '-n',
      ns,
      '--type=merge',
      '-p',
      `{"metadata":{"finalizers":["${FINALIZER}"]}}`,
    ]);
    kubectl(['patch', 'webservice', 'was-ready', '-n', ns, '--type=merge', '-p', '{"spec":{"dependsOn":["ghost"]}}']);
    reconcile();
    kubectl(['delete', 'webservice', 'waiting', 'was-ready', '-n', ns, '--wait=false']);
    reconcile();

    const report = await checkInvariants({
      namespace: ns,
      deleted: ['waiting', 'was-ready'],
      withinMs: 60_000,
      steadyWindowMs: 5_000,
      duringSteadyState: reconcile,
    });
    recordResult('a CR deleted while its dependency is missing', mode, report);
    expect(report.violations).toEqual([]);
  });

  it('a dependency deleted under a Ready dependent: the dependent waits again and keeps its child', async () => {
    createWebServices(ns, ['base']);
    reconcile();
    createWebServices(ns, ['app'], () => ({ image: 'nginx:1.27', dependsOn: ['base'] }));
    reconcile();
    const ready = await checkInvariants({
      namespace: ns,
      live: ['base', 'app'],
      withinMs: 60_000,
      steadyWindowMs: 1_000,
    });
    expect(ready.violations).toEqual([]);

    kubectl(['delete', 'webservice', 'base', '-n', ns, '--wait=false']);
    reconcile();
    const report = await checkInvariants({
      namespace: ns,
      live: ['app'],
      deleted: ['base'],
      notReady: { app: 'DependencyNotReady' },
      withinMs: 60_000,
      steadyWindowMs: 5_000,
      duringSteadyState: reconcile,
    });
    recordResult('a dependency deleted under a Ready dependent', mode, report);
    expect(report.violations).toEqual([]);
    expect(kubectl(['get', 'configmap', 'app-desired', '-n', ns, '-o', 'name'])).toContain('app-desired');
  });
});

// check's reads and the verdicts they lead to, on the fake API server: which checks run on
// which cluster, and what each says (check.test.ts tests the verdicts alone; the plane test,
// test/integration/check.test.ts, the whole command against a real API server).
import { CheckOptions, runChecks } from '../../src/check/run-checks';
import type { CheckResult } from '../../src/check/verdicts';
import { Child, FINALIZER, WebService } from '../../src/core/model';
import { desiredLabels, desiredOwnerReference } from '../../src/core/ownership';
import { install } from '../../src/install/installer';
import { allBundledManifests } from '../../src/install/manifests';
import { UnreachableError } from '../../src/kube/errors';
import { FakeApi, FakeApiOptions } from '../support/fake-api';
import { readyStatus } from '../support/ready-status';

const VERSION = '0.5.0';
const INSTALL = { dryRun: 'none' as const, establishTimeoutMs: 1_000, version: VERSION };
const NOW = new Date('2026-11-30T12:00:00Z');
const LEASE = { namespace: 'webservice-system', name: 'webservice-controller' };
const OPTIONS: CheckOptions = {
  namespace: 'shop',
  lease: LEASE,
  stuckAfterSeconds: 300,
  stuckWorkerAfterSeconds: 60,
  bundledVersion: VERSION,
  now: () => NOW,
};
const READY = readyStatus(1, NOW.toISOString());

const webService = (name: string, metadata: Partial<WebService['metadata']> = {}): WebService => ({
  metadata: { name, namespace: 'shop', uid: `uid-${name}`, generation: 1, finalizers: [FINALIZER], ...metadata },
  spec: { image: 'nginx:1.27' },
  status: READY,
});
/** A ConfigMap of ours, owned by the WebService of this uid. */
const configMap = (name: string, ownerUid: string): Child => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'shop',
    labels: desiredLabels(name),
    ownerReferences: [desiredOwnerReference({ name, uid: ownerUid })],
  },
});
const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const heldLease = (renewedSecondsAgo: number) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: LEASE,
  spec: {
    holderIdentity: 'webservice-controller-0',
    leaseDurationSeconds: 15,
    renewTime: new Date(NOW.getTime() - renewedSecondsAgo * 1000).toISOString(),
  },
});

/** A cluster with everything installed, a controller holding the Lease, and one Ready WebService. */
async function cluster(options: FakeApiOptions = {}, installed = true): Promise<FakeApi> {
  const { forbidden, denied, ...objects } = options;
  const setup = new FakeApi({
    webServices: [webService('web')],
    children: [configMap('web', 'uid-web')],
    others: [namespace('shop'), heldLease(2)],
    ...objects,
  });
  if (installed) await install(setup, allBundledManifests(VERSION), INSTALL);
  // What check may not read or do, it may not from the start: the installer was someone else.
  return new FakeApi({ objects: setup.tracker.all(), absent: options.absent, forbidden, denied });
}

/** `check status`, one per result: what the output's first column and symbol say. */
const verdicts = (results: CheckResult[]) => results.map((r) => `${r.check} ${r.status}`);
const resultOf = (results: CheckResult[], check: string) => results.find((r) => r.check === check);

describe('check on the fake API server', () => {
  it('passes every check on a good setup, and reads it without a write', async () => {
    const api = await cluster();
    const results = await runChecks(api, OPTIONS);
    expect(verdicts(results)).toEqual([
      'server ok',
      'crd ok',
      ...['observe', 'plan', 'status', 'apply', 'finalize', 'run'].map((command) => `access/${command} ok`),
      'controller ok',
      'leader-fence ok',
      'controller-workers skip',
      'stuck ok',
      'orphans ok',
      'conflicts ok',
      'ready ok',
    ]);
    expect(api.writes).toEqual([]);
  });

  it('stops at the server when it does not answer: nothing else can be checked', async () => {
    const api = await cluster();
    jest.spyOn(api, 'serverVersion').mockRejectedValue(new UnreachableError('connect ECONNREFUSED 127.0.0.1:6443'));
    const results = await runChecks(api, OPTIONS);
    expect(results).toEqual([
      expect.objectContaining({ check: 'server', status: 'fail', message: expect.stringContaining('ECONNREFUSED') }),
    ]);
    expect(api.requests).toEqual([]);
  });

  it('fails the CRD check with the install hint when there is none, and checks no WebService', async () => {
    const api = await cluster({ absent: ['webservices'] }, false);
    const results = await runChecks(api, OPTIONS);
    expect(resultOf(results, 'crd')).toMatchObject({ status: 'fail', hint: 'run: kubectl webservice install' });
    expect(verdicts(results)).not.toEqual(expect.arrayContaining([expect.stringMatching(/^(stuck|orphans|ready) /)]));
    expect(api.calls).not.toContain('list webservices');
  });

  it('asks discovery when the CRD may not be read: served, it warns and the WebService checks still run', async () => {
    const api = await cluster({ forbidden: ['CustomResourceDefinition'] });
    const results = await runChecks(api, OPTIONS);
    expect(resultOf(results, 'crd')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('is served, but its CRD cannot be read'),
    });
    expect(api.calls).toContain(`get discovery`);
    expect(resultOf(results, 'ready')?.status).toBe('ok');
  });

  it('fails each command that needs a verb the authorizer refuses, naming it; an optional one only warns', async () => {
    const api = await cluster({ denied: ['patch webservices.apps.labhub.io/status', 'create events.events.k8s.io'] });
    const results = await runChecks(api, OPTIONS);
    const access = results.filter((r) => r.check.startsWith('access/'));
    expect(verdicts(access)).toEqual([
      'access/observe ok',
      'access/plan ok',
      'access/status fail',
      'access/apply fail',
      'access/finalize warn',
      'access/run fail',
    ]);
    expect(resultOf(results, 'access/status')?.message).toBe(
      'status is not allowed in namespace shop: missing patch webservices.apps.labhub.io/status',
    );
    expect(resultOf(results, 'access/finalize')?.message).toContain('but not create events.events.k8s.io');
  });

  it('warns that no controller runs when nobody holds the Lease, and then asks nothing of the fence', async () => {
    const api = await cluster({ others: [namespace('shop')] });
    const results = await runChecks(api, OPTIONS);
    expect(resultOf(results, 'controller')?.status).toBe('warn');
    expect(verdicts(results)).not.toContain('leader-fence ok');
    expect(api.calls).not.toContain('get validatingadmissionpolicies');
  });

  it('fails the controller check for a Lease its holder stopped renewing', async () => {
    const api = await cluster({ others: [namespace('shop'), heldLease(600)] });
    expect(resultOf(await runChecks(api, OPTIONS), 'controller')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('last renewed 10m ago'),
    });
  });

  it('fails on a child of ours whose WebService is gone: an orphan', async () => {
    const api = await cluster({ children: [configMap('web', 'uid-web'), configMap('gone', 'uid-gone')] });
    const orphans = resultOf(await runChecks(api, OPTIONS), 'orphans');
    expect(orphans).toMatchObject({ status: 'fail', message: expect.stringMatching(/^1 ConfigMap labelled /) });
    expect(JSON.stringify(orphans?.items)).toContain('gone');
  });

  it('fails on a WebService terminating longer than --stuck-after, held by our finalizer', async () => {
    const deleted = new Date(NOW.getTime() - 3_600_000).toISOString();
    const api = await cluster({ webServices: [webService('web'), webService('old', { deletionTimestamp: deleted })] });
    const stuck = resultOf(await runChecks(api, OPTIONS), 'stuck');
    expect(stuck).toMatchObject({ status: 'fail', message: '1 WebService has been terminating for longer than 5m' });
  });

  it('says a namespace that does not exist holds nothing to check, instead of passing it', async () => {
    const api = await cluster();
    const results = await runChecks(api, { ...OPTIONS, namespace: 'nowhere' });
    expect(resultOf(results, 'namespace')).toMatchObject({
      status: 'warn',
      message: 'namespace nowhere does not exist: it holds no WebService to check',
    });
    expect(resultOf(results, 'ready')).toBeUndefined();
  });

  it('warns that the WebService checks were skipped when WebServices may not be listed', async () => {
    const api = await cluster({ forbidden: ['WebService'] });
    const results = await runChecks(api, OPTIONS);
    expect(verdicts(results.slice(-4))).toEqual(['stuck warn', 'orphans warn', 'conflicts warn', 'ready warn']);
    expect(results.at(-1)?.message).toMatch(/^not checked: WebServices and ConfigMaps cannot be listed \(webservices/);
  });
});

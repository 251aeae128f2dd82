// check's verdicts: what was read goes in, one line's worth of judgement comes out.
import { COMMAND_ACCESS, describeAccess } from '../../src/check/access';
import {
  accessVerdict,
  conflictVerdict,
  controllerVerdict,
  crdVerdict,
  fenceVerdict,
  orphanVerdict,
  OrphanKind,
  readyVerdict,
  rolloutVerdict,
  serverVerdict,
  stuckVerdict,
  pluralKind,
} from '../../src/check/verdicts';
import type { Decision } from '../../src/core/decide';
import type { Deployment, WebService } from '../../src/core/model';
import { readyStatus } from '../support/ready-status';

const NOW = new Date('2026-11-30T12:00:00Z');
const LABEL = 'webservice.labhub.io/version';
const crd = (labels: Record<string, string>, established = 'True') => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'webservices.apps.labhub.io', labels },
  status: { conditions: [{ type: 'Established', status: established, message: 'not yet' }] },
});
const ws = (name: string, extra: Partial<WebService['metadata']> = {}, status?: WebService['status']): WebService => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, generation: 1, ...extra },
  spec: { image: 'nginx:1.27' },
  status,
});
const ready = readyStatus();

describe('server', () => {
  it('passes from 1.27 and says which minimum', () => {
    expect(serverVerdict('https://k', { major: '1', minor: '27', gitVersion: 'v1.27.0' })).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('≥ 1.27'),
    });
    expect(serverVerdict('https://k', { major: '1', minor: '30+', gitVersion: 'v1.30.2-gke.1' }).status).toBe('ok');
    const old = serverVerdict('https://k', { major: '1', minor: '26', gitVersion: 'v1.26.9' });
    expect(old).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('needs ≥ 1.27'),
      hint: expect.any(String),
    });
  });
});

describe('crd', () => {
  const verdict = (observed: Parameters<typeof crdVerdict>[1]) =>
    crdVerdict('webservices.apps.labhub.io', observed, '0.2.0', LABEL);

  it('passes when installed, Established and at the bundled version', () => {
    expect(verdict({ kind: 'read', crd: crd({ [LABEL]: '0.2.0' }) }).status).toBe('ok');
  });

  it('fails with the install hint when missing, older or unlabelled; the upgrade hint when newer', () => {
    expect(verdict({ kind: 'read', crd: null })).toMatchObject({
      status: 'fail',
      hint: 'run: kubectl webservice install',
    });
    expect(verdict({ kind: 'read', crd: crd({ [LABEL]: '0.1.0' }) })).toMatchObject({
      status: 'fail',
      hint: 'upgrade it: kubectl webservice install',
    });
    expect(verdict({ kind: 'read', crd: crd({}) }).message).toContain('not labelled with a version');
    expect(verdict({ kind: 'read', crd: crd({ [LABEL]: '1.0.0' }) })).toMatchObject({
      status: 'fail',
      hint: expect.stringContaining('krew upgrade'),
    });
    expect(verdict({ kind: 'read', crd: crd({ [LABEL]: '0.2.0' }, 'False') })).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('not Established: not yet'),
    });
  });

  it('warns when the CRD may not be read but discovery serves webservices', () => {
    expect(verdict({ kind: 'forbidden', served: true, message: 'forbidden' }).status).toBe('warn');
    expect(verdict({ kind: 'forbidden', served: false, message: 'forbidden' }).status).toBe('fail');
  });
});

describe('access', () => {
  it('names every missing verb and resource of a command, and the binding that grants them', () => {
    const verdict = accessVerdict(
      'apply',
      COMMAND_ACCESS.apply,
      (a) => !(a.resource === 'configmaps' && a.verb === 'delete'),
      'ns',
    );
    expect(verdict).toMatchObject({
      check: 'access/apply',
      status: 'fail',
      message: 'apply is not allowed in namespace ns: missing delete configmaps',
    });
    expect(verdict.hint).toContain(
      'kubectl create rolebinding webservice-reconciler -n ns --clusterrole=webservice-reconciler',
    );
  });

  it('warns only when what is missing is optional (Events)', () => {
    const verdict = accessVerdict('apply', COMMAND_ACCESS.apply, (a) => a.resource !== 'events', null);
    expect(verdict).toMatchObject({
      status: 'warn',
      message: 'apply is allowed in every namespace, but not create events.events.k8s.io',
    });
  });

  it('maps each command to what it does: read-only commands never need writes', () => {
    const writes = (command: keyof typeof COMMAND_ACCESS) =>
      COMMAND_ACCESS[command].filter((a) => !['get', 'list', 'watch'].includes(a.verb)).map(describeAccess);
    expect(writes('observe')).toEqual([]);
    expect(writes('plan')).toEqual([]);
    expect(writes('status')).toEqual(['patch webservices.apps.labhub.io/status']);
    expect(writes('finalize')).toEqual([
      'delete configmaps',
      'patch webservices.apps.labhub.io',
      'create events.events.k8s.io',
    ]);
    expect(COMMAND_ACCESS.run.map(describeAccess)).toEqual(
      expect.arrayContaining(['watch webservices.apps.labhub.io', 'watch configmaps']),
    );
  });
});

describe('controller', () => {
  const lease = (renewTime: string, holderIdentity = 'replica-a') => ({
    metadata: { name: 'webservice-controller' },
    spec: { holderIdentity, renewTime, leaseDurationSeconds: 15 },
  });

  it('passes for a Lease renewed recently', () => {
    expect(
      controllerVerdict(
        'webservice-system/webservice-controller',
        { kind: 'read', lease: lease('2026-11-30T11:59:57.123456Z') },
        NOW,
      ),
    ).toMatchObject({
      status: 'ok',
      message: 'a controller (replica-a) holds the Lease webservice-system/webservice-controller, renewed 2s ago',
    });
  });

  it('fails for a stale Lease, warns when there is no controller at all', () => {
    const stale = controllerVerdict(
      'webservice-system/webservice-controller',
      { kind: 'read', lease: lease('2026-11-30T11:50:00Z') },
      NOW,
    );
    expect(stale).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('last renewed 10m ago'),
      hint: expect.stringContaining('kubectl -n webservice-system logs'),
    });
    expect(controllerVerdict('a/b', { kind: 'read', lease: null }, NOW)).toMatchObject({
      status: 'warn',
      message: 'no elected controller: there is no Lease a/b',
      hint: expect.stringContaining('run without --leader-elect holds no Lease, so check cannot see it'),
    });
    expect(controllerVerdict('a/b', { kind: 'read', lease: lease('2026-11-30T11:59:59Z', '') }, NOW).status).toBe(
      'warn',
    );
    expect(controllerVerdict('a/b', { kind: 'forbidden', message: 'no' }, NOW).status).toBe('warn');
  });

  it('names the installed controller, rather than advise installing one, when it holds no Lease', () => {
    const where = 'webservice-system/webservice-controller';
    const chart = {
      where,
      replicas: 2,
      ready: 0,
      image: 'labhub/webservice-controller:v0.1.0',
      placeholderImage: true,
      helmRelease: 'default/webservice-controller',
    };
    for (const observed of [
      { kind: 'read' as const, lease: null },
      { kind: 'read' as const, lease: lease('2026-11-30T11:59:59Z', '') },
      { kind: 'forbidden' as const, message: 'no' },
    ]) {
      const verdict = controllerVerdict(where, observed, NOW, chart);
      expect(verdict).toMatchObject({
        check: 'controller',
        status: 'warn',
        message: expect.stringMatching(
          /, though the controller Deployment webservice-system\/webservice-controller \(Helm release default\/webservice-controller\) is installed with 0\/2 replicas ready$/,
        ),
        hint:
          'its image labhub/webservice-controller:v0.1.0 is the placeholder of deploy/, which no registry serves: ' +
          'build one from deploy/Dockerfile and set it: helm upgrade webservice-controller -n default --reuse-values ' +
          '--set image.repository=REPOSITORY,image.tag=TAG',
      });
      expect(verdict.hint).not.toContain('install --controller');
    }
    const installed = { where, replicas: 2, ready: 1, image: 'registry.example.com/wsc:v1', placeholderImage: false };
    expect(controllerVerdict(where, { kind: 'read', lease: null }, NOW, installed)).toEqual({
      check: 'controller',
      status: 'warn',
      message: `no elected controller: there is no Lease ${where}, though the controller Deployment ${where} is installed with 1/2 replicas ready`,
      hint: 'kubectl -n webservice-system get pods -l app.kubernetes.io/name=webservice-controller; kubectl -n webservice-system logs deployment/webservice-controller',
    });
    expect(
      controllerVerdict(where, { kind: 'read', lease: null }, NOW, { ...installed, placeholderImage: true }).hint,
    ).toContain('set it: kubectl webservice install --controller --image IMAGE');
    // A controller that holds the Lease is judged by the Lease alone.
    expect(
      controllerVerdict(where, { kind: 'read', lease: lease('2026-11-30T11:59:57Z') }, NOW, installed).status,
    ).toBe('ok');
  });
});

describe('the leader fence', () => {
  const where = 'webservice-system/webservice-controller';
  const name = 'webservice-controller-leader-fence';

  it('passes when the fence follows the Lease the controller holds', () => {
    const fence = fenceVerdict(where, name, {
      kind: 'read',
      policy: true,
      paramRef: { namespace: 'webservice-system', name: 'webservice-controller' },
    });
    expect(fence).toEqual({
      check: 'leader-fence',
      status: 'ok',
      message: `the leader fence refuses writes from replicas that do not hold the Lease ${where}`,
    });
  });

  it('warns when it is missing, or half there, with the install command', () => {
    for (const observed of [
      { kind: 'read' as const, policy: false, paramRef: null },
      { kind: 'read' as const, policy: true, paramRef: null },
      {
        kind: 'read' as const,
        policy: false,
        paramRef: { namespace: 'webservice-system', name: 'webservice-controller' },
      },
    ]) {
      expect(fenceVerdict(where, name, observed)).toMatchObject({
        status: 'warn',
        message: expect.stringMatching(/^no leader fence: /),
        hint: 'kubectl webservice install --controller installs it (a ValidatingAdmissionPolicy and its binding)',
      });
    }
  });

  it('warns when it follows another Lease, with the patch that points it at this one', () => {
    const other = fenceVerdict('ops/my-lease', name, {
      kind: 'read',
      policy: true,
      paramRef: { namespace: 'webservice-system', name: 'webservice-controller' },
    });
    expect(other).toMatchObject({
      status: 'warn',
      message:
        'the leader fence follows the Lease webservice-system/webservice-controller, not ops/my-lease: it does not fence this controller',
      hint: `kubectl patch validatingadmissionpolicybinding ${name} --type=merge -p '{"spec":{"paramRef":{"namespace":"ops","name":"my-lease"}}}'`,
    });
  });

  it('warns when it cannot be read', () => {
    expect(fenceVerdict(where, name, { kind: 'forbidden', message: 'forbidden' })).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('cannot tell'),
    });
  });
});

describe('stuck deletions', () => {
  it('fails on a WebService terminating for longer than the limit, with the finalize command', () => {
    const stuck = ws('old', {
      deletionTimestamp: '2026-11-30T11:50:00Z',
      finalizers: ['webservice.labhub.io/cleanup'],
    });
    const fresh = ws('new', {
      deletionTimestamp: '2026-11-30T11:59:30Z',
      finalizers: ['webservice.labhub.io/cleanup'],
    });
    const verdict = stuckVerdict([stuck, fresh, ws('alive')], 300, 'ns', NOW);
    expect(verdict).toMatchObject({
      status: 'fail',
      message: '1 WebService has been terminating for longer than 5m',
      items: ['ns/old: terminating for 10m, finalizers webservice.labhub.io/cleanup'],
      hint: 'kubectl webservice finalize old -n ns finishes the deletion (a running controller would have)',
    });
    expect(stuckVerdict([fresh], 300, 'ns', NOW).status).toBe('ok');
  });

  it('says whose a foreign finalizer is to remove', () => {
    const verdict = stuckVerdict(
      [ws('held', { deletionTimestamp: '2026-11-30T11:00:00Z', finalizers: ['example.com/hold'] })],
      60,
      null,
      NOW,
    );
    expect(verdict.hint).toBe('finalizers that are not ours (example.com/hold) are for whoever set them to remove');
  });
});

describe('a kind in the plural', () => {
  it('says Services, Ingresses, NetworkPolicies and HTTPRoutes, as English does', () => {
    expect(['Service', 'Ingress', 'NetworkPolicy', 'HTTPRoute', 'Gateway', 'ConfigMap'].map(pluralKind)).toEqual([
      'Services',
      'Ingresses',
      'NetworkPolicies',
      'HTTPRoutes',
      'Gateways',
      'ConfigMaps',
    ]);
  });
});

describe('orphans, conflicts, readiness', () => {
  const labels = { 'app.kubernetes.io/managed-by': 'webservice-controller' };
  const owned = (name: string, uid: string, kind: OrphanKind = 'ConfigMap') => ({
    kind,
    metadata: {
      name,
      namespace: 'ns',
      labels,
      ownerReferences: [{ apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name: 'x', uid, controller: true }],
    },
  });
  const unowned = (name: string, kind: OrphanKind = 'ConfigMap') => ({
    kind,
    metadata: { name, namespace: 'ns', labels },
  });
  const withWorkload = (name: string) => ({ ...ws(name), spec: { image: 'nginx:1.27', workload: {} } });

  it('finds labelled ConfigMaps whose owner is gone or that have none and no WebService of their name', () => {
    const verdict = orphanVerdict(
      [owned('a-desired', 'uid-a'), owned('gone-desired', 'uid-gone'), unowned('b-desired'), unowned('lost-desired')],
      [ws('a'), ws('b')],
      'ns',
    );
    expect(verdict).toMatchObject({
      status: 'fail',
      message:
        '2 ConfigMaps labelled app.kubernetes.io/managed-by=webservice-controller have no WebService owning them',
      items: ['ns/gone-desired: its owner is gone', 'ns/lost-desired: no owner reference'],
    });
    expect(orphanVerdict([owned('a-desired', 'uid-a')], [ws('a')], 'ns')).toEqual({
      check: 'orphans',
      status: 'ok',
      message:
        'no orphaned ConfigMaps, Deployments, Services, PodDisruptionBudgets, HorizontalPodAutoscalers, NetworkPolicies, Ingresses or HTTPRoutes in namespace ns',
    });
  });

  it('finds orphaned Deployments and Services too, each named after its WebService', () => {
    const verdict = orphanVerdict(
      [
        owned('a-desired', 'uid-a'),
        owned('a', 'uid-a', 'Deployment'),
        owned('a', 'uid-a', 'Service'),
        owned('gone', 'uid-gone', 'Deployment'),
        owned('gone', 'uid-gone', 'Service'),
        unowned('b', 'Deployment'),
        // A Service called b-desired is not b's: b's Service would be called b.
        unowned('b-desired', 'Service'),
        unowned('lost', 'Service'),
      ],
      [withWorkload('a'), withWorkload('b')],
      'ns',
    );
    expect(verdict).toMatchObject({
      status: 'fail',
      message:
        '1 Deployment and 3 Services labelled app.kubernetes.io/managed-by=webservice-controller have no WebService owning them',
      items: [
        'ns/deployment/gone: its owner is gone',
        'ns/service/gone: its owner is gone',
        'ns/service/b-desired: no owner reference',
        'ns/service/lost: no owner reference',
      ],
      hint: expect.stringMatching(/^delete them, e\.g\. kubectl delete deployment gone -n ns /),
    });
    const one = orphanVerdict([unowned('lost-desired'), owned('gone', 'uid-gone', 'Deployment')], [], 'ns');
    expect(one.message).toBe(
      '1 ConfigMap and 1 Deployment labelled app.kubernetes.io/managed-by=webservice-controller have no WebService owning them',
    );
  });

  it('objects without our label are not ours to judge', () => {
    const theirs = { kind: 'Deployment' as const, metadata: { name: 'x', namespace: 'ns', labels: { app: 'x' } } };
    expect(orphanVerdict([theirs], [], 'ns').status).toBe('ok');
  });

  it('kinds it may not list make a clean result a warning that names them', () => {
    const verdict = orphanVerdict([], [], 'ns', { kinds: ['Deployment', 'Service'], reason: 'forbidden: no list' });
    expect(verdict).toMatchObject({
      status: 'warn',
      message:
        'no orphaned ConfigMaps, PodDisruptionBudgets, HorizontalPodAutoscalers, NetworkPolicies, Ingresses or HTTPRoutes in namespace ns; ' +
        'Deployments and Services not checked: forbidden: no list',
    });
    // An orphan found is still a failure.
    expect(orphanVerdict([unowned('lost-desired')], [], 'ns', { kinds: ['Deployment'], reason: 'x' }).status).toBe(
      'fail',
    );
  });

  it('lists conflicts as failures and not-Ready WebServices as warnings', () => {
    const conflict = {
      namespace: 'ns',
      name: 'taken',
      action: 'conflict',
      reason: 'configmap/taken-desired exists and is not ours',
    } as Decision;
    expect(conflictVerdict([conflict], 'ns')).toMatchObject({
      status: 'fail',
      items: ['ns/taken: configmap/taken-desired exists and is not ours'],
    });
    expect(conflictVerdict([], 'ns').status).toBe('ok');
    const verdict = readyVerdict([ws('good', {}, ready), ws('new'), ws('gone', { deletionTimestamp: 'x' })], 'ns');
    expect(verdict).toMatchObject({
      status: 'warn',
      message: '1 WebService of 2 is not Ready',
      items: ['ns/new: never reconciled'],
    });
    expect(readyVerdict([ws('good', {}, ready)], 'ns')).toMatchObject({
      status: 'ok',
      message: 'every WebService is Ready (1) in namespace ns',
    });
  });
});

describe('rollouts', () => {
  const web = (name: string, replicas: number, extra: Partial<WebService['metadata']> = {}): WebService => ({
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, generation: 1, ...extra },
    spec: { image: 'nginx:1.27', replicas, workload: {} },
  });
  const deployment = (
    name: string,
    progressing: string,
    counts: { ready: number; replicas: number },
    spec: Deployment['spec'] = {},
  ): Deployment => ({
    metadata: {
      name,
      namespace: 'ns',
      generation: 2,
      ownerReferences: [
        { apiVersion: 'apps.labhub.io/v1', kind: 'WebService', name, uid: `uid-${name}`, controller: true },
      ],
    },
    spec,
    status: {
      observedGeneration: 2,
      replicas: counts.replicas,
      updatedReplicas: counts.replicas,
      readyReplicas: counts.ready,
      availableReplicas: counts.ready,
      conditions: [
        {
          type: 'Progressing',
          status: progressing === 'ProgressDeadlineExceeded' ? 'False' : 'True',
          reason: progressing,
        },
      ],
    },
  });

  it('lists the rollouts past their progress deadline, with ready/desired and the deadline', () => {
    const verdict = rolloutVerdict(
      [web('big', 230), web('ok', 2), web('slow', 3)],
      [
        deployment('big', 'ProgressDeadlineExceeded', { ready: 220, replicas: 230 }, { progressDeadlineSeconds: 15 }),
        deployment('ok', 'NewReplicaSetAvailable', { ready: 2, replicas: 2 }),
        deployment('slow', 'ReplicaSetUpdated', { ready: 1, replicas: 3 }),
      ],
      'ns',
    );
    expect(verdict).toEqual({
      check: 'rollouts',
      status: 'fail',
      message: '1 rollout has stalled: no progress within the progress deadline',
      items: ['ns/big: deployment/big 220/230 ready, no progress for 15s'],
      hint:
        'kubectl describe deployment big -n ns says why (pods that cannot be scheduled? an image that cannot be pulled?); ' +
        'the WebService is Ready again once the rollout can finish',
    });
  });

  it('a rollout that finished since its deadline passed is not stalled; the default deadline is 600s', () => {
    // Scaled down after the stall: the Deployment is complete while its condition still says so.
    expect(
      rolloutVerdict([web('big', 2)], [deployment('big', 'ProgressDeadlineExceeded', { ready: 2, replicas: 2 })], 'ns'),
    ).toEqual({ check: 'rollouts', status: 'ok', message: 'no stalled rollouts in namespace ns' });
    expect(
      rolloutVerdict([web('big', 5)], [deployment('big', 'ProgressDeadlineExceeded', { ready: 1, replicas: 5 })], null)
        .items,
    ).toEqual(['ns/big: deployment/big 1/5 ready, no progress for 600s']);
  });

  it("judges only a WebService's own Deployment: not a foreign one of its name, not one being deleted", () => {
    const foreign = { ...deployment('big', 'ProgressDeadlineExceeded', { ready: 0, replicas: 5 }) };
    foreign.metadata = { ...foreign.metadata, ownerReferences: [] };
    expect(rolloutVerdict([web('big', 5)], [foreign], 'ns').status).toBe('ok');
    const stalled = deployment('big', 'ProgressDeadlineExceeded', { ready: 0, replicas: 5 });
    expect(rolloutVerdict([web('big', 5, { deletionTimestamp: 'x' })], [stalled], 'ns').status).toBe('ok');
    expect(rolloutVerdict([web('big', 5)], [stalled], 'ns').status).toBe('fail');
  });
});

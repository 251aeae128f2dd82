// describe's pure parts: the tree of a WebService's children and what the cluster made of
// them, the states in a word, the Events matched and merged, the text, and the reads it adds.
import { Chalk } from 'chalk';
import { decide } from '../../src/core/decide';
import { describeWebService } from '../../src/core/description';
import { DESCENDANT_KINDS, LiveObject, RelatedObjects, TreeNode, descendantsOf } from '../../src/core/tree';
import { RawEvent, eventsAbout } from '../../src/core/recent-events';
import { Deployment, Expose, SyncInput } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { gatherDescribeReads } from '../../src/engine/describe';
import { eventAge, renderDescription } from '../../src/print/describe';
import { FakeApi } from '../support/fake-api';
import { decideFixture } from '../support/decide-fixtures';

const NOW = '2026-11-29T10:00:00Z';
const NO_COLOR = new Chalk({ level: 0 });

const WS_UID = '6f1c2a34-0000-4000-8000-00000000c0de';
const meta = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  namespace: 'crd-lab',
  uid: `${name}-uid`,
  creationTimestamp: '2026-11-29T09:50:00Z',
  ...extra,
});
const ownedBy = (uid: string) => ({
  ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid, controller: true }],
});

const replicaSet = (name: string, status: Record<string, unknown>, replicas = 3): LiveObject => ({
  kind: 'ReplicaSet',
  metadata: meta(name, { ...ownedBy('deploy-uid-1'), annotations: { 'deployment.kubernetes.io/revision': '2' } }),
  spec: { replicas },
  status,
});

const pod = (name: string, owner: string, status: Record<string, unknown>): LiveObject => ({
  kind: 'Pod',
  metadata: meta(name, ownedBy(owner)),
  spec: { containers: [{ name: 'web' }] },
  status,
});

const RUNNING = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }],
  containerStatuses: [{ ready: true, restartCount: 0 }],
};

const SLICE: LiveObject = {
  kind: 'EndpointSlice',
  metadata: meta('checkout-x7k2p', { labels: { 'kubernetes.io/service-name': 'checkout' } }),
  ports: [{ port: 8080 }],
  endpoints: [
    { addresses: ['10.0.0.5'], conditions: { ready: true } },
    { addresses: ['10.0.0.6'], conditions: { ready: true } },
    { addresses: ['10.0.0.7'], conditions: { ready: false } },
  ],
};

function healthyRelated(): RelatedObjects {
  return {
    ReplicaSet: [replicaSet('checkout-5d4f', { replicas: 3, readyReplicas: 3 })],
    Pod: [
      pod('checkout-5d4f-b', 'checkout-5d4f-uid', RUNNING),
      pod('checkout-5d4f-a', 'checkout-5d4f-uid', {
        ...RUNNING,
        containerStatuses: [{ ready: true, restartCount: 2 }],
      }),
      pod('other-1', 'someone-else', RUNNING),
    ],
    EndpointSlice: [SLICE],
  };
}

function describeOf(input: SyncInput, related: RelatedObjects = {}, events: RawEvent[] = [], unread: string[] = []) {
  const observation = observe(input);
  return describeWebService({ input, observation, decision: decide(observation), related, events, unread, now: NOW });
}

const shape = (node: TreeNode): unknown[] => [
  `${node.kind}/${node.name}`,
  node.state,
  ...(node.children.length > 0 ? [node.children.map(shape)] : []),
];

const withDeploymentStatus = (input: SyncInput, status: Deployment['status']): SyncInput => ({
  ...input,
  children: input.children.map((c) => (c.kind === 'Deployment' ? { ...c, status } : c)),
});

describe('the tree of children', () => {
  it('a converged workload: ConfigMap, Deployment → ReplicaSet → its pods, Service → EndpointSlice', () => {
    const d = describeOf(decideFixture('noop-workload-converged'), healthyRelated());
    expect(d.tree.children.map(shape)).toEqual([
      ['ConfigMap/checkout-desired', 'Ready'],
      [
        'Deployment/checkout',
        'Ready',
        [
          [
            'ReplicaSet/checkout-5d4f',
            'Ready',
            [
              ['Pod/checkout-5d4f-a', 'Ready'],
              ['Pod/checkout-5d4f-b', 'Ready'],
            ],
          ],
        ],
      ],
      ['Service/checkout', 'Ready', [['EndpointSlice/checkout-x7k2p', 'Ready']]],
    ]);
    const [configMap, deployment, service] = d.tree.children;
    expect(configMap.info).toBe('image=nginx:1.27, replicas=3, tier=dev');
    expect(deployment.info).toBe('3/3 ready, 3 up to date, 3 available');
    expect(deployment.children[0].info).toBe('revision 2, 3/3 ready');
    expect(deployment.children[0].children[0]).toMatchObject({
      info: 'Running, 1/1 ready, 2 restarts',
      pod: { phase: 'Running', ready: '1/1', restarts: 2 },
    });
    expect(service.endpoints).toEqual({ ready: 2, total: 3, addresses: ['10.0.0.5:8080', '10.0.0.6:8080'] });
    expect(service.children[0].info).toBe('2/3 ready: 10.0.0.5:8080, 10.0.0.6:8080');
  });

  it("a ReplicaSet that cannot make pods: the Deployment and the ReplicaSet say Failed, with the server's message", () => {
    const failure = {
      type: 'ReplicaFailure',
      status: 'True',
      reason: 'FailedCreate',
      message: 'pods "checkout-5d4f-x" is forbidden: failed quota: compute: must specify requests.cpu',
    };
    const input = withDeploymentStatus(decideFixture('noop-workload-converged'), {
      observedGeneration: 4,
      replicas: 0,
      conditions: [failure],
    });
    const related = { ReplicaSet: [replicaSet('checkout-5d4f', { replicas: 0, conditions: [failure] })], Pod: [] };
    const d = describeOf(input, related);
    const deployment = d.tree.children[1];
    expect(deployment).toMatchObject({
      state: 'Failed',
      info: '0/3 ready, 0 up to date, 0 available',
      message: `ReplicaFailure FailedCreate: ${failure.message}`,
    });
    expect(deployment.children[0]).toMatchObject({
      state: 'Failed',
      message: `ReplicaFailure FailedCreate: ${failure.message}`,
    });
    expect(d.decision.ready).toMatchObject({ status: 'False', reason: 'FailedCreate' });
  });

  it('a rollout in progress, and a Service without ready endpoints, are Progressing', () => {
    const input = withDeploymentStatus(decideFixture('noop-workload-converged'), {
      observedGeneration: 4,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 1,
      availableReplicas: 1,
    });
    const d = describeOf(input, { EndpointSlice: [] });
    expect(d.tree.children.map((c) => c.state)).toEqual(['Ready', 'Progressing', 'Progressing']);
    expect(d.tree.children[2].info).toMatch(/; 0 ready endpoints$/);
  });

  it("the kind table's children that are missing, foreign or out of date say so, with decide's reason", () => {
    expect(describeOf(decideFixture('create-workload')).tree.children.map((c) => [c.kind, c.state])).toEqual([
      ['ConfigMap', 'Missing'],
      ['Deployment', 'Missing'],
      ['Service', 'Missing'],
    ]);
    const foreign = describeOf(decideFixture('conflict-foreign-child')).tree.children[0];
    expect(foreign).toMatchObject({
      kind: 'ConfigMap',
      state: 'Conflict',
      message: expect.stringMatching(/not ours|owner|label/),
    });
    const changed = describeOf(decideFixture('update-image-changed')).tree.children[0];
    expect(changed).toMatchObject({ state: 'OutOfDate', message: expect.stringMatching(/data\.image/) });
    expect(
      describeOf(decideFixture('update-workload-port-removed')).tree.children.map((c) => [c.kind, c.state]),
    ).toContainEqual(['Service', 'Unwanted']);
  });

  it('pods: crash loops fail, unschedulable pods are Pending with the reason, deleted ones Terminating', () => {
    const related: RelatedObjects = {
      ReplicaSet: [replicaSet('checkout-5d4f', { replicas: 3, readyReplicas: 0 })],
      Pod: [
        pod('a', 'checkout-5d4f-uid', {
          phase: 'Running',
          containerStatuses: [
            {
              ready: false,
              restartCount: 7,
              state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s' } },
            },
          ],
        }),
        pod('b', 'checkout-5d4f-uid', {
          phase: 'Pending',
          conditions: [
            { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/2 nodes are available' },
          ],
        }),
        {
          ...pod('c', 'checkout-5d4f-uid', RUNNING),
          metadata: meta('c', { ...ownedBy('checkout-5d4f-uid'), deletionTimestamp: NOW }),
        },
      ],
    };
    const pods = describeOf(decideFixture('noop-workload-converged'), related).tree.children[1].children[0].children;
    expect(pods.map((p) => [p.name, p.state, p.message])).toEqual([
      ['a', 'Failed', 'CrashLoopBackOff: back-off 5m0s'],
      ['b', 'Pending', 'PodScheduled Unschedulable: 0/2 nodes are available'],
      ['c', 'Terminating', undefined],
    ]);
    expect(pods[0].info).toBe('Running, 0/1 ready, 7 restarts');
  });

  it('a WebService without workload has its ConfigMap only, and descends into nothing', () => {
    const d = describeOf(decideFixture('noop-converged'));
    expect(d.tree.children.map((c) => c.kind)).toEqual(['ConfigMap']);
    expect(d.spec.workload).toBeNull();
    expect(descendantsOf(['ConfigMap'])).toEqual([]);
  });

  it('the descendant table reaches pods through ReplicaSets, and endpoints through Services', () => {
    expect(descendantsOf(['ConfigMap', 'Deployment']).map((r) => r.type.kind)).toEqual(['ReplicaSet', 'Pod']);
    expect(descendantsOf(['Service']).map((r) => r.type.kind)).toEqual(['EndpointSlice']);
    expect(DESCENDANT_KINDS.map((r) => r.parentKind)).toEqual(['Deployment', 'ReplicaSet', 'Service']);
  });
});

describe('the decision', () => {
  it('is what decide says for the same observation, with its writes named', () => {
    const input = decideFixture('update-workload-image-changed');
    const d = describeOf(input);
    const decision = decide(observe(input));
    expect(d.decision).toMatchObject({ action: decision.action, reason: decision.reason, target: decision.target });
    expect(d.decision.writes).toEqual(expect.arrayContaining(['apply deployment/checkout']));
    expect(describeOf(decideFixture('create-first-run')).decision.writes).toEqual([
      'create configmap/checkout-desired',
    ]);
    expect(describeOf(decideFixture('finalize-terminating')).decision.ready).toBeNull();
  });
});

describe('the Events', () => {
  const objects = [
    { kind: 'WebService', name: 'checkout', uid: WS_UID },
    { kind: 'ReplicaSet', name: 'checkout-5d4f', uid: 'rs-uid' },
  ];

  it('core/v1 and events.k8s.io/v1 Events about the tree, by uid or kind and name, oldest first', () => {
    const events: RawEvent[] = [
      {
        metadata: { name: 'e1' },
        type: 'Warning',
        reason: 'FailedCreate',
        involvedObject: { kind: 'ReplicaSet', name: 'checkout-5d4f', uid: 'rs-uid' },
        message: 'Error creating: forbidden',
        source: { component: 'replicaset-controller' },
        firstTimestamp: '2026-11-29T09:40:00Z',
        lastTimestamp: '2026-11-29T09:58:00Z',
        count: 12,
      },
      {
        metadata: { name: 'e2' },
        type: 'Normal',
        reason: 'Created',
        regarding: { kind: 'WebService', name: 'checkout' },
        note: 'configmap/checkout-desired created',
        reportingController: 'webservice-controller',
        eventTime: '2026-11-29T09:30:00.000000Z',
      },
      // The same name, but another object (another uid): not ours.
      {
        metadata: { name: 'e3' },
        reason: 'Old',
        involvedObject: { kind: 'ReplicaSet', name: 'checkout-5d4f', uid: 'gone' },
      },
      { metadata: { name: 'e4' }, reason: 'Other', involvedObject: { kind: 'Pod', name: 'unrelated' } },
    ];
    expect(eventsAbout(events, objects)).toEqual([
      {
        type: 'Normal',
        reason: 'Created',
        object: 'WebService/checkout',
        from: 'webservice-controller',
        message: 'configmap/checkout-desired created',
        count: 1,
        firstTime: '2026-11-29T09:30:00.000000Z',
        lastTime: '2026-11-29T09:30:00.000000Z',
      },
      {
        type: 'Warning',
        reason: 'FailedCreate',
        object: 'ReplicaSet/checkout-5d4f',
        from: 'replicaset-controller',
        message: 'Error creating: forbidden',
        count: 12,
        firstTime: '2026-11-29T09:40:00Z',
        lastTime: '2026-11-29T09:58:00Z',
      },
    ]);
  });

  it("kubectl describe's Age: one time, or how many over how long", () => {
    const event = {
      type: 'Normal',
      reason: 'R',
      object: 'X/x',
      from: '',
      message: '',
      count: 1,
      firstTime: NOW,
      lastTime: NOW,
    };
    const now = new Date('2026-11-29T10:03:00Z');
    expect(eventAge(event, now)).toBe('3m');
    expect(eventAge({ ...event, count: 4, firstTime: '2026-11-29T09:00:00Z' }, now)).toBe('3m (x4 over 63m)');
  });
});

describe('the text', () => {
  it("kubectl describe's layout, with the tree drawn as kubectl-tree draws it", () => {
    const events: RawEvent[] = [
      {
        metadata: { name: 'e1' },
        type: 'Normal',
        reason: 'ScalingReplicaSet',
        involvedObject: { kind: 'Deployment', name: 'checkout', uid: 'deploy-uid-1' },
        message: 'Scaled up replica set checkout-5d4f from 0 to 3',
        source: { component: 'deployment-controller' },
        lastTimestamp: '2026-11-29T09:50:00Z',
      },
    ];
    const input = decideFixture('noop-workload-converged');
    input.parent.metadata.creationTimestamp = '2026-11-29T09:00:00Z';
    input.parent.status = {
      observedGeneration: 2,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          observedGeneration: 2,
          lastTransitionTime: '2026-11-29T09:51:00Z',
          reason: 'Reconciled',
          message: 'deployment/checkout: 3/3 ready',
        },
      ],
      ready: '3/3',
    };
    const related = healthyRelated();
    (related.Pod as LiveObject[])[1].status = {
      phase: 'Running',
      containerStatuses: [
        { ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } } },
      ],
    };
    const text = renderDescription(describeOf(input, related, events), NO_COLOR, new Date(NOW));
    expect(text.split('\n')).toEqual([
      'Name:        checkout',
      'Namespace:   crd-lab',
      'Labels:      <none>',
      'Created:     2026-11-29T09:00:00Z (60m ago)',
      'Generation:  2 (observed: 2)',
      'Spec:',
      '  Image:       nginx:1.27',
      '  Replicas:    3',
      '  Tier:        dev',
      '  Depends On:  <none>',
      '  Workload:    port 8080; defaultSpread',
      '  Expose:      <none>',
      'Conditions:',
      '  Type   Status  Age  Reason      Message',
      '  ----   ------  ---  ------      -------',
      '  Ready  True    9m   Reconciled  deployment/checkout: 3/3 ready',
      'Children:',
      '  Object                            State   Age  Info',
      '  ------                            -----   ---  ----',
      '  WebService/checkout               Ready   60m  3/3 ready',
      '  ├─ConfigMap/checkout-desired      Ready   -    image=nginx:1.27, replicas=3, tier=dev',
      '  ├─Deployment/checkout             Ready   -    3/3 ready, 3 up to date, 3 available',
      '  │ └─ReplicaSet/checkout-5d4f      Ready   10m  revision 2, 3/3 ready',
      '  │   ├─Pod/checkout-5d4f-a         Failed  10m  Running, 0/1 ready, 1 restart',
      '  │   │   CrashLoopBackOff: back-off',
      '  │   └─Pod/checkout-5d4f-b         Ready   10m  Running, 1/1 ready, 0 restarts',
      '  └─Service/checkout                Ready   -    ClusterIP 10.96.12.34 port 8080; 2 ready endpoints',
      '    └─EndpointSlice/checkout-x7k2p  Ready   10m  2/3 ready: 10.0.0.5:8080, 10.0.0.6:8080',
      'Decision:',
      '  Action:  noop',
      '  Target:  configmap/checkout-desired',
      '  Reason:  configmap/checkout-desired, deployment/checkout, service/checkout match the spec',
      '  Writes:  <none>',
      '  Ready:   True (Reconciled): deployment/checkout: 3/3 ready',
      'Events:',
      '  Type    Reason             Age  From                   Object               Message',
      '  ----    ------             ---  ----                   ------               -------',
      '  Normal  ScalingReplicaSet  10m  deployment-controller  Deployment/checkout  Scaled up replica set checkout-5d4f from 0 to 3',
      '',
    ]);
  });

  it('shows spec.expose in the Spec section: where, and through an Ingress or an HTTPRoute', () => {
    const exposeLine = (expose: Expose) => {
      const input = decideFixture('noop-workload-converged');
      input.parent.spec.expose = expose;
      return /^ {2}Expose: +(.*)$/m.exec(renderDescription(describeOf(input, {}, []), NO_COLOR, new Date(NOW)))?.[1];
    };
    expect(exposeLine({ host: 'shop.example.com' })).toBe('shop.example.com/ (Ingress, the default IngressClass)');
    expect(
      exposeLine({ host: 'shop.example.com', path: '/api', ingressClassName: 'nginx', tls: { secretName: 'tls' } }),
    ).toBe('shop.example.com/api (Ingress, class nginx, TLS with secret tls)');
    expect(exposeLine({ host: 'shop.example.com', gateway: { name: 'public', namespace: 'infra' } })).toBe(
      'shop.example.com/ (HTTPRoute on gateway infra/public)',
    );
    expect(exposeLine({ host: 'shop.example.com', gateway: { name: 'public' } })).toBe(
      'shop.example.com/ (HTTPRoute on gateway crd-lab/public)',
    );
  });

  it('says what it could not read', () => {
    const text = renderDescription(
      describeOf(decideFixture('noop-converged'), {}, [], ['pods: forbidden']),
      NO_COLOR,
      new Date(NOW),
    );
    expect(text).toMatch(/\nNot shown:\n {2}pods: forbidden\n$/);
    expect(text).toMatch(/\nEvents:\n {2}<none>\n/);
  });
});

describe('the reads describe adds', () => {
  const input = decideFixture('noop-workload-converged');

  it('one WebService: its own ReplicaSets and pods by its selector, its EndpointSlices by Service name, the Events', async () => {
    const api = new FakeApi({
      others: [
        ...(healthyRelated().ReplicaSet as LiveObject[]).map((rs) => ({
          ...rs,
          metadata: {
            ...rs.metadata,
            labels: { 'app.kubernetes.io/name': 'checkout', 'app.kubernetes.io/instance': 'checkout' },
          },
        })),
        SLICE,
        { kind: 'Event', metadata: { name: 'e1', namespace: 'crd-lab' } },
      ] as { kind: string; metadata: LiveObject['metadata'] }[],
    });
    const reads = await gatherDescribeReads(api, [input], 'crd-lab');
    expect(api.requests.map((r) => [r.verb, r.resource, r.namespace, r.detail])).toEqual([
      [
        'list',
        'replicasets',
        'crd-lab',
        { labelSelector: 'app.kubernetes.io/name=checkout,app.kubernetes.io/instance=checkout' },
      ],
      [
        'list',
        'pods',
        'crd-lab',
        { labelSelector: 'app.kubernetes.io/name=checkout,app.kubernetes.io/instance=checkout' },
      ],
      ['list', 'endpointslices', 'crd-lab', { labelSelector: 'kubernetes.io/service-name=checkout' }],
      ['list', 'events', 'crd-lab', {}],
    ]);
    expect(api.writes).toEqual([]);
    expect(reads.related.ReplicaSet?.map((o) => o.metadata.name)).toEqual(['checkout-5d4f']);
    expect(reads.related.EndpointSlice?.map((o) => o.kind)).toEqual(['EndpointSlice']);
    expect(reads.events.get('crd-lab')?.map((e) => e.metadata.name)).toEqual(['e1']);
  });

  it('one WebService whose Deployment keeps the legacy selector: its pods by that selector', async () => {
    const api = new FakeApi();
    await gatherDescribeReads(api, [decideFixture('update-workload-upgrade')], 'crd-lab');
    expect(api.requests.slice(0, 2).map((r) => r.detail)).toEqual([
      { labelSelector: 'app.kubernetes.io/name=webservice,app.kubernetes.io/instance=checkout' },
      { labelSelector: 'app.kubernetes.io/name=webservice,app.kubernetes.io/instance=checkout' },
    ]);
  });

  it('several in a scope: one LIST per kind, by our label; none for kinds no child leads to', async () => {
    const api = new FakeApi();
    await gatherDescribeReads(api, [decideFixture('noop-converged'), decideFixture('noop-long-name')], null);
    expect(api.calls).toEqual(['list events']);
    await gatherDescribeReads(api, [input, decideFixture('noop-converged')], null);
    expect(api.requests.slice(1).map((r) => [r.resource, r.namespace, r.detail])).toEqual([
      ['replicasets', null, { labelSelector: 'app.kubernetes.io/instance' }],
      ['pods', null, { labelSelector: 'app.kubernetes.io/instance' }],
      ['endpointslices', null, { labelSelector: 'kubernetes.io/service-name' }],
      ['events', null, {}],
    ]);
  });

  it('a read refused for want of permission is named, and the rest is still read', async () => {
    const api = new FakeApi({ forbidden: ['Pod', 'Event'] });
    const reads = await gatherDescribeReads(api, [input], 'crd-lab');
    expect(reads.unread).toEqual([
      'pods: pods is forbidden: the fake refuses it',
      'events: events is forbidden: the fake refuses it',
    ]);
    expect(reads.related.ReplicaSet).toEqual([]);
    expect(reads.related.Pod).toBeUndefined();
  });

  it('nothing to describe, nothing read', async () => {
    const api = new FakeApi();
    await gatherDescribeReads(api, [], 'crd-lab');
    expect(api.requests).toEqual([]);
  });
});

// The pod's whole spec, from spec.workload into the Deployment: every field set reaches the pod
// template, a field removed from the spec changes what is applied (so the server drops it), a
// field others set or the server defaults makes no write, and a hand edit of ours is put back.
import { APPLIED_HASH_ANNOTATION } from '../../src/core/applied';
import { Decision } from '../../src/core/decide';
import { Deployment, WorkloadSpec } from '../../src/core/model';
import { OWN_POD_LABELS } from '../../src/core/pod';
import { MAX_RESOURCE_NAMES, resourceNamesRule } from '../../src/core/resource-names';
import { Schema, webServiceSpecSchema } from '../support/crd-schema';
import { EVERY_POD_FIELD } from '../support/pod-fields';
import { convergedWorkload } from '../support/writes';
import { appliedDeployment, decideFixture, decisionOf } from '../support/decide-fixtures';

/** The converged fixture with spec.workload replaced, and the live Deployment as that spec last applied it. */
const convergedWith = (workload: WorkloadSpec, edit?: (live: Deployment) => void) =>
  convergedWorkload(decideFixture('noop-workload-converged'), workload, { edit });

const EVERY_FIELD: WorkloadSpec = EVERY_POD_FIELD;

describe('the pod spec from spec.workload', () => {
  it('carries every field into the Deployment', () => {
    const input = decideFixture('create-workload');
    const deployment = appliedDeployment(
      decisionOf({ ...input, parent: { ...input.parent, spec: { ...input.parent.spec, workload: EVERY_FIELD } } }),
    );
    const spec = deployment.spec!;
    expect(spec.progressDeadlineSeconds).toBe(120);
    expect(spec.strategy).toEqual(EVERY_FIELD.strategy);
    const template = spec.template!;
    expect(template.metadata?.labels).toMatchObject({ team: 'payments' });
    expect(template.metadata?.annotations).toMatchObject({ 'sidecar.istio.io/inject': 'true' });
    const pod = template.spec!;
    expect(pod).toMatchObject({
      serviceAccountName: 'shop',
      imagePullSecrets: [{ name: 'registry' }],
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, fsGroup: 2000 },
      nodeSelector: EVERY_FIELD.nodeSelector,
      tolerations: EVERY_FIELD.tolerations,
      affinity: EVERY_FIELD.affinity,
      topologySpreadConstraints: EVERY_FIELD.topologySpreadConstraints,
      terminationGracePeriodSeconds: 45,
    });
    expect(pod.volumes).toEqual([
      {
        name: expect.stringMatching(/^files-/),
        configMap: { name: 'features', items: [{ key: 'list', path: 'features.txt' }] },
      },
      ...EVERY_POD_FIELD.volumes,
    ]);
    const [web] = pod.containers!;
    expect(web).toMatchObject({
      name: 'web',
      command: ['/app/server'],
      args: ['--listen', ':8080'],
      env: EVERY_FIELD.env,
      resources: EVERY_FIELD.resources,
      readinessProbe: EVERY_FIELD.readinessProbe,
      // 0 is how the server spells its default: it stores 10, so 10 is what we compare.
      livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 10 },
      startupProbe: EVERY_FIELD.startupProbe,
      lifecycle: EVERY_FIELD.lifecycle,
      securityContext: {
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
        readOnlyRootFilesystem: true,
      },
      volumeMounts: [
        { name: (pod.volumes as { name: string }[])[0].name, mountPath: '/etc/shop', readOnly: true },
        ...EVERY_POD_FIELD.volumeMounts,
      ],
    });
    // The app's environment is the spec's alone: the lab's ConfigMap is not in it.
    expect(web.envFrom).toEqual(EVERY_FIELD.envFrom);
  });

  it('a converged Deployment with every field set, as the server stores it: nothing to do', () => {
    const input = convergedWith(EVERY_FIELD, (live) => {
      const web = live.spec!.template!.spec!.containers![0];
      // The server's spelling of our quantities, and the defaults it fills in.
      web.resources = { requests: { cpu: '500m', memory: '1536Mi' }, limits: { cpu: '1', memory: '2Gi' } };
      web.readinessProbe = {
        httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      };
      web.imagePullPolicy = 'IfNotPresent';
      web.terminationMessagePath = '/dev/termination-log';
    });
    expect(decisionOf(input).action).toBe('noop');
  });

  it("others' env vars, containers and annotations make no write", () => {
    const input = convergedWith(EVERY_FIELD, (live) => {
      const template = live.spec!.template!;
      template.metadata!.annotations!['kubectl.kubernetes.io/restartedAt'] = '2026-12-02T09:00:00Z';
      template.spec!.containers![0].env = [
        ...(template.spec!.containers![0].env as object[]),
        { name: 'ADDED', value: '1' },
      ];
      template.spec!.containers!.push({ name: 'sidecar', image: 'envoy' });
    });
    expect(decisionOf(input).action).toBe('noop');
  });

  it('a hand edit of one of our fields is put back, and the record names it', () => {
    const input = convergedWith(EVERY_FIELD, (live) => {
      live.spec!.template!.spec!.containers![0].resources = { requests: { cpu: '250m', memory: '1536Mi' } };
    });
    const decision = decisionOf(input);
    expect(decision.action).toBe('update');
    expect(decision.changes).toEqual([
      expect.objectContaining({
        child: 'deployment/checkout',
        field: 'spec.template.spec.containers[web].resources.requests.cpu',
        from: '250m',
        to: '0.5',
      }),
      expect.objectContaining({ field: 'spec.template.spec.containers[web].resources.limits' }),
    ]);
  });

  it('a field removed from the spec changes the hash: the apply lets the server drop it', () => {
    const { env: _removed, ...withoutEnv } = EVERY_FIELD;
    const live = convergedWith(EVERY_FIELD).children.find((c) => c.kind === 'Deployment')!;
    const input = convergedWith(withoutEnv);
    input.children = input.children.map((c) => (c.kind === 'Deployment' ? live : c));
    const decision = decisionOf(input);
    expect(decision.changes?.map((c) => c.field)).toEqual([`metadata.annotations.${APPLIED_HASH_ANNOTATION}`]);
    const [web] = appliedDeployment(decision).spec!.template!.spec!.containers!;
    expect(web.env).toBeUndefined();
  });

  /** Every field but the strategy, and the live Deployment made from it: the server defaults RollingUpdate and its rollingUpdate, which no one owns. */
  const madeWithoutStrategy = () => {
    const { strategy: _unset, ...rest } = EVERY_FIELD;
    const defaults = { maxSurge: '25%', maxUnavailable: '25%' };
    const live = convergedWith(
      rest,
      (d) => (d.spec!.strategy = { type: 'RollingUpdate', rollingUpdate: defaults }),
    ).children.find((c) => c.kind === 'Deployment')!;
    return { rest, defaults, live };
  };

  it("a switch to Recreate first takes over the server's rollingUpdate, then applies without it", () => {
    const { rest, defaults, live } = madeWithoutStrategy();
    const input = convergedWith({ ...rest, strategy: { type: 'Recreate' } });
    input.children = input.children.map((c) => (c.kind === 'Deployment' ? live : c));
    const decision = decisionOf(input);
    const applies = decision.ops.filter((op) => op.op === 'applyChild' && op.kind === 'Deployment');
    expect(applies).toEqual([
      expect.objectContaining({ uid: live.metadata.uid, resourceVersion: live.metadata.resourceVersion }),
      expect.objectContaining({ uid: live.metadata.uid }),
    ]);
    const [first, second] = applies.map((op) => (op.op === 'applyChild' ? op.object.spec : {}));
    expect(first.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: defaults });
    expect(second.strategy).toEqual({ type: 'Recreate' });
    // The second holds to the uid alone: the first has moved the resourceVersion.
    expect(applies[1]).not.toHaveProperty('resourceVersion');
    // Everything else in the first is the desired object: nothing of ours is dropped between the two.
    expect({ ...first, strategy: undefined }).toEqual({ ...second, strategy: undefined });

    // Once the server stores Recreate, with no rollingUpdate left: nothing to do.
    const converged = convergedWith({ ...rest, strategy: { type: 'Recreate' } });
    expect(decisionOf(converged).action).toBe('noop');
    // Any other strategy, or a Recreate already stored, is one apply as ever.
    const rolling = convergedWith(rest, (d) => (d.spec!.strategy = { type: 'RollingUpdate', rollingUpdate: defaults }));
    rolling.parent.spec.image = 'nginx:1.28';
    expect(decisionOf(rolling).ops.filter((op) => op.op === 'applyChild')).toHaveLength(1);
  });

  it('autoscaling turned on with a switch to Recreate: the handover, the takeover, then our apply', () => {
    const { rest, defaults, live } = madeWithoutStrategy();
    const input = convergedWith({ ...rest, strategy: { type: 'Recreate' }, autoscaling: { maxReplicas: 5 } });
    input.children = input.children.map((c) => (c.kind === 'Deployment' ? live : c));
    const applies = decisionOf(input).ops.filter((op) => op.op === 'applyChild' && op.kind === 'Deployment');
    expect(applies).toEqual([
      expect.objectContaining({
        handover: true,
        uid: live.metadata.uid,
        resourceVersion: live.metadata.resourceVersion,
      }),
      expect.not.objectContaining({ handover: true }),
      expect.not.objectContaining({ handover: true }),
    ]);
    // Only the first holds to the resourceVersion read: each write moves it on.
    expect(applies.slice(1).map((op) => ('resourceVersion' in op ? op.resourceVersion : undefined))).toEqual([
      undefined,
      undefined,
    ]);
    const [, takeover, ours] = applies.map((op) => (op.op === 'applyChild' ? op.object.spec : {}));
    expect(takeover.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: defaults });
    expect(ours.strategy).toEqual({ type: 'Recreate' });
    expect(ours).not.toHaveProperty('replicas');
  });

  it('progressDeadlineSeconds unset sends none: the server keeps its default', () => {
    const { progressDeadlineSeconds: _unset, ...rest } = EVERY_FIELD;
    const input = convergedWith(rest, (live) => (live.spec!.progressDeadlineSeconds = 600));
    expect(decisionOf(input).action).toBe('noop');
    expect(appliedDeployment(decisionOf(decideFixture('create-workload'))).spec).not.toHaveProperty(
      'progressDeadlineSeconds',
    );
  });

  it("the WebService's own labels go on its Deployment and Service; ours win a clash", () => {
    const input = decideFixture('create-workload');
    input.parent.metadata.labels = { team: 'payments', 'app.kubernetes.io/managed-by': 'someone-else' };
    const decision = decisionOf(input);
    const applied = decision.ops.flatMap((op) => (op.op === 'applyChild' ? [op.object.metadata.labels] : []));
    expect(applied).toEqual([
      expect.objectContaining({ team: 'payments', 'app.kubernetes.io/managed-by': 'webservice-controller' }),
      expect.objectContaining({ team: 'payments', 'app.kubernetes.io/managed-by': 'webservice-controller' }),
    ]);
  });

  describe('what admission refuses, plan -f refuses too, in one line', () => {
    const input = (workload: WorkloadSpec) => {
      const raw = decideFixture('create-workload');
      return { ...raw, parent: { ...raw.parent, spec: { ...raw.parent.spec, workload } } };
    };

    it('a resource name Kubernetes does not know (the container would be refused on every pass)', () => {
      expect(() => decisionOf(input({ resources: { requests: { memroy: '128Mi' } } }))).toThrow(
        'parent.spec.workload.resources.requests: "memroy" is not a resource name; a resource name is one of ' +
          'cpu, memory, ephemeral-storage, hugepages-<size>, or a name with a domain prefix such as nvidia.com/gpu',
      );
      expect(() => decisionOf(input({ resources: { limits: { CPU: 1 } } }))).toThrow(/limits: "CPU" is not/);
      const known = { cpu: 1, memory: '1Gi', 'ephemeral-storage': '1Gi', 'hugepages-2Mi': '2Mi', 'nvidia.com/gpu': 1 };
      expect(() => decisionOf(input({ resources: { requests: known, limits: known } }))).not.toThrow();
      // The CRD's bound, which keeps its rule within the API server's cost budget.
      const many = Object.fromEntries(
        Array.from({ length: MAX_RESOURCE_NAMES + 1 }, (_, i) => [`example.com/r${i}`, 1]),
      );
      expect(() => decisionOf(input({ resources: { limits: many } }))).toThrow(
        `parent.spec.workload.resources.limits may name at most ${MAX_RESOURCE_NAMES} resources`,
      );
    });

    /** The CRD's schema of a field of spec.workload. */
    const workloadField = (name: string): Schema | undefined =>
      webServiceSpecSchema().properties?.workload.properties?.[name];

    it('the CRD has the same rule on requests and limits', () => {
      const resources = workloadField('resources')?.properties;
      for (const field of ['requests', 'limits'])
        expect(resources?.[field]).toMatchObject({
          maxProperties: MAX_RESOURCE_NAMES,
          'x-kubernetes-validations': [{ rule: resourceNamesRule() }],
        });
    });

    it("pod labels that are the WebService's own (the recommended ones, the tier's), which were dropped silently", () => {
      for (const key of OWN_POD_LABELS)
        expect(() => decisionOf(input({ podLabels: { team: 'payments', [key]: 'mine' } }))).toThrow(
          `parent.spec.workload.podLabels cannot set ${key}: the WebService sets app.kubernetes.io/managed-by, ` +
            'app.kubernetes.io/name, app.kubernetes.io/instance, webservice.labhub.io/tier on its pods',
        );
      // They are the labels the pod template sets of its own: a pod without podLabels has exactly them.
      const pod = appliedDeployment(decisionOf(input({ port: 8080 }))).spec!.template!.metadata!;
      expect(Object.keys(pod.labels ?? {}).sort()).toEqual([...OWN_POD_LABELS].sort());
      // The CRD's rule names the same keys.
      const rule = (workloadField('podLabels')?.['x-kubernetes-validations'] ?? []).at(0);
      const keys = [...(rule?.rule ?? '').matchAll(/'([^']+)' in self/g)].map((match) => match[1]);
      expect(keys).toEqual(OWN_POD_LABELS);
    });
  });

  it('without podSecurity, nothing is added to an image that runs today', () => {
    const deployment = appliedDeployment(decisionOf(decideFixture('create-workload')));
    const pod = deployment.spec!.template!.spec!;
    expect(pod.securityContext).toBeUndefined();
    expect(pod.containers![0].securityContext).toBeUndefined();
  });
});

describe('a hand edit of the key of an entry of ours (the key of a keyed list)', () => {
  const env = [
    { name: 'LOG_LEVEL', value: 'info' },
    { name: 'REGION', value: 'eu' },
  ];
  type Web = { env?: { name: string; value?: string }[]; ports?: { containerPort: number }[] };
  const webOf = (d: Deployment) => d.spec!.template!.spec!.containers!.find((c) => c.name === 'web') as Web;
  /** The writes of the Deployment, in order (a new pod template also makes a revision). */
  const deploymentOps = (decision: Pick<Decision, 'ops'>) =>
    decision.ops.filter((op) => 'kind' in op && op.kind === 'Deployment').map((op) => op.op);
  /** Converged with env and a port, then edited by hand as `edit` says; and someone's env var added at the end. */
  const handEdited = (edit: (web: ReturnType<typeof webOf>) => void) =>
    convergedWith({ port: 8080, env }, (live) => {
      edit(webOf(live));
      webOf(live).env!.push({ name: 'ADDED_BY_HAND', value: '1' });
    });

  it('an env var renamed in place: the entry at its place is taken over first, then our apply removes it', () => {
    const input = handEdited((web) => (web.env![0].name = 'MOVED_LOG_LEVEL'));
    const { uid, resourceVersion } = input.children.find((c) => c.kind === 'Deployment')!.metadata;
    const decision = decisionOf(input);
    expect(decision.ops.map((op) => op.op)).toEqual(['takeOverChild', 'applyChild']);
    const [takeOver, apply] = decision.ops;
    expect(takeOver).toMatchObject({
      kind: 'Deployment',
      name: 'checkout',
      uid,
      resourceVersion,
      entries: [
        {
          path: 'spec.template.spec.containers[web].env[MOVED_LOG_LEVEL]',
          steps: [
            'spec',
            'template',
            'spec',
            'containers',
            { entry: expect.objectContaining({ name: 'web' }) },
            'env',
            { entry: { name: 'MOVED_LOG_LEVEL', value: 'info' } },
          ],
        },
      ],
    });
    // The apply holds to the uid alone (the takeover moved the resourceVersion on), and sets ours.
    expect(apply).toMatchObject({ op: 'applyChild', uid });
    expect(apply).not.toHaveProperty('resourceVersion');
    expect(webOf(appliedDeployment(decision)).env).toEqual(env);
    expect(decision.reason).toContain(
      'spec.template.spec.containers[web].env[MOVED_LOG_LEVEL] stands where ours was (a key changed by hand): removing it',
    );
  });

  it("a container's port changed in place: the same", () => {
    const decision = decisionOf(handEdited((web) => (web.ports![0].containerPort = 9999)));
    const takeOver = decision.ops[0];
    expect(takeOver.op === 'takeOverChild' && takeOver.entries.map((entry) => entry.path)).toEqual([
      'spec.template.spec.containers[web].ports[9999/TCP]',
    ]);
  });

  it('what others add beside ours stays: an env var at the end, where none of ours is missing, or after a new one of ours', () => {
    // Someone's env var, and nothing of ours missing: nothing to do.
    expect(decisionOf(handEdited(() => undefined)).action).toBe('noop');
    // The spec adds an env var of ours at the end: where someone's stands now. The live child was
    // applied from another spec, so ours is new, not moved: one apply, and theirs stays.
    const input = handEdited(() => undefined);
    input.parent.spec.workload = { port: 8080, env: [...env, { name: 'NEW', value: 'x' }] };
    expect(deploymentOps(decisionOf(input))).toEqual(['applyChild']);
  });

  it('after a refused pass, whatever stands where ours should be goes, even when the spec changed since', () => {
    const input = handEdited((web) => (web.env![0].name = 'MOVED_LOG_LEVEL'));
    input.parent.spec.workload = { port: 8080, env, progressDeadlineSeconds: 120 };
    expect(deploymentOps(decisionOf(input))).toEqual(['applyChild']);
    input.parent.status = {
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'ReconcileError',
          message: 'Deployment.apps "checkout" is invalid',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    };
    const ops = decisionOf(input).ops;
    expect(deploymentOps({ ops })).toEqual(['takeOverChild', 'applyChild']);
    expect(ops[0].op === 'takeOverChild' && ops[0].entries.map((entry) => entry.path)).toEqual([
      'spec.template.spec.containers[web].env[MOVED_LOG_LEVEL]',
    ]);
  });
});

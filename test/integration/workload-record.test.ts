// What a platform engineer meets on the first day with workloads, on a plane that runs pods:
// apply's record and exit code say what it did and what it waits for, a rollout gets one
// Event each when it starts, stalls and completes (whoever writes the status), status -w
// shows what is stored and prints a line only when a column changes, and a restart of the
// Deployment's pods survives the next pass.
import {
  AuditEvent,
  AuditWindow,
  MUTATING,
  describeEvent,
  describeWorkloads,
  applyYaml,
  backgroundPlugin,
  eventually,
  getJson,
  kubectl,
  plugin,
  run,
  sleep,
  useNamespace,
  webService,
} from '../support/cluster';
import { ControllerProcess } from '../support/controller';

/** A ValidatingAdmissionPolicy, bound to the namespace, that refuses to create a `resource` unless `expression` holds. */
function denyPolicy(policy: string, namespace: string, resource: string, expression: string, message: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: policy },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE'], resources: [resource] }],
          },
          validations: [{ expression, message }],
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: policy },
        spec: {
          policyName: policy,
          validationActions: ['Deny'],
          matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
        },
      },
    ],
  });
}

/** The writes of a WebService's status and the Events made, as `verb resource/name`. */
const statusAndEventWrites = (events: AuditEvent[]) =>
  events
    .filter(
      (e) =>
        MUTATING.has(e.verb) &&
        (e.objectRef?.subresource === 'status' || (e.objectRef?.resource === 'events' && e.verb === 'create')),
    )
    .map(describeEvent);

describeWorkloads('a workload WebService', () => {
  const ns = useNamespace('first-day');
  const audit = new AuditWindow(ns);
  const ws = (name: string) => getJson(['get', 'webservice', name, '-n', ns()]);
  const readyOf = (name: string) =>
    (ws(name).status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready') as
      { status: string; reason: string } | undefined;
  /** How many Events of each reason a WebService has (those of one pass share their time). */
  const events = (name: string) => {
    const counts: Record<string, number> = {};
    for (const { reason } of getJson<{ items: { reason: string }[] }>([
      'get',
      'events.events.k8s.io',
      '-n',
      ns(),
      '--field-selector',
      `regarding.kind=WebService,regarding.name=${name}`,
    ]).items)
      counts[reason] = (counts[reason] ?? 0) + 1;
    return counts;
  };
  const count = (name: string, reason: string) => events(name)[reason] ?? 0;

  it('apply NAME: created, exit 0, and the row says which rollout it waits for', () => {
    applyYaml(ns(), webService('nowait', { image: 'nginx:1.27', replicas: 2, workload: {} }));
    const result = plugin(['apply', 'nowait', '-n', ns()]);
    expect(result.stderr).toBe('');
    // kubectl apply's convention: a rollout in progress is no failure, and the row says so.
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /^nowait\s+create\s+configmap\/nowait-desired\s+created, status written, waiting for the rollout: deployment\/nowait: 0\/2 ready\s/m,
    );
    // Again at once: a noop, whether the rollout is still going on or done, and never exit 2.
    const again = plugin(['apply', 'nowait', '-n', ns()]);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(
      /^nowait\s+noop\s+configmap\/nowait-desired\s+unchanged(, status written)?(, waiting for the rollout: deployment\/nowait: [012]\/2 ready)?\s/m,
    );
  });

  it('apply NAME --wait -o json prints what apply did over every pass: the create, not the last noop', () => {
    applyYaml(ns(), webService('waited', { image: 'nginx:1.27', replicas: 2, workload: { port: 80 } }));
    const result = plugin(['apply', 'waited', '-n', ns(), '--wait=3m', '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const { decision, result: done } = JSON.parse(result.stdout);
    expect(decision.action).toBe('create');
    expect(
      decision.ops.map((op: { op: string; object?: { kind: string; metadata: { name: string } } }) =>
        [op.op, op.object?.kind, op.object?.metadata.name].join(' '),
      ),
    ).toEqual([
      'createChild ConfigMap waited-desired',
      expect.stringMatching(/^createChild ControllerRevision waited-[0-9a-f]+$/),
      'applyChild Deployment waited',
      'applyChild Service waited',
    ]);
    expect(done).toMatchObject({ statusWritten: true, converged: true });
    expect(decision.after_seconds).toBeUndefined();
  });

  it('one rollout gets one RolloutStarted and one RolloutComplete, with apply --wait', async () => {
    // The Events of the test above; a moment more for any late pass.
    await sleep(2_000);
    expect(events('waited')).toEqual({ Created: 1, RevisionCreated: 1, RolloutStarted: 1, RolloutComplete: 1 });
  });

  it('one rollout gets one RolloutStarted and one RolloutComplete, with run', async () => {
    const ctl = new ControllerProcess(['-n', ns()]);
    try {
      await ctl.waitForLog(/controller working/);
      applyYaml(ns(), webService('ran', { image: 'nginx:1.27', replicas: 3, workload: { port: 80 } }));
      await eventually(() => readyOf('ran')?.status === 'True', 120_000);
      // The Deployment's last status updates come after Ready: each is a pass, none an Event.
      await sleep(3_000);
      expect(events('ran')).toEqual({ Created: 1, RevisionCreated: 1, RolloutStarted: 1, RolloutComplete: 1 });
      // A new image is a new rollout: one pair more.
      kubectl(['patch', 'webservice', 'ran', '-n', ns(), '--type=merge', '-p', '{"spec":{"image":"nginx:1.28"}}']);
      await eventually(() => ws('ran').status?.observedGeneration === 2 && readyOf('ran')?.status === 'True', 120_000);
      await sleep(3_000);
      expect(events('ran')).toEqual({
        Created: 1,
        Updated: 1,
        RevisionCreated: 2,
        RolloutStarted: 2,
        RolloutComplete: 2,
      });
    } finally {
      await ctl.stop();
    }
  });

  it('a stall that status writes first still gets its Event, once', async () => {
    // No pod of this WebService is admitted, so its rollout can make no progress.
    const policy = `deny-pods-${ns()}`;
    kubectl(
      ['apply', '-f', '-'],
      denyPolicy(
        policy,
        ns(),
        'pods',
        "!has(object.metadata.labels) || !('app.kubernetes.io/instance' in object.metadata.labels) || " +
          "object.metadata.labels['app.kubernetes.io/instance'] != 'stuck'",
        'no pods for stuck',
      ),
    );
    try {
      // An admission policy takes effect a moment after it is made: wait until it refuses.
      const pod = JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'probe', labels: { 'app.kubernetes.io/instance': 'stuck' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      });
      await eventually(
        () => run('kubectl', ['create', '--dry-run=server', '-n', ns(), '-f', '-'], { input: pod }).status !== 0,
      );
      applyYaml(
        ns(),
        webService('stuck', { image: 'nginx:1.27', replicas: 1, workload: { progressDeadlineSeconds: 5 } }),
      );
      expect(plugin(['apply', 'stuck', '-n', ns()]).status).toBe(0);
      await eventually(
        () =>
          getJson(['get', 'deployment', 'stuck', '-n', ns()]).status?.conditions?.some(
            (c: { reason: string }) => c.reason === 'ProgressDeadlineExceeded',
          ),
        120_000,
      );
      // status writes the stall: the Event goes with that write.
      const status = plugin(['status', 'stuck', '-n', ns()]);
      expect(status.status).toBe(0);
      // Its pods are refused at admission: the stall says so, in the server's words.
      expect(readyOf('stuck')).toMatchObject({ status: 'False', reason: 'FailedCreate' });
      expect(count('stuck', 'RolloutStalled')).toBe(1);
      // apply finds the stall already stored: no second Event; it fails, as kubectl rollout status does.
      const applied = plugin(['apply', 'stuck', '-n', ns()]);
      expect(applied.status).toBe(1);
      expect(applied.stdout).toMatch(
        /rollout stalled: deployment\/stuck: 0\/1 ready; pods cannot be created: .*no pods for stuck/,
      );
      expect(plugin(['status', 'stuck', '-n', ns()]).status).toBe(0);
      expect(events('stuck')).toEqual({ Created: 1, RevisionCreated: 1, RolloutStarted: 1, RolloutStalled: 1 });
    } finally {
      kubectl(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', policy, '--ignore-not-found']);
    }
  });

  it('status leaves the error of a Deployment the API server refuses: no write, no Event, with run or without', async () => {
    const policy = `deny-deployments-${ns()}`;
    kubectl(
      ['apply', '-f', '-'],
      denyPolicy(policy, ns(), 'deployments', "object.metadata.name != 'refused'", 'no deployments named refused'),
    );
    let ctl: ControllerProcess | undefined;
    try {
      const deployment = JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'refused' },
        spec: {
          selector: { matchLabels: { app: 'refused' } },
          template: { metadata: { labels: { app: 'refused' } }, spec: { containers: [{ name: 'web', image: 'x' }] } },
        },
      });
      await eventually(
        () => run('kubectl', ['create', '--dry-run=server', '-n', ns(), '-f', '-'], { input: deployment }).status !== 0,
      );
      applyYaml(ns(), webService('refused', { image: 'nginx:1.27', replicas: 2, workload: {} }));
      // Twice: the first pass makes the revision before the Deployment is refused, so the second
      // is the one whose status is what any pass computes from what is there now.
      for (let pass = 0; pass < 2; pass++) expect(plugin(['apply', 'refused', '-n', ns()]).status).not.toBe(0);
      const error = readyOf('refused');
      expect(error).toMatchObject({ status: 'False', reason: 'ReconcileError' });
      expect(JSON.stringify(error)).toMatch(/no deployments named refused/);
      // What the lab's scripts read keeps its shape, and says nothing changed.
      const dry = plugin(['status', 'refused', '-n', ns(), '--dry-run=client', '-o', 'json']);
      expect(dry.status).toBe(0);
      const row = JSON.parse(dry.stdout);
      expect(Object.keys(row).sort()).toEqual([
        'changed',
        'creationTimestamp',
        'generation',
        'name',
        'namespace',
        'resourceVersion',
        'status',
        'written',
      ]);
      expect(row).toMatchObject({ changed: false, written: false });

      audit.mark();
      expect(plugin(['status', 'refused', '-n', ns()]).status).toBe(0);
      expect(readyOf('refused')).toEqual(error);
      expect(statusAndEventWrites(await audit.events())).toEqual([]);

      // With run too: its retries find the error stored, and status leaves it: no flip.
      ctl = new ControllerProcess(['-n', ns()]);
      await ctl.waitForLog(/controller working/);
      await sleep(3_000);
      audit.mark();
      for (let look = 0; look < 2; look++) expect(plugin(['status', 'refused', '-n', ns()]).status).toBe(0);
      await sleep(3_000);
      expect(statusAndEventWrites(await audit.events())).toEqual([]);
      expect(readyOf('refused')).toMatchObject({ reason: 'ReconcileError' });
    } finally {
      await ctl?.stop();
      kubectl(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', policy, '--ignore-not-found']);
    }
  });

  it('status -w shows the stored status, and a line only when a column changes', async () => {
    const watch = backgroundPlugin(['status', '--all', '-w', '-n', ns()]);
    try {
      await watch.waitFor(/^NAME\s+READY/);
      applyYaml(ns(), webService('watched', { image: 'nginx:1.27', replicas: 4, workload: {} }));
      // Nothing has reconciled it: nothing stored, and the line claims nothing.
      await watch.waitFor(/^watched\s+-\s+-\s+1\s+-\s+-\s+\d+s$/m);
      expect(plugin(['apply', 'watched', '-n', ns(), '--wait=3m']).status).toBe(0);
      await watch.waitFor(/^watched\s+True\s+Reconciled\s+1\s+1\s+4\s+\d+s$/m);
      await sleep(1_000);
      const lines = watch.stdout
        .split('\n')
        .filter((line) => line.startsWith('watched '))
        .map((line) => line.split(/\s+/).slice(0, -1).join(' '));
      expect(lines.length).toBeGreaterThanOrEqual(2);
      lines.slice(1).forEach((line, i) => expect([i, line]).not.toEqual([i, lines[i]]));
    } finally {
      expect(await watch.end('SIGINT', 10_000)).toEqual({ code: 0, signal: null });
    }
  });

  it('status -w --computed shows what a pass would write, as docs/commands.md says', async () => {
    applyYaml(ns(), webService('planned', { image: 'nginx:1.27', replicas: 2, workload: {} }));
    const watch = backgroundPlugin(['status', 'planned', '-w', '--computed', '-n', ns()]);
    try {
      await watch.waitFor(/^planned\s+False\s+ChildMissing\s+1\s+1\s+0\s+\d+s$/m);
      expect(ws('planned').status).toBeUndefined();
    } finally {
      expect(await watch.end('SIGINT', 10_000)).toEqual({ code: 0, signal: null });
    }
    expect(plugin(['status', 'planned', '--computed', '-n', ns()]).stderr).toBe(
      'error: --computed goes with -w; status --dry-run prints the status it would write\n',
    );
  });

  it('kubectl rollout restart deployment/NAME restarts the pods, and the next pass keeps it', () => {
    expect(plugin(['apply', 'waited', '-n', ns(), '--wait=3m']).status).toBe(0);
    kubectl(['rollout', 'restart', 'deployment/waited', '-n', ns()]);
    const restartedAt = () =>
      getJson(['get', 'deployment', 'waited', '-n', ns()]).spec.template.metadata.annotations?.[
        'kubectl.kubernetes.io/restartedAt'
      ];
    const stamp = restartedAt();
    expect(stamp).toEqual(expect.any(String));
    const result = plugin(['apply', 'waited', '-n', ns(), '--wait=3m', '-o', 'json']);
    expect(result.status).toBe(0);
    // Not ours to compare: the pass writes nothing to the Deployment, and the restart stands.
    expect(JSON.parse(result.stdout).decision.ops).toEqual([]);
    expect(restartedAt()).toBe(stamp);
  });
});

// kubectl webservice check on the real apiserver: passes on a good setup, and fails with
// the right hint when a ServiceAccount lacks a verb, a deletion is stuck on our finalizer,
// a ConfigMap, Deployment or Service is orphaned, a WebService conflicts, or the
// controller's Lease is stale. (A stalled rollout is shown in workload.test.ts, on a
// plane that runs pods.)
// (The CRD missing is shown in install.test.ts, which may delete the CRD.)
import * as path from 'node:path';
import {
  AuditWindow,
  MUTATING,
  ROOT,
  applyYaml,
  createNamespace,
  deleteNamespace,
  kubectl,
  plugin,
  serviceAccountKubeconfig,
  sleep,
  useNamespace,
  webService,
  fromPlugin,
  PACKAGE_VERSION,
} from '../support/cluster';
import { pluralKind } from '../../src/check/verdicts';
import { APPLIED_KINDS, NAMED_KINDS, onePerKind, resourceName } from '../../src/core/kinds';
import { FINALIZER } from '../../src/core/model';
import { ControllerProcess } from '../support/controller';
import { absentOptionalKinds } from '../support/gateway-api';

const CRD = 'webservices.apps.labhub.io';

const ns = useNamespace('check');
beforeAll(() => {
  // The suite's CRD was applied by hand; install labels it with the plugin's version.
  const installed = plugin(['install']);
  if (installed.status !== 0) throw new Error(installed.stderr);
  applyYaml(ns(), webService('good', { image: 'nginx:1.27' }));
  const applied = plugin(['apply', 'good', '-n', ns()]);
  if (applied.status !== 0) throw new Error(applied.stderr);
});

const check = (args: string[], kubeconfig?: string) =>
  plugin([
    'check',
    '-n',
    ns(),
    '--lease',
    `${ns()}/webservice-controller`,
    ...args,
    ...(kubeconfig ? ['--kubeconfig', kubeconfig] : []),
  ]);
/** Lease times are MicroTime: six digits of fraction. */
const microTime = (date: Date) => date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const lease = (renewTime: Date) =>
  JSON.stringify({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'webservice-controller' },
    spec: {
      holderIdentity: 'replica-a',
      leaseDurationSeconds: 15,
      renewTime: microTime(renewTime),
      acquireTime: microTime(renewTime),
    },
  });

describe('on a good setup', () => {
  it('passes every check, one ✓ line each, and warns that no controller runs', async () => {
    const audit = new AuditWindow(ns());
    audit.mark();
    const result = check([]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^✓ the server https:\/\/127\.0\.0\.1:\d+ is reachable: Kubernetes v1\.\d+\.\d+ \(≥ 1\.27 supported\)$/,
    );
    expect(lines[1]).toMatch(new RegExp(`^✓ the CRD ${CRD} is installed, Established, at version \\d+\\.\\d+\\.\\d+$`));
    for (const command of ['observe', 'plan', 'status', 'apply', 'finalize', 'run']) {
      expect(lines).toContain(`✓ ${command} is allowed in namespace ${ns()}`);
    }
    expect(result.stdout).toContain(
      `‼ no elected controller: there is no Lease ${ns()}/webservice-controller\n    hint: a kubectl webservice run without --leader-elect holds no Lease, so check cannot see it (with --leader-elect it can); the plugin works without one (kubectl webservice apply --all reconciles on demand); ` +
        'to keep WebServices reconciled, kubectl webservice install --controller\n',
    );
    expect(lines).toContain(`✓ no WebService has been terminating for longer than 5m in namespace ${ns()}`);
    expect(lines).toContain(
      `✓ no orphaned ${enumerate(onePerKind(NAMED_KINDS).map(plural), 'or')} in namespace ${ns()}`,
    );
    expect(lines).toContain(`✓ no WebService conflicts with a foreign ConfigMap in namespace ${ns()}`);
    expect(lines).toContain(`✓ every WebService is Ready (1) in namespace ${ns()}`);
    expect(result.stdout.endsWith('\n12 passed, 1 warning, 0 failed\n')).toBe(true);
    // A check reads: its only POSTs are access reviews, which store nothing.
    const writes = (await audit.all()).filter((e) => fromPlugin(e) && MUTATING.has(e.verb));
    expect(new Set(writes.map((e) => e.objectRef?.resource))).toEqual(new Set(['selfsubjectaccessreviews']));
  });

  it('-o json prints the results as data', () => {
    const result = check(['-o', 'json']);
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toEqual({ ok: 12, warn: 1, fail: 0, skip: 0 });
    expect(report.passed).toBe(true);
    expect(report.checks.map((c: { check: string }) => c.check)).toEqual([
      'server',
      'crd',
      'access/observe',
      'access/plan',
      'access/status',
      'access/apply',
      'access/finalize',
      'access/run',
      'controller',
      'stuck',
      'orphans',
      'conflicts',
      'ready',
    ]);
    expect(report.checks.find((c: { check: string }) => c.check === 'controller')).toMatchObject({
      status: 'warn',
      hint: expect.any(String),
    });
  });

  it('passes the controller check for a Lease renewed just now, and fails it for a stale one', () => {
    applyYaml(ns(), lease(new Date()));
    const fresh = check([]);
    expect(fresh.status).toBe(0);
    expect(fresh.stdout).toMatch(
      new RegExp(
        `^✓ a controller \\(replica-a\\) holds the Lease ${ns()}/webservice-controller, renewed \\d+s ago$`,
        'm',
      ),
    );
    // A controller runs: is it fenced? Not on this plane, and the hint says how.
    expect(fresh.stdout).toContain(
      `‼ no leader fence: the API server would admit a write that a replica sends late, after losing the Lease ${ns()}/webservice-controller\n` +
        '    hint: kubectl webservice install --controller installs it (a ValidatingAdmissionPolicy and its binding)\n',
    );
    // The shipped fence follows the default Lease, not this one; pointed at this one, it passes.
    const fence = path.join(ROOT, 'deploy/15-leader-fence.yaml');
    kubectl(['apply', '-f', fence]);
    try {
      expect(check([]).stdout).toContain(
        `‼ the leader fence follows the Lease webservice-system/webservice-controller, not ${ns()}/webservice-controller: it does not fence this controller\n`,
      );
      kubectl([
        'patch',
        'validatingadmissionpolicybinding',
        'webservice-controller-leader-fence',
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { paramRef: { namespace: ns() } } }),
      ]);
      const fenced = check([]);
      expect(fenced.status).toBe(0);
      expect(fenced.stdout.split('\n')).toContain(
        `✓ the leader fence refuses writes from replicas that do not hold the Lease ${ns()}/webservice-controller`,
      );
    } finally {
      kubectl(['delete', '-f', fence, '--ignore-not-found']);
    }

    applyYaml(ns(), lease(new Date(Date.now() - 10 * 60_000)));
    const stale = check([]);
    expect(stale.status).toBe(1);
    expect(stale.stdout).toContain(
      `✗ the Lease ${ns()}/webservice-controller is held by replica-a, but was last renewed 10m ago (lease duration 15s): ` +
        'its controller is gone or cannot reach the API server\n' +
        `    hint: kubectl -n ${ns()} get pods -l app.kubernetes.io/name=webservice-controller; kubectl -n ${ns()} logs deployment/webservice-controller\n`,
    );
    kubectl(['delete', 'lease', 'webservice-controller', '-n', ns()]);
  });

  it('never says "no controller" while a run without --leader-elect works the namespace', async () => {
    const run = new ControllerProcess(['-n', ns()]);
    try {
      await run.waitForLog(/^controller working/);
      const result = check([]);
      expect(result.stdout).not.toMatch(/no controller/);
      expect(result.stdout).toContain(
        `‼ no elected controller: there is no Lease ${ns()}/webservice-controller\n` +
          '    hint: a kubectl webservice run without --leader-elect holds no Lease, so check cannot see it (with --leader-elect it can)',
      );
      // With --leader-elect, the same run is seen.
      await run.stop();
      const elected = new ControllerProcess(['-n', ns(), '--leader-elect', '--leader-elect-namespace', ns()]);
      try {
        await elected.waitForLog(/controller working/);
        expect(check([]).stdout).toMatch(
          new RegExp(`^✓ a controller \\(\\S+\\) holds the Lease ${ns()}/webservice-controller`, 'm'),
        );
      } finally {
        await elected.stop();
      }
    } finally {
      await run.stop();
      kubectl(['delete', 'lease', 'webservice-controller', '-n', ns(), '--ignore-not-found']);
    }
  });
});

describe('fails with the right hint', () => {
  it('when a ServiceAccount lacks a verb: names the command, the verb and the resource', () => {
    // Everything webservice-reconciler grants, but deleting ConfigMaps.
    const rules = [
      { apiGroups: ['apps.labhub.io'], resources: ['webservices'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: ['apps.labhub.io'], resources: ['webservices/status'], verbs: ['patch'] },
      { apiGroups: ['apps.labhub.io'], resources: ['webservices/finalizers'], verbs: ['update'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] },
    ];
    applyYaml(
      ns(),
      JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'no-delete' },
        rules,
      }),
    );
    const config = serviceAccountKubeconfig(ns(), 'partial', ['--role=no-delete']);

    const result = check([], config);
    expect(result.status).toBe(1);
    const lines = result.stdout.split('\n');
    for (const command of ['observe', 'plan', 'status'])
      expect(lines).toContain(`✓ ${command} is allowed in namespace ${ns()}`);
    const hint =
      '    hint: bind the ClusterRole webservice-reconciler (kubectl webservice install --rbac makes it): ' +
      `kubectl create rolebinding webservice-reconciler -n ${ns()} --clusterrole=webservice-reconciler --user=<you>\n`;
    // run also watches the children of a workload (every applied kind): its caches need them.
    const workloadResources = onePerKind(APPLIED_KINDS).map(resourceName);
    const missing: Record<string, string> = {
      apply: 'delete configmaps',
      finalize: 'delete configmaps',
      run: [
        ...workloadResources.map((resource) => `list ${resource}`),
        ...workloadResources.map((resource) => `watch ${resource}`),
        // Its revisions, which it keeps in the watch cache beside the rest.
        'list controllerrevisions.apps',
        'watch controllerrevisions.apps',
        'delete configmaps',
      ].join(', '),
    };
    for (const [command, verbs] of Object.entries(missing)) {
      expect(result.stdout).toContain(`✗ ${command} is not allowed in namespace ${ns()}: missing ${verbs}\n${hint}`);
    }
    // It may not read CRDs (cluster-scoped), but discovery shows webservices served: a warning.
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^‼ ${CRD} is served, but its CRD cannot be read, so its version is not checked: `),
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^‼ cannot tell whether a controller runs: the Lease .* cannot be read/),
    );
    expect(lines).toContain(`✓ every WebService is Ready (1) in namespace ${ns()}`);
    // It may not list the workload's kinds of child: the orphans check says what it skipped.
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          // A kind whose API the plane does not serve has nothing to list: none of it is an orphan.
          `^‼ no orphaned ${enumerate(
            onePerKind(NAMED_KINDS)
              .filter((row) => row.write === 'merge' || absentOptionalKinds().includes(row.kind))
              .map(plural),
            'or',
          )} in namespace ${ns()}; ` +
            `${enumerate(
              onePerKind(APPLIED_KINDS)
                .filter((row) => !absentOptionalKinds().includes(row.kind))
                .map(plural),
              'and',
            )} not checked: .*forbidden`,
        ),
      ),
    );
    expect(result.stdout.endsWith('\n7 passed, 3 warnings, 3 failed\n')).toBe(true);
  });

  it('when a deletion is stuck on our finalizer for longer than --stuck-after', async () => {
    // Our finalizer as a user (or an older version) put it there: apply adds none.
    applyYaml(ns(), webService('stuck', { image: 'nginx:1.27' }, { finalizers: [FINALIZER] }));
    expect(plugin(['apply', 'stuck', '-n', ns()]).status).toBe(0);
    kubectl(['delete', 'webservice', 'stuck', '-n', ns(), '--wait=false']);
    await sleep(2_100);
    const result = check(['--stuck-after=1s']);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        '^✗ 1 WebService has been terminating for longer than 1s\n' +
          `    ${ns()}/stuck: terminating for [2-9]s, finalizers webservice\\.labhub\\.io/cleanup\n` +
          `    hint: kubectl webservice finalize stuck -n ${ns()} finishes the deletion \\(a running controller would have\\)\n`,
        'm',
      ),
    );
    // Under the default 5m it is not stuck yet; finalize then finishes it.
    expect(check([]).stdout).toContain(`✓ no WebService has been terminating for longer than 5m in namespace ${ns()}`);
    expect(plugin(['finalize', 'stuck', '-n', ns()]).status).toBe(0);
    expect(check(['--stuck-after=1s']).stdout).toContain(
      `✓ no WebService has been terminating for longer than 1s in namespace ${ns()}`,
    );
  });

  it('on orphans of every kind, a conflict, and lists WebServices that are not Ready', () => {
    const trouble = createNamespace('check-trouble');
    try {
      const labelled = { 'app.kubernetes.io/managed-by': 'webservice-controller' };
      applyYaml(
        trouble,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'lost-desired', labels: labelled },
          data: {},
        }),
      );
      // What a WebService with a workload leaves when its children lose their owner
      // (kubectl delete --cascade=orphan): a Deployment and a Service named after it.
      const selector = { 'app.kubernetes.io/name': 'webservice', 'app.kubernetes.io/instance': 'lost' };
      applyYaml(
        trouble,
        JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'lost', labels: labelled },
          spec: {
            replicas: 0,
            selector: { matchLabels: selector },
            template: { metadata: { labels: selector }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
          },
        }),
      );
      applyYaml(
        trouble,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'lost', labels: labelled },
          spec: { selector, ports: [{ port: 8080 }] },
        }),
      );
      applyYaml(
        trouble,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'taken-desired' },
          data: { mine: 'yes' },
        }),
      );
      applyYaml(trouble, webService('taken', { image: 'nginx:1.27' }));
      applyYaml(trouble, webService('waiting', { image: 'nginx:1.27', dependsOn: ['nobody'] }));
      plugin(['apply', '--all', '-n', trouble]);

      const result = plugin(['check', '-n', trouble, '--lease', `${trouble}/none`]);
      expect(result.status).toBe(1);
      expect(result.stdout).toContain(
        '✗ 1 ConfigMap, 1 Deployment and 1 Service labelled app.kubernetes.io/managed-by=webservice-controller have no WebService owning them\n' +
          `    ${trouble}/lost-desired: no owner reference\n` +
          `    ${trouble}/deployment/lost: no owner reference\n` +
          `    ${trouble}/service/lost: no owner reference\n` +
          `    hint: delete them, e.g. kubectl delete configmap lost-desired -n ${trouble} (the garbage collector deletes the children of a deleted WebService: is kube-controller-manager running?)\n`,
      );
      expect(result.stdout).toMatch(
        new RegExp(
          `✗ 1 WebService cannot be reconciled: a ConfigMap that is not its sits on the child's name\n    ${trouble}/taken: .*\n    hint: the plugin never touches a ConfigMap it does not own`,
        ),
      );
      expect(result.stdout).toMatch(
        new RegExp(
          `‼ 2 WebServices of 2 are not Ready\n    ${trouble}/taken: ChildConflict: .*\n    ${trouble}/waiting: DependencyNotReady: .*webservice/nobody not found`,
        ),
      );
      expect(result.stdout.endsWith('\n9 passed, 2 warnings, 2 failed\n')).toBe(true);
    } finally {
      deleteNamespace(trouble);
    }
  });

  it('refuses bad flags in one line', () => {
    expect(check(['--stuck-after=soon']).stderr).toBe(
      'error: invalid duration for --stuck-after: "soon" (use e.g. 30s, 5m, 1h)\n',
    );
    const lease = plugin(['check', '--lease', 'nope']);
    expect(lease.status).toBe(1);
    expect(lease.stderr).toBe('error: --lease must be NAMESPACE/NAME, got "nope"\n');
  });
});

describe('kubectl webservice version', () => {
  const pluginVersion = PACKAGE_VERSION;

  it("prints the server's version, as kubectl reads it, and that the server's CRD is the one the plugin bundles", () => {
    const result = plugin(['version', '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.clientVersion).toEqual({
      pluginVersion,
      gitCommit: expect.stringMatching(/^([0-9a-f]{40}(-dirty)?|unknown)$/),
      // The plugin runs on the node that runs the tests: the pinned one, through npm test.
      nodeVersion: process.version,
      platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
    });
    const server = JSON.parse(kubectl(['version', '-o', 'json'])).serverVersion;
    expect(report.serverVersion).toMatchObject({ gitVersion: server.gitVersion, major: server.major });
    expect(report.crd).toMatchObject({
      name: CRD,
      bundledVersion: pluginVersion,
      installedVersion: pluginVersion,
      status: 'ok',
    });
    const text = plugin(['version']).stdout.split('\n');
    expect(text).toContain(`Server Version: ${server.gitVersion}`);
    expect(text).toContain(`✓ the CRD ${CRD} is installed, Established, at version ${pluginVersion}`);
  });
});

describe('check -n on a namespace that does not exist', () => {
  it('says so, as a warning, instead of passing over an empty namespace', () => {
    const result = plugin(['check', '-n', 'no-such-namespace-here', '--lease', `${ns()}/webservice-controller`]);
    expect(result.stdout).toContain(
      '‼ namespace no-such-namespace-here does not exist: it holds no WebService to check',
    );
    expect(result.stdout).not.toMatch(/every WebService is Ready/);
  });
});

/** "A, B and C", as check's messages list kinds. */
/** A kind's plural as check writes it: Services, Ingresses. */
function plural(row: { kind: string }): string {
  return pluralKind(row.kind);
}

function enumerate(items: string[], last: 'and' | 'or'): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

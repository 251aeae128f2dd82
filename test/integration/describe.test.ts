// describe on a plane that runs pods: the tree from a WebService down to its pods and its
// Service's endpoints, a ReplicaSet that cannot make pods shown where it happens, the Events
// of it all, the decision plan makes, -o json and -o yaml as data, and not one write.
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { CACHED_KINDS, resourceName } from '../../src/core/kinds';
import { absentOptionalKinds } from '../support/gateway-api';
import {
  ROOT,
  AuditWindow,
  applyYaml,
  describeWorkloads,
  eventually,
  getJson,
  kubectl,
  patchWebService,
  plugin,
  serviceAccountKubeconfig,
  useNamespace,
  webService,
} from '../support/cluster';
import { pluginMutations } from '../support/commands';

type Json = Record<string, any>;

/** The plugin with colour off, as a pipe sees it. */
const describe_ = (args: string[]) => plugin(['describe', ...args], { env: { NO_COLOR: '1' } });

function describeJson(ns: string, name: string): Json {
  const result = describe_([name, '-n', ns, '-o', 'json']);
  if (result.status !== 0) throw new Error(`describe failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Json;
}

const childOf = (node: Json, kind: string): Json | undefined => node.children.find((c: Json) => c.kind === kind);

function converge(ns: string, name: string): void {
  const result = plugin(['apply', name, '-n', ns, '--wait=3m']);
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
}

describeWorkloads('describe', () => {
  describe('a healthy workload', () => {
    const ns = useNamespace('describe');
    const audit = new AuditWindow(ns);

    beforeAll(async () => {
      applyYaml(
        ns(),
        webService('web', { image: 'nginx:1.27', replicas: 2, workload: { port: 80 } }, { labels: { team: 'pay' } }),
      );
      applyYaml(ns(), webService('plain', { image: 'nginx:1.27' }));
      converge(ns(), 'web');
      converge(ns(), 'plain');
      // The EndpointSlice controller lists the pods once they are Ready: a moment after the rollout.
      await eventually(() => childOf(describeJson(ns(), 'web').tree, 'Service')?.endpoints?.ready === 2, 60_000);
    }, 240_000);

    it('prints the spec, the conditions, the tree down to the pods and endpoints, the decision and the Events', async () => {
      audit.mark();
      const result = describe_(['web', '-n', ns()]);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const out = result.stdout;
      expect(out).toMatch(/^Name: +web$/m);
      expect(out).toMatch(new RegExp(`^Namespace: +${ns()}$`, 'm'));
      expect(out).toMatch(/^Labels: +team=pay$/m);
      expect(out).toMatch(/^ {2}Image: +nginx:1\.27$/m);
      expect(out).toMatch(/^ {2}Workload: +port 80$/m);
      expect(out).toMatch(/^ {2}Expose: +<none>$/m);
      expect(out).toMatch(/^ {2}Ready +True +\d+[smh] +Reconciled +deployment\/web: 2\/2 ready$/m);
      const tree = out.slice(out.indexOf('Children:'), out.indexOf('Decision:')).split('\n');
      const row = (pattern: RegExp) => tree.filter((line) => pattern.test(line));
      expect(row(/^ {2}WebService\/web +Ready /)).toHaveLength(1);
      expect(row(/^ {2}├─ConfigMap\/web-desired +Ready +\S+ +image=nginx:1\.27, replicas=2, tier=dev$/)).toHaveLength(
        1,
      );
      expect(row(/^ {2}├─Deployment\/web +Ready +\S+ +2\/2 ready, 2 up to date, 2 available$/)).toHaveLength(1);
      expect(row(/^ {2}│ └─ReplicaSet\/web-[a-z0-9]+ +Ready +\S+ +revision 1, 2\/2 ready$/)).toHaveLength(1);
      expect(
        row(/^ {2}│ {3}[├└]─Pod\/web-[a-z0-9]+-[a-z0-9]+ +Ready +\S+ +Running, 1\/1 ready, 0 restarts$/),
      ).toHaveLength(2);
      expect(row(/^ {2}└─Service\/web +Ready +\S+ +ClusterIP [\d.]+ port 80; 2 ready endpoints$/)).toHaveLength(1);
      expect(row(/^ {4}└─EndpointSlice\/web-[a-z0-9]+ +Ready +\S+ +2\/2 ready: [\d.]+:80, [\d.]+:80$/)).toHaveLength(1);
      expect(out).toMatch(/^ {2}Action: +noop$/m);
      expect(out).toMatch(/^ {2}Writes: +<none>$/m);
      const events = out.slice(out.indexOf('Events:')).split('\n');
      expect(events[1]).toMatch(/^ {2}Type +Reason +Age +From +Object +Message$/);
      expect(events.some((l) => /^ {2}Normal +Created +\S+ +webservice-controller +WebService\/web +/.test(l))).toBe(
        true,
      );
      expect(events.some((l) => /^ {2}Normal +ScalingReplicaSet +.* +Deployment\/web +Scaled up/.test(l))).toBe(true);
      // describe reads; it never writes.
      expect(await pluginMutations(audit)).toEqual([]);
    });

    it('-o json gives the same as data', () => {
      const d = describeJson(ns(), 'web');
      expect(d).toMatchObject({
        name: 'web',
        namespace: ns(),
        labels: { team: 'pay' },
        spec: { image: 'nginx:1.27', replicas: 2, tier: 'dev', dependsOn: [], workload: { port: 80, fields: [] } },
        decision: { action: 'noop', writes: [], ready: { status: 'True', reason: 'Reconciled' } },
      });
      expect(d.conditions.find((c: Json) => c.type === 'Ready')).toMatchObject({ status: 'True' });
      expect(d.tree.children.map((c: Json) => [c.kind, c.state])).toEqual([
        ['ConfigMap', 'Ready'],
        ['Deployment', 'Ready'],
        ['Service', 'Ready'],
      ]);
      const replicaSet = childOf(childOf(d.tree, 'Deployment')!, 'ReplicaSet')!;
      expect(replicaSet.children.map((p: Json) => p.pod)).toEqual([
        { phase: 'Running', ready: '1/1', restarts: 0 },
        { phase: 'Running', ready: '1/1', restarts: 0 },
      ]);
      const pods = getJson(['get', 'pods', '-n', ns(), '-l', 'app.kubernetes.io/instance=web']).items as Json[];
      expect(replicaSet.children.map((p: Json) => p.name).sort()).toEqual(pods.map((p) => p.metadata.name).sort());
      expect(childOf(d.tree, 'Service')!.endpoints).toMatchObject({ ready: 2, total: 2 });
      const times = (d.events as Json[]).map((e) => Date.parse(e.lastTime));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(d.events).toContainEqual(
        expect.objectContaining({ reason: 'Created', object: 'WebService/web', from: 'webservice-controller' }),
      );
    });

    it('the shipped least-privilege role shows it all; without its reads, describe says what it could not show', () => {
      kubectl(['apply', '-f', path.join(ROOT, 'crds/rbac/webservice-reconciler.yaml')]);
      const reconciler = serviceAccountKubeconfig(ns(), 'reconciler', ['--clusterrole=webservice-reconciler']);
      const full = JSON.parse(plugin(['describe', 'web', '--kubeconfig', reconciler, '-o', 'json']).stdout) as Json;
      expect(full.unread).toBeUndefined();
      expect(childOf(childOf(full.tree, 'Deployment')!, 'ReplicaSet')!.children).toHaveLength(2);
      expect(full.events.length).toBeGreaterThan(0);
      // Enough for plan (every kind of child), not for what the cluster made of the children.
      kubectl([
        'create',
        'role',
        'planner',
        '-n',
        ns(),
        '--verb=get,list',
        `--resource=webservices.apps.labhub.io,${CACHED_KINDS.filter((row) => !absentOptionalKinds().includes(row.kind))
          .map(resourceName)
          .join(',')}`,
      ]);
      const planner = serviceAccountKubeconfig(ns(), 'planner', ['--role=planner']);
      const partial = plugin(['describe', 'web', '--kubeconfig', planner], { env: { NO_COLOR: '1' } });
      expect(partial.status).toBe(0);
      expect(partial.stdout).toMatch(/^ {2}├─Deployment\/web +Ready /m);
      expect(partial.stdout).toMatch(/^ {2}Action: +noop$/m);
      const notShown = partial.stdout.slice(partial.stdout.indexOf('Not shown:')).split('\n').slice(1, -1);
      expect(notShown.map((line) => line.trim().split(':')[0]).sort()).toEqual([
        'endpointslices.discovery.k8s.io',
        'events',
        'pods',
        'replicasets.apps',
      ]);
    });

    it('its decision is the one plan makes', () => {
      patchWebService(ns(), 'web', { spec: { image: 'nginx:1.28' } });
      const plan = JSON.parse(plugin(['plan', 'web', '-n', ns(), '-o', 'json']).stdout) as Json;
      const d = describeJson(ns(), 'web');
      expect(d.decision).toMatchObject({ action: plan.action, reason: plan.reason, target: plan.target });
      expect(d.decision.action).toBe('update');
      expect(d.decision.writes).toEqual([
        'patch configmap/web-desired',
        expect.stringMatching(/^create controllerrevision\/web-[0-9a-f]+$/),
        'apply deployment/web',
      ]);
      expect(childOf(d.tree, 'ConfigMap')).toMatchObject({
        state: 'OutOfDate',
        message: expect.stringMatching(/data\.image/),
      });
      // Nothing was carried out: the ConfigMap still holds the old image.
      expect(getJson(['get', 'configmap', 'web-desired', '-n', ns()]).data.image).toBe('nginx:1.27');
    });

    it('--all and -l describe several, -o yaml as data too; a WebService without workload has only its ConfigMap', () => {
      const all = describe_(['--all', '-n', ns(), '-o', 'yaml']);
      expect(all.status).toBe(0);
      const items = (yaml.load(all.stdout) as Json).items as Json[];
      expect(items.map((d) => d.name)).toEqual(['plain', 'web']);
      const plain = items.find((d) => d.name === 'plain')!;
      expect(plain.spec.workload).toBeNull();
      expect(plain.tree.children.map((c: Json) => [c.kind, c.state])).toEqual([['ConfigMap', 'Ready']]);
      const selected = JSON.parse(describe_(['-l', 'team=pay', '-n', ns(), '-o', 'json']).stdout) as Json;
      expect(selected.items.map((d: Json) => d.name)).toEqual(['web']);
      const table = describe_(['--all', '-n', ns()]).stdout;
      expect(table.match(/^Name: /gm)).toHaveLength(2);
    });

    it('a WebService that does not exist is an error in kubectl words', () => {
      const result = describe_(['nope', '-n', ns()]);
      expect(result.status).toBe(1);
      expect(result.stderr).toBe('error: webservices.apps.labhub.io "nope" not found\n');
    });
  });

  describe('pods that cannot be made', () => {
    const ns = useNamespace('describe-quota');

    it('a quota that demands requests: FailedCreate in the tree, on the Deployment and its ReplicaSet, and in the Events', async () => {
      kubectl(['create', 'quota', 'compute', '-n', ns(), '--hard=requests.cpu=2,limits.cpu=4']);
      applyYaml(ns(), webService('starved', { image: 'nginx:1.27', replicas: 1, workload: {} }));
      plugin(['apply', 'starved', '-n', ns()]);
      const d = await eventually(() => {
        const seen = describeJson(ns(), 'starved');
        return childOf(seen.tree, 'Deployment')?.state === 'Failed' && seen;
      }, 60_000);
      const deployment = childOf(d.tree, 'Deployment')!;
      expect(deployment.message).toMatch(
        /^ReplicaFailure FailedCreate: pods "starved-.*" is forbidden: .*must specify .*cpu/,
      );
      expect(childOf(deployment, 'ReplicaSet')).toMatchObject({ state: 'Failed', children: [] });
      expect(d.events).toContainEqual(
        expect.objectContaining({
          type: 'Warning',
          reason: 'FailedCreate',
          object: expect.stringMatching(/^ReplicaSet\//),
        }),
      );
      expect(d.decision.ready).toMatchObject({ status: 'False', reason: 'FailedCreate' });
      const out = describe_(['starved', '-n', ns()]).stdout;
      const tree = out.slice(out.indexOf('Children:'), out.indexOf('Decision:'));
      expect(tree).toMatch(
        /^ {2}└─Deployment\/starved +Failed +\S+ +0\/1 ready, 0 up to date, 0 available\n {4}│ ReplicaFailure FailedCreate: pods "starved-/m,
      );
      expect(tree).toMatch(/^ {4}└─ReplicaSet\/starved-[a-z0-9]+ +Failed .*\n {8}ReplicaFailure FailedCreate: /m);
      expect(out).toMatch(
        /^ {2}Warning +FailedCreate +.* +replicaset-controller +ReplicaSet\/starved-[a-z0-9]+ +Error creating: /m,
      );
    }, 180_000);
  });
});

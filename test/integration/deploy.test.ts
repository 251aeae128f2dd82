// deploy/: the controller's in-cluster manifests. The real apiserver accepts all of them
// (a server-side dry-run, admission and strict field validation included), the pod meets
// the restricted Pod Security Standard, and the RBAC grants what `kubectl webservice run`
// needs and nothing more, as the apiserver's authorizer answers for the ServiceAccount.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { CANARY_PODS } from '../../src/core/kinds';
import { DESCENDANT_KINDS } from '../../src/core/tree';
import { ROOT, createNamespace, kubectl } from '../support/cluster';
import { IMAGE_ENV, IMAGE_NODE_FLAGS } from '../../harness/controller-image';

const DEPLOY = path.join(ROOT, 'deploy');
const SYSTEM = 'webservice-system';
const NAME = 'webservice-controller';

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: any;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
}

const manifestFiles = () =>
  fs
    .readdirSync(DEPLOY)
    .filter((file) => /\.(ya?ml|json)$/.test(file))
    .sort();
const load = (file: string) => (yaml.loadAll(fs.readFileSync(file, 'utf8')) as KubeObject[]).filter(Boolean);
const manifests = () => manifestFiles().flatMap((file) => load(path.join(DEPLOY, file)));

function find(kind: string, name: string): KubeObject {
  const found = manifests().filter((o) => o.kind === kind && o.metadata.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

/** "group|resource|verb" for each grant of rules without resourceNames. */
function grants(rules: PolicyRule[]): Set<string> {
  const out = new Set<string>();
  for (const rule of rules.filter((r) => !r.resourceNames?.length)) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? [])
        for (const verb of rule.verbs) out.add(`${group}|${resource}|${verb}`);
    }
  }
  return out;
}

function kubectlResult(args: string[], input?: string) {
  return spawnSync('kubectl', args, { encoding: 'utf8', input, env: { ...process.env, NO_COLOR: '1' } });
}

describe('deploy/ manifests', () => {
  const deployment = () => find('Deployment', NAME);
  const container = () => deployment().spec.template.spec.containers[0];

  it('are numbered so that `kubectl apply -f deploy/` creates the namespace first, then RBAC, then the Deployment', () => {
    const kinds = manifests().map((o) => o.kind);
    expect(kinds[0]).toBe('Namespace');
    expect(kinds.indexOf('Deployment')).toBe(kinds.length - 1);
    expect(kinds.indexOf('ServiceAccount')).toBeLessThan(kinds.indexOf('Deployment'));
    for (const object of manifests().filter((o) => o.kind !== 'Namespace' && o.metadata.namespace !== undefined)) {
      expect(object.metadata.namespace).toBe(SYSTEM);
    }
  });

  it('run the controller with leader election, metrics, probes and JSON logs, as the ServiceAccount', () => {
    const spec = deployment().spec;
    expect(spec.replicas).toBe(2);
    expect(spec.template.spec.serviceAccountName).toBe(NAME);
    expect(spec.template.spec.automountServiceAccountToken).toBe(true);
    expect(spec.template.spec.terminationGracePeriodSeconds).toBe(30);
    expect(find('ServiceAccount', NAME).metadata.namespace).toBe(SYSTEM);
    expect(container().image).toBe('labhub/webservice-controller:v0.1.0');
    expect(container().args).toEqual([
      'run',
      '-A',
      '--leader-elect',
      `--leader-elect-namespace=${SYSTEM}`,
      '--metrics-bind-address=:8080',
      '--health-probe-bind-address=:8081',
      '--log-format=json',
    ]);
    const port = (p: number | string) =>
      typeof p === 'number' ? p : container().ports.find((named: { name: string }) => named.name === p).containerPort;
    expect(
      container()
        .ports.map((p: { containerPort: number }) => p.containerPort)
        .sort(),
    ).toEqual([8080, 8081]);
    expect(container().livenessProbe.httpGet.path).toBe('/healthz');
    expect(port(container().livenessProbe.httpGet.port)).toBe(8081);
    expect(container().readinessProbe.httpGet.path).toBe('/readyz');
    expect(port(container().readinessProbe.httpGet.port)).toBe(8081);
    expect(container().resources).toEqual({
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { cpu: '500m', memory: '256Mi' },
    });
  });

  it("are fenced: each replica's identity begins with its pod's name, and the fence admits writes by the pod the Lease names", () => {
    expect(container().env).toContainEqual({
      name: 'POD_NAME',
      valueFrom: { fieldRef: { fieldPath: 'metadata.name' } },
    });
    const policy = find('ValidatingAdmissionPolicy', 'webservice-controller-leader-fence');
    expect(policy.spec.paramKind).toEqual({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });
    expect(policy.spec.failurePolicy).toBe('Fail');
    expect(policy.spec.matchConditions[0].expression).toContain(`system:serviceaccount:${SYSTEM}:${NAME}`);
    const binding = find('ValidatingAdmissionPolicyBinding', 'webservice-controller-leader-fence');
    expect(binding.spec.policyName).toBe(policy.metadata.name);
    expect(binding.spec.validationActions).toEqual(['Deny']);
    // The Lease the replicas elect with (--leader-elect-namespace, the default name).
    expect(binding.spec.paramRef).toEqual({ name: NAME, namespace: SYSTEM, parameterNotFoundAction: 'Allow' });
    // What the fence covers is what the ServiceAccount may write, Leases aside.
    const fenced = new Set(
      policy.spec.matchConstraints.resourceRules.flatMap((r: { apiGroups: string[]; resources: string[] }) =>
        r.apiGroups.flatMap((g) => r.resources.map((res) => `${g}|${res}`)),
      ),
    );
    const writable = [...grants(find('ClusterRole', NAME).rules)]
      .filter((g) => /\|(create|update|patch|delete)$/.test(g))
      .map((g) => g.replace(/\|[a-z]+$/, ''))
      .filter((g) => g !== 'apps.labhub.io|webservices/finalizers'); // an authorization check for ownerReferences, not a request
    expect([...new Set(writable)].sort()).toEqual([...fenced].sort());
  });

  it('run as uid 65532, non-root, read-only, without capabilities or privilege escalation, under RuntimeDefault seccomp', () => {
    const pod = deployment().spec.template.spec.securityContext;
    expect(pod).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container().securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    const dockerfile = fs.readFileSync(path.join(DEPLOY, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^USER 65532(:65532)?$/m);
    expect(dockerfile).toMatch(/^COPY dist\/kubectl-webservice \/usr\/local\/bin\/kubectl-webservice$/m);
    // The distroless image's entrypoint is node alone, and the Deployment's args replace CMD.
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=gcr\.io\/distroless\/nodejs24-debian12:nonroot$/m);
    // With the controller's node flags and environment, the ones the bench starts `run` with.
    const entrypoint = ['/nodejs/bin/node', ...IMAGE_NODE_FLAGS, '/usr/local/bin/kubectl-webservice'];
    expect(dockerfile).toContain(`ENTRYPOINT ${JSON.stringify(entrypoint).replaceAll('","', '", "')}`);
    const env = Object.fromEntries([...dockerfile.matchAll(/^ENV (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
    expect(env).toEqual({ HOME: '/nonexistent', ...IMAGE_ENV });
    // The plugin's commands, in the standalone binary, keep the young generation at 16 MiB.
    expect(fs.readFileSync(path.join(ROOT, 'scripts/sea.sh'), 'utf8')).toMatch(
      /^readonly SEMI_SPACE="--max-semi-space-size=16"$/m,
    );
    expect(container().command).toBeUndefined();
    expect(container().args[0]).toBe('run');
  });

  it('keep the standby standing: a drain takes one replica at a time, and the replicas spread across nodes', () => {
    const budget = find('PodDisruptionBudget', NAME);
    expect(budget.spec).toEqual({ maxUnavailable: 1, selector: deployment().spec.selector });
    expect(deployment().spec.template.spec.topologySpreadConstraints).toEqual([
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'ScheduleAnyway', // a one-node cluster still runs both
        labelSelector: deployment().spec.selector,
      },
    ]);
  });

  it("let in only the metrics scrape, and let out only DNS, the API server and canaries' metrics API", () => {
    const policy = find('NetworkPolicy', NAME);
    expect(policy.spec.podSelector).toEqual(deployment().spec.selector);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec.ingress).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: { metrics: 'enabled' } } }],
        ports: [{ port: 'metrics', protocol: 'TCP' }],
      },
    ]);
    expect(container().ports.find((p: { name: string }) => p.name === 'metrics').containerPort).toBe(8080);
    const egressPorts = policy.spec.egress.map((rule: { ports: { port: number }[] }) => rule.ports.map((p) => p.port));
    expect(egressPorts).toEqual([[53, 53], [443, 6443], [9090]]);
    expect(policy.spec.egress[0].to[0].podSelector).toEqual({ matchLabels: { 'k8s-app': 'kube-dns' } });
    // The metrics API (run --prometheus-url) where the scraper runs: nowhere else on 9090.
    expect(policy.spec.egress[2].to).toEqual([{ namespaceSelector: { matchLabels: { metrics: 'enabled' } } }]);
  });

  it("grant the controller webservice-reconciler's rules but describe's reads, plus Events, and nothing else", () => {
    const reconciler = load(path.join(ROOT, 'crds/rbac/webservice-reconciler.yaml')).find(
      (o) => o.kind === 'ClusterRole',
    )!;
    const controller = find('ClusterRole', NAME);
    // What describe lists beyond the children (their ReplicaSets, pods, EndpointSlices, Events):
    // the role grants them for users, and the controller, which never describes, goes without.
    const describeReads = new Set([
      ...DESCENDANT_KINDS.map((row) => `${row.type.group}|${row.type.resource}|list`),
      '|events|list',
    ]);
    // But the canary's pods, which a pass lists for their restarts.
    const canaryPods = `${CANARY_PODS.group}|${CANARY_PODS.resource}|list`;
    const wanted = new Set([...grants(reconciler.rules)].filter((g) => !describeReads.has(g) || g === canaryPods));
    const granted = grants(controller.rules);
    const events = ['events.k8s.io|events|create', 'events.k8s.io|events|patch', '|events|create', '|events|patch'];
    expect([...wanted].filter((g) => !granted.has(g))).toEqual([]);
    expect(events.filter((g) => !granted.has(g))).toEqual([]);
    expect([...granted].filter((g) => !wanted.has(g) && !events.includes(g))).toEqual([]);
    expect(JSON.stringify(controller.rules)).not.toContain('*');
    const binding = find('ClusterRoleBinding', NAME);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NAME });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: NAME, namespace: SYSTEM }]);
  });

  it('grant leases in webservice-system only: create, and get and update of the lease webservice-controller', () => {
    const role = manifests().find((o) => o.kind === 'Role')!;
    expect(role.metadata.namespace).toBe(SYSTEM);
    expect(role.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [NAME], verbs: ['get', 'update'] },
    ]);
    const binding = manifests().find((o) => o.kind === 'RoleBinding')!;
    expect(binding.metadata.namespace).toBe(SYSTEM);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: NAME, namespace: SYSTEM }]);
  });
});

describe('deploy/ on a real apiserver', () => {
  beforeAll(() => {
    // A dry-run of namespaced objects needs their namespace to exist: apply it for real,
    // with its Pod Security labels. It stays: other test files (the controller's) apply the
    // same file and use the namespace, possibly at the same time.
    kubectl(['apply', '-f', path.join(DEPLOY, '00-namespace.yaml')]);
  });

  const dryRun = (args: string[], input?: string) =>
    kubectlResult(['apply', '--dry-run=server', '-o', 'json', ...args], input);

  it('accepts `kubectl apply -f deploy/` as a server-side dry-run, without a warning', () => {
    const result = dryRun(['-f', DEPLOY]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const printed = JSON.parse(result.stdout);
    const items = (printed.kind === 'List' ? printed.items : [printed]) as KubeObject[];
    const applied = items.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(applied).toEqual(manifests().map((o) => `${o.kind}/${o.metadata.name}`));
  });

  it('accepts each manifest file on its own', () => {
    for (const file of manifestFiles()) {
      const result = dryRun(['-f', path.join(DEPLOY, file)]);
      if (result.status !== 0) throw new Error(`${file}: ${result.stderr}`);
      expect(result.stderr).toBe('');
    }
  });

  it('would warn about a Deployment that breaks the restricted Pod Security Standard (so the silence above means something)', () => {
    const loose = find('Deployment', NAME);
    loose.spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation = true;
    const result = dryRun(['-f', '-'], JSON.stringify(loose));
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
  });
});

describe("the controller's RBAC, bound for real", () => {
  // A copy of deploy/10-rbac.yaml: namespaced objects in a test namespace instead of
  // webservice-system, cluster-wide ones under a test name.
  const suffix = `-test-${process.pid}`;
  let ns: string;
  let user: string;

  const relocate = (o: KubeObject): KubeObject => {
    const copy = JSON.parse(JSON.stringify(o)) as KubeObject;
    if (copy.metadata.namespace === SYSTEM) copy.metadata.namespace = ns;
    if (copy.kind === 'ClusterRole' || copy.kind === 'ClusterRoleBinding') copy.metadata.name += suffix;
    if (copy.kind === 'ClusterRoleBinding') copy.roleRef.name += suffix;
    for (const subject of copy.subjects ?? []) if (subject.namespace === SYSTEM) subject.namespace = ns;
    return copy;
  };

  beforeAll(() => {
    ns = createNamespace('deploy-rbac');
    user = `system:serviceaccount:${ns}:${NAME}`;
    const items = load(path.join(DEPLOY, '10-rbac.yaml')).map(relocate);
    kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  });
  afterAll(() => {
    kubectlResult(['delete', 'clusterrolebinding', `${NAME}${suffix}`, '--ignore-not-found']);
    kubectlResult(['delete', 'clusterrole', `${NAME}${suffix}`, '--ignore-not-found']);
    kubectlResult(['delete', 'namespace', ns, '--wait=false']);
  });

  /** What the authorizer answers for the ServiceAccount: "yes" or "no". */
  const canI = (...args: string[]) => {
    const result = kubectlResult(['auth', 'can-i', ...args, `--as=${user}`]);
    const answer = result.stdout.trim().split(/\s/)[0]; // "no" may be followed by " - <reason>"
    if (answer !== 'yes' && answer !== 'no') throw new Error(`kubectl auth can-i ${args.join(' ')}: ${result.stderr}`);
    return answer;
  };

  it('lets run watch and reconcile WebServices and their ConfigMaps in every namespace', () => {
    for (const verb of ['get', 'list', 'watch', 'patch'])
      expect([verb, canI(verb, 'webservices.apps.labhub.io', '-A')]).toEqual([verb, 'yes']);
    expect(canI('patch', 'webservices.apps.labhub.io', '--subresource=status', '-A')).toBe('yes');
    expect(canI('update', 'webservices.apps.labhub.io', '--subresource=finalizers', '-A')).toBe('yes');
    for (const verb of ['get', 'list', 'watch', 'create', 'patch', 'delete']) {
      expect([verb, canI(verb, 'configmaps', '-A')]).toEqual([verb, 'yes']);
    }
    for (const verb of ['create', 'patch']) {
      expect([verb, canI(verb, 'events.events.k8s.io', '-n', 'default')]).toEqual([verb, 'yes']);
      expect([verb, canI(verb, 'events', '-n', 'default')]).toEqual([verb, 'yes']);
    }
  });

  it('lets run hold its lease, in its own namespace only', () => {
    expect(canI('create', 'leases.coordination.k8s.io', '-n', ns)).toBe('yes');
    expect(canI('get', `leases.coordination.k8s.io/${NAME}`, '-n', ns)).toBe('yes');
    expect(canI('update', `leases.coordination.k8s.io/${NAME}`, '-n', ns)).toBe('yes');
    expect(canI('get', 'leases.coordination.k8s.io/someone-else', '-n', ns)).toBe('no');
    expect(canI('update', 'leases.coordination.k8s.io/someone-else', '-n', ns)).toBe('no');
    expect(canI('delete', `leases.coordination.k8s.io/${NAME}`, '-n', ns)).toBe('no');
    expect(canI('create', 'leases.coordination.k8s.io', '-n', 'default')).toBe('no');
  });

  it('allows nothing else', () => {
    expect(canI('create', 'webservices.apps.labhub.io', '-A')).toBe('no');
    expect(canI('update', 'webservices.apps.labhub.io', '-A')).toBe('no');
    expect(canI('delete', 'webservices.apps.labhub.io', '-A')).toBe('no');
    expect(canI('update', 'configmaps', '-A')).toBe('no');
    // Secrets: read (the config the pods read), made and deleted (the digest key, snapshots), never changed.
    expect(canI('update', 'secrets', '-A')).toBe('no');
    expect(canI('patch', 'secrets', '-A')).toBe('no');
    expect(canI('update', 'controllerrevisions.apps', '-A')).toBe('no');
    // Pods: listed (a canary's, for their restarts), never read one by one, watched or written.
    expect(canI('get', 'pods', '-A')).toBe('no');
    expect(canI('watch', 'pods', '-A')).toBe('no');
    expect(canI('delete', 'pods', '-A')).toBe('no');
    expect(canI('list', 'leases.coordination.k8s.io', '-n', ns)).toBe('no');
  });
});

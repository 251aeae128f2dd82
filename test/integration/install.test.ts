// install and uninstall, with the manifests bundled in the plugin, on the real apiserver.
// The whole suite shares one CRD: tests here change it (labels, fields), so each restores
// it, and afterAll makes sure it is installed and Established again. `uninstall --force`,
// which deletes it, runs in the fault suite (test/faults/uninstall.test.ts) on its own plane.
import * as yaml from 'js-yaml';
import { spawnSync } from 'node:child_process';
import {
  MUTATING,
  PACKAGE_VERSION,
  getJson,
  kubectl,
  plugin,
  tryGetJson,
  CRD,
  CRD_REF,
  crd,
  describeEvent,
  restoreCrd,
} from '../support/cluster';
import { useInstallNamespace, useLegacyWebServices } from '../support/install';
import { FINALIZER } from '../../src/core/model';

const LABEL = 'webservice.labhub.io/version';
const version = PACKAGE_VERSION;

const { ns, audit } = useInstallNamespace();

const setLabel = (value: string | null) =>
  kubectl(['patch', 'crd', CRD, '--type=merge', '-p', JSON.stringify({ metadata: { labels: { [LABEL]: value } } })]);

describe('install -o yaml|json', () => {
  it('prints the manifests without a cluster, as a stream kubectl apply accepts', () => {
    const result = plugin(['install', '--rbac', '-o', 'yaml'], { env: { KUBECONFIG: '/nonexistent' } });
    expect(result.status).toBe(0);
    const objects = (yaml.loadAll(result.stdout) as any[]).filter(Boolean);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      `CustomResourceDefinition/${CRD}`,
      'ClusterRole/webservice-reconciler',
    ]);
    expect(objects.every((o) => o.metadata.labels[LABEL] === version)).toBe(true);
    const dryRun = spawnSync('kubectl', ['apply', '--dry-run=server', '-f', '-'], {
      input: result.stdout,
      encoding: 'utf8',
    });
    expect(dryRun.stderr).toBe('');
    expect(dryRun.status).toBe(0);
    expect(dryRun.stdout).toContain(`${CRD_REF} `);
  });

  it('-o json is a v1 List of the same objects, the controller included with --controller', () => {
    const list = JSON.parse(
      plugin(['install', '--rbac', '--controller', '-o', 'json'], { env: { KUBECONFIG: '/nonexistent' } }).stdout,
    );
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items.map((o: any) => o.kind)).toEqual([
      'CustomResourceDefinition',
      'ClusterRole',
      'Namespace',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Deployment',
    ]);
  });

  it("--image is the controller's image; without --controller, or not an image reference, it is refused in one line", () => {
    const offline = { env: { KUBECONFIG: '/nonexistent' } };
    const image = 'registry.example.com/team/webservice-controller:v9.9.9';
    const result = plugin(['install', '--controller', '--image', image, '-o', 'json'], offline);
    expect(result.stderr).toBe('');
    const deployment = JSON.parse(result.stdout).items.find((o: any) => o.kind === 'Deployment');
    expect(deployment.spec.template.spec.containers.map((c: any) => c.image)).toEqual([image]);

    const alone = plugin(['install', '--image', image], offline);
    expect([alone.status, alone.stdout, alone.stderr]).toEqual([
      1,
      '',
      "error: --image is the controller's image: give it with --controller; nothing was changed\n",
    ]);
    const bad = plugin(['install', '--controller', '--image', 'nginx; rm -rf /'], offline);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^error: --image must be an image reference such as .*, got "nginx; rm -rf \/"\n$/);
  });
});

describe('install', () => {
  afterAll(restoreCrd);

  it('upgrades a CRD applied by hand (no version label) with one server-side apply; a second install makes zero requests that write', async () => {
    setLabel(null);
    audit.mark();
    const first = plugin(['install']);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(`${CRD_REF} configured\n`);
    const writes = (await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb));
    expect(writes.map(describeEvent)).toEqual([`patch customresourcedefinitions/${CRD}`]);
    expect(writes[0].requestURI).toMatch(/fieldManager=kubectl-webservice/);
    expect(writes[0].requestURI).toMatch(/force=true/);
    const applied = getJson(['get', 'crd', CRD, '--show-managed-fields']);
    expect(applied.metadata.labels[LABEL]).toBe(version);
    expect(applied.metadata.managedFields).toContainEqual(
      expect.objectContaining({ manager: 'kubectl-webservice', operation: 'Apply' }),
    );
    const rv = applied.metadata.resourceVersion;

    audit.mark();
    const second = plugin(['install']);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe(`${CRD_REF} unchanged\n`);
    const requests = await audit.pluginRequests();
    expect(requests.filter((e) => MUTATING.has(e.verb)).map(describeEvent)).toEqual([]);
    expect(requests.map(describeEvent)).toEqual([`get customresourcedefinitions/${CRD}`]);
    expect(crd().metadata.resourceVersion).toBe(rv);
  });

  it('upgrades an older CRD: what the older one lacked is applied again', async () => {
    setLabel('0.0.1');
    kubectl(['patch', 'crd', CRD, '--type=json', '-p', '[{"op":"remove","path":"/spec/names/shortNames"}]']);
    expect(crd().spec.names.shortNames).toBeUndefined();
    const result = plugin(['install']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${CRD_REF} configured\n`);
    expect(crd().spec.names.shortNames).toEqual(['ws']);
    expect(crd().metadata.labels[LABEL]).toBe(version);
  });

  it('refuses a newer CRD in one line, and changes nothing', async () => {
    setLabel('99.0.0');
    try {
      const rv = crd().metadata.resourceVersion;
      audit.mark();
      const result = plugin(['install', '--rbac']);
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `error: ${CRD_REF} is at version 99.0.0 (label ${LABEL}), newer than this plugin's ${version}: ` +
          'upgrade the plugin (kubectl krew upgrade webservice) rather than downgrade the CRD; nothing was changed\n',
      );
      expect((await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb))).toEqual([]);
      expect(crd().metadata.resourceVersion).toBe(rv);
    } finally {
      setLabel(version);
    }
  });

  it('--dry-run=server has the API server check the apply, and persists nothing', async () => {
    setLabel(null);
    const rv = crd().metadata.resourceVersion;
    audit.mark();
    const result = plugin(['install', '--dry-run=server']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${CRD_REF} configured (server dry run)\n`);
    const writes = (await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb));
    expect(writes.map(describeEvent)).toEqual([`patch customresourcedefinitions/${CRD}`]);
    expect(writes[0].requestURI).toMatch(/dryRun=All/);
    expect(crd().metadata.resourceVersion).toBe(rv);
    expect(crd().metadata.labels?.[LABEL]).toBeUndefined();
  });

  it('--rbac adds the reconciler ClusterRole, and is idempotent too', async () => {
    kubectl(['delete', 'clusterrole', 'webservice-reconciler', '--ignore-not-found']);
    const first = plugin(['install', '--rbac']);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^clusterrole\.rbac\.authorization\.k8s\.io\/webservice-reconciler created$/m);
    const role = getJson(['get', 'clusterrole', 'webservice-reconciler']);
    expect(role.metadata.labels[LABEL]).toBe(version);
    expect(role.rules).toContainEqual({
      apiGroups: [''],
      resources: ['configmaps'],
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    });
    audit.mark();
    const second = plugin(['install', '--rbac']);
    expect(second.stdout).toBe(
      `${CRD_REF} unchanged\nclusterrole.rbac.authorization.k8s.io/webservice-reconciler unchanged\n`,
    );
    expect((await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb))).toEqual([]);
  });

  it('refuses a --dry-run value kubectl does not know, in one line, before any request', async () => {
    audit.mark();
    const result = plugin(['install', '--dry-run=all']);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('error: invalid dry-run value (all); must be "none", "server", or "client"\n');
    expect(await audit.pluginRequests()).toEqual([]);
  });
});

describe('uninstall', () => {
  useLegacyWebServices(ns);

  it('refuses while WebServices exist, says how many would be lost and names them with their children, and changes nothing', async () => {
    const total = getJson(['get', 'webservices', '-A']).items.length;
    expect(total).toBeGreaterThanOrEqual(2);
    audit.mark();
    const result = plugin(['uninstall']);
    expect(result.status).toBe(1);
    const [, count, named] =
      /^error: (\d+) WebServices exist in \d+ namespaces?, and deleting the CRD deletes them all and \d+ child(?:ren)? with them: (.+)\. Delete them first, or pass --cascade=orphan to keep their children running without them, or --force to delete the children too; nothing was changed\n$/.exec(
        result.stderr,
      ) ?? [];
    expect(Number(count)).toBeGreaterThanOrEqual(2);
    // Ten are named, each with its children, and the rest counted (uninstall.test.ts has the exact text).
    expect(named).toMatch(
      /^[a-z0-9-]+\/[a-z0-9.-]+( \([^)]*\))?(, [a-z0-9-]+\/[a-z0-9.-]+( \([^)]*\))?)*( and \d+ more)?$/,
    );
    expect((await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb))).toEqual([]);
    expect(tryGetJson(['get', 'crd', CRD])).not.toBeNull();
    expect(getJson(['get', 'webservice', 'kept', '-n', ns()]).metadata.finalizers).toEqual([FINALIZER]);
  });
});

// The Helm chart (charts/webservice-controller): with default values it renders exactly the
// objects `kubectl webservice install --controller -o yaml` prints, so neither can drift from
// the other. helm lint passes; the real apiserver checks what it renders (a server-side
// dry-run with strict field validation, as deploy/ is checked); and the chart is installed
// with helm, checked with `kubectl webservice check`, and uninstalled.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { CRD, PACKAGE_VERSION, ROOT, eventually, kubectl, plugin } from '../support/cluster';
import {
  KubeObject,
  canonical,
  installManifests,
  kubectlResult,
  objectKey as key,
  parseManifests as parse,
} from '../support/manifests';
import { ownPlane } from '../support/plane';
import { helm } from '../support/tools';

const CHART = path.join(ROOT, 'charts/webservice-controller');
const SYSTEM = 'webservice-system';
const NAME = 'webservice-controller';
const RELEASE = 'webservice-controller';
const KEEP = 'helm.sh/resource-policy';

/** `helm template` of the chart: the objects, or a failure with helm's stderr. */
function template(args: string[] = []): KubeObject[] {
  const result = helm(['template', RELEASE, CHART, '--namespace', SYSTEM, ...args]);
  if (result.status !== 0) throw new Error(`helm template ${args.join(' ')} failed: ${result.stderr}`);
  return parse(result.stdout);
}

const find = (objects: KubeObject[], kind: string, name = NAME) => {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  expect(found).toHaveLength(1);
  return found[0];
};
const container = (objects: KubeObject[]) => find(objects, 'Deployment').spec.template.spec.containers[0];

/** A server-side dry-run of objects with strict field validation: the apiserver's verdict, and its warnings. */
function dryRun(objects: KubeObject[]) {
  return kubectlResult(
    ['apply', '--dry-run=server', '--validate=strict', '-o', 'name', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  );
}

beforeAll(() => {
  // A dry-run of namespaced objects needs their namespace; deploy/'s tests keep it too.
  kubectl(['apply', '-f', path.join(ROOT, 'deploy/00-namespace.yaml')]);
});

describe('the Helm chart', () => {
  it('passes helm lint, without a warning', () => {
    const result = helm(['lint', CHART, '--strict']);
    expect(result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(result.stdout).not.toMatch(/\[WARNING\]/);
    // Helm logs each symbolic link in a chart here, on every load.
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('renders with default values the objects of `install --controller -o yaml`, field for field; the CRD is also kept on uninstall', () => {
    const rendered = template();
    // The one difference: Helm's own instruction to leave the CRD (and every WebService) on uninstall.
    const crd = find(rendered, 'CustomResourceDefinition', CRD);
    expect(crd.metadata.annotations).toEqual({ [KEEP]: 'keep' });
    delete crd.metadata.annotations;
    expect(canonical(rendered)).toEqual(canonical(installManifests()));
  });

  it('labels every object with the plugin version, as install does; the chart carries the same version', () => {
    const chart = yaml.load(fs.readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8')) as Record<string, string>;
    expect([chart.version, chart.appVersion]).toEqual([PACKAGE_VERSION, PACKAGE_VERSION]);
    for (const object of template()) {
      expect([key(object), object.metadata.labels?.['webservice.labhub.io/version']]).toEqual([
        key(object),
        PACKAGE_VERSION,
      ]);
    }
  });

  it('takes the image, replicas, resources, watched namespace and log format from values', () => {
    const objects = template([
      '--set',
      'image.repository=registry.example.com/wsc,image.tag=v9,image.pullPolicy=Always',
      '--set',
      'replicaCount=3,watchNamespace=shop,logFormat=text',
      '--set',
      'resources.limits.memory=512Mi',
    ]);
    expect(find(objects, 'Deployment').spec.replicas).toBe(3);
    expect(container(objects).image).toBe('registry.example.com/wsc:v9');
    expect(container(objects).imagePullPolicy).toBe('Always');
    expect(container(objects).resources).toEqual({
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { cpu: '500m', memory: '512Mi' },
    });
    expect(container(objects).args).toEqual([
      'run',
      '-n',
      'shop',
      '--leader-elect',
      `--leader-elect-namespace=${SYSTEM}`,
      '--metrics-bind-address=:8080',
      '--health-probe-bind-address=:8081',
      '--log-format=text',
    ]);
    const refused = helm(['template', RELEASE, CHART, '--set', 'logFormat=xml']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('logFormat must be json or text, not "xml"');
  });

  it('without metrics: no metrics flag or port, and the NetworkPolicy lets nothing in; on another port, all three follow', () => {
    const off = template(['--set', 'metrics.enabled=false']);
    expect(container(off).args.filter((a: string) => a.startsWith('--metrics'))).toEqual([]);
    expect(container(off).ports.map((p: { name: string }) => p.name)).toEqual(['probes']);
    expect(find(off, 'NetworkPolicy').spec.ingress).toEqual([]);
    const moved = template(['--set', 'metrics.port=9090']);
    expect(container(moved).args).toContain('--metrics-bind-address=:9090');
    expect(container(moved).ports.find((p: { name: string }) => p.name === 'metrics').containerPort).toBe(9090);
    expect(find(moved, 'NetworkPolicy').spec.ingress[0].ports).toEqual([{ port: 'metrics', protocol: 'TCP' }]);
  });

  it('leaves out the Namespace and the CRD when asked, and keeps the CRD on uninstall only by default', () => {
    const kinds = template(['--set', 'createNamespace=false,crds.enabled=false']).map((o) => o.kind);
    expect(kinds).not.toContain('Namespace');
    expect(kinds).not.toContain('CustomResourceDefinition');
    const crd = find(template(['--set', 'crds.keep=false']), 'CustomResourceDefinition', CRD);
    expect(crd.metadata.annotations).toBeUndefined();
  });

  it('adds a metrics Service and a ServiceMonitor scraping it as the job the alerts expect, and the alert rules as a PrometheusRule', () => {
    const objects = template([
      '--set',
      'metrics.serviceMonitor.enabled=true,metrics.serviceMonitor.labels.release=prom',
      '--set',
      'metrics.prometheusRule.enabled=true',
    ]);
    const service = find(objects, 'Service');
    expect(service.spec.selector).toEqual(find(objects, 'Deployment').spec.selector.matchLabels);
    expect(service.spec.ports).toEqual([{ name: 'metrics', port: 8080, targetPort: 'metrics', protocol: 'TCP' }]);
    const monitor = find(objects, 'ServiceMonitor');
    expect(monitor.metadata.labels).toMatchObject({ release: 'prom' });
    expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s', honorLabels: true }]);
    // The scrape job is the Service's name: what WebServiceControllerDown looks for.
    const alerts = fs.readFileSync(path.join(ROOT, 'deploy/monitoring/alerts.yaml'), 'utf8');
    expect(alerts).toContain(`up{job="${service.metadata.name}"}`);
    const rule = find(objects, 'PrometheusRule');
    expect(rule.spec).toEqual(yaml.load(alerts));
    expect(template().map((o) => o.kind)).not.toContain('ServiceMonitor');
    const refused = helm([
      'template',
      RELEASE,
      CHART,
      '--set',
      'metrics.enabled=false,metrics.serviceMonitor.enabled=true',
    ]);
    expect(refused.stderr).toContain('metrics.serviceMonitor.enabled needs metrics.enabled');
  });

  it('renders what the apiserver accepts (server-side dry-run, strict validation, no warning), with default and with other values', () => {
    for (const args of [
      [],
      ['--set', 'metrics.enabled=false,replicaCount=1,watchNamespace=shop,logFormat=text'],
      ['--set', 'metrics.serviceMonitor.enabled=true'],
    ]) {
      // The Prometheus Operator's kinds need its CRDs, which the test plane does not have.
      const objects = template(args).filter((o) => !o.apiVersion.startsWith('monitoring.coreos.com/'));
      const result = dryRun(objects);
      expect([args.join(' '), result.stderr]).toEqual([args.join(' '), '']);
      expect(result.status).toBe(0);
      expect(result.stdout.trim().split('\n')).toHaveLength(objects.length);
    }
  });

  describe('helm install', () => {
    // On a plane of its own: install makes, and uninstall removes, the namespace
    // webservice-system, the controller's RBAC and the leader fence, which other files use at
    // the same time on the shared plane (and a fence deleted there cannot be applied again on
    // that apiserver: see deploy/README.md). With USE_EXISTING_CLUSTER=true, that cluster.
    const plane =
      process.env.USE_EXISTING_CLUSTER === 'true' ? null : ownPlane({ prefix: 'webservice-helm', workloads: false });
    beforeAll(() => plane?.up(), 120_000);
    afterAll(() => {
      try {
        helm(['uninstall', RELEASE, '--namespace', 'default', '--ignore-not-found', '--wait', '--timeout', '2m']);
      } finally {
        plane?.down();
      }
    });

    it('installs with default values, after which `kubectl webservice check` passes; helm uninstall removes all but the CRD', async () => {
      // --take-ownership: on an existing cluster, the run's global setup applied the CRD.
      const installedRelease = helm(['install', RELEASE, CHART, '--namespace', 'default', '--take-ownership']);
      expect(installedRelease.stderr.split('\n').filter((l) => l && !/found symbolic link/.test(l))).toEqual([]);
      expect(installedRelease.status).toBe(0);
      expect(installedRelease.stdout).toContain('STATUS: deployed');

      const live = (o: KubeObject) =>
        kubectlResult([
          'get',
          o.kind.toLowerCase(),
          o.metadata.name,
          ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : []),
          '-o',
          'json',
        ]);
      for (const object of installManifests()) {
        const result = live(object);
        expect([key(object), result.status]).toEqual([key(object), 0]);
        expect(JSON.parse(result.stdout).metadata.annotations?.['meta.helm.sh/release-name']).toBe(RELEASE);
      }

      // A new CRD is Established a moment before its storage serves a LIST ("storage is
      // (re)initializing"), which check would report: wait for it, as a user would.
      await eventually(() => (kubectlResult(['get', 'webservices', '-n', 'default']).status === 0 ? true : undefined));
      const check = plugin(['check', '-n', 'default']);
      expect(check.stdout).toMatch(/✓ the CRD webservices\.apps\.labhub\.io is installed, Established, at version /);
      expect(check.stdout).toMatch(/, 0 failed$/m);
      expect(check.status).toBe(0);
      // The chart's controller is installed, but on this plane its pods never run, so nothing
      // holds the Lease: check names the Deployment and its placeholder image, and does not
      // advise installing a controller.
      expect(check.stdout).toContain(
        `‼ no elected controller: there is no Lease ${SYSTEM}/${NAME}, though the controller Deployment ${SYSTEM}/${NAME} ` +
          `(Helm release default/${RELEASE}) is installed with 0/2 replicas ready\n` +
          `    hint: its image labhub/webservice-controller:v${PACKAGE_VERSION} is the placeholder of deploy/, which no registry serves: ` +
          `build one from deploy/Dockerfile and set it: helm upgrade ${RELEASE} -n default --reuse-values --set image.repository=REPOSITORY,image.tag=TAG\n`,
      );
      expect(check.stdout).not.toContain('install --controller');

      const uninstalled = helm(['uninstall', RELEASE, '--namespace', 'default', '--wait', '--timeout', '2m']);
      expect(uninstalled.stderr.split('\n').filter((l) => l && !/found symbolic link/.test(l))).toEqual([]);
      expect(uninstalled.status).toBe(0);
      const kept = await eventually(() => {
        const left = installManifests().filter((o) => live(o).status === 0);
        return left.length === 1 ? left : undefined;
      }, 120_000);
      expect(kept.map(key)).toEqual([`CustomResourceDefinition//${CRD}`]);
    }, 240_000);
  });
});

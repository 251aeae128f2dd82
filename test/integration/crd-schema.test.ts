// The CRD's pod fields are Kubernetes' own types: their schemas in the committed CRD are what
// the generator makes from this API server's OpenAPI, so a change of either shows up here.
// And the API server applies them: a typo in a field is refused, a value in Kubernetes' own
// form is taken.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { openApiPath, writtenApiVersions } from '../../harness/crd/list-keys';
import { OPTIONAL_KINDS } from '../../src/core/kinds';
import { OpenApiDocument, embeddedSchemas } from '../../harness/crd/schema';
import { embeddedIn } from '../../harness/crd/webservice-crd';
import { embeddedFields } from '../../src/core/spec-schema';
import type { Json } from '../../src/core/model';
import { ROOT, applyYaml, kubectl, useNamespace, webService } from '../support/cluster';

const openApi = (groupVersion: string) =>
  JSON.parse(kubectl(['get', '--raw', `/openapi/v3/${groupVersion}`])) as OpenApiDocument;

describe('the CRD carries the Kubernetes types of the pod fields', () => {
  const ns = useNamespace('crd-schema');

  it("as this API server's OpenAPI has them (npm run crd:generate writes them)", () => {
    // The API versions of the kinds we write, but those served only where their CRDs are (the Gateway API's).
    const versions = writtenApiVersions().filter(
      (version) => !OPTIONAL_KINDS.some((row) => row.apiVersion === version),
    );
    const generated = embeddedSchemas(versions.map((version) => openApi(openApiPath(version))));
    const crd = yaml.load(fs.readFileSync(path.join(ROOT, 'crds/webservices.apps.labhub.io.yaml'), 'utf8')) as Json;
    expect(Object.keys(generated).sort()).toEqual([
      'spec.workload.affinity',
      'spec.workload.args',
      'spec.workload.autoscaling.behavior',
      'spec.workload.autoscaling.metrics',
      'spec.workload.command',
      'spec.workload.env',
      'spec.workload.envFrom',
      'spec.workload.files[].items[]',
      'spec.workload.imagePullSecrets',
      'spec.workload.initContainers[]',
      'spec.workload.lifecycle',
      'spec.workload.livenessProbe',
      'spec.workload.networkPolicy.from',
      'spec.workload.nodeSelector',
      'spec.workload.podSecurityContext',
      'spec.workload.priorityClassName',
      'spec.workload.readinessProbe',
      'spec.workload.resources',
      'spec.workload.securityContext',
      'spec.workload.serviceAccountName',
      'spec.workload.sidecars[]',
      'spec.workload.startupProbe',
      'spec.workload.strategy',
      'spec.workload.tolerations',
      'spec.workload.topologySpreadConstraints',
      'spec.workload.volumeMounts',
      'spec.workload.volumes[].emptyDir',
      'spec.workload.volumes[].persistentVolumeClaim',
      'spec.workload.volumes[].projected',
    ]);
    const committed = embeddedIn(crd);
    for (const field of embeddedFields()) {
      expect({ at: field.at, schema: committed(field) }).toEqual({ at: field.at, schema: generated[field.at] });
    }
  });

  it('refuses a field Kubernetes does not have, naming it', () => {
    const typo = webService('typo', {
      image: 'nginx:1.27',
      workload: { readinessProbe: { httpGet: { path: '/', port: 8080 }, timeoutSecond: 3 } },
    });
    expect(() => applyYaml(ns(), typo)).toThrow(/unknown field "spec\.workload\.readinessProbe\.timeoutSecond"/);
  });

  it('refuses two environment variables of one name, as Kubernetes keys env by name', () => {
    const twice = webService('twice', {
      image: 'nginx:1.27',
      workload: {
        env: [
          { name: 'A', value: '1' },
          { name: 'A', value: '2' },
        ],
      },
    });
    expect(() => applyYaml(ns(), twice)).toThrow(/spec\.workload\.env\[1\]: Duplicate value: \{"name":"A"\}/);
  });

  // A CRD's quantity is an integer or a string (a structural schema has no "number or string"):
  // 0.5 is written "0.5", as Kubernetes prints it anyway.
  it('takes quantities and ports in the forms Kubernetes takes', () => {
    applyYaml(
      ns(),
      webService('forms', {
        image: 'nginx:1.27',
        workload: {
          port: 8080,
          resources: { requests: { cpu: '0.5', memory: '1.5Gi' }, limits: { cpu: 1, memory: '1e9' } },
          readinessProbe: { httpGet: { path: '/', port: 'http' } },
          livenessProbe: { tcpSocket: { port: 8080 } },
        },
      }),
    );
    const ws = JSON.parse(kubectl(['get', 'webservice', 'forms', '-n', ns(), '-o', 'json'])) as {
      spec: { workload: { resources: unknown } };
    };
    expect(ws.spec.workload.resources).toEqual({
      requests: { cpu: '0.5', memory: '1.5Gi' },
      limits: { cpu: 1, memory: '1e9' },
    });
    expect(() =>
      applyYaml(
        ns(),
        webService('bad', { image: 'nginx:1.27', workload: { resources: { requests: { cpu: 'lots' } } } }),
      ),
    ).toThrow(/spec\.workload\.resources\.requests\.cpu/);
  });

  it('refuses a resource name Kubernetes does not know, and takes the ones it does', () => {
    const withResources = (name: string, resources: unknown) =>
      webService(name, { image: 'nginx:1.27', workload: { resources } });
    expect(() => applyYaml(ns(), withResources('memroy', { requests: { memroy: '128Mi' } }))).toThrow(
      /spec\.workload\.resources\.requests: Invalid value: a resource name is one of cpu, memory/,
    );
    expect(() => applyYaml(ns(), withResources('gpus', { limits: { gpu: 1 } }))).toThrow(
      /spec\.workload\.resources\.limits: Invalid value/,
    );
    const known = { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1Gi', 'hugepages-2Mi': '2Mi', 'nvidia.com/gpu': 1 };
    applyYaml(ns(), withResources('known', { requests: known, limits: known }));
  });

  it('refuses ports that clash, by name or by number, and a probe on a name no port has', () => {
    const withPorts = (name: string, workload: Json) => webService(name, { image: 'nginx:1.27', workload });
    const refusals: [Json, RegExp][] = [
      [
        { ports: [{ name: 'http', port: 9090 }] },
        /spec\.workload\.ports\[0\]\.name: Invalid value: .*http is the name of spec\.workload\.port/,
      ],
      [
        {
          ports: [
            { name: 'a', port: 1 },
            { name: 'a', port: 2 },
          ],
        },
        /spec\.workload\.ports\[1\]: Duplicate value: \{"name":"a"\}/,
      ],
      [
        {
          ports: [
            { name: 'a', port: 1 },
            { name: 'b', port: 1 },
          ],
        },
        /spec\.workload\.ports: Invalid value: .*two ports have one number and protocol/,
      ],
      [
        { port: 8080, ports: [{ name: 'a', port: 8080 }] },
        /spec\.workload\.ports: Invalid value: .*the number of spec\.workload\.port/,
      ],
      [
        { ports: [{ name: 'a--b', port: 1 }] },
        /spec\.workload\.ports\[0\]\.name: Invalid value: .*a letter, and no '--'/,
      ],
      [
        { ports: [{ name: 'metrics', port: 9090 }], readinessProbe: { httpGet: { path: '/', port: 'admin' } } },
        /spec\.workload\.readinessProbe: Invalid value: .*a port by name names no port/,
      ],
    ];
    for (const [workload, message] of refusals)
      expect(() => applyYaml(ns(), withPorts('clash', workload))).toThrow(message);
    applyYaml(
      ns(),
      withPorts('ports', {
        port: 53,
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP' },
          { name: 'metrics', port: 9090 },
        ],
        livenessProbe: { httpGet: { path: '/', port: 'metrics' } },
      }),
    );
  });

  it("refuses volumes and mounts that clash with files' or each other, or name no volume", () => {
    const file = { mountPath: '/etc/app', configMap: 'app' };
    const cache = { name: 'cache', emptyDir: {} };
    const refusals: [Json, RegExp][] = [
      [
        { volumes: [{ name: 'files-1', emptyDir: {} }] },
        /spec\.workload\.volumes\[0\]\.name: Invalid value: .*files-… are the names of the volumes of spec\.workload\.files/,
      ],
      [
        { volumes: [{ name: 'a', emptyDir: {}, persistentVolumeClaim: { claimName: 'a' } }] },
        /spec\.workload\.volumes\[0\]: Invalid value: .*a volume is one of emptyDir, persistentVolumeClaim or projected/,
      ],
      [
        { volumes: [cache], volumeMounts: [{ name: 'other', mountPath: '/x' }] },
        /spec\.workload\.volumeMounts: Invalid value: .*a volume mount names a volume of spec\.workload\.volumes/,
      ],
      [
        { files: [file], volumes: [cache], volumeMounts: [{ name: 'cache', mountPath: '/etc/app' }] },
        /spec\.workload\.volumeMounts: Invalid value: .*two mounts at one path/,
      ],
      [
        {
          volumes: [cache],
          volumeMounts: [
            { name: 'cache', mountPath: '/x' },
            { name: 'cache', mountPath: '/x' },
          ],
        },
        /spec\.workload\.volumeMounts\[1\]: Duplicate value: \{"mountPath":"\/x"\}/,
      ],
      [{ volumes: [{ name: 'a', hostPath: { path: '/' } }] }, /unknown field "spec\.workload\.volumes\[0\]\.hostPath"/],
    ];
    for (const [workload, message] of refusals)
      expect(() => applyYaml(ns(), webService('clash', { image: 'nginx:1.27', workload }))).toThrow(message);
    applyYaml(
      ns(),
      webService('volumes', {
        image: 'nginx:1.27',
        workload: { files: [file], volumes: [cache], volumeMounts: [{ name: 'cache', mountPath: '/etc/app/cache' }] },
      }),
    );
  });

  it('refuses sidecars and init containers with what Kubernetes refuses for their kind, or a clashing name', () => {
    const proxy = { name: 'proxy', image: 'envoyproxy/envoy:v1.31', startupProbe: { tcpSocket: { port: 9901 } } };
    const migrate = { name: 'migrate', image: 'busybox:1.36' };
    const refusals: [Json, RegExp][] = [
      [
        { sidecars: [{ ...proxy, name: 'web' }] },
        /spec\.workload\.sidecars: Invalid value: .*web is the name of the main container/,
      ],
      [
        { initContainers: [{ ...migrate, name: 'web' }] },
        /spec\.workload\.initContainers: Invalid value: .*web is the name/,
      ],
      [
        { sidecars: [proxy], initContainers: [{ ...migrate, name: 'proxy' }] },
        /spec\.workload\.initContainers: Invalid value: .*a sidecar and an init container have one name/,
      ],
      [
        { initContainers: [{ ...migrate, livenessProbe: { exec: { command: ['true'] } } }] },
        /spec\.workload\.initContainers: Invalid value: .*an init container runs to completion: it has no probes/,
      ],
      [
        { initContainers: [{ ...migrate, restartPolicy: 'Always' }] },
        /spec\.workload\.initContainers: Invalid value: .*one with restartPolicy Always is a sidecar/,
      ],
      [
        { sidecars: [{ ...proxy, restartPolicy: 'Never' }] },
        /spec\.workload\.sidecars: Invalid value: .*a sidecar's restartPolicy is Always/,
      ],
      [{ sidecars: [{ name: 'proxy' }] }, /spec\.workload\.sidecars: Invalid value: .*each container needs an image/],
      [
        { sidecars: [{ ...proxy, imagePullPolcy: 'Always' }] },
        /unknown field "spec\.workload\.sidecars\[0\]\.imagePullPolcy"/,
      ],
    ];
    for (const [workload, message] of refusals)
      expect(() => applyYaml(ns(), webService('clash', { image: 'nginx:1.27', workload }))).toThrow(message);
    applyYaml(
      ns(),
      webService('extra', { image: 'nginx:1.27', workload: { sidecars: [proxy], initContainers: [migrate] } }),
    );
  });

  it('kubectl explain describes a sidecar with the Container type', () => {
    const explained = kubectl(['explain', 'webservice.spec.workload.sidecars']);
    expect(explained).toMatch(/native sidecars/);
    expect(explained).toMatch(/startupProbe/);
    expect(explained).toMatch(/volumeMounts/);
  });

  it("refuses pod labels that are the WebService's own, which a pass would drop", () => {
    const own = ['app.kubernetes.io/managed-by', 'app.kubernetes.io/name', 'app.kubernetes.io/instance'];
    for (const key of [...own, 'webservice.labhub.io/tier']) {
      const clash = webService('clash', { image: 'nginx:1.27', workload: { podLabels: { team: 'a', [key]: 'x' } } });
      expect(() => applyYaml(ns(), clash)).toThrow(
        /spec\.workload\.podLabels: Invalid value: app\.kubernetes\.io\/managed-by, app\.kubernetes\.io\/name/,
      );
    }
    applyYaml(ns(), webService('team', { image: 'nginx:1.27', workload: { podLabels: { team: 'a' } } }));
  });
});

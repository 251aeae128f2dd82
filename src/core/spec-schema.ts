// The WebService's schema, written once: the openAPIV3Schema of its CRD, spec and status, with
// descriptions, defaults and CEL rules. A field that is a Kubernetes type's field (a container's
// env, a pod's securityContext) names that type and field instead of spelling out its schema;
// `npm run crd:generate` expands it from the API server's OpenAPI, as controller-gen does. The
// CRD (crds/), the spec's types (spec.generated.ts) and the shape checks of validate.ts come
// from this; tests fail when a generated file is stale. Pure data.

/** A Kubernetes type's field, or a whole type when field is unset, whose schema the CRD embeds. */
export interface Embedded {
  embeds: string;
  field?: string;
  /** Its JSON shape, which our own checks and types read (the OpenAPI has the rest). */
  shape: 'object' | 'objects' | 'string' | 'strings';
  /**
   * Bounds the CRD adds to the type's: on a list, its length; on an object's string fields, theirs
   * (bounds Kubernetes' own validation has, its OpenAPI not). They keep the cost of the rules
   * that read them within the API server's budget.
   */
  maxItems?: number;
  maxLengths?: Record<string, number>;
}

/** An OpenAPI v3 schema, as a CRD's structural schema writes it. */
export interface SchemaNode {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  default?: unknown;
  enum?: string[];
  required?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  properties?: Record<string, SchemaNode | Embedded>;
  items?: SchemaNode | Embedded;
  additionalProperties?: SchemaNode;
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: { rule: string; message?: string; fieldPath?: string }[];
}

const CONTAINER = 'io.k8s.api.core.v1.Container';
const POD_SPEC = 'io.k8s.api.core.v1.PodSpec';
const KEY_TO_PATH = 'io.k8s.api.core.v1.KeyToPath';
const DEPLOYMENT_SPEC = 'io.k8s.api.apps.v1.DeploymentSpec';
const NETWORK_POLICY_INGRESS_RULE = 'io.k8s.api.networking.v1.NetworkPolicyIngressRule';
const VOLUME = 'io.k8s.api.core.v1.Volume';
const HPA_SPEC = 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec';
/** The most volumes, and mounts of them, a WebService's pod has (beside files'). */
const MAX_VOLUMES = 32;
/** The most sidecars, and init containers, a WebService's pod has. */
const MAX_EXTRA_CONTAINERS = 8;
/** Neither a sidecar nor an init container may be named as the main container is (CONTAINER_NAME, pod.ts). */
const NOT_WEB = {
  rule: "self.all(c, c.name != 'web')",
  message: 'web is the name of the main container: choose another',
};
/** Kubernetes' Container type has image optional (for a pod template's sake); a pod's container has one. */
const HAS_IMAGE = { rule: 'self.all(c, has(c.image))', message: 'each container needs an image' };

/**
 * A probe reaches a port of its own container by name, and ours has spec.workload.port, named
 * http, and spec.workload.ports, by their names: any other name could never resolve. A number
 * may be a sidecar's.
 */
function probePortByName(probe: string): { rule: string; message: string; fieldPath: string } {
  const named = (handler: string) => {
    const port = `self.${probe}.${handler}.port`;
    return (
      `(!has(self.${probe}.${handler}) || type(${port}) == int || (has(self.port) && ${port} == 'http') || ` +
      `(has(self.ports) && self.ports.exists(p, p.name == ${port})))`
    );
  };
  return {
    rule: `!has(self.${probe}) || (${named('httpGet')} && ${named('tcpSocket')})`,
    message:
      "a port by name names no port: the container's ports are spec.workload.port, named http (and without " +
      'spec.workload.port it has none), and those of spec.workload.ports, by their names',
    fieldPath: `.${probe}`,
  };
}

/** spec.workload.port is the container's port http, TCP: none of spec.workload.ports may be it again. */
const PORTS_APART_FROM_HTTP =
  "!has(self.ports) || !has(self.port) || !self.ports.exists(p, p.port == self.port && p.protocol == 'TCP')";
const PORTS_APART_FROM_HTTP_MESSAGE = 'a port of ports has the number of spec.workload.port (named http), over TCP';

/**
 * A list of containers beside web (sidecars, init containers), keyed by name as the pod's are:
 * Kubernetes' Container, its name bounded as Kubernetes' validation bounds it (which keeps the
 * rule that compares the names of two such lists within the API server's cost budget).
 */
function containerList(description: string, ...rules: { rule: string; message: string }[]): SchemaNode {
  return {
    type: 'array',
    description,
    maxItems: MAX_EXTRA_CONTAINERS,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    'x-kubernetes-validations': [NOT_WEB, HAS_IMAGE, ...rules],
    items: { ...embeds(CONTAINER, undefined, 'object'), maxLengths: { name: 63 } },
  };
}

function embeds(type: string, field: string | undefined, shape: Embedded['shape']): Embedded {
  return field === undefined ? { embeds: type, shape } : { embeds: type, field, shape };
}

export function isEmbedded(node: SchemaNode | Embedded): node is Embedded {
  return 'embeds' in node;
}

export const WEB_SERVICE_SCHEMA: SchemaNode = {
  type: 'object',
  required: ['spec'],
  'x-kubernetes-validations': [
    {
      // Every name this CRD accepts reconciles: the child ConfigMap is <name>-desired, and an object
      // name is at most 253 characters, so a WebService name is at most 245. (Names over 63 get a
      // shortened app.kubernetes.io/instance label value.)
      rule: 'size(self.metadata.name) <= 245',
      message:
        'metadata.name may have at most 245 characters, so that the child ConfigMap <name>-desired ' +
        'fits in the 253 allowed for object names',
      // Each rule names its field, so that no message begins with "<nil>:".
      fieldPath: '.metadata.name',
    },
    {
      rule: '!has(self.spec.dependsOn) || !(self.metadata.name in self.spec.dependsOn)',
      message: 'a WebService cannot depend on itself',
      // Without it the API server names no field: the message began with "<nil>:".
      fieldPath: '.spec.dependsOn',
    },
    {
      // The workload's Deployment is named after the WebService, and its pods' hostnames are built
      // from that name, which must then be a DNS label.
      rule: "!has(self.spec.workload) || (size(self.metadata.name) <= 63 && !self.metadata.name.contains('.'))",
      message:
        'with spec.workload, metadata.name may have at most 63 characters and no dots: the ' +
        "Deployment is named after the WebService, and its pods' hostnames must be DNS labels",
      fieldPath: '.metadata.name',
    },
    {
      rule:
        // The Service is named after the WebService, and a Service name is a DNS-1035 label. The name
        // is already a DNS subdomain: a label that starts with a letter is one (a short regex keeps the
        // rule's estimated cost low for an unbounded string).
        '!has(self.spec.workload) || !has(self.spec.workload.port) || (size(self.metadata.name) <= ' +
        "63 && !self.metadata.name.contains('.') && self.metadata.name.matches('^[a-z]'))",
      message:
        'with spec.workload.port, metadata.name must be a DNS-1035 label (at most 63 characters, ' +
        'starting with a letter, no dots): the Service is named after the WebService',
      fieldPath: '.metadata.name',
    },
  ],
  properties: {
    apiVersion: {
      type: 'string',
    },
    kind: {
      type: 'string',
    },
    metadata: {
      type: 'object',
      // Declared so that the rules above can name metadata.name as their fieldPath.
      properties: {
        name: {
          type: 'string',
        },
      },
    },
    spec: {
      type: 'object',
      required: ['image'],
      'x-kubernetes-validations': [
        {
          rule:
            // Without minReplicas, spec.replicas is the autoscaler's minimum (kubectl scale moves it).
            '!has(self.workload) || !has(self.workload.autoscaling) || ' +
            'has(self.workload.autoscaling.minReplicas) || ((has(self.replicas) ? self.replicas : 1) >= ' +
            '1 && (has(self.replicas) ? self.replicas : 1) <= self.workload.autoscaling.maxReplicas)',
          message:
            "with autoscaling and no minReplicas, spec.replicas is the autoscaler's minimum: it must be " +
            'from 1 to maxReplicas',
          fieldPath: '.replicas',
        },
        {
          rule: '!has(self.rollout) || has(self.workload)',
          message: 'rollout needs spec.workload (a canary is a second Deployment)',
          fieldPath: '.rollout',
        },
        {
          // With a rollout, the autoscaler scales the WebService (spec.replicas, through /scale), so
          // spec.replicas cannot also be its minimum.
          rule:
            '!has(self.rollout) || !has(self.workload) || !has(self.workload.autoscaling) || ' +
            'has(self.workload.autoscaling.minReplicas)',
          message:
            'with rollout, autoscaling needs minReplicas: the autoscaler sets spec.replicas, the total of the ' +
            'stable and the canary pods',
          fieldPath: '.workload.autoscaling',
        },
        {
          // spec.expose sends a host's traffic to the workload's Service: without a port there is none.
          rule: '!has(self.expose) || (has(self.workload) && has(self.workload.port))',
          message: 'expose needs spec.workload.port (its Service is what an Ingress or an HTTPRoute sends to)',
          fieldPath: '.expose',
        },
      ],
      properties: {
        image: {
          type: 'string',
          description:
            'Container image reference, e.g. nginx:1.27 or registry.example.com/team/app@sha256:…. Only ' +
            'image-reference characters are allowed: no whitespace, control characters or shell ' +
            'metacharacters.',
          minLength: 1,
          maxLength: 255,
          pattern: '^[A-Za-z0-9][A-Za-z0-9._/:@-]*$',
        },
        replicas: {
          type: 'integer',
          format: 'int32',
          default: 1,
          minimum: 0,
          maximum: 1000,
        },
        tier: {
          type: 'string',
          default: 'dev',
          maxLength: 63,
          pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
        },
        dependsOn: {
          type: 'array',
          description: 'Names of WebServices in the same namespace that must be Ready first.',
          maxItems: 32,
          'x-kubernetes-list-type': 'set',
          items: {
            type: 'string',
            maxLength: 253,
            pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
          },
        },
        expose: {
          type: 'object',
          description:
            "A public endpoint for the workload's Service, named after the WebService: an Ingress " +
            '(networking.k8s.io/v1), or with a gateway an HTTPRoute (gateway.networking.k8s.io/v1) ' +
            "attached to that Gateway. Needs spec.workload.port. The WebService's Exposed condition " +
            'says whether an ingress controller or a Gateway has taken it up.',
          required: ['host'],
          'x-kubernetes-validations': [
            {
              rule: '!(has(self.ingressClassName) && has(self.gateway))',
              message: 'ingressClassName and gateway exclude each other (an Ingress or an HTTPRoute)',
            },
            {
              rule: '!has(self.additionalHosts) || !(self.host in self.additionalHosts)',
              message: 'additionalHosts repeats host',
              fieldPath: '.additionalHosts',
            },
            {
              rule: '!(has(self.tls) && has(self.gateway))',
              message:
                "tls cannot go with a gateway: an HTTPRoute has no TLS, the Gateway's listener terminates " + 'it',
              fieldPath: '.tls',
            },
          ],
          properties: {
            host: {
              type: 'string',
              description: 'The DNS name the endpoint answers to, e.g. shop.example.com.',
              maxLength: 253,
              pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
            },
            additionalHosts: {
              type: 'array',
              description:
                'More DNS names the endpoint answers to, beside host (which status.url reports): each gets a ' +
                "rule of the Ingress, and with tls the certificate's hosts list them; an HTTPRoute's hostnames.",
              maxItems: 16,
              'x-kubernetes-list-type': 'set',
              items: {
                type: 'string',
                maxLength: 253,
                pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
              },
            },
            annotations: {
              type: 'object',
              description:
                'Annotations of the Ingress or the HTTPRoute (an issuer of cert-manager, an ingress ' +
                "controller's settings). Only these are the WebService's: removed from the spec, they go, " +
                'and annotations that others set stay.',
              additionalProperties: { type: 'string', maxLength: 4096 },
            },
            path: {
              type: 'string',
              description: 'The path prefix routed to the Service; unset, /.',
              maxLength: 1024,
              pattern: '^/',
            },
            tls: {
              type: 'object',
              description:
                'Ingress only: HTTPS on the host, with the certificate of this kubernetes.io/tls Secret in ' +
                "the WebService's namespace.",
              required: ['secretName'],
              properties: {
                secretName: {
                  type: 'string',
                  minLength: 1,
                  maxLength: 253,
                },
              },
            },
            ingressClassName: {
              type: 'string',
              description:
                "The Ingress' class (which ingress controller serves it); unset, the cluster's default " +
                'IngressClass. Unset with no gateway too: an Ingress is the default exposure.',
              minLength: 1,
              maxLength: 253,
            },
            gateway: {
              type: 'object',
              description:
                'Expose through this Gateway with an HTTPRoute instead of an Ingress (where the Gateway ' +
                "API's CRDs are installed). TLS is the Gateway listener's.",
              required: ['name'],
              properties: {
                name: {
                  type: 'string',
                  minLength: 1,
                  maxLength: 253,
                },
                namespace: {
                  type: 'string',
                  description: "The Gateway's namespace; unset, the WebService's.",
                  minLength: 1,
                  maxLength: 63,
                },
              },
            },
          },
        },
        rollout: {
          type: 'object',
          description:
            "How a new revision of the pods reaches users. Unset: the Deployment's own rolling update. " +
            'With canary: a second Deployment, <name>-canary, runs the new revision beside the stable pods ' +
            'and takes a growing share of the traffic, step by step, and the rollout aborts by itself when ' +
            'its pods cannot be made or are not ready in time. Needs spec.workload.',
          required: ['canary'],
          properties: {
            canary: {
              type: 'object',
              required: ['steps'],
              'x-kubernetes-validations': [
                { rule: 'size(self.steps) > 0', message: 'a canary needs at least one step', fieldPath: '.steps' },
                {
                  rule: 'self.steps.filter(s, has(s.weight)).map(s, s.weight).isSorted()',
                  message: "the steps' weights may not go down",
                  fieldPath: '.steps',
                },
              ],
              properties: {
                steps: {
                  type: 'array',
                  description:
                    'In order: a weight sends that share of the traffic (percent) to the canary once its pods ' +
                    'are ready; a pause waits, for a duration or, without one, until kubectl webservice promote.',
                  maxItems: 32,
                  'x-kubernetes-list-type': 'atomic',
                  items: {
                    type: 'object',
                    'x-kubernetes-validations': [
                      { rule: 'has(self.weight) != has(self.pause)', message: 'a step is either a weight or a pause' },
                    ],
                    properties: {
                      weight: {
                        type: 'integer',
                        format: 'int32',
                        minimum: 0,
                        maximum: 100,
                        description: "The canary's share of the traffic, in percent.",
                      },
                      pause: {
                        type: 'object',
                        description: 'Wait: for the duration, or without one until kubectl webservice promote.',
                        properties: {
                          duration: {
                            type: 'string',
                            description: 'How long, e.g. 30s, 5m, 1h30m.',
                            maxLength: 32,
                            pattern: '^([0-9]+(s|m|h))+$',
                          },
                        },
                      },
                    },
                  },
                },
                check: {
                  type: 'object',
                  description:
                    'A query against the Prometheus-compatible API that the controller is configured with ' +
                    "(--prometheus-url, the chart's canary.prometheusURL; never an address of the " +
                    "WebService's), evaluated at the end of each pause and before the promotion, once traffic " +
                    'has reached the canary: a result outside min or max aborts the canary. The result must be ' +
                    'one number: a scalar, or a vector of one sample.',
                  required: ['query'],
                  'x-kubernetes-validations': [
                    { rule: 'has(self.min) || has(self.max)', message: 'a check needs a min, a max or both' },
                  ],
                  properties: {
                    query: {
                      type: 'string',
                      description: "PromQL, e.g. the canary's share of 5xx responses over the last minute.",
                      minLength: 1,
                      maxLength: 4096,
                    },
                    min: { type: 'number', description: 'The check fails below this.' },
                    max: { type: 'number', description: 'The check fails above this.' },
                  },
                },
                maxRestarts: {
                  type: 'integer',
                  format: 'int32',
                  minimum: 0,
                  description:
                    "The most restarts of the canary's containers, in any one of its pods, before the rollout " +
                    'aborts; unset, 3.',
                },
                readyDeadlineSeconds: {
                  type: 'integer',
                  format: 'int32',
                  minimum: 1,
                  description:
                    "How long a step may wait for the canary's pods to be ready before the rollout aborts; " +
                    'unset, 600.',
                },
              },
            },
          },
        },
        workload: {
          type: 'object',
          description:
            'Run the image as a Deployment named after the WebService; with a port, also a ClusterIP ' +
            'Service of the same name.',
          'x-kubernetes-validations': [
            { rule: PORTS_APART_FROM_HTTP, message: PORTS_APART_FROM_HTTP_MESSAGE, fieldPath: '.ports' },
            {
              rule:
                '!has(self.sidecars) || !has(self.initContainers) || ' +
                '!self.sidecars.exists(s, self.initContainers.exists(i, i.name == s.name))',
              message: "a sidecar and an init container have one name: the pod's initContainers hold both",
              fieldPath: '.initContainers',
            },
            {
              rule:
                '!has(self.volumeMounts) || self.volumeMounts.all(m, has(self.volumes) && ' +
                'self.volumes.exists(v, v.name == m.name))',
              message: 'a volume mount names a volume of spec.workload.volumes (files mount their own)',
              fieldPath: '.volumeMounts',
            },
            {
              rule:
                '!has(self.volumeMounts) || !has(self.files) || ' +
                '!self.volumeMounts.exists(m, self.files.exists(f, f.mountPath == m.mountPath))',
              message: 'a volume mount is at the mountPath of one of files: two mounts at one path',
              fieldPath: '.volumeMounts',
            },
            probePortByName('readinessProbe'),
            probePortByName('livenessProbe'),
            probePortByName('startupProbe'),
          ],
          properties: {
            port: {
              type: 'integer',
              format: 'int32',
              minimum: 1,
              maximum: 65535,
              description:
                'The container port, named http (probes may name it); with it, a ClusterIP Service on the ' +
                'same port, named http too, and on each of ports.',
            },
            ports: {
              type: 'array',
              description:
                'More ports of the container web, beside port (named http): each by its name, which a probe may ' +
                'name too. With port, the Service serves each of them as well, on the same number.',
              maxItems: 16,
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              'x-kubernetes-validations': [
                {
                  rule: 'self.all(p, self.exists_one(q, q.port == p.port && q.protocol == p.protocol))',
                  message: 'two ports have one number and protocol',
                },
              ],
              items: {
                type: 'object',
                required: ['name', 'port'],
                properties: {
                  name: {
                    type: 'string',
                    description:
                      "The port's name, as Kubernetes names ports (an IANA service name): at most 15 lowercase " +
                      "letters, digits and '-', a letter among them; not http, which is port's.",
                    minLength: 1,
                    maxLength: 15,
                    pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
                    'x-kubernetes-validations': [
                      { rule: "self != 'http'", message: 'http is the name of spec.workload.port: choose another' },
                      {
                        rule: "self.matches('[a-z]') && !self.contains('--')",
                        message: "a port's name has a letter, and no '--' (an IANA service name)",
                      },
                    ],
                  },
                  port: {
                    type: 'integer',
                    format: 'int32',
                    minimum: 1,
                    maximum: 65535,
                  },
                  protocol: {
                    type: 'string',
                    enum: ['TCP', 'UDP', 'SCTP'],
                    default: 'TCP',
                  },
                },
              },
            },
            progressDeadlineSeconds: {
              type: 'integer',
              format: 'int32',
              minimum: 1,
              maximum: 2147483647,
              description:
                "The Deployment's progressDeadlineSeconds: how long a rollout may make no progress before " +
                'it is reported Stalled (reason ProgressDeadlineExceeded). Unset, the Kubernetes default of ' +
                '600.',
            },
            podSecurity: {
              type: 'string',
              enum: ['baseline', 'restricted'],
              description:
                'restricted: the pod and its container get what the restricted Pod Security Standard ' +
                'requires (runAsNonRoot, no privilege escalation, every capability dropped, the ' +
                'RuntimeDefault seccomp profile), under whatever securityContext and podSecurityContext set ' +
                'themselves. Unset or baseline: nothing is added, so an image that runs today runs the ' +
                'same.',
            },
            files: {
              type: 'array',
              description: 'Keys of a ConfigMap or a Secret, mounted read-only as files at a path.',
              maxItems: 32,
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['mountPath'],
              items: {
                type: 'object',
                required: ['mountPath'],
                'x-kubernetes-validations': [
                  {
                    rule: 'has(self.configMap) != has(self.secret)',
                    message: 'a file mount names one configMap or one secret',
                  },
                ],
                properties: {
                  mountPath: {
                    type: 'string',
                    minLength: 1,
                    maxLength: 4096,
                    pattern: '^/',
                    description: 'An absolute path in the container, where the keys appear as files.',
                  },
                  configMap: {
                    type: 'string',
                    maxLength: 253,
                    description: 'The ConfigMap whose keys are mounted.',
                  },
                  secret: {
                    type: 'string',
                    maxLength: 253,
                    description: 'The Secret whose keys are mounted.',
                  },
                  optional: {
                    type: 'boolean',
                    description: 'Start the pod even if the ConfigMap or Secret (or a key of items) is missing.',
                  },
                  restartOnChange: {
                    type: 'boolean',
                    description:
                      "false: a change of the mounted keys' content does not roll the pods, for an app that " +
                      'reloads its files itself (the kubelet updates the files in place). Unset: it rolls them ' +
                      'once.',
                  },
                  items: {
                    type: 'array',
                    items: embeds(KEY_TO_PATH, undefined, 'object'),
                  },
                },
              },
            },
            terminationGracePeriodSeconds: {
              type: 'integer',
              format: 'int64',
              minimum: 0,
              description:
                "The pods' terminationGracePeriodSeconds: how long a pod has to stop, preStop hooks " +
                'included, from the moment it is told to until it is killed. Unset, the Kubernetes default ' +
                'of 30.',
            },
            volumes: {
              type: 'array',
              description:
                "Volumes of the pod beside those of files: an emptyDir, a persistentVolumeClaim by its claim's " +
                'name, or a projected volume. The container web mounts them by name with volumeMounts; a ' +
                "sidecar or an init container, with its own volumeMounts. A projected volume's ConfigMaps and " +
                'Secrets are read as they are: a change of them rolls no pod (files does that).',
              maxItems: MAX_VOLUMES,
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: {
                type: 'object',
                required: ['name'],
                'x-kubernetes-validations': [
                  {
                    rule:
                      '(has(self.emptyDir) ? 1 : 0) + (has(self.persistentVolumeClaim) ? 1 : 0) + ' +
                      '(has(self.projected) ? 1 : 0) == 1',
                    message: 'a volume is one of emptyDir, persistentVolumeClaim or projected',
                  },
                ],
                properties: {
                  name: {
                    type: 'string',
                    description: 'The name that mounts it: a DNS label, not starting with files-.',
                    maxLength: 63,
                    pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
                    'x-kubernetes-validations': [
                      {
                        rule: "!self.startsWith('files-')",
                        message: 'files-… are the names of the volumes of spec.workload.files: choose another',
                      },
                    ],
                  },
                  emptyDir: embeds(VOLUME, 'emptyDir', 'object'),
                  persistentVolumeClaim: embeds(VOLUME, 'persistentVolumeClaim', 'object'),
                  projected: embeds(VOLUME, 'projected', 'object'),
                },
              },
            },
            sidecars: containerList(
              "Containers that run beside web for the pod's whole life (a proxy, a log shipper): Kubernetes' " +
                'native sidecars, which the pod holds as init containers with restartPolicy Always. They start ' +
                'first, in this order, each once the one before it has started (its startupProbe passed), then ' +
                'the init containers, then web; they stop after web. A sidecar may have probes and lifecycle.',
              {
                rule: "self.all(c, !has(c.restartPolicy) || c.restartPolicy == 'Always')",
                message:
                  "a sidecar's restartPolicy is Always (one that runs to completion is an init container, in " +
                  'initContainers)',
              },
            ),
            initContainers: containerList(
              'Containers that run to completion, one after the other in this order, before web starts (a ' +
                'migration, say): after the sidecars have started, so that they can use them.',
              {
                rule:
                  'self.all(c, !has(c.lifecycle) && !has(c.livenessProbe) && !has(c.readinessProbe) && ' +
                  '!has(c.startupProbe))',
                message:
                  'an init container runs to completion: it has no probes and no lifecycle (a sidecar, in ' +
                  'sidecars, has)',
              },
              {
                rule: 'self.all(c, !has(c.restartPolicy))',
                message:
                  "an init container's restartPolicy is the pod's: one with restartPolicy Always is a sidecar, in " +
                  'sidecars',
              },
            ),
            restartOnConfigChange: {
              type: 'boolean',
              description:
                'false: a change of the content of a Secret or ConfigMap that the pods read (env valueFrom, ' +
                'envFrom, files) does not roll them; they see it at their next rollout. Unset: each change ' +
                'of content rolls them once (a change of labels or annotations does not).',
            },
            snapshotSecrets: {
              type: 'boolean',
              description:
                'true: each Secret whose change rolls the pods is copied, as each such ConfigMap is, into ' +
                "an immutable snapshot that its revision's pods read, so that a rollback brings back its " +
                'old value. Unset: the pods read the Secret itself (a snapshot is one more copy of its ' +
                'value).',
            },
            revisionHistoryLimit: {
              type: 'integer',
              format: 'int32',
              minimum: 1,
              maximum: 100,
              description:
                'How many revisions (ControllerRevisions, with the config snapshots they name) are kept for ' +
                'history and rollback, the current one included. Unset: 10.',
            },
            podLabels: {
              type: 'object',
              description:
                "Labels for the pods (a team label, say); not the WebService's own, which it sets on them: " +
                "the recommended ones (the selector's among them) and the tier's.",
              additionalProperties: {
                type: 'string',
              },
              // The same list as OWN_POD_LABELS (pod.ts): a clash was dropped silently before.
              'x-kubernetes-validations': [
                {
                  rule:
                    "!('app.kubernetes.io/managed-by' in self) && !('app.kubernetes.io/name' in self) && " +
                    "!('app.kubernetes.io/instance' in self) && !('webservice.labhub.io/tier' in self)",
                  message:
                    'app.kubernetes.io/managed-by, app.kubernetes.io/name, app.kubernetes.io/instance and ' +
                    "webservice.labhub.io/tier are the WebService's own labels on its pods (the recommended " +
                    "ones and the tier's): choose another key",
                },
              ],
            },
            podAnnotations: {
              type: 'object',
              description: "Annotations for the pods (a service mesh's injection annotation, say).",
              additionalProperties: {
                type: 'string',
              },
            },
            networkPolicy: {
              type: 'object',
              description:
                'A NetworkPolicy named after the WebService: only its own pods, and the peers listed in from ' +
                "(the namespaces or pods where an ingress controller's or a Gateway's proxies run), may reach " +
                "the pods' ports. Off when unset: a policy that forgets a client cuts it off.",
              properties: {
                from: embeds(NETWORK_POLICY_INGRESS_RULE, 'from', 'objects'),
              },
            },
            disruption: {
              type: 'object',
              description:
                'A PodDisruptionBudget named after the WebService, over its pods: how many a voluntary ' +
                'disruption (a node drain, an eviction) may take at once. Set one of maxUnavailable or ' +
                'minAvailable, a count of pods or a percentage ("25%"). Unset: no budget.',
              'x-kubernetes-validations': [
                {
                  rule: 'has(self.maxUnavailable) != has(self.minAvailable)',
                  message: 'a disruption budget sets one of maxUnavailable or minAvailable',
                },
              ],
              properties: {
                maxUnavailable: {
                  'x-kubernetes-int-or-string': true,
                  description: 'At most this many of the pods (or this share of them) unavailable at once.',
                  'x-kubernetes-validations': [
                    {
                      rule: "type(self) == int ? self >= 0 : self.matches('^[0-9]+%$')",
                      message: 'must be a count of pods (0 or more) or a percentage such as 25%',
                    },
                  ],
                },
                minAvailable: {
                  'x-kubernetes-int-or-string': true,
                  description: 'At least this many of the pods (or this share of them) available at all times.',
                  'x-kubernetes-validations': [
                    {
                      rule: "type(self) == int ? self >= 0 : self.matches('^[0-9]+%$')",
                      message: 'must be a count of pods (0 or more) or a percentage such as 25%',
                    },
                  ],
                },
              },
            },
            autoscaling: {
              type: 'object',
              description:
                'A HorizontalPodAutoscaler named after the WebService, aimed at its Deployment: it owns the ' +
                "Deployment's replica count, from minReplicas to maxReplicas. Without minReplicas, " +
                'spec.replicas is the minimum. Unset: no autoscaler, and spec.replicas is the count.',
              required: ['maxReplicas'],
              'x-kubernetes-validations': [
                {
                  rule: '!has(self.minReplicas) || self.minReplicas <= self.maxReplicas',
                  message: 'minReplicas must not exceed maxReplicas',
                  fieldPath: '.minReplicas',
                },
                {
                  // Two spellings of the autoscaler's metrics: which one wins would be a guess.
                  rule: '!has(self.targetCPUUtilizationPercentage) || !has(self.metrics)',
                  message:
                    'targetCPUUtilizationPercentage and metrics exclude each other: with metrics, write the ' +
                    'CPU target as one of them (type Resource, resource name cpu)',
                  fieldPath: '.metrics',
                },
              ],
              properties: {
                minReplicas: {
                  type: 'integer',
                  format: 'int32',
                  minimum: 1,
                  description: 'The fewest pods the autoscaler keeps; unset, spec.replicas.',
                },
                maxReplicas: {
                  type: 'integer',
                  format: 'int32',
                  minimum: 1,
                  description: 'The most pods the autoscaler makes.',
                },
                targetCPUUtilizationPercentage: {
                  type: 'integer',
                  format: 'int32',
                  minimum: 1,
                  description:
                    "The pods' average CPU use, as a percentage of their CPU request, that the autoscaler aims " +
                    "at; unset, the API server's default (80).",
                },
                // Kubernetes' own (autoscaling/v2), expanded by `npm run crd:generate`.
                metrics: { ...embeds(HPA_SPEC, 'metrics', 'objects'), maxItems: 16 },
                behavior: embeds(HPA_SPEC, 'behavior', 'object'),
              },
            },
            // The fields below are Kubernetes' own types: `npm run crd:generate` expands each from the API
            // server's OpenAPI; a test checks them against a live server.
            command: embeds(CONTAINER, 'command', 'strings'),
            args: embeds(CONTAINER, 'args', 'strings'),
            env: embeds(CONTAINER, 'env', 'objects'),
            envFrom: embeds(CONTAINER, 'envFrom', 'objects'),
            resources: embeds(CONTAINER, 'resources', 'object'),
            readinessProbe: embeds(CONTAINER, 'readinessProbe', 'object'),
            livenessProbe: embeds(CONTAINER, 'livenessProbe', 'object'),
            startupProbe: embeds(CONTAINER, 'startupProbe', 'object'),
            securityContext: embeds(CONTAINER, 'securityContext', 'object'),
            podSecurityContext: embeds(POD_SPEC, 'securityContext', 'object'),
            serviceAccountName: embeds(POD_SPEC, 'serviceAccountName', 'string'),
            imagePullSecrets: embeds(POD_SPEC, 'imagePullSecrets', 'objects'),
            strategy: embeds(DEPLOYMENT_SPEC, 'strategy', 'object'),
            // Placement: where the scheduler may put the pods.
            nodeSelector: embeds(POD_SPEC, 'nodeSelector', 'object'),
            tolerations: embeds(POD_SPEC, 'tolerations', 'objects'),
            affinity: embeds(POD_SPEC, 'affinity', 'object'),
            topologySpreadConstraints: embeds(POD_SPEC, 'topologySpreadConstraints', 'objects'),
            priorityClassName: embeds(POD_SPEC, 'priorityClassName', 'string'),
            defaultSpread: {
              type: 'boolean',
              description:
                'false: no default spread. Unset or true: with more than one replica (spec.replicas, or ' +
                "autoscaling's maxReplicas), no topologySpreadConstraints or affinity and no " +
                'persistentVolumeClaim volume, the pods are spread over hosts and zones, ScheduleAnyway.',
            },
            // The volumes of spec.workload.volumes, mounted in web; the CRD's rules read them (see MAX_VOLUMES).
            volumeMounts: { ...embeds(CONTAINER, 'volumeMounts', 'objects'), maxItems: MAX_VOLUMES },
            // Shutdown: the main container's hooks.
            lifecycle: embeds(CONTAINER, 'lifecycle', 'object'),
          },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        replicas: {
          type: 'integer',
          format: 'int32',
        },
        selector: {
          type: 'string',
          description: "With spec.workload, the label selector of the Deployment's pods.",
        },
        ready: {
          type: 'string',
          description: 'With spec.workload, ready/desired pods, e.g. 2/3.',
        },
        url: {
          type: 'string',
          description:
            'With spec.expose, the address users reach: https with an Ingress with tls, else http (a ' +
            "Gateway's listeners are not read), on host, with the path when it is not /.",
        },
        currentRevision: {
          type: 'integer',
          format: 'int64',
          description: 'With spec.workload, the revision that every pod runs (the last rollout that completed).',
        },
        updateRevision: {
          type: 'integer',
          format: 'int64',
          description: 'With spec.workload, the revision that the pods are rolled out to.',
        },
        rollout: {
          type: 'object',
          description: 'With spec.rollout, while a canary runs: where it stands.',
          properties: {
            revision: { type: 'string', description: "The canary's revision (a ControllerRevision's name)." },
            stableRevision: { type: 'string', description: "The stable pods' revision." },
            step: {
              type: 'integer',
              format: 'int32',
              description: 'The step under way (from 0); the number of steps once all are done.',
            },
            stepStartedAt: {
              type: 'string',
              format: 'date-time',
              description: 'When the step began: a pause counts from it.',
            },
            weight: { type: 'integer', format: 'int32', description: "The canary's share of the traffic, in percent." },
            stableReplicas: { type: 'integer', format: 'int32', description: 'The stable pods wanted now.' },
            canaryReplicas: { type: 'integer', format: 'int32', description: "The canary's pods wanted now." },
            pauseEndsAt: {
              type: 'string',
              format: 'date-time',
              description: 'In a pause with a duration: when it ends.',
            },
            phase: {
              type: 'string',
              enum: ['Progressing', 'Paused', 'Promoting', 'Completed', 'Aborted'],
              description:
                'Progressing: a weight step waits for the canary; Paused: a pause; Promoting: the stable ' +
                "pods roll to the canary's revision; Completed; Aborted: all traffic is back on stable.",
            },
            message: { type: 'string', description: 'What the rollout waits for, or why it aborted.' },
          },
        },
        observedGeneration: {
          type: 'integer',
          format: 'int64',
        },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: {
            type: 'object',
            required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
            properties: {
              type: {
                type: 'string',
                maxLength: 316,
                pattern:
                  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
              },
              status: {
                type: 'string',
                enum: ['True', 'False', 'Unknown'],
              },
              observedGeneration: {
                type: 'integer',
                format: 'int64',
                minimum: 0,
              },
              lastTransitionTime: {
                type: 'string',
                format: 'date-time',
              },
              reason: {
                type: 'string',
                minLength: 1,
                maxLength: 1024,
                pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
              },
              message: {
                type: 'string',
                maxLength: 32768,
              },
            },
          },
        },
      },
    },
  },
};

/** Where an embedded Kubernetes type is: as a WebService's path (`spec.workload.files[].items[]`), and in the schema. */
export interface EmbeddedField {
  at: string;
  schemaPath: string[];
  marker: Embedded;
}

/** Every embedded Kubernetes type in the schema, in the schema's order. */
export function embeddedFields(
  node: SchemaNode | Embedded = WEB_SERVICE_SCHEMA,
  at = '',
  schemaPath: string[] = [],
): EmbeddedField[] {
  if (isEmbedded(node)) return [{ at, schemaPath, marker: node }];
  const found: EmbeddedField[] = [];
  for (const [key, field] of Object.entries(node.properties ?? {})) {
    found.push(...embeddedFields(field, at ? `${at}.${key}` : key, [...schemaPath, 'properties', key]));
  }
  if (node.items) found.push(...embeddedFields(node.items, `${at}[]`, [...schemaPath, 'items']));
  return found;
}

/** The schema of one of our own objects, by its path from the root: ownSchema('spec', 'workload'). */
export function ownSchema(...path: string[]): SchemaNode {
  let node = WEB_SERVICE_SCHEMA;
  for (const key of path) {
    const next = node.properties?.[key];
    if (!next || isEmbedded(next)) throw new Error(`the schema has no own object at ${path.join('.')}`);
    node = next;
  }
  return node;
}

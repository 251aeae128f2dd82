// A workload with every pod field set, in the spellings the server rewrites (0.5 CPU, a probe
// period of 0): the unit tests build from it, the plane's tests run it, and the bench runs a
// thousand of it. The names it refers to (Secret db, ConfigMap features, ServiceAccount shop)
// are the objects of POD_FIELD_OBJECTS, so that its pods can be made. Pure data: no I/O here.
import type { WorkloadSpec } from '../src/core/model';

export const EVERY_POD_FIELD = {
  port: 8080,
  ports: [{ name: 'metrics', port: 9090 }],
  progressDeadlineSeconds: 120,
  command: ['/app/server'],
  args: ['--listen', ':8080'],
  env: [
    { name: 'LOG_LEVEL', value: 'debug' },
    { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
    { name: 'FEATURES', valueFrom: { configMapKeyRef: { name: 'features', key: 'list', optional: true } } },
    { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  ],
  envFrom: [{ secretRef: { name: 'db' } }, { configMapRef: { name: 'features' }, prefix: 'F_' }],
  resources: { requests: { cpu: '0.5', memory: '1.5Gi' }, limits: { cpu: 1, memory: '2Gi' } },
  readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
  // 0 is how the server spells its default period: it stores 10.
  livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 0 },
  startupProbe: { exec: { command: ['true'] }, failureThreshold: 30 },
  securityContext: { readOnlyRootFilesystem: true },
  podSecurityContext: { fsGroup: 2000 },
  podSecurity: 'restricted',
  serviceAccountName: 'shop',
  imagePullSecrets: [{ name: 'registry' }],
  strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
  files: [{ mountPath: '/etc/shop', configMap: 'features', items: [{ key: 'list', path: 'features.txt' }] }],
  volumes: [
    { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
    {
      name: 'identity',
      projected: {
        sources: [
          { serviceAccountToken: { path: 'token', audience: 'vault' } },
          { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        ],
      },
    },
  ],
  volumeMounts: [
    { name: 'cache', mountPath: '/cache' },
    { name: 'identity', mountPath: '/var/run/identity', readOnly: true },
  ],
  sidecars: [
    {
      name: 'proxy',
      image: 'envoyproxy/envoy:v1.31',
      ports: [{ containerPort: 9901 }],
      startupProbe: { tcpSocket: { port: 9901 } },
      volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
    },
  ],
  initContainers: [{ name: 'migrate', image: 'nginx:1.27', command: ['/bin/true'] }],
  podLabels: { team: 'payments' },
  podAnnotations: { 'sidecar.istio.io/inject': 'true' },
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }],
      },
    },
  },
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: 'kubernetes.io/hostname',
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: { team: 'payments' } },
    },
  ],
  terminationGracePeriodSeconds: 45,
  lifecycle: { preStop: { sleep: { seconds: 5 } } },
} satisfies WorkloadSpec;

/**
 * A PriorityClass for the pods that name one (priorityClassName): cluster-wide, so applied
 * once per cluster, not created per namespace; EVERY_POD_FIELD leaves it out for that reason.
 */
export const POD_FIELD_PRIORITY_CLASS = {
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name: 'webservice-pod-fields' },
  value: 1000,
};

/** What EVERY_POD_FIELD refers to, to create in its namespace first. */
export const POD_FIELD_OBJECTS = [
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { password: 's3cret' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'features' }, data: { list: 'a,b' } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'shop' } },
];

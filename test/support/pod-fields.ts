// A workload with every pod field set, in the spellings the server rewrites (0.5 CPU, a probe
// period of 0): the unit tests build from it, and the plane's tests run it. The names it
// refers to (Secret db, ConfigMap features, ServiceAccount shop) are what podFieldsPrerequisites
// creates, so its pods can be made.
import type { WorkloadSpec } from '../../src/core/model';
import { kubectl } from './cluster';

export const EVERY_POD_FIELD = {
  port: 8080,
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
  podLabels: { team: 'payments' },
  podAnnotations: { 'sidecar.istio.io/inject': 'true' },
} satisfies WorkloadSpec;

/** What EVERY_POD_FIELD refers to, in a namespace. */
export function podFieldsPrerequisites(ns: string): void {
  kubectl(['create', 'secret', 'generic', 'db', '-n', ns, '--from-literal=password=s3cret']);
  kubectl(['create', 'configmap', 'features', '-n', ns, '--from-literal=list=a,b']);
  kubectl(['create', 'serviceaccount', 'shop', '-n', ns]);
}

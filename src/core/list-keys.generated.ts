// Made by npm run crd:generate from the API server's OpenAPI (harness/crd/list-keys.ts): do not edit.
// Each kind we write, its lists the server merges by key, by place: the key fields and their defaults.
export const KEYED_LISTS = {
  'v1 ConfigMap': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
  },
  'v1 Secret': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
  },
  'apps/v1 ControllerRevision': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
  },
  'apps/v1 Deployment': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
    'spec.template.metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
    'spec.template.spec.containers': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.containers[].env': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.containers[].ports': { keys: ['containerPort', 'protocol'], defaults: { containerPort: 0, protocol: 'TCP' } },
    'spec.template.spec.containers[].resources.claims': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.containers[].volumeDevices': { keys: ['devicePath'], defaults: { devicePath: '' } },
    'spec.template.spec.containers[].volumeMounts': { keys: ['mountPath'], defaults: { mountPath: '' } },
    'spec.template.spec.ephemeralContainers': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.ephemeralContainers[].env': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.ephemeralContainers[].ports': { keys: ['containerPort', 'protocol'], defaults: { containerPort: 0, protocol: 'TCP' } },
    'spec.template.spec.ephemeralContainers[].resources.claims': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.ephemeralContainers[].volumeDevices': { keys: ['devicePath'], defaults: { devicePath: '' } },
    'spec.template.spec.ephemeralContainers[].volumeMounts': { keys: ['mountPath'], defaults: { mountPath: '' } },
    'spec.template.spec.hostAliases': { keys: ['ip'], defaults: { ip: '' } },
    'spec.template.spec.imagePullSecrets': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.initContainers': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.initContainers[].env': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.initContainers[].ports': { keys: ['containerPort', 'protocol'], defaults: { containerPort: 0, protocol: 'TCP' } },
    'spec.template.spec.initContainers[].resources.claims': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.initContainers[].volumeDevices': { keys: ['devicePath'], defaults: { devicePath: '' } },
    'spec.template.spec.initContainers[].volumeMounts': { keys: ['mountPath'], defaults: { mountPath: '' } },
    'spec.template.spec.resourceClaims': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.resources.claims': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.schedulingGates': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.topologySpreadConstraints': { keys: ['topologyKey', 'whenUnsatisfiable'], defaults: { topologyKey: '', whenUnsatisfiable: '' } },
    'spec.template.spec.volumes': { keys: ['name'], defaults: { name: '' } },
    'spec.template.spec.volumes[].ephemeral.volumeClaimTemplate.metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
  },
  'v1 Service': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
    'spec.ports': { keys: ['port', 'protocol'], defaults: { port: 0, protocol: 'TCP' } },
  },
  'policy/v1 PodDisruptionBudget': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
  },
  'autoscaling/v2 HorizontalPodAutoscaler': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
  },
  'networking.k8s.io/v1 NetworkPolicy': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
  },
  'networking.k8s.io/v1 Ingress': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
  },
  'gateway.networking.k8s.io/v1 HTTPRoute': {
    'metadata.ownerReferences': { keys: ['uid'], defaults: { uid: '' } },
    'spec.rules[].backendRefs[].filters[].requestHeaderModifier.add': { keys: ['name'] },
    'spec.rules[].backendRefs[].filters[].requestHeaderModifier.set': { keys: ['name'] },
    'spec.rules[].backendRefs[].filters[].responseHeaderModifier.add': { keys: ['name'] },
    'spec.rules[].backendRefs[].filters[].responseHeaderModifier.set': { keys: ['name'] },
    'spec.rules[].filters[].requestHeaderModifier.add': { keys: ['name'] },
    'spec.rules[].filters[].requestHeaderModifier.set': { keys: ['name'] },
    'spec.rules[].filters[].responseHeaderModifier.add': { keys: ['name'] },
    'spec.rules[].filters[].responseHeaderModifier.set': { keys: ['name'] },
    'spec.rules[].matches[].headers': { keys: ['name'] },
    'spec.rules[].matches[].queryParams': { keys: ['name'] },
  },
};

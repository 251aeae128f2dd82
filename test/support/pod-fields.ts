// The objects that EVERY_POD_FIELD refers to, created in a test's namespace.
import { kubectl } from './cluster';
import { POD_FIELD_OBJECTS, POD_FIELD_PRIORITY_CLASS } from '../../harness/every-pod-field';

export { EVERY_POD_FIELD } from '../../harness/every-pod-field';
/** The PriorityClass that priorityClassName may name, once it is applied (podPriorityClass). */
export const POD_PRIORITY_CLASS = POD_FIELD_PRIORITY_CLASS.metadata.name;

/** The cluster's PriorityClass for the pod fields' pods: applied, so that every caller may. */
export function podPriorityClass(): void {
  kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(POD_FIELD_PRIORITY_CLASS));
}

/** What EVERY_POD_FIELD refers to, in a namespace; the cluster's PriorityClass; claim data, bound. */
export function podFieldsPrerequisites(ns: string): void {
  podPriorityClass();
  boundClaim(ns, 'data');
  kubectl(
    ['create', '-n', ns, '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: POD_FIELD_OBJECTS }),
  );
}

/**
 * A PersistentVolumeClaim that is bound already, to a PersistentVolume made for it (named
 * after the namespace and the claim): the plane runs no volume binder, and the scheduler
 * places a pod that mounts a claim only once the claim is bound.
 */
export function boundClaim(ns: string, name: string): void {
  const volume = `${ns}-${name}`;
  const size = { storage: '1Gi' };
  const objects = [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: volume },
      spec: {
        capacity: size,
        accessModes: ['ReadWriteMany'],
        hostPath: { path: `/tmp/${volume}` },
        claimRef: { namespace: ns, name },
        storageClassName: '',
      },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: ns, annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: size }, volumeName: volume, storageClassName: '' },
    },
  ];
  kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
}

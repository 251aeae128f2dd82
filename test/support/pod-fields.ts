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

/** What EVERY_POD_FIELD refers to, in a namespace, and the cluster's PriorityClass. */
export function podFieldsPrerequisites(ns: string): void {
  podPriorityClass();
  kubectl(
    ['create', '-n', ns, '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: POD_FIELD_OBJECTS }),
  );
}

// The objects that EVERY_POD_FIELD refers to, created in a test's namespace.
import { kubectl } from './cluster';
import { POD_FIELD_OBJECTS } from '../../harness/every-pod-field';

export { EVERY_POD_FIELD } from '../../harness/every-pod-field';

/** What EVERY_POD_FIELD refers to, in a namespace. */
export function podFieldsPrerequisites(ns: string): void {
  kubectl(
    ['create', '-n', ns, '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: POD_FIELD_OBJECTS }),
  );
}

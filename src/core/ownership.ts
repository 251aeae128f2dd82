// What makes a child ours, for every kind: our labels and a controller ownerReference to the
// WebService. Pure.
import {
  API_VERSION,
  INSTANCE_LABEL,
  KIND,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  NAME_LABEL,
  OwnerReference,
  instanceLabelValue,
} from './model';

/**
 * The lab's ConfigMap's labels, as they have always been (the lab's contract): the workload's
 * children carry the app's own name instead (labels.ts).
 */
export function desiredLabels(parentName: string): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
    [NAME_LABEL]: 'webservice',
    [INSTANCE_LABEL]: instanceLabelValue(parentName),
  };
}

export function desiredOwnerReference(parent: { name: string; uid: string }): OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: parent.name,
    uid: parent.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function sameOwnerReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    (a.controller ?? false) === (b.controller ?? false) &&
    (a.blockOwnerDeletion ?? false) === (b.blockOwnerDeletion ?? false)
  );
}

export function describeRef(ref: OwnerReference): string {
  return `${ref.kind}/${ref.name} uid=${ref.uid} controller=${ref.controller ?? false} blockOwnerDeletion=${ref.blockOwnerDeletion ?? false}`;
}

/** Why a child on our name is someone else's: what it lacks. */
export function conflictReason(
  parent: { name: string; uid: string },
  target: string,
  child: { controlledByParent: boolean; managedByUs: boolean },
): string {
  const missing: string[] = [];
  if (!child.controlledByParent)
    missing.push(`no controller ownerReference to webservice/${parent.name} (uid ${parent.uid})`);
  if (!child.managedByUs) missing.push(`no label ${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`);
  return `${target} exists but is not ours (${missing.join(', ')}); it is left untouched`;
}

/** The ownerReference of the WebService that controls an object (its controller reference), if any. */
export function controllerOf(object: { metadata: { ownerReferences?: OwnerReference[] } }): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((ref) => ref.controller === true && ref.kind === KIND);
}

/** Whether the WebService of this uid is the child's controller (its controller ownerReference). */
export function isControlledBy(
  child: { metadata: { ownerReferences?: OwnerReference[] } },
  parentUid: string,
): boolean {
  return parentUid !== '' && controllerOf(child)?.uid === parentUid;
}

/** Whether a child is ours: our label, and this WebService its controller. */
export function isOurs(
  child: { metadata: { labels?: Record<string, string>; ownerReferences?: OwnerReference[] } },
  parentUid: string,
): boolean {
  return child.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE && isControlledBy(child, parentUid);
}

/**
 * The ownerReferences an object keeps once the WebService of this uid lets it go, as
 * `kubectl delete --cascade=orphan` leaves it: every reference but that one, in order.
 */
export function ownerReferencesWithout(
  object: { metadata: { ownerReferences?: OwnerReference[] } },
  parentUid: string,
): OwnerReference[] {
  return (object.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== parentUid);
}

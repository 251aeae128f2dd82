// The labels of a WebService's workload, as Kubernetes recommends them
// (https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/): the app's
// own name as app.kubernetes.io/name and /instance, and ours as /managed-by. Pure.
//
// The pods' selector is the Deployment's, which cannot change once it is made. A Deployment made
// before these labels selects its pods by app.kubernetes.io/name=webservice (the legacy
// selector): it keeps that selector, and its pods keep that label; everything else moves. The
// Service, the PodDisruptionBudget and status.selector always select as the Deployment does.
import {
  Deployment,
  INSTANCE_LABEL,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  NAME_LABEL,
  instanceLabelValue,
} from './model';

/** What every Deployment selected its pods by before the recommended labels: the same name for every app. */
const LEGACY_NAME = 'webservice';

/** The labels of a workload child (the Deployment, the Service…) and of its pods. */
export function appLabels(parentName: string): Record<string, string> {
  const value = instanceLabelValue(parentName);
  return { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [NAME_LABEL]: value, [INSTANCE_LABEL]: value };
}

/** The pods' selector: the app's name and instance; for a Deployment that has it, the legacy one. */
export function podSelector(parentName: string, legacy: boolean): Record<string, string> {
  const value = instanceLabelValue(parentName);
  return { [NAME_LABEL]: legacy ? LEGACY_NAME : value, [INSTANCE_LABEL]: value };
}

/** The pods' selector as a label query (status.selector): app.kubernetes.io/name=shop,app.kubernetes.io/instance=shop. */
export function podSelectorString(parentName: string, desired: { legacySelector?: true }): string {
  return Object.entries(podSelector(parentName, desired.legacySelector === true))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** Whether the Deployment on the WebService's name selects its pods by the legacy selector, which it must keep. */
export function hasLegacySelector(parentName: string, deployment: Deployment | null | undefined): boolean {
  const selector = deployment?.spec?.selector;
  if (!selector?.matchLabels || (selector.matchExpressions ?? []).length > 0) return false;
  const legacy = podSelector(parentName, true);
  const keys = Object.keys(selector.matchLabels);
  return keys.length === Object.keys(legacy).length && keys.every((key) => selector.matchLabels?.[key] === legacy[key]);
}

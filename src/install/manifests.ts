// The manifests `install` ships, bundled into the plugin as text: the CRD, the reconciler's
// least-privilege ClusterRole (--rbac) and the controller's namespace, RBAC, leader fence
// network policy, disruption budget and Deployment (--controller). Each object is stamped with the plugin's version, so a CRD
// tells which plugin installed it, and a newer plugin re-applies everything it ships.
import * as yaml from 'js-yaml';
import crdText from '../../crds/webservices.apps.labhub.io.yaml';
import reconcilerRbacText from '../../crds/rbac/webservice-reconciler.yaml';
import namespaceText from '../../deploy/00-namespace.yaml';
import controllerRbacText from '../../deploy/10-rbac.yaml';
import leaderFenceText from '../../deploy/15-leader-fence.yaml';
import networkPolicyText from '../../deploy/17-network-policy.yaml';
import disruptionBudgetText from '../../deploy/18-disruption-budget.yaml';
import deploymentText from '../../deploy/20-deployment.yaml';
import { RESOURCE } from '../core/model';
import type { KubeObject } from '../kube/client';
import { PLUGIN_VERSION } from '../version';

export const VERSION_LABEL = 'webservice.labhub.io/version';
export const CRD_NAME = RESOURCE;

export interface ManifestSelection {
  /** The reconciler ClusterRole (crds/rbac/). */
  rbac?: boolean;
  /** The controller: deploy/ (namespace, RBAC, leader fence, network policy, disruption budget, Deployment). */
  controller?: boolean;
}

/** The objects to install, in the order to apply them: the CRD first, a namespace before what lives in it. */
export function bundledManifests(selection: ManifestSelection = {}, version = PLUGIN_VERSION): KubeObject[] {
  const texts = [crdText];
  if (selection.rbac) texts.push(reconcilerRbacText);
  if (selection.controller) {
    texts.push(
      namespaceText,
      controllerRbacText,
      leaderFenceText,
      networkPolicyText,
      disruptionBudgetText,
      deploymentText,
    );
  }
  return texts.flatMap(parseDocuments).map((object) => stamped(object, version));
}

/** Everything install can make, whatever the flags: what uninstall looks for. */
export function allBundledManifests(version = PLUGIN_VERSION): KubeObject[] {
  return bundledManifests({ rbac: true, controller: true }, version);
}

export function isCrd(object: KubeObject): boolean {
  return object.kind === 'CustomResourceDefinition' && object.metadata.name === CRD_NAME;
}

/** The version a live object was installed at: its label, if any. */
export function installedVersion(object: KubeObject): string | undefined {
  return object.metadata.labels?.[VERSION_LABEL];
}

/** kubectl's name for an object: customresourcedefinition.apiextensions.k8s.io/webservices.apps.labhub.io. */
export function displayName(object: KubeObject): string {
  const group = object.apiVersion.includes('/') ? `.${object.apiVersion.split('/')[0]}` : '';
  return `${object.kind.toLowerCase()}${group}/${object.metadata.name}`;
}

function parseDocuments(text: string): KubeObject[] {
  return (yaml.loadAll(text) as (KubeObject | null | undefined)[]).filter(
    (doc): doc is KubeObject => doc !== null && doc !== undefined,
  );
}

function stamped(object: KubeObject, version: string): KubeObject {
  return {
    ...object,
    metadata: { ...object.metadata, labels: { ...object.metadata.labels, [VERSION_LABEL]: version } },
  };
}

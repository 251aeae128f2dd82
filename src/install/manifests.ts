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
import { PLUGIN_VERSION } from '../core/version';
import type { KubeObject } from '../kube/object-location';
import { UserError } from '../kube/errors';

export const VERSION_LABEL = 'webservice.labhub.io/version';
export const CRD_NAME = RESOURCE;

export interface ManifestSelection {
  /** The reconciler ClusterRole (crds/rbac/). */
  rbac?: boolean;
  /** The controller: deploy/ (namespace, RBAC, leader fence, network policy, disruption budget, Deployment). */
  controller?: boolean;
  /** The controller's image, in place of deploy/'s placeholder. */
  image?: string;
}

/** The controller's Deployment and container, as deploy/20-deployment.yaml names them. */
const CONTROLLER = { namespace: 'webservice-system', name: 'webservice-controller', container: 'controller' };

/** What the CRD allows in a WebService's spec.image: image-reference characters only. */
const IMAGE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/;
const IMAGE_MAX_LENGTH = 255;

/** Refuses an --image that is not an image reference, in one line. */
export function checkImage(image: string, flag = '--image'): string {
  if (image.length > IMAGE_MAX_LENGTH || !IMAGE_PATTERN.test(image)) {
    throw new UserError(
      `${flag} must be an image reference such as registry.example.com/webservice-controller:v1.2.3 ` +
        `(at most ${IMAGE_MAX_LENGTH} characters of letters, digits and ._/:@-), got "${image}"`,
    );
  }
  return image;
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
  const objects = texts.flatMap(parseDocuments).map((object) => stamped(object, version));
  const { image } = selection;
  return image === undefined ? objects : objects.map((object) => withImage(object, image));
}

/** The image the bundled controller Deployment runs: deploy/'s placeholder, unless --image says otherwise. */
export function controllerImage(objects: KubeObject[]): string | undefined {
  const deployment = objects.find(isControllerDeployment);
  return deployment && controllerContainer(deployment)?.image;
}

/**
 * Whether an image is deploy/'s placeholder, at any tag (the chart tags it with its own
 * version): a repository no registry serves.
 */
export function isPlaceholderImage(image: string): boolean {
  const placeholder = controllerImage(bundledManifests({ controller: true }));
  return placeholder !== undefined && imageRepository(image) === imageRepository(placeholder);
}

/** An image reference without its tag or digest: registry.example.com:5000/team/app. */
function imageRepository(image: string): string {
  const name = image.split('@')[0];
  const tagAt = name.lastIndexOf(':');
  return tagAt > name.lastIndexOf('/') ? name.slice(0, tagAt) : name;
}

function isControllerDeployment(object: KubeObject): boolean {
  return (
    object.kind === 'Deployment' &&
    object.metadata.namespace === CONTROLLER.namespace &&
    object.metadata.name === CONTROLLER.name
  );
}

type PodTemplated = KubeObject & {
  spec?: { template?: { spec?: { containers?: { name: string; image?: string }[] } } };
};

function controllerContainer(deployment: KubeObject): { name: string; image?: string } | undefined {
  return (deployment as PodTemplated).spec?.template?.spec?.containers?.find((c) => c.name === CONTROLLER.container);
}

/** The controller's Deployment with its container's image replaced; every other object as it is. */
function withImage(object: KubeObject, image: string): KubeObject {
  if (!isControllerDeployment(object)) return object;
  const copy = structuredClone(object);
  const container = controllerContainer(copy);
  if (!container) throw new Error(`deploy/20-deployment.yaml has no container ${CONTROLLER.container}`);
  container.image = image;
  return copy;
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

// What the tests of the Helm chart and of the kustomize base share: the objects
// `kubectl webservice install --controller -o yaml` prints, the one source both must render,
// and a comparison of two renderings object for object, field for field.
import * as yaml from 'js-yaml';
import { plugin, run, type RunResult } from './cluster';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: any;
}

export const objectKey = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** kubectl's name for an object (`-o name`): namespace/x, customresourcedefinition.apiextensions.k8s.io/y. */
export const displayName = (o: KubeObject) =>
  `${o.kind.toLowerCase()}${o.apiVersion.includes('/') ? `.${o.apiVersion.split('/')[0]}` : ''}/${o.metadata.name}`;

export const parseManifests = (text: string) =>
  (yaml.loadAll(text) as (KubeObject | null)[]).filter((o): o is KubeObject => !!o);

/** Objects in one order, as plain JSON: what two renderings are compared by. */
export const canonical = (objects: KubeObject[]) =>
  objects
    .map((o) => JSON.parse(JSON.stringify(o)) as KubeObject)
    .sort((a, b) => objectKey(a).localeCompare(objectKey(b)));

/** What `install --controller -o yaml` prints, read without a cluster. */
export function installManifests(): KubeObject[] {
  const result = plugin(['install', '--controller', '-o', 'yaml'], { env: { KUBECONFIG: '/nonexistent' } });
  if (result.status !== 0) throw new Error(`install --controller -o yaml failed: ${result.stderr}`);
  return parseManifests(result.stdout);
}

/** kubectl, its result whatever the exit code. */
export function kubectlResult(args: string[], input?: string): RunResult {
  return run('kubectl', args, { input });
}

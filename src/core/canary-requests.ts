// The names a canary goes by (its children, its pods' track label) and what kubectl webservice
// promote and abort write on the WebService: an annotation that names the canary's revision (and
// the step), so that a request outlives no canary and is never carried out twice. Pure.
import type { RolloutRequests } from './observation';

/** On a WebService with spec.rollout: which of its pods are the stable ones and which the canary. */
export const TRACK_LABEL = 'webservice.labhub.io/track';
export type Track = 'stable' | 'canary';

/** Written by promote: `<revision>/<step>` takes that step's wait away; `<revision>/full` skips the rest. */
export const PROMOTE_ANNOTATION = 'webservice.labhub.io/promote';
/** Written by abort: the revision whose canary to abort. */
export const ABORT_ANNOTATION = 'webservice.labhub.io/abort';
/** On the canary Deployment: the revision its pods run. */
export const CANARY_REVISION_ANNOTATION = 'webservice.labhub.io/revision';
export const FULL_PROMOTION = 'full';

/** The canary's Deployment and Service: `<name>-canary`; the stable pods' Service: `<name>-stable`. */
export function trackName(parentName: string, track: Track): string {
  return `${parentName}-${track}`;
}

/** The row ids of the children a canary adds (kinds.ts), beside the Deployment and Service of their kind. */
export const CANARY_DEPLOYMENT_ID = 'CanaryDeployment';

export function rolloutRequestsOf(annotations: Record<string, string> | undefined): RolloutRequests | null {
  const promote = annotations?.[PROMOTE_ANNOTATION];
  const abort = annotations?.[ABORT_ANNOTATION];
  if (promote === undefined && abort === undefined) return null;
  return { ...(promote !== undefined ? { promote } : {}), ...(abort !== undefined ? { abort } : {}) };
}

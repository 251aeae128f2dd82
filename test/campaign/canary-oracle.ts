// The campaign's oracle of running canaries, sampled after each step (world.ts): traffic
// reaches a canary only while its pods are ready, and the stable pods never change while one
// runs. The oracles at quiescence (oracles.ts) see no canary running: they check the rest.
import { CANARY_REVISION_ANNOTATION } from '../../src/core/canary-requests';
import { getJson, sleep } from '../support/cluster';

type Json = Record<string, any>;
/** The phases of a canary whose stable pods are held on their revision (Promoting: until its weight is 100). */
const holding = (rollout: Json | undefined): boolean =>
  rollout !== undefined &&
  (rollout.phase === 'Progressing' ||
    rollout.phase === 'Paused' ||
    (rollout.phase === 'Promoting' && rollout.weight < 100));

/**
 * A running canary, sampled between steps: traffic reaches the canary only while its pods are
 * ready (the weight the status claims is above 0 only with a ready canary pod), and the stable
 * pods never change (the stable Deployment's pod template is the one it had when the canary
 * started; `held` remembers it, by WebService uid and canary revision, and a tamper with the
 * Deployment forgets it). Between a write of the children and the status' write a sample may
 * see one without the other: a violation counts only when a second sample a moment later
 * shows it too (canaryViolationsConfirmed).
 */
function canaryViolations(ns: string, held: Map<string, string>): string[] {
  const items = getJson<{ items: Json[] }>(['get', 'webservices,deployments', '-n', ns, '-o', 'json']).items;
  const deployment = (name: string) => items.find((i) => i.kind === 'Deployment' && i.metadata.name === name);
  const violations: string[] = [];
  for (const ws of items.filter((i) => i.kind === 'WebService' && !i.metadata.deletionTimestamp)) {
    const rollout = ws.status?.rollout as Json | undefined;
    if (!holding(rollout)) continue;
    const name = ws.metadata.name as string;
    const canary = deployment(`${name}-canary`);
    const current = canary?.metadata.annotations?.[CANARY_REVISION_ANNOTATION] === rollout!.revision;
    if (rollout!.weight > 0 && (rollout!.canaryReplicas ?? 0) > 0 && (ws.spec.replicas ?? 1) > 0) {
      if (!current || (canary!.status?.readyReplicas ?? 0) === 0)
        violations.push(`webservice/${name}: ${rollout!.weight}% of the traffic to a canary with no ready pod`);
    }
    const stable = deployment(name);
    if (!stable) continue;
    const key = `${ws.metadata.uid}/${rollout!.revision}`;
    const template = JSON.stringify(stable.spec.template);
    const before = held.get(key);
    if (before === undefined) held.set(key, template);
    else if (before !== template)
      violations.push(`webservice/${name}: the stable pods' template changed during canary ${rollout!.revision}`);
  }
  return violations;
}

/** canaryViolations, counted only when a second sample, a moment later, shows the same. */
export async function canaryViolationsConfirmed(ns: string, held: Map<string, string>): Promise<string[]> {
  const first = canaryViolations(ns, held);
  if (first.length === 0) return [];
  await sleep(2000);
  const again = canaryViolations(ns, held);
  return first.filter((violation) => again.includes(violation));
}

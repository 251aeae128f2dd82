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
 * Running canaries, sampled between steps: traffic reaches the canary only while its pods are
 * ready (the weight the status claims is above 0 only with a ready canary pod), and the stable
 * pods never change (the stable Deployment's pod template is the one it had when the canary
 * started). The record is per WebService (uid), for one canary (its stable and canary
 * revisions: a revision's name is a hash of its template, so a later canary may bear an
 * earlier one's name): a sample where another canary runs, or none, replaces or drops it, and
 * a tamper with the Deployment forgets them all. Between a write of the children and the
 * status' write a sample may see one without the other: a violation counts only when a second
 * sample a moment later shows it too (confirmed).
 */
export class CanarySamples {
  private readonly held = new Map<string, { canary: string; template: string }>();
  /** How many samples compared a stable template with its record. */
  compared = 0;

  /** A tamper with a stable Deployment changes its template by someone else's hand. */
  forget(): void {
    this.held.clear();
  }

  async confirmed(ns: string): Promise<string[]> {
    const first = this.violations(ns);
    if (first.length === 0) return [];
    await sleep(2000);
    const again = this.violations(ns);
    return first.filter((violation) => again.includes(violation));
  }

  private violations(ns: string): string[] {
    const items = getJson<{ items: Json[] }>(['get', 'webservices,deployments', '-n', ns, '-o', 'json']).items;
    const deployment = (name: string) => items.find((i) => i.kind === 'Deployment' && i.metadata.name === name);
    const violations: string[] = [];
    for (const ws of items.filter((i) => i.kind === 'WebService' && !i.metadata.deletionTimestamp)) {
      const uid = ws.metadata.uid as string;
      const rollout = ws.status?.rollout as Json | undefined;
      if (!holding(rollout)) {
        this.held.delete(uid);
        continue;
      }
      const name = ws.metadata.name as string;
      const canary = deployment(`${name}-canary`);
      const current = canary?.metadata.annotations?.[CANARY_REVISION_ANNOTATION] === rollout!.revision;
      if (rollout!.weight > 0 && (rollout!.canaryReplicas ?? 0) > 0 && (ws.spec.replicas ?? 1) > 0) {
        if (!current || (canary!.status?.readyReplicas ?? 0) === 0)
          violations.push(`webservice/${name}: ${rollout!.weight}% of the traffic to a canary with no ready pod`);
      }
      const stable = deployment(name);
      if (!stable) continue;
      const running = `${rollout!.stableRevision} -> ${rollout!.revision}`;
      const template = JSON.stringify(stable.spec.template);
      const record = this.held.get(uid);
      if (record?.canary !== running) {
        this.held.set(uid, { canary: running, template });
        continue;
      }
      this.compared++;
      if (record.template !== template)
        violations.push(`webservice/${name}: the stable pods' template changed during canary ${running}`);
    }
    return violations;
  }
}

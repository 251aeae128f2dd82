// The app's own labels and environment, in the core: the workload's children and pods carry
// Kubernetes' recommended labels with the app's name, the pods read no variable of ours, the
// ports are named, and a Deployment made before all this keeps its selector and converges in
// one write of one pod template.
import { Decision, decide } from '../../src/core/decide';
import { DEPLOYMENT } from '../../src/core/kinds';
import { hasLegacySelector } from '../../src/core/labels';
import { Deployment, SyncInput, WebService } from '../../src/core/model';
import { observe } from '../../src/core/observe';
import { computeStatus } from '../../src/core/status';
import { decideFixture } from '../support/decide-fixtures';
import { afterWrites } from '../support/writes';

type Json = Record<string, any>;

const decisionOf = (input: SyncInput) => decide(observe(input));

/** The object a decision applies for a kind (the last apply, after any handover). */
function applied(decision: Decision, kind: string): Json {
  const ops = decision.ops.filter((op) => op.op === 'applyChild' && op.kind === kind);
  const last = ops.at(-1);
  if (last?.op !== 'applyChild') throw new Error(`no ${kind} applied: ${decision.reason}`);
  return last.object;
}

function withSpec(input: SyncInput, spec: Partial<WebService['spec']>): SyncInput {
  return { ...input, parent: { ...input.parent, spec: { ...input.parent.spec, ...spec } } };
}

const NEW_SELECTOR = { 'app.kubernetes.io/name': 'checkout', 'app.kubernetes.io/instance': 'checkout' };
const LEGACY_SELECTOR = { 'app.kubernetes.io/name': 'webservice', 'app.kubernetes.io/instance': 'checkout' };
const RECOMMENDED = { 'app.kubernetes.io/managed-by': 'webservice-controller', ...NEW_SELECTOR };

describe("the app's pod template", () => {
  const created = decideFixture('create-workload');
  const template = (input: SyncInput) => applied(decisionOf(input), 'Deployment').spec.template;

  it('gives the app no variable of ours: no envFrom of the lab ConfigMap, no hash of it', () => {
    const { metadata, spec } = template(created);
    expect(spec.containers[0]).not.toHaveProperty('envFrom');
    expect(metadata).not.toHaveProperty('annotations');
    const envFrom = [{ secretRef: { name: 'db' } }];
    const own = template(withSpec(created, { workload: { port: 8080, envFrom } }));
    expect(own.spec.containers[0].envFrom).toEqual(envFrom);
  });

  it('changes with the image and the tier, and not with the replica count', () => {
    const base = template(created);
    expect(template(withSpec(created, { replicas: 7 }))).toEqual(base);
    expect(template(withSpec(created, { tier: 'prod' })).metadata.labels['webservice.labhub.io/tier']).toBe('prod');
    expect(template(withSpec(created, { image: 'nginx:1.28' })).spec.containers[0].image).toBe('nginx:1.28');
  });

  it('names the port http, on the container and on the Service, which targets its number', () => {
    const decision = decisionOf(created);
    expect(applied(decision, 'Deployment').spec.template.spec.containers[0].ports).toEqual([
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
    ]);
    expect(applied(decision, 'Service').spec.ports).toEqual([
      { name: 'http', port: 8080, targetPort: 8080, protocol: 'TCP' },
    ]);
  });
});

describe('the recommended labels, with the app name', () => {
  const input = withSpec(decideFixture('create-workload'), {
    workload: { port: 8080, disruption: { maxUnavailable: 1 }, podLabels: { team: 'payments' } },
  });
  const decision = decisionOf(input);

  it('on every workload child, and on the pods; the pods are selected by name and instance', () => {
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget']) {
      expect({ kind, labels: applied(decision, kind).metadata.labels }).toEqual({ kind, labels: RECOMMENDED });
    }
    const deployment = applied(decision, 'Deployment');
    expect(deployment.spec.selector).toEqual({ matchLabels: NEW_SELECTOR });
    expect(deployment.spec.template.metadata.labels).toEqual({
      team: 'payments',
      ...RECOMMENDED,
      'webservice.labhub.io/tier': 'dev',
    });
    expect(applied(decision, 'Service').spec.selector).toEqual(NEW_SELECTOR);
    expect(applied(decision, 'PodDisruptionBudget').spec.selector).toEqual({ matchLabels: NEW_SELECTOR });
    const obs = observe(input);
    expect(computeStatus(obs, decision, { kind: 'applied' }, '2026-12-02T09:00:00Z').status?.selector).toBe(
      'app.kubernetes.io/name=checkout,app.kubernetes.io/instance=checkout',
    );
  });

  it("leave the lab's ConfigMap as it was", () => {
    const op = decision.ops.find((o) => o.op === 'createChild');
    expect(op?.op === 'createChild' && op.object.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'webservice-controller',
      'app.kubernetes.io/name': 'webservice',
      'app.kubernetes.io/instance': 'checkout',
    });
  });

  it('shorten a long name as the instance label does', () => {
    const name = `shop-${'x'.repeat(70)}`;
    const long = { ...input, parent: { ...input.parent, metadata: { ...input.parent.metadata, name } } };
    const labels = applied(decisionOf(long), 'Deployment').spec.selector.matchLabels;
    expect(labels['app.kubernetes.io/name']).toHaveLength(63);
    expect(labels['app.kubernetes.io/name']).toBe(labels['app.kubernetes.io/instance']);
  });
});

describe('a Deployment made before the recommended labels', () => {
  const before = decideFixture('update-workload-upgrade');
  const decision = decisionOf(before);

  it('keeps its selector, and the Service and status select as it does', () => {
    expect(observe(before).desired.legacySelector).toBe(true);
    const deployment = applied(decision, 'Deployment');
    expect(deployment.spec.selector).toEqual({ matchLabels: LEGACY_SELECTOR });
    expect(deployment.spec.template.metadata.labels).toMatchObject(LEGACY_SELECTOR);
    expect(deployment.metadata.labels).toEqual(RECOMMENDED);
    expect(applied(decision, 'Service').spec.selector).toEqual(LEGACY_SELECTOR);
    const status = computeStatus(observe(before), decision, { kind: 'applied' }, '2026-12-02T09:00:00Z').status;
    expect(status?.selector).toBe('app.kubernetes.io/name=webservice,app.kubernetes.io/instance=checkout');
  });

  it('takes one write of the Deployment (one pod template) and one of the Service, then none', () => {
    // With the first revision, which a WebService made before revisions has none of.
    expect(decision.ops.map((op) => `${op.op} ${'kind' in op ? op.kind : 'ConfigMap'}`)).toEqual([
      'createChild ControllerRevision',
      'applyChild Deployment',
      'applyChild Service',
    ]);
    const container = applied(decision, 'Deployment').spec.template.spec.containers[0];
    expect(container).not.toHaveProperty('envFrom');
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(decisionOf(afterWrites(before, decision))).toMatchObject({ action: 'noop', ops: [] });
  });

  it('is told by its exact selector: other selectors are not the legacy one', () => {
    const deployment = (selector: Json): Deployment => ({ metadata: { name: 'checkout' }, spec: { selector } });
    expect(hasLegacySelector('checkout', deployment({ matchLabels: LEGACY_SELECTOR }))).toBe(true);
    expect(hasLegacySelector('checkout', deployment({ matchLabels: NEW_SELECTOR }))).toBe(false);
    expect(hasLegacySelector('checkout', deployment({ matchLabels: { ...LEGACY_SELECTOR, team: 'x' } }))).toBe(false);
    expect(
      hasLegacySelector(
        'checkout',
        deployment({ matchLabels: LEGACY_SELECTOR, matchExpressions: [{ key: 'a', operator: 'Exists' }] }),
      ),
    ).toBe(false);
    expect(hasLegacySelector('other', deployment({ matchLabels: LEGACY_SELECTOR }))).toBe(false);
    expect(hasLegacySelector('checkout', null)).toBe(false);
  });

  it('and once it is gone, the one made again selects by the app name', () => {
    const gone = { ...before, children: before.children.filter((c) => c.kind !== DEPLOYMENT.kind) };
    expect(observe(gone).desired.legacySelector).toBeUndefined();
    expect(applied(decisionOf(gone), 'Deployment').spec.selector).toEqual({ matchLabels: NEW_SELECTOR });
  });
});

// Bad input on the real apiserver: each case expects a clear one-line error (or a
// documented refusal) and no side effect at all, proved by the audit log (no mutating
// request that succeeded) and by the resourceVersions of everything in the namespace.
import { spawnSync } from 'node:child_process';
import { instanceLabelValue } from '../../src/core/model';
import {
  AuditEvent,
  AuditWindow,
  MUTATING,
  applyYaml,
  createNamespace,
  deleteNamespace,
  eventually,
  getJson,
  kubectl,
  plugin,
  sleep,
  tryGetJson,
  webService,
} from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';

let ns: string;
let audit: AuditWindow;
beforeAll(() => {
  ns = createNamespace('badinput');
  audit = new AuditWindow(ns);
  // A bystander whose resourceVersion must never move while bad input is refused.
  applyYaml(ns, webService('bystander', { image: 'nginx:1.27' }));
  expect(plugin(['apply', 'bystander', '-n', ns]).status).toBe(0);
});
afterAll(() => deleteNamespace(ns));

/** name -> resourceVersion of every WebService and ConfigMap in the namespace. */
function snapshot(): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const kind of ['webservices', 'configmaps']) {
    for (const item of getJson(['get', kind, '-n', ns]).items as { metadata: { name: string; resourceVersion: string } }[]) {
      versions[`${kind}/${item.metadata.name}`] = item.metadata.resourceVersion;
    }
  }
  return versions;
}

const succeeded = (e: AuditEvent) => MUTATING.has(e.verb) && (e.responseStatus?.code ?? 0) < 400;
const describeEvent = (e: AuditEvent) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name ?? ''} ${e.responseStatus?.code}`;

/**
 * Runs `action` and asserts it changed nothing: no mutating request in the namespace
 * succeeded, and every object there kept its resourceVersion.
 */
async function expectNoSideEffects<T>(action: () => T): Promise<T> {
  const before = snapshot();
  audit.mark();
  const result = action();
  expect((await audit.events()).filter(succeeded).map(describeEvent)).toEqual([]);
  expect(snapshot()).toEqual(before);
  return result;
}

/** kubectl apply of one WebService from stdin, without throwing on a refusal. */
function kubectlApply(object: unknown) {
  const result = spawnSync('kubectl', ['apply', '-n', ns, '-f', '-'], { input: JSON.stringify(object), encoding: 'utf8' });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

const manifest = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apps.labhub.io/v1',
  kind: 'WebService',
  metadata: { name },
  spec,
});

/** A valid object name of exactly `length` characters. */
const nameOf = (length: number) => `n${length}-${'x'.repeat(length - `n${length}-`.length)}`;

describe('name length: every name the CRD accepts reconciles; longer names are refused at admission', () => {
  it.each([63, 64, 245])('a %i-character name reconciles, converges, and a second pass writes nothing', async (length) => {
    const name = nameOf(length);
    expect(name).toHaveLength(length);
    applyYaml(ns, webService(name, { image: 'nginx:1.27' }));
    const first = plugin(['apply', name, '-n', ns, '-o', 'json']);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const cm = getJson(['get', 'configmap', `${name}-desired`, '-n', ns]);
    expect(cm.metadata.labels['app.kubernetes.io/instance']).toBe(instanceLabelValue(name));
    expect(cm.metadata.labels['app.kubernetes.io/instance'].length).toBeLessThanOrEqual(63);
    expect(getJson(['get', 'webservice', name, '-n', ns]).status.conditions[0]).toMatchObject({ status: 'True' });

    const second = await expectNoSideEffects(() => plugin(['apply', name, '-n', ns, '-o', 'json']));
    expect(second.status).toBe(0);
    expect(JSON.parse(second.stdout).decision.action).toBe('noop');
  });

  it('names up to 63 keep the name as the instance label; 64 gets a shortened one', () => {
    expect(instanceLabelValue(nameOf(63))).toBe(nameOf(63));
    expect(instanceLabelValue(nameOf(64))).not.toBe(nameOf(64));
  });

  it.each([246, 253])('a %i-character name is refused at admission, saying why, and nothing is written', async (length) => {
    const name = nameOf(length);
    const result = await expectNoSideEffects(() => kubectlApply(manifest(name, { image: 'nginx:1.27' })));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(
      'metadata.name may have at most 245 characters, so that the child ConfigMap <name>-desired fits in the 253 allowed for object names',
    );
    expect(tryGetJson(['get', 'webservice', name, '-n', ns])).toBeNull();
  });
});

describe('dependency cycles: Ready=False DependencyCycle naming the cycle, no child, no timer', () => {
  const readyOf = (name: string) =>
    (getJson(['get', 'webservice', name, '-n', ns]).status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
  const cycleEvents = (name: string) =>
    (getJson(['get', 'events', '-n', ns, '--field-selector', `involvedObject.name=${name}`]).items as { reason: string }[]).filter(
      (e) => e.reason === 'DependencyCycle',
    );

  it('a → b → a: apply --all --wait stops at once (exit 2) instead of waiting out its timeout', () => {
    applyYaml(ns, webService('cyc-a', { image: 'nginx:1.27', dependsOn: ['cyc-b'] }));
    applyYaml(ns, webService('cyc-b', { image: 'nginx:1.27', dependsOn: ['cyc-a'] }));
    const started = Date.now();
    const result = plugin(['apply', '--all', '--wait=60s', '-n', ns, '-o', 'json']);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.status).toBe(2);
    const items = JSON.parse(result.stdout).items as { name: string; action: string; reason: string; after_seconds?: number }[];
    const a = items.find((i) => i.name === 'cyc-a')!;
    expect(a).toMatchObject({ action: 'requeue' });
    expect(a.after_seconds).toBeUndefined();
    expect(a.reason).toContain('dependency cycle: cyc-a → cyc-b → cyc-a');
    expect(readyOf('cyc-a')).toMatchObject({ status: 'False', reason: 'DependencyCycle' });
    expect(readyOf('cyc-b').message).toContain('cyc-b → cyc-a → cyc-b');
    expect(tryGetJson(['get', 'configmap', 'cyc-a-desired', '-n', ns])).toBeNull();
    expect(cycleEvents('cyc-a')).toHaveLength(1);
  });

  it('a second pass over the cycle writes nothing and reports no second event', async () => {
    const result = await expectNoSideEffects(() => plugin(['apply', '--all', '-n', ns, '-o', 'json']));
    expect(result.status).toBe(2);
    expect(cycleEvents('cyc-a')).toHaveLength(1);
  });

  it('a cycle of 20, seen by plan NAME through one LIST once the dependency GETs would pass their bound', async () => {
    for (let i = 0; i < 20; i++) applyYaml(ns, webService(`ring-${i}`, { image: 'nginx:1.27', dependsOn: [`ring-${(i + 1) % 20}`] }));
    audit.mark();
    const result = plugin(['plan', 'ring-0', '-n', ns, '-o', 'json']);
    const requests = (await audit.events()).filter((e) => e.userAgent?.startsWith('kubectl-webservice/'));
    expect(requests.filter((e) => e.verb === 'list').map((e) => e.objectRef?.resource)).toEqual(['webservices']);
    expect(requests.filter((e) => e.verb === 'get' && e.objectRef?.resource === 'webservices').length).toBeLessThanOrEqual(17);
    expect(result.status).toBe(0);
    const decision = JSON.parse(result.stdout);
    expect(decision.cycle).toHaveLength(21);
    expect(decision.reason).toContain('ring-0 → ring-1 → ring-2');
    expect(decision.reason).toContain('ring-19 → ring-0');
  });

  it('a change to one member\'s spec resolves it', () => {
    kubectl(['patch', 'webservice', 'cyc-b', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/spec/dependsOn"}]']);
    expect(plugin(['apply', 'cyc-b', '-n', ns]).status).toBe(0);
    expect(plugin(['apply', 'cyc-a', '-n', ns]).status).toBe(0);
    expect(readyOf('cyc-a')).toMatchObject({ status: 'True', reason: 'Reconciled' });
  });
});

describe('dependency cycles under run: reported once, never on a timer, resolved by a spec change', () => {
  let loopNs: string;
  let kubeconfig: string;
  let ctl: ControllerProcess;
  const startController = async (requeueAfter: string) => {
    ctl = new ControllerProcess(['-n', loopNs, '--kubeconfig', kubeconfig, '--requeue-after', requeueAfter, '-v']);
    await ctl.waitForLog(/controller working/);
  };
  beforeAll(() => {
    loopNs = createNamespace('cycle-run');
    kubeconfig = controllerKubeconfig();
  });
  afterAll(async () => {
    await ctl?.stop();
    deleteNamespace(loopNs);
  });
  const ready = (name: string) =>
    (tryGetJson(['get', 'webservice', name, '-n', loopNs])?.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
  const reconcilesOf = (key: string) => ctl.entries.filter((e) => e.msg === 'reconciled' && e.key === key).length;

  it('a → b → c → a: each member says DependencyCycle, and none is reconciled again until something changes', async () => {
    // --requeue-after 1: were a cycle put on a timer, it would come back every second.
    await startController('1');
    applyYaml(loopNs, webService('x', { image: 'nginx:1.27', dependsOn: ['y'] }));
    applyYaml(loopNs, webService('y', { image: 'nginx:1.27', dependsOn: ['z'] }));
    applyYaml(loopNs, webService('z', { image: 'nginx:1.27', dependsOn: ['x'] }));
    await eventually(() => ['x', 'y', 'z'].every((n) => ready(n)?.reason === 'DependencyCycle'));
    expect(ready('x').message).toContain('x → y → z → x');
    await sleep(1500); // let the status writes' own watch events settle
    const before = reconcilesOf(`${loopNs}/x`);
    await sleep(5000);
    expect(reconcilesOf(`${loopNs}/x`)).toBe(before);
  });

  it('removing one edge converges the whole former loop within seconds, though the timer would not fire for 600 s', async () => {
    await ctl.stop();
    await startController('600');
    await sleep(1000);
    kubectl(['patch', 'webservice', 'z', '-n', loopNs, '--type=json', '-p', '[{"op":"remove","path":"/spec/dependsOn"}]']);
    await eventually(() => ['x', 'y', 'z'].every((n) => ready(n)?.status === 'True'), 20_000);
  });
});

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
  getJson,
  plugin,
  tryGetJson,
  webService,
} from '../support/cluster';

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

// --dry-run in every spelling kubectl users type, on every command that can write: a client
// dry run sends no write at all, a server dry run sends each write with dryRun=All. Both are
// counted in the audit log, and the objects keep their resourceVersions.
import {
  AuditWindow,
  AuditEvent,
  MUTATING,
  applyYaml,
  fromPlugin,
  getJson,
  kubectl,
  plugin,
  tryGetJson,
  useNamespace,
  webService,
} from '../support/cluster';
import { FINALIZER } from '../../src/core/model';

const ns = useNamespace('dry-run');
const audit = new AuditWindow(ns);
beforeAll(() => {
  for (const name of ['one', 'two']) applyYaml(ns(), webService(name, { image: 'nginx:1.27' }));
});

const rvs = () =>
  getJson(['get', 'webservices,configmaps', '-n', ns()])
    .items.map((o: any) => `${o.kind}/${o.metadata.name}@${o.metadata.resourceVersion}`)
    .sort();
const pluginWrites = async () => (await audit.mutating()).filter(fromPlugin);
const persisted = (events: AuditEvent[]) => events.filter((e) => !/[?&]dryRun=All(&|$)/.test(e.requestURI ?? ''));

describe.each([
  ['--dry-run', 'client'],
  ['--dry-run=client', 'client'],
  ['--dry-run=true', 'client'],
  ['--dry-run=server', 'server'],
])('apply --all %s', (flag, mode) => {
  it(`persists nothing (${mode}), and says what apply would do`, async () => {
    const before = rvs();
    audit.mark();
    const result = plugin(['apply', '--all', flag, '-n', ns(), '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const items = JSON.parse(result.stdout).items as { name: string; action: string }[];
    expect(items.map((i) => `${i.name} ${i.action}`).sort()).toEqual(['one create', 'two create']);
    const writes = await pluginWrites();
    expect(persisted(writes)).toEqual([]);
    if (mode === 'client') expect(writes).toEqual([]);
    // A server dry run sends what apply would send: the child creates and the status patches, no Event.
    else expect(writes.map((e) => `${e.verb} ${e.objectRef?.resource}`)).toContain('create configmaps');
    expect(rvs()).toEqual(before);
    expect(tryGetJson(['get', 'configmap', 'one-desired', '-n', ns()])).toBeNull();
  });
});

it('a bare --dry-run before NAME takes no value: the NAME stays the NAME', async () => {
  audit.mark();
  const result = plugin(['apply', '--dry-run', 'one', '-n', ns(), '-o', 'json']);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ name: 'one', action: 'create' });
  expect(await pluginWrites()).toEqual([]);
});

it('--dry-run=server on one NAME prints the results as apply does, marked as a server dry run', async () => {
  const result = plugin(['apply', 'one', '--dry-run=server', '-n', ns()]);
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(/one\s+create\s.*created, status written \(server dry run\)/);
});

it.each(['--dry-run=maybe', '--dry-run=Server'])('refuses %s in one line, before any request', async (flag) => {
  audit.mark();
  const result = plugin(['apply', '--all', flag, '-n', ns()]);
  expect(result.status).toBe(1);
  expect(result.stderr).toBe(
    `error: invalid dry-run value (${flag.split('=')[1]}); must be "none", "server", or "client"\n`,
  );
  expect(await audit.pluginRequests()).toEqual([]);
});

describe('status', () => {
  beforeAll(() => {
    plugin(['apply', '--all', '-n', ns()]);
    // The status now differs from what it would compute: a missing child.
    kubectl(['delete', 'configmap', 'one-desired', '-n', ns()]);
  });

  it.each(['--dry-run=client', '--dry-run=server'])('%s computes the new status and persists nothing', async (flag) => {
    const before = rvs();
    audit.mark();
    const result = plugin(['status', 'one', flag, '-n', ns(), '-o', 'json']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ changed: true });
    expect(JSON.parse(result.stdout).status.conditions[0]).toMatchObject({ reason: 'ChildMissing' });
    const writes = await pluginWrites();
    expect(persisted(writes)).toEqual([]);
    expect(writes.map((e) => `${e.verb} ${e.objectRef?.subresource ?? ''}`)).toEqual(
      flag.endsWith('server') ? ['patch status'] : [],
    );
    expect(rvs()).toEqual(before);
  });
});

describe('finalize', () => {
  beforeAll(() => {
    applyYaml(ns(), webService('gone', { image: 'nginx:1.27' }, { finalizers: [FINALIZER] }));
    plugin(['apply', 'gone', '-n', ns()]);
    kubectl(['delete', 'webservice', 'gone', '-n', ns(), '--wait=false']);
  });

  it.each(['--dry-run=client', '--dry-run=server'])(
    '%s says what it would clean, and the deletion still waits for a real finalize',
    async (flag) => {
      const before = rvs();
      audit.mark();
      const result = plugin(['finalize', 'gone', flag, '-n', ns(), '-o', 'json']);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ cleaned: ['configmap/gone-desired'], finalizerRemoved: true });
      expect(persisted(await pluginWrites())).toEqual([]);
      expect(rvs()).toEqual(before);
      expect(getJson(['get', 'webservice', 'gone', '-n', ns()]).metadata.finalizers).toEqual([FINALIZER]);
    },
  );

  afterAll(() => {
    plugin(['finalize', 'gone', '-n', ns()]);
  });
});

describe('install and uninstall', () => {
  it('install --dry-run=client reads and compares, and sends no write', async () => {
    audit.mark();
    const result = plugin(['install', '--rbac', '--dry-run=client']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/customresourcedefinition\.apiextensions\.k8s\.io\/webservices\.apps\.labhub\.io /);
    const requests = await audit.pluginRequests();
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((e) => MUTATING.has(e.verb))).toEqual([]);
  });

  it('uninstall --dry-run=client refuses while WebServices exist, and with --force deletes nothing', async () => {
    audit.mark();
    const refused = plugin(['uninstall', '--dry-run=client']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*WebService.* exist/);
    const forced = plugin(['uninstall', '--force', '--dry-run=client']);
    expect(forced.status).toBe(0);
    expect(forced.stdout).toMatch(
      /customresourcedefinition\.apiextensions\.k8s\.io\/webservices\.apps\.labhub\.io deleted \(dry run\)/,
    );
    expect((await audit.pluginRequests()).filter((e) => MUTATING.has(e.verb))).toEqual([]);
    expect(getJson(['get', 'crd', 'webservices.apps.labhub.io']).metadata.deletionTimestamp).toBeUndefined();
  });
});

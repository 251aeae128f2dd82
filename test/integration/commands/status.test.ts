// status, driven as a user would (the bundled plugin in a child process) against the real
// apiserver, with writes counted in the audit log.
import { AuditWindow, applyYaml, kubectl, plugin, useNamespace, webService } from '../../support/cluster';
import { inNamespace, pluginWrites, stoppedBeforeStatusWrite } from '../../support/commands';

const ns = useNamespace('status');
const audit = new AuditWindow(ns);
const { json, ws } = inNamespace(ns);

describe('status', () => {
  beforeAll(() => {
    applyYaml(ns(), webService('st', { image: 'nginx:1.27', replicas: 2 }));
    json(['apply', 'st']);
  });

  it('prints READY, REASON, GENERATION, OBSERVED, REPLICAS and AGE', () => {
    const result = plugin(['status', 'st', '-n', ns()]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^NAME\s+READY\s+REASON\s+GENERATION\s+OBSERVED\s+REPLICAS\s+AGE\n/);
    expect(result.stdout).toMatch(/st\s+True\s+Reconciled\s+1\s+1\s+2\s+\d+s/);
  });

  it('writes nothing when the stored status is current', async () => {
    audit.mark();
    const { value } = json(['status', 'st']);
    expect(value).toMatchObject({ changed: false, written: false });
    expect(await audit.mutating()).toEqual([]);
  });

  it('writes through the status subresource when it differs; --dry-run does not', async () => {
    kubectl(['delete', 'configmap', 'st-desired', '-n', ns()]);
    audit.mark();
    const dry = json(['status', 'st', '--dry-run']);
    expect(dry.value).toMatchObject({ changed: true, written: false });
    expect(dry.value.status.conditions[0]).toMatchObject({ status: 'False', reason: 'ChildMissing' });
    expect(await audit.mutating()).toEqual([]);

    audit.mark();
    const real = json(['status', 'st']);
    expect(real.value).toMatchObject({ changed: true, written: true });
    const writes = await audit.mutating();
    expect(writes.map((e) => `${e.verb} ${e.objectRef?.subresource}`)).toEqual(['patch status']);
    expect(ws('st').status.conditions[0]).toMatchObject({ status: 'False', reason: 'ChildMissing' });
  });
});

describe('a WebService that changes between the read and the status write', () => {
  it('status: the stale status is refused (409) and computed again from a fresh read', async () => {
    applyYaml(ns(), webService('restless', { image: 'nginx:1.27' }));
    json(['apply', 'restless']);
    kubectl(['delete', 'configmap', 'restless-desired', '-n', ns()]);
    audit.mark();
    const result = await stoppedBeforeStatusWrite(ns(), ['status', 'restless'], 'restless', () =>
      kubectl(['patch', 'webservice', 'restless', '-n', ns(), '--type=merge', '-p', '{"spec":{"replicas":3}}']),
    );
    expect(result.stderr).toBe(`status of webservice ${ns()}/restless written\n`);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'restless', generation: 2, changed: true, written: true });
    expect(await pluginWrites(audit)).toEqual(['patch webservices/status 409', 'patch webservices/status 200']);
    expect(ws('restless').status).toMatchObject({
      observedGeneration: 2,
      conditions: [{ status: 'False', reason: 'ChildMissing' }],
    });
  });
});

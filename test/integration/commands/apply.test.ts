// apply, driven as a user would (the bundled plugin in a child process) against the real
// apiserver, with writes counted in the audit log.
import {
  AuditWindow,
  applyYaml,
  getJson,
  kubectl,
  patchWebService,
  plugin,
  tryGetJson,
  useNamespace,
  webService,
  fromPlugin,
} from '../../support/cluster';
import { inNamespace, pluginWrites, rv, stoppedBeforeStatusWrite } from '../../support/commands';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../../src/core/model';

const ns = useNamespace('apply');
const audit = new AuditWindow(ns);
const { json, child, ws } = inNamespace(ns);

describe('apply', () => {
  beforeAll(() => applyYaml(ns(), webService('web', { image: 'nginx:1.27', replicas: 3, tier: 'prod' })));

  it('creates the owned child and writes status, and adds no finalizer', () => {
    const { status, value } = json(['apply', 'web']);
    expect(status).toBe(0);
    expect(value.decision.action).toBe('create');
    expect(value.result).toMatchObject({ statusWritten: true, converged: true });

    const parent = ws('web');
    const cm = child('web');
    expect(cm.data).toEqual({ image: 'nginx:1.27', replicas: '3', tier: 'prod' });
    expect(cm.metadata.labels[MANAGED_BY_LABEL]).toBe(MANAGED_BY_VALUE);
    expect(cm.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps.labhub.io/v1',
        kind: 'WebService',
        name: 'web',
        uid: parent.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(parent.metadata.finalizers).toBeUndefined();
    expect(parent.status.observedGeneration).toBe(parent.metadata.generation);
    expect(parent.status.replicas).toBe(3);
    expect(parent.status.conditions).toEqual([
      expect.objectContaining({
        type: 'Ready',
        status: 'True',
        reason: 'Reconciled',
        observedGeneration: parent.metadata.generation,
      }),
    ]);
  });

  it('a second apply makes zero mutating requests and moves no resourceVersion', async () => {
    const parentBefore = rv(ws('web'));
    const childBefore = rv(child('web'));
    audit.mark();
    const { status, value } = json(['apply', 'web']);
    expect(status).toBe(0);
    expect(value.decision.action).toBe('noop');
    const writes = await audit.mutating();
    expect(writes.map((e) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name}`)).toEqual([]);
    expect(rv(ws('web'))).toBe(parentBefore);
    expect(rv(child('web'))).toBe(childBefore);
  });

  it('an image change is an update of the child, and status follows', () => {
    patchWebService(ns(), 'web', { spec: { image: 'nginx:1.28' } });
    const { status, value } = json(['apply', 'web']);
    expect(status).toBe(0);
    expect(value.decision).toMatchObject({
      action: 'update',
      changes: [{ field: 'data.image', from: 'nginx:1.27', to: 'nginx:1.28' }],
    });
    expect(child('web').data.image).toBe('nginx:1.28');
    const parent = ws('web');
    expect(parent.status.observedGeneration).toBe(parent.metadata.generation);
  });

  it('restores a hand-edited child and keeps the keys and labels others added', () => {
    kubectl([
      'patch',
      'configmap',
      'web-desired',
      '-n',
      ns(),
      '--type=merge',
      '-p',
      '{"data":{"image":"evil:latest","note":"mine"},"metadata":{"labels":{"team":"payments"}}}',
    ]);
    const { value } = json(['apply', 'web']);
    expect(value.decision.action).toBe('update');
    const cm = child('web');
    expect(cm.data).toEqual({ image: 'nginx:1.28', replicas: '3', tier: 'prod', note: 'mine' });
    expect(cm.metadata.labels.team).toBe('payments');
  });

  it('recreates a deleted child', () => {
    kubectl(['delete', 'configmap', 'web-desired', '-n', ns()]);
    const { value } = json(['apply', 'web']);
    expect(value.decision.action).toBe('create');
    expect(child('web').data.image).toBe('nginx:1.28');
  });

  it('leaves a foreign child untouched and reports a conflict (exit 1)', async () => {
    applyYaml(
      ns(),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'taken-desired' },
        data: { theirs: 'yes' },
      }),
    );
    applyYaml(ns(), webService('taken', { image: 'nginx:1.27' }));
    const before = child('taken');
    audit.mark();
    const { status, value } = json(['apply', 'taken']);
    expect(status).toBe(1);
    expect(value.decision).toMatchObject({ action: 'conflict', is_error: true });
    expect(value.decision.reason).toContain('is not ours');
    const after = child('taken');
    expect(rv(after)).toBe(rv(before));
    expect(after.data).toEqual({ theirs: 'yes' });
    const writes = await audit.mutating();
    expect(writes.map((e) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.subresource ?? ''}`)).toEqual([
      'patch webservices/status',
      'create events/',
    ]);
    expect(ws('taken').status.conditions[0]).toMatchObject({ status: 'False', reason: 'ChildConflict' });
    expect(ws('taken').metadata.finalizers).toBeUndefined();
  });

  it('prints a table with the result of each decision', () => {
    const result = plugin(['apply', 'web', '-n', ns()]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^NAME\s+ACTION\s+TARGET\s+RESULT\s+REASON\n/);
    expect(result.stdout).toMatch(/web\s+noop\s+configmap\/web-desired\s+unchanged/);
  });
});

describe('apply -f: a saved decision', () => {
  it('is carried out when planning now gives the same decision', () => {
    applyYaml(ns(), webService('saved', { image: 'nginx:1.27' }));
    const plan = plugin(['plan', 'saved', '-n', ns(), '-o', 'json']).stdout;
    const result = plugin(['apply', '-f', '-', '-o', 'json'], { input: plan });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).decision.action).toBe('create');
    expect(child('saved').data.image).toBe('nginx:1.27');
  });

  it('is refused, changing nothing, when the cluster moved on since the plan', async () => {
    patchWebService(ns(), 'saved', { spec: { image: 'nginx:1.30' } });
    const plan = plugin(['plan', 'saved', '-n', ns(), '-o', 'json']).stdout;
    patchWebService(ns(), 'saved', { spec: { image: 'nginx:1.31' } });
    audit.mark();
    const result = plugin(['apply', '-f', '-'], { input: plan });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^error: the decision in - for webservice\/saved is stale: it was "update" \(.*\), planning now gives "update" \(.*\); ops\[0\]\.patch\.data\.image was "nginx:1\.30", is now "nginx:1\.31"; nothing was carried out, run plan again\n$/,
    );
    expect(await audit.mutating()).toEqual([]);
    expect(child('saved').data.image).toBe('nginx:1.27');
  });
});

describe('dependencies', () => {
  const deps = useNamespace('deps');

  it('a missing dependency is a requeue (exit 2), then converges once the dependency is ready', () => {
    applyYaml(deps(), webService('front', { image: 'nginx:1.27', dependsOn: ['pay'] }));
    const first = plugin(['apply', 'front', '-n', deps(), '-o', 'json']);
    expect(first.status).toBe(2);
    expect(JSON.parse(first.stdout).decision).toMatchObject({
      action: 'requeue',
      is_error: false,
      after_seconds: 10,
      target: 'webservice/pay',
    });
    expect(tryGetJson(['get', 'configmap', 'front-desired', '-n', deps()])).toBeNull();
    const waiting = getJson(['get', 'webservice', 'front', '-n', deps()]);
    expect(waiting.status.conditions[0]).toMatchObject({ status: 'False', reason: 'DependencyNotReady' });

    applyYaml(deps(), webService('pay', { image: 'nginx:1.27' }));
    // pay exists but is not Ready until reconciled: --wait reconciles it in the first
    // pass and comes back to front after front's requeue interval.
    const waited = plugin(['apply', '--all', '-n', deps(), '--requeue-after', '1', '--wait=60s', '-o', 'json']);
    expect(waited.status).toBe(0);
    const report = JSON.parse(waited.stdout);
    expect(report.converged).toBe(true);
    // The report says what each had done to it: pay was created in the first pass, front in the second.
    expect(report.items.map((i: { name: string; action: string }) => [i.name, i.action])).toEqual([
      ['front', 'create'],
      ['pay', 'create'],
    ]);
    expect(tryGetJson(['get', 'configmap', 'front-desired', '-n', deps()])).not.toBeNull();
    const front = getJson(['get', 'webservice', 'front', '-n', deps()]);
    expect(front.status.conditions[0]).toMatchObject({ status: 'True', reason: 'Reconciled' });
  });
});

describe('apply --all', () => {
  const scoped = useNamespace('all');
  beforeAll(() => {
    for (const name of ['a', 'b', 'c']) applyYaml(scoped(), webService(name, { image: 'nginx:1.27' }));
  });

  it('reports every CR, observes with a constant number of LISTs, and converges', async () => {
    const window = new AuditWindow(scoped());
    window.mark();
    const result = plugin(['apply', '--all', '-n', scoped(), '-o', 'json']);
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.items.map((i: { name: string; action: string }) => [i.name, i.action])).toEqual([
      ['a', 'create'],
      ['b', 'create'],
      ['c', 'create'],
    ]);
    expect(report.summary).toMatchObject({ create: 3, noop: 0, requeue: 0, error: 0 });
    expect(report.converged).toBe(true);
    const reads = (await window.events()).filter((e) => fromPlugin(e) && (e.verb === 'get' || e.verb === 'list'));
    // Our children by label, the WebServices, and (children being absent) one metadata-only
    // look for foreign objects on their names: three, however many WebServices.
    expect(reads.map((e) => `${e.verb} ${e.objectRef?.resource}`).sort()).toEqual([
      'list configmaps',
      'list configmaps',
      'list webservices',
    ]);
  });

  it('a converged pass over many makes zero mutating requests and exits 0', async () => {
    const window = new AuditWindow(scoped());
    window.mark();
    const result = plugin(['apply', '--all', '-n', scoped(), '-o', 'json']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).summary).toMatchObject({ noop: 3, create: 0 });
    const events = await window.events();
    expect(events.filter((e) => !['get', 'list', 'watch'].includes(e.verb))).toEqual([]);
    // Every WebService has its labelled child, so no metadata-only look is needed.
    const reads = events.filter(fromPlugin);
    expect(
      reads.map((e) => `${e.verb} ${e.objectRef?.resource} ${e.requestURI?.includes('labelSelector') ?? false}`).sort(),
    ).toEqual(['list configmaps true', 'list webservices false']);
  });

  it("a foreign ConfigMap on a child's name is still found with label-selected reads, and left alone", async () => {
    applyYaml(
      scoped(),
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f-desired' }, data: { theirs: 'yes' } }),
    );
    applyYaml(scoped(), webService('f', { image: 'nginx:1.27' }));
    const before = getJson(['get', 'configmap', 'f-desired', '-n', scoped()]);
    const result = plugin(['apply', '--all', '-n', scoped(), '-o', 'json']);
    expect(result.status).toBe(1);
    const item = JSON.parse(result.stdout).items.find((i: { name: string }) => i.name === 'f');
    expect(item.action).toBe('conflict');
    expect(item.reason).toContain('is not ours');
    expect(rv(getJson(['get', 'configmap', 'f-desired', '-n', scoped()]))).toBe(rv(before));
    kubectl(['delete', 'webservice', 'f', '-n', scoped()]);
  });

  it('--dry-run is plan: it writes nothing', async () => {
    applyYaml(scoped(), webService('d', { image: 'nginx:1.27' }));
    const window = new AuditWindow(scoped());
    window.mark();
    const result = plugin(['apply', '--all', '--dry-run', '-n', scoped(), '-o', 'json']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).items.find((d: { name: string }) => d.name === 'd').action).toBe('create');
    expect(await window.mutating()).toEqual([]);
  });
});

describe('a WebService that changes between the read and the status write', () => {
  it('apply: the stale status is refused (409), and the pass decides again from a fresh read, keeping what it did', async () => {
    applyYaml(ns(), webService('moving', { image: 'nginx:1.27' }));
    audit.mark();
    const result = await stoppedBeforeStatusWrite(ns(), ['apply', 'moving'], 'moving', () =>
      patchWebService(ns(), 'moving', { spec: { image: 'nginx:1.28' } }),
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      decision: { name: 'moving', action: 'update' },
      result: { converged: true, statusWritten: true },
    });
    expect(await pluginWrites(audit)).toEqual([
      'create configmaps 201', // the child, from generation 1
      'patch webservices/status 409', // a status for generation 1, over generation 2: refused
      'patch configmaps 200', // decided again from generation 2
      'patch webservices/status 200',
      'create events 201', // Created: done by the first attempt, so still reported
      'create events 201', // Updated
    ]);
    const parent = ws('moving');
    expect(parent.metadata.generation).toBe(2);
    expect(parent.status.observedGeneration).toBe(2);
    expect(parent.status.conditions[0]).toMatchObject({ type: 'Ready', status: 'True', observedGeneration: 2 });
    expect(child('moving').data.image).toBe('nginx:1.28');
  });
});

describe('one connection pool per process', () => {
  const scoped = useNamespace('pool');
  beforeAll(() => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: Array.from({ length: 40 }, (_, i) => JSON.parse(webService(`w${i}`, { image: 'nginx:1.27' }))),
    };
    applyYaml(scoped(), JSON.stringify(list));
  });

  it('a cold pass of 40 WebServices (120+ writes) uses at most a handful of TLS connections', () => {
    const result = plugin(['apply', '--all', '-n', scoped(), '-o', 'json', '-v']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).summary.create).toBe(40);
    const usage = /requests: (\d+) read, (\d+) write over (\d+) connection\(s\)/.exec(result.stderr);
    expect(usage).not.toBeNull();
    const [, reads, writes, connections] = usage!.map(Number);
    expect(reads + writes).toBeGreaterThanOrEqual(120);
    // --concurrency 4: four requests in flight at once, each on a kept-alive connection.
    expect(connections).toBeGreaterThan(0);
    expect(connections).toBeLessThanOrEqual(5);
  });
});

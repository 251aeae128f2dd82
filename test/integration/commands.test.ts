// The five subcommands, driven as a user would (the bundled plugin in a child
// process) against the real apiserver, with writes counted in the audit log.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import {
  AuditWindow,
  PLUGIN,
  ROOT,
  applyYaml,
  createNamespace,
  deleteNamespace,
  eventually,
  getJson,
  kubectl,
  plugin,
  serviceAccountKubeconfig,
  tryGetJson,
  webService,
  fromPlugin,
} from '../support/cluster';
import { FINALIZER } from '../../src/core/model';

let ns: string;
let audit: AuditWindow;
beforeAll(() => {
  ns = createNamespace('commands');
  audit = new AuditWindow(ns);
});
afterAll(() => deleteNamespace(ns));

const json = (args: string[]) => {
  const result = plugin([...args, '-n', ns, '-o', 'json']);
  return { ...result, value: result.stdout ? JSON.parse(result.stdout) : undefined };
};
const child = (name: string) => tryGetJson(['get', 'configmap', `${name}-desired`, '-n', ns]);
const ws = (name: string) => getJson(['get', 'webservice', name, '-n', ns]);
const rv = (obj: { metadata: { resourceVersion: string } }) => obj.metadata.resourceVersion;

describe('observe', () => {
  beforeAll(() => applyYaml(ns, webService('obs', { image: 'nginx:1.27', replicas: 2 })));

  it('-o json: desired is the spec with defaults, actual is {} before the child exists', () => {
    const { status, value } = json(['observe', 'obs']);
    expect(status).toBe(0);
    expect(value.desired).toEqual({ image: 'nginx:1.27', replicas: 2, tier: 'dev' });
    expect(value.actual).toEqual({});
    expect(value.child).toBeNull();
    expect(value.uid).toBe(ws('obs').metadata.uid);
  });

  it('prints a table', () => {
    const result = plugin(['observe', 'obs', '-n', ns]);
    expect(result.status).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^NAME\s{3,}DESIRED IMAGE\s{3,}ACTUAL IMAGE/);
    expect(result.stdout).toMatch(new RegExp(`^obs\\s+nginx:1\\.27\\s+<none>\\s+-/2\\s+absent`, 'm'));
  });

  it('-f -: observes objects given on stdin, without a cluster', () => {
    const input = JSON.stringify({ parent: ws('obs') });
    const result = plugin(['observe', '-f', '-', '-o', 'json'], { input, env: { KUBECONFIG: '/nonexistent' } });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).desired.image).toBe('nginx:1.27');
  });
});

describe('plan', () => {
  beforeAll(() => applyYaml(ns, webService('planned', { image: 'nginx:1.27' })));

  it('-o json prints exactly one decision and writes nothing', async () => {
    audit.mark();
    const { status, value } = json(['plan', 'planned']);
    expect(status).toBe(0);
    expect(value).toMatchObject({
      action: 'create',
      reason: 'configmap/planned-desired does not exist yet',
      target: 'configmap/planned-desired',
      is_error: false,
    });
    expect(await audit.mutating()).toEqual([]);
    expect(child('planned')).toBeNull();
  });

  it('prints a coloured-by-action table (plain without a TTY)', () => {
    const result = plugin(['plan', '--all', '-n', ns]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^NAME\s+ACTION\s+TARGET\s+REASON\n/);
    expect(result.stdout).toMatch(/planned\s+create\s+configmap\/planned-desired/);
    expect(result.stdout).not.toMatch(/\u001b\[/);
  });
});

describe('apply', () => {
  beforeAll(() => applyYaml(ns, webService('web', { image: 'nginx:1.27', replicas: 3, tier: 'prod' })));

  it('creates the owned child and writes status, and adds no finalizer', () => {
    const { status, value } = json(['apply', 'web']);
    expect(status).toBe(0);
    expect(value.decision.action).toBe('create');
    expect(value.result).toMatchObject({ statusWritten: true, converged: true });

    const parent = ws('web');
    const cm = child('web');
    expect(cm.data).toEqual({ image: 'nginx:1.27', replicas: '3', tier: 'prod' });
    expect(cm.metadata.labels['app.kubernetes.io/managed-by']).toBe('webservice-controller');
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
    kubectl(['patch', 'webservice', 'web', '-n', ns, '--type=merge', '-p', '{"spec":{"image":"nginx:1.28"}}']);
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
      ns,
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
    kubectl(['delete', 'configmap', 'web-desired', '-n', ns]);
    const { value } = json(['apply', 'web']);
    expect(value.decision.action).toBe('create');
    expect(child('web').data.image).toBe('nginx:1.28');
  });

  it('leaves a foreign child untouched and reports a conflict (exit 1)', async () => {
    applyYaml(
      ns,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'taken-desired' },
        data: { theirs: 'yes' },
      }),
    );
    applyYaml(ns, webService('taken', { image: 'nginx:1.27' }));
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
    const result = plugin(['apply', 'web', '-n', ns]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^NAME\s+ACTION\s+TARGET\s+RESULT\s+REASON\n/);
    expect(result.stdout).toMatch(/web\s+noop\s+configmap\/web-desired\s+unchanged/);
  });
});

describe('apply -f: a saved decision', () => {
  it('is carried out when planning now gives the same decision', () => {
    applyYaml(ns, webService('saved', { image: 'nginx:1.27' }));
    const plan = plugin(['plan', 'saved', '-n', ns, '-o', 'json']).stdout;
    const result = plugin(['apply', '-f', '-', '-o', 'json'], { input: plan });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).decision.action).toBe('create');
    expect(child('saved').data.image).toBe('nginx:1.27');
  });

  it('is refused, changing nothing, when the cluster moved on since the plan', async () => {
    kubectl(['patch', 'webservice', 'saved', '-n', ns, '--type=merge', '-p', '{"spec":{"image":"nginx:1.30"}}']);
    const plan = plugin(['plan', 'saved', '-n', ns, '-o', 'json']).stdout;
    kubectl(['patch', 'webservice', 'saved', '-n', ns, '--type=merge', '-p', '{"spec":{"image":"nginx:1.31"}}']);
    audit.mark();
    const result = plugin(['apply', '-f', '-'], { input: plan });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^error: the decision in - for webservice\/saved is stale: it was "update" \(.*\), planning now gives "update" .*; nothing was carried out, run plan again\n$/,
    );
    expect(await audit.mutating()).toEqual([]);
    expect(child('saved').data.image).toBe('nginx:1.27');
  });
});

describe('colour', () => {
  // `script` gives the plugin a real terminal, the only place colour belongs.
  const onTty = (env: string) =>
    spawnSync('script', ['-qec', `${env} ${PLUGIN} plan --all -n ${ns}`, '/dev/null'], { encoding: 'utf8' }).stdout;

  it('colours actions on a terminal', () => {
    expect(onTty('env -u NO_COLOR')).toMatch(/\u001b\[32mcreate|\u001b\[2mnoop/);
  });

  it('never with NO_COLOR or --no-color, and never in -o json', () => {
    expect(onTty('NO_COLOR=1')).not.toMatch(/\u001b\[/);
    expect(
      spawnSync('script', ['-qec', `env -u NO_COLOR ${PLUGIN} plan --all --no-color -n ${ns}`, '/dev/null'], {
        encoding: 'utf8',
      }).stdout,
    ).not.toMatch(/\u001b\[/);
    expect(
      spawnSync('script', ['-qec', `env -u NO_COLOR ${PLUGIN} plan --all -o json -n ${ns}`, '/dev/null'], {
        encoding: 'utf8',
      }).stdout,
    ).not.toMatch(/\u001b\[/);
  });
});

describe('dependencies', () => {
  let deps: string;
  beforeAll(() => {
    deps = createNamespace('deps');
  });
  afterAll(() => deleteNamespace(deps));

  it('a missing dependency is a requeue (exit 2), then converges once the dependency is ready', () => {
    applyYaml(deps, webService('front', { image: 'nginx:1.27', dependsOn: ['pay'] }));
    const first = plugin(['apply', 'front', '-n', deps, '-o', 'json']);
    expect(first.status).toBe(2);
    expect(JSON.parse(first.stdout).decision).toMatchObject({
      action: 'requeue',
      is_error: false,
      after_seconds: 10,
      target: 'webservice/pay',
    });
    expect(tryGetJson(['get', 'configmap', 'front-desired', '-n', deps])).toBeNull();
    const waiting = getJson(['get', 'webservice', 'front', '-n', deps]);
    expect(waiting.status.conditions[0]).toMatchObject({ status: 'False', reason: 'DependencyNotReady' });

    applyYaml(deps, webService('pay', { image: 'nginx:1.27' }));
    // pay exists but is not Ready until reconciled: --wait reconciles it in the first
    // pass and comes back to front after front's requeue interval.
    const waited = plugin(['apply', '--all', '-n', deps, '--requeue-after', '1', '--wait=60s', '-o', 'json']);
    expect(waited.status).toBe(0);
    const report = JSON.parse(waited.stdout);
    expect(report.converged).toBe(true);
    // The report says what each had done to it: pay was created in the first pass, front in the second.
    expect(report.items.map((i: { name: string; action: string }) => [i.name, i.action])).toEqual([
      ['front', 'create'],
      ['pay', 'create'],
    ]);
    expect(tryGetJson(['get', 'configmap', 'front-desired', '-n', deps])).not.toBeNull();
    const front = getJson(['get', 'webservice', 'front', '-n', deps]);
    expect(front.status.conditions[0]).toMatchObject({ status: 'True', reason: 'Reconciled' });
  });
});

describe('apply --all', () => {
  let scoped: string;
  beforeAll(() => {
    scoped = createNamespace('all');
    for (const name of ['a', 'b', 'c']) applyYaml(scoped, webService(name, { image: 'nginx:1.27' }));
  });
  afterAll(() => deleteNamespace(scoped));

  it('reports every CR, observes with a constant number of LISTs, and converges', async () => {
    const window = new AuditWindow(scoped);
    window.mark();
    const result = plugin(['apply', '--all', '-n', scoped, '-o', 'json']);
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
    const window = new AuditWindow(scoped);
    window.mark();
    const result = plugin(['apply', '--all', '-n', scoped, '-o', 'json']);
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
      scoped,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f-desired' }, data: { theirs: 'yes' } }),
    );
    applyYaml(scoped, webService('f', { image: 'nginx:1.27' }));
    const before = getJson(['get', 'configmap', 'f-desired', '-n', scoped]);
    const result = plugin(['apply', '--all', '-n', scoped, '-o', 'json']);
    expect(result.status).toBe(1);
    const item = JSON.parse(result.stdout).items.find((i: { name: string }) => i.name === 'f');
    expect(item.action).toBe('conflict');
    expect(item.reason).toContain('is not ours');
    expect(rv(getJson(['get', 'configmap', 'f-desired', '-n', scoped]))).toBe(rv(before));
    kubectl(['delete', 'webservice', 'f', '-n', scoped]);
  });

  it('--dry-run is plan: it writes nothing', async () => {
    applyYaml(scoped, webService('d', { image: 'nginx:1.27' }));
    const window = new AuditWindow(scoped);
    window.mark();
    const result = plugin(['apply', '--all', '--dry-run', '-n', scoped, '-o', 'json']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).items.find((d: { name: string }) => d.name === 'd').action).toBe('create');
    expect(await window.mutating()).toEqual([]);
  });
});

describe('status', () => {
  beforeAll(() => {
    applyYaml(ns, webService('st', { image: 'nginx:1.27', replicas: 2 }));
    json(['apply', 'st']);
  });

  it('prints READY, REASON, GENERATION, OBSERVED, REPLICAS and AGE', () => {
    const result = plugin(['status', 'st', '-n', ns]);
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
    kubectl(['delete', 'configmap', 'st-desired', '-n', ns]);
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
  const triggers = fs.mkdtempSync(path.join(os.tmpdir(), 'stop-in-write-'));
  afterAll(() => fs.rmSync(triggers, { recursive: true, force: true }));

  /**
   * Runs the plugin until it is about to send its status patch for `name`, stops it there
   * (test/support/stop-in-write.cjs), runs `meanwhile`, then lets it go on.
   */
  async function stoppedBeforeStatusWrite(args: string[], name: string, meanwhile: () => void) {
    const trigger = path.join(triggers, `${name}-${args[0]}`);
    fs.writeFileSync(trigger, '');
    const proc = spawn(PLUGIN, [...args, '-n', ns, '-o', 'json'], {
      env: {
        ...process.env,
        NO_COLOR: '1',
        NODE_OPTIONS: `--require ${path.join(ROOT, 'test/support/stop-in-write.cjs')}`,
        STOP_IN_WRITE: trigger,
        STOP_IN_WRITE_MATCH: `^PATCH \\S+/namespaces/${ns}/webservices/${name}/status `,
      },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk) => (stdout += chunk));
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const state = () => fs.readFileSync(`/proc/${proc.pid}/stat`, 'utf8').replace(/^.*\) /, '')[0];
    await eventually(() => state() === 'T', 30_000);
    meanwhile();
    proc.kill('SIGCONT');
    const status = await exited;
    return { status, stdout, stderr };
  }
  const writes = async () =>
    (await audit.mutating())
      .filter(fromPlugin)
      .map(
        (e) =>
          `${e.verb} ${e.objectRef?.resource}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''} ${e.responseStatus?.code}`,
      );

  it('apply: the stale status is refused (409), and the pass decides again from a fresh read, keeping what it did', async () => {
    applyYaml(ns, webService('moving', { image: 'nginx:1.27' }));
    audit.mark();
    const result = await stoppedBeforeStatusWrite(['apply', 'moving'], 'moving', () =>
      kubectl(['patch', 'webservice', 'moving', '-n', ns, '--type=merge', '-p', '{"spec":{"image":"nginx:1.28"}}']),
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      decision: { name: 'moving', action: 'update' },
      result: { converged: true, statusWritten: true },
    });
    expect(await writes()).toEqual([
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

  it('status: the stale status is refused (409) and computed again from a fresh read', async () => {
    applyYaml(ns, webService('restless', { image: 'nginx:1.27' }));
    json(['apply', 'restless']);
    kubectl(['delete', 'configmap', 'restless-desired', '-n', ns]);
    audit.mark();
    const result = await stoppedBeforeStatusWrite(['status', 'restless'], 'restless', () =>
      kubectl(['patch', 'webservice', 'restless', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":3}}']),
    );
    expect(result.stderr).toBe(`status of webservice ${ns}/restless written\n`);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'restless', generation: 2, changed: true, written: true });
    expect(await writes()).toEqual(['patch webservices/status 409', 'patch webservices/status 200']);
    expect(ws('restless').status).toMatchObject({
      observedGeneration: 2,
      conditions: [{ status: 'False', reason: 'ChildMissing' }],
    });
  });
});

describe('finalize', () => {
  it('refuses a live CR and touches nothing', async () => {
    applyYaml(ns, webService('alive', { image: 'nginx:1.27' }));
    json(['apply', 'alive']);
    const before = rv(ws('alive'));
    audit.mark();
    const result = plugin(['finalize', 'alive', '-n', ns]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: webservice "alive" is not being deleted; .*nothing was touched\n$/);
    expect(await audit.mutating()).toEqual([]);
    expect(rv(ws('alive'))).toBe(before);
  });

  it('on a terminating CR: deletes its child, removes only our finalizer, and the CR goes away', async () => {
    // Our finalizer as a user puts it there (apply adds none), beside someone else's.
    applyYaml(
      ns,
      webService(
        'gone',
        { image: 'nginx:1.27' },
        { finalizers: ['example.com/keep-me', 'webservice.labhub.io/cleanup'] },
      ),
    );
    json(['apply', 'gone']);
    expect(ws('gone').metadata.finalizers).toEqual(['example.com/keep-me', 'webservice.labhub.io/cleanup']);
    kubectl(['delete', 'webservice', 'gone', '-n', ns, '--wait=false']);
    expect(ws('gone').metadata.deletionTimestamp).toBeTruthy();

    const { status, value } = json(['finalize', 'gone']);
    expect(status).toBe(0);
    expect(value).toEqual({ namespace: ns, name: 'gone', cleaned: ['configmap/gone-desired'], finalizerRemoved: true });
    expect(child('gone')).toBeNull();
    expect(ws('gone').metadata.finalizers).toEqual(['example.com/keep-me']);

    kubectl([
      'patch',
      'webservice',
      'gone',
      '-n',
      ns,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ]);
    await eventually(() => tryGetJson(['get', 'webservice', 'gone', '-n', ns]) === null);
  });

  it('prints what it cleaned up as a table', async () => {
    applyYaml(ns, webService('tidy', { image: 'nginx:1.27' }, { finalizers: [FINALIZER] }));
    json(['apply', 'tidy']);
    kubectl(['delete', 'webservice', 'tidy', '-n', ns, '--wait=false']);
    const result = plugin(['finalize', 'tidy', '-n', ns]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^NAME\s+CLEANED\s+FINALIZER\n/);
    expect(result.stdout).toMatch(/tidy\s+configmap\/tidy-desired\s+removed webservice\.labhub\.io\/cleanup/);
    await eventually(() => tryGetJson(['get', 'webservice', 'tidy', '-n', ns]) === null);
  });
});

describe('the shipped least-privilege role', () => {
  let scoped: string;
  let kubeconfig: string;
  beforeAll(() => {
    scoped = createNamespace('rbac');
    kubectl(['apply', '-f', path.join(ROOT, 'crds/rbac/webservice-reconciler.yaml')]);
    kubeconfig = serviceAccountKubeconfig(scoped, 'reconciler', ['--clusterrole=webservice-reconciler']);
    applyYaml(scoped, webService('api', { image: 'nginx:1.27' }, { finalizers: [FINALIZER] }));
  });
  afterAll(() => deleteNamespace(scoped));

  it('is enough for apply, status and finalize', () => {
    const as = (args: string[]) => plugin([...args, '--kubeconfig', kubeconfig, '-o', 'json']);
    const applied = as(['apply', '--all']);
    expect(applied.stderr).toBe('');
    expect(JSON.parse(applied.stdout)).toMatchObject({ converged: true, summary: { create: 1, error: 0 } });
    expect(as(['status', 'api']).status).toBe(0);
    kubectl(['delete', 'webservice', 'api', '-n', scoped, '--wait=false']);
    const finalized = as(['finalize', 'api']);
    expect(finalized.status).toBe(0);
    expect(JSON.parse(finalized.stdout)).toMatchObject({ cleaned: ['configmap/api-desired'], finalizerRemoved: true });
  });
});

describe('errors', () => {
  it('a missing CR: one line, kubectl style, exit 1', () => {
    const result = plugin(['plan', 'nope', '-n', ns]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('error: webservices.apps.labhub.io "nope" not found\n');
  });

  it('no cluster: fails within seconds with a clear line and no stack trace', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nocluster-'));
    const config = path.join(dir, 'config');
    fs.writeFileSync(
      config,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    const started = Date.now();
    const result = plugin(['apply', '--all', '-n', 'default', '--kubeconfig', config]);
    fs.rmSync(dir, { recursive: true, force: true });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: the connection to the server https:\/\/127\.0\.0\.1:1 was refused .*\n$/);
  });

  it('invalid flags: one line and a pointer to --help', () => {
    const result = plugin(['apply', 'web', '--all', '-n', ns]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('error: give either NAMEs or --all, not both\n');
    const bad = plugin(['apply', '--all', '--concurrency', '0', '-n', ns]);
    expect(bad.stderr).toBe('error: --concurrency must be a whole number >= 1, got 0\n');
    const unknown = plugin(['plan', '--bogus']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('error: unknown flag: --bogus\nSee "kubectl webservice --help" for usage.\n');
  });

  it('a NAME that is not a valid object name is refused before any request', async () => {
    audit.mark();
    const result = plugin(['apply', 'web/status', '-n', ns]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'error: "web/status": this plugin acts on webservices only (give NAME or webservice/NAME)\n',
    );
    expect(await audit.events()).toEqual([]);
  });

  it('bad input files: one line naming the problem', () => {
    const result = plugin(['plan', '-f', '-'], { input: '{"parent": {"metadata": {"name": "x"}, "spec": {}}}' });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('error: parent.spec.image must be a non-empty string\n');
  });

  describe('RBAC', () => {
    let kubeconfig: string;
    beforeAll(() => {
      // A real identity with read-only access: a ServiceAccount token from the TokenRequest API.
      kubectl([
        'create',
        'role',
        'reader',
        '-n',
        ns,
        '--verb=get,list,watch',
        '--resource=webservices.apps.labhub.io,configmaps',
      ]);
      kubeconfig = serviceAccountKubeconfig(ns, 'reader', ['--role=reader']);
      applyYaml(ns, webService('locked', { image: 'nginx:1.27' }));
    });

    it('plan works with read access', () => {
      const result = plugin(['plan', 'locked', '--kubeconfig', kubeconfig, '-o', 'json']);
      expect(result.status).toBe(0);
      expect(JSON.parse(result.stdout).action).toBe('create');
    });

    it('apply says which verb on which resource is forbidden, and changes nothing', () => {
      const result = plugin(['apply', 'locked', '--kubeconfig', kubeconfig, '-o', 'json']);
      expect(result.status).toBe(1);
      const { result: outcome } = JSON.parse(result.stdout);
      // The first write of a create is the child's.
      expect(outcome.error).toMatch(/cannot create resource "configmaps" in API group ""/);
      expect(result.stderr).toMatch(
        new RegExp(
          `^error: webservice ${ns}/locked: .*User "system:serviceaccount:${ns}:reader" cannot create resource "configmaps"[^\n]*\n`,
        ),
      );
      // One error; the reader may not record Events either, which is a warning, not a second error.
      expect(result.stderr.match(/^error:/gm)).toHaveLength(1);
      expect(result.stderr).toMatch(/^warning: Events were not recorded: .*cannot create resource "events"/m);
      expect(child('locked')).toBeNull();
      expect(ws('locked').metadata.finalizers).toBeUndefined();

      const table = plugin(['apply', 'locked', '--kubeconfig', kubeconfig]);
      expect(table.status).toBe(1);
      expect(table.stdout).toMatch(
        /locked\s+create\s+configmap\/locked-desired\s+error: .*is forbidden: User "system:serviceaccount:/,
      );
    });
  });
});

describe('one connection pool per process', () => {
  let scoped: string;
  beforeAll(() => {
    scoped = createNamespace('pool');
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: Array.from({ length: 40 }, (_, i) => JSON.parse(webService(`w${i}`, { image: 'nginx:1.27' }))),
    };
    applyYaml(scoped, JSON.stringify(list));
  });
  afterAll(() => deleteNamespace(scoped));

  it('a cold pass of 40 WebServices (120+ writes) uses at most a handful of TLS connections', () => {
    const result = plugin(['apply', '--all', '-n', scoped, '-o', 'json', '-v']);
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

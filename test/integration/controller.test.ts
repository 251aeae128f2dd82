// `kubectl webservice run` against the real apiserver, as a child process under the
// shipped RBAC (deploy/10-rbac.yaml, a real ServiceAccount token). Writes are counted
// in the audit log by that ServiceAccount's username.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  AuditEvent,
  AuditWindow,
  MUTATING,
  ROOT,
  applyYaml,
  createNamespace,
  deleteNamespace,
  eventually,
  getJson,
  kubectl,
  serviceAccountKubeconfig,
  sleep,
  tryGetJson,
  webService,
} from '../support/cluster';
import * as yaml from 'js-yaml';
import { FINALIZER } from '../../src/core/model';
import { CONTROLLER_USER, ControllerProcess, controllerKubeconfig, endControlled } from '../support/controller';
import { isDiscoveryProbe } from '../support/gateway-api';

let kubeconfig: string;
beforeAll(() => {
  kubeconfig = controllerKubeconfig();
});

const ws = (ns: string, name: string) => tryGetJson(['get', 'webservice', name, '-n', ns]);
const child = (ns: string, name: string) => tryGetJson(['get', 'configmap', `${name}-desired`, '-n', ns]);
const readyOf = (obj: any) => obj?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready');
const isReady = (obj: any) =>
  readyOf(obj)?.status === 'True' && obj.status.observedGeneration === obj.metadata.generation;
const eventsFor = (ns: string, name: string) =>
  getJson(['get', 'events', '-n', ns, '--field-selector', `involvedObject.name=${name}`]).items as any[];
const byController = (events: AuditEvent[]) => events.filter((e) => e.user.username === CONTROLLER_USER);

async function metricsText(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  return res.text();
}

function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('run: one controller in a namespace', () => {
  let ns: string;
  let ctl: ControllerProcess;
  let metricsPort: number;
  let audit: AuditWindow;

  beforeAll(async () => {
    ns = createNamespace('run');
    audit = new AuditWindow(ns);
    audit.mark();
    ctl = new ControllerProcess([
      '-n',
      ns,
      '--kubeconfig',
      kubeconfig,
      '--requeue-after',
      '60',
      '--metrics-bind-address',
      '127.0.0.1:0',
    ]);
    metricsPort = Number((await ctl.waitForLog(/serving \/metrics/)).port);
    await ctl.waitForLog(/controller working/);
  });
  afterAll(async () => {
    await ctl.stop();
    deleteNamespace(ns);
  });

  it('says once that its caches have synced', () => {
    expect(ctl.entries.filter((e) => /caches synced/.test(e.msg))).toHaveLength(1);
  });

  it('a create reaches Ready', async () => {
    applyYaml(ns, webService('web', { image: 'nginx:1.27', replicas: 2 }));
    const parent = await eventually(() => {
      const obj = ws(ns, 'web');
      return isReady(obj) ? obj : null;
    });
    const cm = child(ns, 'web');
    expect(cm.data).toEqual({ image: 'nginx:1.27', replicas: '2', tier: 'dev' });
    expect(cm.metadata.ownerReferences[0].uid).toBe(parent.metadata.uid);
    expect(parent.metadata.finalizers).toBeUndefined();
  });

  it('a spec change is carried to the child', async () => {
    kubectl(['patch', 'webservice', 'web', '-n', ns, '--type=merge', '-p', '{"spec":{"image":"nginx:1.28"}}']);
    await eventually(() => child(ns, 'web')?.data.image === 'nginx:1.28' && isReady(ws(ns, 'web')));
  });

  it('a child deleted by hand is recreated', async () => {
    const before = child(ns, 'web');
    kubectl(['delete', 'configmap', 'web-desired', '-n', ns]);
    const after = await eventually(() => {
      const cm = child(ns, 'web');
      return cm && cm.metadata.uid !== before.metadata.uid ? cm : null;
    });
    expect(after.data.image).toBe('nginx:1.28');
  });

  it('a hand-edited child is put back, keeping what others added', async () => {
    kubectl([
      'patch',
      'configmap',
      'web-desired',
      '-n',
      ns,
      '--type=merge',
      '-p',
      '{"data":{"image":"evil:1","note":"mine"}}',
    ]);
    await eventually(() => child(ns, 'web')?.data.image === 'nginx:1.28');
    expect(child(ns, 'web').data.note).toBe('mine');
  });

  it('records Events as webservice-controller, and none for a noop', async () => {
    const events = eventsFor(ns, 'web');
    const reasons = events.map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['Created', 'Updated']));
    expect(events.every((e) => e.reportingComponent === 'webservice-controller')).toBe(true);
    expect(reasons.filter((r) => !['Created', 'Updated'].includes(r))).toEqual([]);
  });

  it('requeues a missing dependency, then converges as soon as it appears, not after_seconds later', async () => {
    applyYaml(ns, webService('front', { image: 'nginx:1.27', dependsOn: ['back'] }));
    await eventually(() => readyOf(ws(ns, 'front'))?.reason === 'DependencyNotReady');
    const started = Date.now();
    applyYaml(ns, webService('back', { image: 'nginx:1.27' }));
    await eventually(() => isReady(ws(ns, 'front')));
    // --requeue-after is 60 s: converging within seconds means the dependency's event woke it.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(eventsFor(ns, 'front').filter((e) => e.reason === 'DependencyNotReady')).toHaveLength(1);
  });

  it('leaves a foreign ConfigMap untouched and reports the conflict once', async () => {
    applyYaml(
      ns,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'taken-desired' },
        data: { theirs: 'yes' },
      }),
    );
    const foreign = child(ns, 'taken');
    applyYaml(ns, webService('taken', { image: 'nginx:1.27' }));
    await eventually(() => readyOf(ws(ns, 'taken'))?.reason === 'ChildConflict');
    // Touch the CR twice more: each is a new event and a new reconcile, and still one report.
    kubectl(['label', 'webservice', 'taken', '-n', ns, 'touched=1']);
    kubectl(['label', 'webservice', 'taken', '-n', ns, 'touched=2', '--overwrite']);
    await sleep(2000);
    expect(child(ns, 'taken').metadata.resourceVersion).toBe(foreign.metadata.resourceVersion);
    expect(eventsFor(ns, 'taken').filter((e) => e.reason === 'ChildConflict')).toHaveLength(1);
    // The create failed before the CR was claimed: it owns nothing, so it holds no finalizer.
    expect(ws(ns, 'taken').metadata.finalizers ?? []).toEqual([]);
  });

  it('a delete needs no finalizer: the WebService goes at once, and the garbage collector takes its child', async () => {
    kubectl(['delete', 'webservice', 'web', '-n', ns, '--wait=false']);
    // The garbage collector's pace, on a loaded machine: allow it a minute.
    await eventually(() => ws(ns, 'web') === null && child(ns, 'web') === null, 60_000);
    expect(eventsFor(ns, 'web').map((e) => e.reason)).not.toContain('Finalized');
  });

  it('finalizes a delete held by our finalizer, as a user put it there', async () => {
    applyYaml(ns, webService('held', { image: 'nginx:1.27' }, { finalizers: [FINALIZER] }));
    await eventually(() => isReady(ws(ns, 'held')));
    kubectl(['delete', 'webservice', 'held', '-n', ns, '--wait=false']);
    await eventually(() => ws(ns, 'held') === null && child(ns, 'held') === null);
    expect(eventsFor(ns, 'held').map((e) => e.reason)).toContain('Finalized');
  });

  it("makes no write, and no request but its watches and the conflict's recheck, over 20 s of steady state", async () => {
    await eventually(() => isReady(ws(ns, 'front')) && isReady(ws(ns, 'back')));
    await sleep(1000);
    const window = new AuditWindow(ns);
    window.mark();
    await sleep(20_000);
    const requests = byController(await window.all());
    expect(requests.filter((e) => MUTATING.has(e.verb))).toEqual([]);
    // 'taken' is in conflict, which is not converged: the foreign ConfigMap is read again with
    // backoff (its removal is no event the label-selected watches see). Nothing else is read.
    // A discovery probe of an absent optional API (the Gateway API's), every 30 s, is a read that may fall in too.
    expect(requests.filter(isDiscoveryProbe).length).toBeLessThanOrEqual(1);
    const reads = requests.filter((e) => e.verb !== 'watch' && !isDiscoveryProbe(e));
    const recheck = (e: (typeof reads)[number]) =>
      e.verb === 'get' && e.objectRef?.resource === 'configmaps' && e.objectRef.name === 'taken-desired';
    expect(reads.filter((e) => !recheck(e))).toEqual([]);
    expect(reads.length).toBeLessThanOrEqual(5);
  }, 60_000);

  it('serves the named metrics with counts that match the audit log', async () => {
    const text = await metricsText(metricsPort);
    for (const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds_bucket',
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_retries_total',
      'workqueue_queue_duration_seconds_bucket',
      'workqueue_work_duration_seconds_bucket',
      'webservice_decisions_total',
      'webservice_writes_total',
    ]) {
      expect(text).toContain(name);
    }
    const audited = byController(await audit.all()).filter(
      (e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps' && e.responseStatus?.code === 201,
    );
    expect(metricValue(text, 'webservice_writes_total{verb="create",resource="configmaps"}')).toBe(audited.length);
    expect(
      metricValue(text, 'controller_runtime_reconcile_total{controller="webservice",result="success"}'),
    ).toBeGreaterThan(0);
    expect(metricValue(text, 'webservice_decisions_total{action="create"}')).toBeGreaterThanOrEqual(3);
  });

  it('logged no 403', () => {
    expect(ctl.stderr).not.toMatch(/forbidden|\b403\b/i);
  });

  it('exits 0 on SIGTERM after finishing its work', async () => {
    await ctl.stop();
    expect(ctl.exit).toEqual({ code: 0, signal: null });
    expect(ctl.entries.map((e) => e.msg)).toContain('stopped');
  });
});

describe('run: /readyz follows cache sync', () => {
  let ns: string;
  let ctl: ControllerProcess;
  afterAll(() => endControlled(ns, ctl));

  it('answers 503 while the caches cannot sync, and 200 once they have', async () => {
    ns = createNamespace('ready');
    // A ServiceAccount that may not list yet: the caches cannot sync.
    const config = serviceAccountKubeconfig(ns, 'late', ['--clusterrole=view']);
    ctl = new ControllerProcess(['-n', ns, '--kubeconfig', config, '--health-probe-bind-address', '127.0.0.1:0']);
    const port = Number((await ctl.waitForLog(/serving \/healthz/)).port);
    await ctl.waitForLog(/list\/watch failed/);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(503);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    kubectl(['apply', '-f', path.join(ROOT, 'crds/rbac/webservice-reconciler.yaml')]);
    kubectl([
      'create',
      'rolebinding',
      'late-reconciler',
      '-n',
      ns,
      '--clusterrole=webservice-reconciler',
      `--serviceaccount=${ns}:late`,
    ]);
    const deadline = Date.now() + 60_000;
    while ((await fetch(`http://127.0.0.1:${port}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error('/readyz did not turn 200 within 60s of the grant');
      await sleep(250);
    }
  }, 90_000);
});

// Issue 38: the Secret and ConfigMap watches start only once some WebService reads config, so a
// lab's controller needs no access to Secrets at all. Were a watch started, its failures would
// hold /readyz at 503 and log a 403.
describe('run: no WebService reads config', () => {
  let ns: string;
  let ctl: ControllerProcess;
  afterAll(() => endControlled(ns, ctl));

  it('needs no access to Secrets: it is ready, and the lab converges', async () => {
    ns = createNamespace('no-secrets');
    const reconciler = yaml.load(fs.readFileSync(path.join(ROOT, 'crds/rbac/webservice-reconciler.yaml'), 'utf8')) as {
      rules: { resources: string[] }[];
    };
    const rules = reconciler.rules.filter((rule) => !rule.resources.includes('secrets'));
    expect(rules).toHaveLength(reconciler.rules.length - 1);
    applyYaml(
      ns,
      JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'lab' }, rules }),
    );
    const config = serviceAccountKubeconfig(ns, 'lab', ['--role=lab']);
    ctl = new ControllerProcess(['-n', ns, '--kubeconfig', config, '--health-probe-bind-address', '127.0.0.1:0']);
    const port = Number((await ctl.waitForLog(/serving \/healthz/)).port);
    applyYaml(ns, webService('lab', { image: 'nginx:1.27' }));
    kubectl(['wait', 'webservice/lab', '-n', ns, '--for=condition=Ready', '--timeout=60s']);
    await eventually(
      async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined),
      30_000,
    );
    expect(ctl.stderr).not.toMatch(/forbidden|\b403\b/i);
  }, 120_000);
});

describe('run --leader-elect: two replicas', () => {
  let ns: string;
  const replicas: ControllerProcess[] = [];
  const start = () => {
    const ctl = new ControllerProcess([
      '-n',
      ns,
      '--kubeconfig',
      kubeconfig,
      '--leader-elect',
      '--leader-elect-namespace',
      'webservice-system',
    ]);
    replicas.push(ctl);
    return ctl;
  };
  const leaderOf = async (candidates: ControllerProcess[], timeoutMs: number) =>
    eventually(() => candidates.find((c) => c.entries.some((e) => /became leader/.test(e.msg))), timeoutMs);
  const identityOf = (ctl: ControllerProcess) => String(ctl.entries.find((e) => e.identity)?.identity);

  beforeAll(() => {
    ns = createNamespace('lease');
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    deleteNamespace(ns);
  });

  it('only the leader writes; kill -9 and the other takes over within the lease duration; SIGTERM hands over at once', async () => {
    const audit = new AuditWindow(ns);
    audit.mark();
    const [a, b] = [start(), start()];
    const first = await leaderOf([a, b], 30_000);
    const second = first === a ? b : a;
    await second.waitForLog(/waiting to lead/);
    const lease = getJson(['get', 'lease', 'webservice-controller', '-n', 'webservice-system']);
    expect(lease.spec.holderIdentity).toBe(identityOf(first));
    expect(lease.spec.renewTime).toMatch(/\.\d{6}Z$/);

    applyYaml(ns, webService('one', { image: 'nginx:1.27' }));
    await eventually(() => isReady(ws(ns, 'one')));
    const writers = new Set(
      byController(await audit.all())
        .filter((e) => MUTATING.has(e.verb) && e.objectRef?.resource !== 'leases')
        .map((e) => /run\/(\S+)/.exec(e.userAgent ?? '')?.[1]),
    );
    expect([...writers]).toEqual([identityOf(first)]);

    const killedAt = Date.now();
    first.signal('SIGKILL');
    await second.waitForLog(/became leader/, 30_000);
    // As client-go: the lease expires 15 s after the standby last saw it change, and the
    // standby polls every 2 s with 1.2 jitter, so at most 15 + 2 × 2.4 s after the kill;
    // plus the requests and timers of a loaded two-core machine running the other test
    // files at the same time (22.6 s has been seen there). Far from any second lease term.
    expect(Date.now() - killedAt).toBeLessThan(26_000);
    applyYaml(ns, webService('two', { image: 'nginx:1.27' }));
    await eventually(() => isReady(ws(ns, 'two')));

    const third = start();
    await third.waitForLog(/waiting to lead/);
    await sleep(1000);
    const handedAt = Date.now();
    await second.stop();
    expect(second.exit).toEqual({ code: 0, signal: null });
    await third.waitForLog(/became leader/, 15_000);
    expect(Date.now() - handedAt).toBeLessThan(8_000); // released, not expired
  }, 120_000);
});

describe('run: a kube-apiserver restart', () => {
  const external = process.env.USE_EXISTING_CLUSTER === 'true';
  let ns: string;
  let ctl: ControllerProcess;
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
    await ctl?.stop();
    if (ns) deleteNamespace(ns);
  });

  (external ? it.skip : it)(
    'the controller recovers by itself, and changes made after it converge',
    async () => {
      ns = createNamespace('restart');
      ctl = new ControllerProcess(['-n', ns, '--kubeconfig', kubeconfig]);
      await ctl.waitForLog(/controller working/);
      applyYaml(ns, webService('before', { image: 'nginx:1.27' }));
      await eventually(() => isReady(ws(ns, 'before')));
      const restart = spawnSync('bash', [path.join(ROOT, 'scripts/control-plane.sh'), 'restart-apiserver'], {
        encoding: 'utf8',
      });
      if (restart.status !== 0) throw new Error(restart.stderr);
      applyYaml(ns, webService('after', { image: 'nginx:1.27' }));
      await eventually(() => isReady(ws(ns, 'after')), 60_000);
      expect(ctl.exit).toBeNull();
    },
    120_000,
  );
});

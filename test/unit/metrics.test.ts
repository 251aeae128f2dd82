// Controller metrics (names, labels, counters that move) and the /metrics, /healthz and
// /readyz endpoints, on a real HTTP server bound to 127.0.0.1:0.
import * as http from 'node:http';
import { register as globalRegistry } from 'prom-client';
import { parseBindAddress, ProbeServer, startProbeServer } from '../../src/controller/http';
import { healthPieces, healthText } from '../../src/controller/health-metrics';
import { createMetrics } from '../../src/controller/metrics';
import type { WebService } from '../../src/core/model';
import { WorkQueue } from '../../src/controller/queue';
import { FakeClock } from '../support/fake-clock';

/** The sample line for a series, e.g. value(text, 'workqueue_depth{name="webservice"}'). */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('createMetrics', () => {
  it('registers controller-runtime and client-go names, with every series at zero from the start', async () => {
    const text = await createMetrics().registry.metrics();
    for (const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds',
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_retries_total',
      'workqueue_queue_duration_seconds',
      'workqueue_work_duration_seconds',
      'workqueue_unfinished_work_seconds',
      'workqueue_longest_running_processor_seconds',
      'controller_runtime_active_workers',
      'controller_runtime_max_concurrent_reconciles',
      'controller_runtime_reconcile_panics_total',
      'controller_runtime_terminal_reconcile_errors_total',
      'controller_runtime_reconcile_timeouts_total',
      'leader_election_master_status',
      'webservice_decisions_total',
      'webservice_writes_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
      expect(value(text, `controller_runtime_reconcile_total{controller="webservice",result="${result}"}`)).toBe(0);
    }
    expect(value(text, 'leader_election_master_status{name="webservice"}')).toBe(0);
  });

  it('counts reconciles by result, errors apart, and times them', async () => {
    const m = createMetrics('webservice');
    m.reconciled('success', 0.2);
    m.reconciled('success', 0.3);
    m.reconciled('error', 1.5);
    m.reconciled('requeue_after', 0.01);
    const text = await m.registry.metrics();

    expect(value(text, 'controller_runtime_reconcile_total{controller="webservice",result="success"}')).toBe(2);
    expect(value(text, 'controller_runtime_reconcile_total{controller="webservice",result="error"}')).toBe(1);
    expect(value(text, 'controller_runtime_reconcile_total{controller="webservice",result="requeue_after"}')).toBe(1);
    expect(value(text, 'controller_runtime_reconcile_errors_total{controller="webservice"}')).toBe(1);
    expect(value(text, 'controller_runtime_reconcile_time_seconds_count{controller="webservice"}')).toBe(4);
    expect(value(text, 'controller_runtime_reconcile_time_seconds_sum{controller="webservice"}')).toBeCloseTo(2.01);
  });

  it('counts decisions, writes and leadership', async () => {
    const m = createMetrics();
    m.decision('create');
    m.decision('create');
    m.decision('noop');
    m.write('create', 'configmaps');
    m.write('patch', 'webservices/status');
    m.leader(true);
    let text = await m.registry.metrics();

    expect(value(text, 'webservice_decisions_total{action="create"}')).toBe(2);
    expect(value(text, 'webservice_decisions_total{action="noop"}')).toBe(1);
    expect(value(text, 'webservice_writes_total{verb="create",resource="configmaps"}')).toBe(1);
    expect(value(text, 'webservice_writes_total{verb="patch",resource="webservices/status"}')).toBe(1);
    expect(value(text, 'leader_election_master_status{name="webservice"}')).toBe(1);

    m.leader(false);
    text = await m.registry.metrics();
    expect(value(text, 'leader_election_master_status{name="webservice"}')).toBe(0);
  });

  it('feeds the workqueue metrics from a WorkQueue, labelled with the controller name', async () => {
    const clock = new FakeClock();
    const m = createMetrics('ws');
    const queue = new WorkQueue({ clock, metrics: m.queue });
    queue.add('ns/a');
    queue.add('ns/b');
    queue.add('ns/a');
    await clock.advance(2); // 2ms in the queue
    const key = await queue.get();
    await clock.advance(50); // 50ms of work
    queue.done(key!);
    queue.addRateLimited(key!);
    const text = await m.registry.metrics();

    expect(value(text, 'workqueue_adds_total{name="ws"}')).toBe(2);
    expect(value(text, 'workqueue_depth{name="ws"}')).toBe(1);
    expect(value(text, 'workqueue_retries_total{name="ws"}')).toBe(1);
    expect(value(text, 'workqueue_queue_duration_seconds_bucket{le="0.001",name="ws"}')).toBe(0);
    expect(value(text, 'workqueue_queue_duration_seconds_bucket{le="0.01",name="ws"}')).toBe(1);
    expect(value(text, 'workqueue_work_duration_seconds_sum{name="ws"}')).toBeCloseTo(0.05);
    // client-go's buckets: 10ns to 10s, one per power of ten.
    expect(text).toContain('workqueue_work_duration_seconds_bucket{le="1e-8",name="ws"}');
    expect(text).toContain('workqueue_work_duration_seconds_bucket{le="10",name="ws"}');
  });

  it('reports the work in progress on each scrape: unfinished seconds summed, and the longest', async () => {
    const clock = new FakeClock();
    const m = createMetrics('ws');
    const queue = new WorkQueue({ clock, metrics: m.queue });
    let text = await m.registry.metrics();
    expect(value(text, 'workqueue_unfinished_work_seconds{name="ws"}')).toBe(0);
    expect(value(text, 'workqueue_longest_running_processor_seconds{name="ws"}')).toBe(0);

    queue.add('ns/stuck');
    queue.add('ns/quick');
    expect(await queue.get()).toBe('ns/stuck');
    await clock.advance(3000);
    expect(await queue.get()).toBe('ns/quick');
    await clock.advance(1000);
    text = await m.registry.metrics();
    expect(value(text, 'workqueue_unfinished_work_seconds{name="ws"}')).toBe(5); // 4 + 1
    expect(value(text, 'workqueue_longest_running_processor_seconds{name="ws"}')).toBe(4);

    queue.done('ns/stuck');
    text = await m.registry.metrics();
    expect(value(text, 'workqueue_unfinished_work_seconds{name="ws"}')).toBe(1);
    expect(value(text, 'workqueue_longest_running_processor_seconds{name="ws"}')).toBe(1);
    queue.done('ns/quick');
    text = await m.registry.metrics();
    expect(value(text, 'workqueue_unfinished_work_seconds{name="ws"}')).toBe(0);
  });

  it('counts workers in use, the worker limit, panics and timeouts; terminal errors stay 0', async () => {
    const m = createMetrics();
    let text = await m.registry.metrics();
    for (const series of [
      'controller_runtime_active_workers',
      'controller_runtime_max_concurrent_reconciles',
      'controller_runtime_reconcile_panics_total',
      'controller_runtime_terminal_reconcile_errors_total',
      'controller_runtime_reconcile_timeouts_total',
    ]) {
      expect(value(text, `${series}{controller="webservice"}`)).toBe(0);
    }
    m.maxConcurrentReconciles(4);
    m.activeWorkers(1);
    m.activeWorkers(1);
    m.activeWorkers(-1);
    m.panicked();
    m.timedOut();
    m.timedOut();
    text = await m.registry.metrics();
    expect(value(text, 'controller_runtime_max_concurrent_reconciles{controller="webservice"}')).toBe(4);
    expect(value(text, 'controller_runtime_active_workers{controller="webservice"}')).toBe(1);
    expect(value(text, 'controller_runtime_reconcile_panics_total{controller="webservice"}')).toBe(1);
    expect(value(text, 'controller_runtime_reconcile_timeouts_total{controller="webservice"}')).toBe(2);
    expect(value(text, 'controller_runtime_terminal_reconcile_errors_total{controller="webservice"}')).toBe(0);
  });

  it('uses a private registry: two controllers do not collide, the global registry stays empty', () => {
    expect(() => [createMetrics('one'), createMetrics('two')]).not.toThrow();
    expect(globalRegistry.getSingleMetric('workqueue_depth')).toBeUndefined();
  });
});

describe('per-WebService health', () => {
  const ws = (name: string, extra: Partial<WebService> = {}): WebService => ({
    metadata: { name, namespace: 'shop', generation: 3 },
    spec: { image: 'nginx:1.27', replicas: 3 },
    ...extra,
  });
  const ready = (status: 'True' | 'False', observedGeneration: number): WebService['status'] => ({
    replicas: 2,
    observedGeneration,
    conditions: [{ type: 'Ready', status, reason: 'RolloutInProgress', message: '', lastTransitionTime: '' }],
  });

  it('exports, while leading, a condition gauge per status, spec and ready replicas, generation and observed generation', async () => {
    const m = createMetrics();
    m.health(
      () => [ws('web', { status: ready('False', 2) }), ws('fresh')],
      () => true,
    );
    const text = await m.registry.metrics();
    const web = 'namespace="shop",name="web"';
    expect(value(text, `webservice_status_condition{${web},condition="Ready",status="true"}`)).toBe(0);
    expect(value(text, `webservice_status_condition{${web},condition="Ready",status="false"}`)).toBe(1);
    expect(value(text, `webservice_status_condition{${web},condition="Ready",status="unknown"}`)).toBe(0);
    expect(value(text, `webservice_spec_replicas{${web}}`)).toBe(3);
    expect(value(text, `webservice_status_replicas_ready{${web}}`)).toBe(2);
    expect(value(text, `webservice_metadata_generation{${web}}`)).toBe(3);
    expect(value(text, `webservice_status_observed_generation{${web}}`)).toBe(2);
    // Not reconciled yet: no condition, no ready replica, nothing observed.
    const fresh = 'namespace="shop",name="fresh"';
    expect(text).not.toContain(`webservice_status_condition{${fresh}`);
    expect(value(text, `webservice_status_replicas_ready{${fresh}}`)).toBe(0);
    expect(value(text, `webservice_status_observed_generation{${fresh}}`)).toBe(0);
    expect(text).not.toContain(`webservice_status_current_revision{${fresh}`);
  });

  it('exports the revision the pods run and the one they are rolled out to, where the status has them', async () => {
    const m = createMetrics();
    const rolling = ws('web', { status: { ...ready('True', 3), currentRevision: 3, updateRevision: 4 } });
    m.health(
      () => [rolling],
      () => true,
    );
    const text = await m.registry.metrics();
    expect(value(text, 'webservice_status_current_revision{namespace="shop",name="web"}')).toBe(3);
    expect(value(text, 'webservice_status_update_revision{namespace="shop",name="web"}')).toBe(4);
  });

  it('follows the source at each scrape: a WebService gone has no series left, a change shows at once', async () => {
    const m = createMetrics();
    let cached = [ws('a', { status: ready('False', 3) }), ws('b', { status: ready('False', 3) })];
    m.health(
      () => cached,
      () => true,
    );
    let text = await m.registry.metrics();
    expect(text).toContain('name="b"');
    cached = [ws('a', { status: ready('True', 3) })];
    text = await m.registry.metrics();
    expect(text).not.toContain('name="b"');
    expect(value(text, 'webservice_status_condition{namespace="shop",name="a",condition="Ready",status="true"}')).toBe(
      1,
    );
    expect(text.split('\n').filter((l) => l.startsWith('webservice_') && l.includes('namespace="shop"'))).toHaveLength(
      7,
    );
  });

  it('exports nothing from a standby, and starts when it leads', async () => {
    const m = createMetrics();
    let leading = false;
    m.health(
      () => [ws('web', { status: ready('True', 3) })],
      () => leading,
    );
    let text = await m.registry.metrics();
    expect(text).toContain('# TYPE webservice_status_condition gauge');
    expect(text).not.toContain('name="web"');
    leading = true;
    text = await m.registry.metrics();
    expect(value(text, 'webservice_spec_replicas{namespace="shop",name="web"}')).toBe(3);
  });

  it('escapes what a status may hold, and exports a condition type once even if the status repeats it', async () => {
    const m = createMetrics();
    const odd = 'Odd"\\\nType';
    const status = ready('True', 3);
    status!.conditions = [
      { type: odd, status: 'True', reason: 'R', message: '', lastTransitionTime: '' },
      { type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: '' },
      { type: 'Ready', status: 'False', reason: 'R', message: '', lastTransitionTime: '' },
    ];
    m.health(
      () => [ws('web', { status })],
      () => true,
    );
    const text = await m.registry.metrics();
    const web = 'namespace="shop",name="web"';
    expect(value(text, `webservice_status_condition{${web},condition="Odd\\"\\\\\\nType",status="true"}`)).toBe(1);
    const ready_ = text.split('\n').filter((l) => l.startsWith(`webservice_status_condition{${web},condition="Ready"`));
    expect(ready_).toEqual([
      `webservice_status_condition{${web},condition="Ready",status="true"} 1`,
      `webservice_status_condition{${web},condition="Ready",status="false"} 0`,
      `webservice_status_condition{${web},condition="Ready",status="unknown"} 0`,
    ]);
    // Every sample is one line: no newline of the status got through.
    expect(text.split('\n').filter((l) => l.startsWith('Type'))).toEqual([]);
  });

  it('makes the families in pieces of about 64 KiB, each ending at a line, that join to the whole text', () => {
    const many = Array.from({ length: 2000 }, (_, i) => ws(`web-${i}`, { status: ready('True', 3) }));
    const pieces = [...healthPieces(many)];
    expect(pieces.length).toBeGreaterThan(10);
    for (const piece of pieces) {
      expect(piece.endsWith('\n')).toBe(true);
      expect(piece.length).toBeLessThan(64 * 1024 + 200);
    }
    const text = pieces.join('');
    expect(text).toBe(healthText(many));
    // Each family is one block: its HELP, its TYPE, then its samples, 2000 WebServices each.
    const families = text.split(/^# HELP /m).slice(1);
    expect(families.map((f) => f.split(' ')[0])).toEqual([
      'webservice_status_condition',
      'webservice_spec_replicas',
      'webservice_status_replicas_ready',
      'webservice_metadata_generation',
      'webservice_status_observed_generation',
      'webservice_status_current_revision',
      'webservice_status_update_revision',
    ]);
    // The revisions only where a status has them (a workload's): these have none.
    expect(families.map((f) => f.trim().split('\n').length - 2)).toEqual([6000, 2000, 2000, 2000, 2000, 0, 0]);
  });

  it("exports the process's resident memory", async () => {
    const text = await createMetrics().registry.metrics();
    expect(value(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('parseBindAddress', () => {
  it('reads controller-runtime bind addresses', () => {
    expect(parseBindAddress(':8080')).toEqual({ port: 8080 });
    expect(parseBindAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseBindAddress('[::1]:9090')).toEqual({ host: '::1', port: 9090 });
    expect(parseBindAddress('0')).toBeUndefined();
    expect(parseBindAddress('')).toBeUndefined();
  });

  it('rejects an address without a port', () => {
    expect(() => parseBindAddress('8080')).toThrow(/invalid bind address "8080"/);
    expect(() => parseBindAddress('localhost')).toThrow(/want host:port/);
    expect(() => parseBindAddress(':99999')).toThrow(/invalid bind address/);
  });
});

describe('startProbeServer', () => {
  const servers: ProbeServer[] = [];
  const agent = new http.Agent({ keepAlive: true }); // close() must not wait for idle connections
  afterAll(() => agent.destroy());
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  async function serve(options: Parameters<typeof startProbeServer>[0]): Promise<ProbeServer> {
    const server = await startProbeServer(options);
    if (!server) throw new Error('expected a server');
    servers.push(server);
    return server;
  }

  function request(port: number, path: string, method = 'GET', via: http.Agent | false = agent) {
    return new Promise<{ status: number; body: string; contentType?: string; headers: http.IncomingHttpHeaders }>(
      (resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path, method, agent: via }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body,
              contentType: res.headers['content-type'],
              headers: res.headers,
            }),
          );
        });
        req.on('error', reject);
        req.end();
      },
    );
  }

  it('answers /readyz 503 until ready, then 200; /healthz 200', async () => {
    let ready = false;
    const { port } = await serve({ address: '127.0.0.1:0', ready: () => ready });
    expect(port).toBeGreaterThan(0);

    expect(await request(port, '/readyz')).toMatchObject({ status: 503, body: 'not ready\n' });
    expect(await request(port, '/healthz')).toMatchObject({ status: 200, body: 'ok' });
    ready = true;
    expect(await request(port, '/readyz')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('says why it is not ready when the check says why', async () => {
    const { port } = await serve({
      address: '127.0.0.1:0',
      ready: () => 'webservices: list/watch failed 2 times in a row',
    });
    expect(await request(port, '/readyz')).toMatchObject({
      status: 503,
      body: 'not ready: webservices: list/watch failed 2 times in a row\n',
    });
  });

  it('answers /healthz 503 when unhealthy, or when the check throws', async () => {
    let healthy: () => boolean = () => false;
    const { port } = await serve({ address: '127.0.0.1:0', ready: () => true, healthy: () => healthy() });
    expect((await request(port, '/healthz')).status).toBe(503);
    healthy = () => {
      throw new Error('boom');
    };
    expect((await request(port, '/healthz')).status).toBe(503);
  });

  it('serves /metrics in the registry format', async () => {
    const m = createMetrics();
    m.decision('update');
    const { port } = await serve({ address: '127.0.0.1:0', metrics: m.registry, ready: () => true });
    const res = await request(port, '/metrics');

    expect(res.status).toBe(200);
    expect(res.contentType).toBe(m.registry.contentType);
    expect(value(res.body, 'webservice_decisions_total{action="update"}')).toBe(1);
  });

  it('sends /metrics chunked as it is made, the same health families as the registry text', async () => {
    const m = createMetrics();
    const many = Array.from({ length: 2000 }, (_, i): WebService => ({
      metadata: { name: `web-${i}`, namespace: 'shop', generation: 1 },
      spec: { image: 'nginx:1.27', replicas: 2 },
    }));
    m.health(
      () => many,
      () => true,
    );
    const { port } = await serve({ address: '127.0.0.1:0', metrics: m.registry });
    const res = await request(port, '/metrics');

    expect(res.status).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const health = (text: string) => text.split('\n').filter((l) => l.includes('webservice_') && !l.includes('_total'));
    expect(health(res.body)).toEqual(health(await m.registry.metrics()));
    expect(value(res.body, 'webservice_spec_replicas{namespace="shop",name="web-1999"}')).toBe(2);
    // The registry's own families come first, then the health ones.
    expect(value(res.body, 'workqueue_depth{name="webservice"}')).toBe(0);
    expect(res.body.indexOf('workqueue_depth')).toBeLessThan(res.body.indexOf('# HELP webservice_status_condition'));
  });

  it('serves only what it was given: metrics and probes can be on separate addresses', async () => {
    const m = createMetrics();
    const metricsOnly = await serve({ address: '127.0.0.1:0', metrics: m.registry });
    const probesOnly = await serve({ address: '127.0.0.1:0', ready: () => true });

    expect((await request(metricsOnly.port, '/metrics')).status).toBe(200);
    expect((await request(metricsOnly.port, '/readyz')).status).toBe(404);
    expect((await request(probesOnly.port, '/metrics')).status).toBe(404);
    expect((await request(probesOnly.port, '/readyz')).status).toBe(200);
  });

  it('refuses methods other than GET and HEAD, and unknown paths', async () => {
    const { port } = await serve({ address: '127.0.0.1:0', ready: () => true });
    expect((await request(port, '/readyz', 'POST')).status).toBe(405);
    expect((await request(port, '/readyz', 'HEAD')).status).toBe(200);
    expect((await request(port, '/nope')).status).toBe(404);
  });

  it('is disabled by address "0"', async () => {
    await expect(startProbeServer({ address: '0', ready: () => true })).resolves.toBeUndefined();
  });

  it('close() stops listening even with a keep-alive connection open', async () => {
    const server = await startProbeServer({ address: '127.0.0.1:0', ready: () => true });
    await request(server!.port, '/healthz');
    await server!.close(); // while the agent still holds an idle connection to it
    await expect(request(server!.port, '/healthz', 'GET', false)).rejects.toThrow(/ECONNREFUSED/);
  });
});

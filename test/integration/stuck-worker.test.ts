// A reconcile held in a write (test/support/stop-in-write.cjs in hold mode: that one request
// waits, the process keeps serving /metrics). The work queue's gauges show it, `check` warns
// about it from /metrics, and with --reconcile-timeout it is aborted, counted, and retried.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ROOT,
  applyYaml,
  createNamespace,
  deleteNamespace,
  eventually,
  plugin,
  tryGetJson,
  webService,
} from '../support/cluster';
import { ControllerProcess } from '../support/controller';

const LEASE = 'stuck-worker-controller';
let ns: string;
let triggers: string;
beforeAll(() => {
  ns = createNamespace('stuck');
  triggers = fs.mkdtempSync(path.join(os.tmpdir(), 'stop-in-write-'));
});
afterAll(() => {
  deleteNamespace(ns);
  fs.rmSync(triggers, { recursive: true, force: true });
});

/** A controller whose first ConfigMap create waits while `trigger` exists. */
async function heldController(
  trigger: string,
  extra: string[] = [],
): Promise<{ ctl: ControllerProcess; port: number }> {
  fs.writeFileSync(trigger, '');
  const ctl = new ControllerProcess(
    [
      '-n',
      ns,
      '--leader-elect',
      `--leader-elect-namespace=${ns}`,
      `--leader-elect-lease-name=${LEASE}`,
      '--metrics-bind-address=127.0.0.1:0',
      ...extra,
    ],
    {
      NODE_OPTIONS: `--require ${path.join(ROOT, 'test/support/stop-in-write.cjs')}`,
      STOP_IN_WRITE: trigger,
      STOP_IN_WRITE_MATCH: `^POST /api/v1/namespaces/${ns}/configmaps`,
      STOP_IN_WRITE_MODE: 'hold',
    },
  );
  const port = Number((await ctl.waitForLog(/serving \/metrics/)).port);
  await ctl.waitForLog(/controller working/);
  return { ctl, port };
}

async function metrics(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{[^}]*\} (\S+)$/.exec(line);
    if (match) values.set(match[1], Number(match[2]));
  }
  return values;
}

const isReady = (name: string) => {
  const obj = tryGetJson(['get', 'webservice', name, '-n', ns]);
  return obj?.status?.conditions?.some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );
};

const check = (port: number) =>
  plugin([
    'check',
    '-n',
    ns,
    `--lease=${ns}/${LEASE}`,
    `--metrics-url=http://127.0.0.1:${port}/metrics`,
    '--stuck-worker-after=2s',
  ]);

describe('a reconcile held in a write, with no timeout', () => {
  let ctl: ControllerProcess;
  let port: number;
  const trigger = () => path.join(triggers, 'held');
  beforeAll(async () => {
    ({ ctl, port } = await heldController(trigger()));
  });
  afterAll(() => ctl.stop());

  it('shows in the work queue gauges while it holds its worker', async () => {
    applyYaml(ns, webService('held', { image: 'nginx:1.27' }));
    const seen = await eventually(async () => {
      const values = await metrics(port);
      return (values.get('workqueue_longest_running_processor_seconds') ?? 0) > 3 ? values : null;
    }, 30_000);
    expect(seen.get('workqueue_unfinished_work_seconds')).toBeGreaterThanOrEqual(
      seen.get('workqueue_longest_running_processor_seconds')!,
    );
    expect(seen.get('controller_runtime_active_workers')).toBe(1);
    expect(isReady('held')).toBeFalsy();
  });

  it('makes check warn, from /metrics, without failing it', () => {
    const result = check(port);
    expect(result.stdout).toMatch(
      /^‼ controller workers: a reconcile has been running for \d+(\.\d)?s \(over --stuck-worker-after 2s\); 1\/4 busy/m,
    );
    expect(result.stdout).not.toMatch(/^✗ controller workers/m);
  });

  it('lets go once the write goes out: Ready, and check passes', async () => {
    fs.rmSync(trigger());
    await eventually(() => isReady('held'), 30_000);
    await eventually(async () => (await metrics(port)).get('workqueue_longest_running_processor_seconds') === 0);
    expect(check(port).stdout).toMatch(
      /^✓ controller workers: 0\/4 busy, the longest reconcile running 0s; 0 timed out/m,
    );
  });
});

describe('a reconcile held in a write, with --reconcile-timeout', () => {
  it('is aborted, counted as a timeout, and retried to Ready', async () => {
    const { ctl, port } = await heldController(path.join(triggers, 'timeout'), ['--reconcile-timeout=2s']);
    try {
      applyYaml(ns, webService('timed', { image: 'nginx:1.27' }));
      // The trigger stays: the held request is the first only, and the retry goes out.
      await eventually(() => isReady('timed'), 60_000);
      const values = await metrics(port);
      expect(values.get('controller_runtime_reconcile_timeouts_total')).toBe(1);
      expect(values.get('workqueue_longest_running_processor_seconds')).toBe(0);
    } finally {
      await ctl.stop();
    }
  });
});

it('check says why it did not read the workers without --metrics-url', async () => {
  const ctl = new ControllerProcess([
    '-n',
    ns,
    '--leader-elect',
    `--leader-elect-namespace=${ns}`,
    `--leader-elect-lease-name=${LEASE}`,
  ]);
  try {
    await ctl.waitForLog(/controller working/);
    const result = plugin(['check', '-n', ns, `--lease=${ns}/${LEASE}`]);
    expect(result.stdout).toMatch(/^- controller workers: not checked: .*--metrics-url$/m);
    expect(result.stdout).toMatch(/, 1 not checked\n$/);
  } finally {
    await ctl.stop();
  }
});

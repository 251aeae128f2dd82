// A concurrent writer that races the reconciler on CRs and children, so its conditional
// writes (resourceVersion preconditions) get 409 Conflict: run and apply must retry from
// a fresh look, never overwrite the other writer's fields, and still converge.
import { AuditWindow, createNamespace, getJson, plugin, sleep, fromPlugin } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { checkInvariants } from '../support/invariants';
import {
  AdminClient,
  CONTROLLER_USER,
  OWNED,
  PluginProcess,
  cleanNamespace,
  createWebServices,
  numbered,
  recordResult,
} from './support';

const SIZE = 40;

/**
 * Until stopped: patches the CRs' labels (a new resourceVersion, same generation) and adds
 * a key of its own to every child, as fast as one keep-alive connection allows.
 */
function raceWriter(ns: string, names: string[]): { stop: () => Promise<number> } {
  const admin = new AdminClient();
  let running = true;
  let writes = 0;
  const loop = (async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the test sets it false to stop the loop
    for (let round = 0; running; round++) {
      await Promise.all(
        names.map(async (name) => {
          await admin.request('PATCH', `/apis/apps.labhub.io/v1/namespaces/${ns}/webservices/${name}`, {
            metadata: { labels: { round: String(round) } },
          });
          await admin.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}-desired`, {
            data: { theirs: String(round) },
          });
          writes += 2;
        }),
      );
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      admin.close();
      return writes;
    },
  };
}

function conflictsBy(
  events: { user: { username: string }; responseStatus?: { code?: number }; userAgent?: string }[],
  who: (e: { user: { username: string }; userAgent?: string }) => boolean,
): number {
  return events.filter((e) => who(e) && e.responseStatus?.code === 409).length;
}

describe('run against a racing writer', () => {
  let ns: string;
  let ctl: ControllerProcess;
  beforeAll(async () => {
    ns = createNamespace('race-run');
    ctl = new ControllerProcess(['-n', ns, '--kubeconfig', controllerKubeconfig()]);
    await ctl.waitForLog(/controller working/);
  });
  afterAll(async () => {
    await ctl.stop();
    cleanNamespace(ns);
  });

  it("gets 409s, retries, and converges without losing the other writer's key", async () => {
    const names = numbered('race', SIZE);
    const audit = new AuditWindow(ns);
    audit.mark();
    createWebServices(ns, names, (name) => ({ image: 'nginx:1.27', replicas: 1 + (Number(name.slice(5)) % 3) }));
    const writer = raceWriter(ns, names);
    await sleep(3_000);
    // Spec changes while the race is on: the reconciler must patch children others keep
    // touching. Whether one of its conditional writes loses a race is chance (0 to 7 of the
    // 80 writes of one round were seen), so rounds go on until it has met a 409, or 20 rounds.
    const admin = new AdminClient();
    const byController = (e: { user: { username: string } }) => e.user.username === CONTROLLER_USER;
    for (let round = 0; round < 20 && conflictsBy(await audit.events(), byController) === 0; round++) {
      const spec = { image: `nginx:1.${28 + round}` };
      await Promise.all(
        names.map((name) =>
          admin.request('PATCH', `/apis/apps.labhub.io/v1/namespaces/${ns}/webservices/${name}`, { spec }),
        ),
      );
      await sleep(2_000);
    }
    admin.close();
    await sleep(5_000);
    const writerWrites = await writer.stop();

    const conflicts = conflictsBy(await audit.events(), byController);
    const report = await checkInvariants({ namespace: ns, live: names, withinMs: 60_000, steadyWindowMs: 10_000 });
    recordResult('a concurrent writer forcing 409s on CRs and children', 'run', report, { conflicts, writerWrites });
    expect(conflicts).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
    const children = getJson(['get', 'configmaps', '-n', ns, '-l', OWNED]).items as {
      data: Record<string, string | undefined>;
    }[];
    expect(children.filter((cm) => cm.data.theirs === undefined)).toEqual([]);
  });
});

describe('apply against a racing writer', () => {
  let ns: string;
  beforeAll(() => {
    ns = createNamespace('race-apply');
  });
  afterAll(() => cleanNamespace(ns));

  it('passes during the race get 409s and retry; a pass after it converges', async () => {
    const names = numbered('race', SIZE);
    createWebServices(ns, names);
    const audit = new AuditWindow(ns);
    audit.mark();
    const writer = raceWriter(ns, names);
    for (let i = 0; i < 5; i++) {
      const during = new PluginProcess(['apply', '--all', '-n', ns, '-o', 'json']);
      await during.exited;
    }
    const writerWrites = await writer.stop();
    const conflicts = conflictsBy(await audit.events(), fromPlugin);
    const after = plugin(['apply', '--all', '--wait=2m', '-n', ns, '-o', 'json']);
    expect(after.status).toBe(0);
    const report = await checkInvariants({ namespace: ns, live: names, withinMs: 10_000, steadyWindowMs: 2_000 });
    recordResult('a concurrent writer forcing 409s on CRs and children', 'apply', report, { conflicts, writerWrites });
    expect(conflicts).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});

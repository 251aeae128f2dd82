// run SIGKILLed in the middle of a burst of 500 creates, then restarted: the new process
// starts from a fresh list and must finish what the old one left half done.
import { spawn } from 'node:child_process';
import { createNamespace, eventually } from '../support/cluster';
import { ControllerProcess, controllerKubeconfig } from '../support/controller';
import { checkInvariants } from '../support/invariants';
import { OWNED, cleanNamespace, count, numbered, recordResult } from './support';

const BURST = 500;

let ns: string;
let kubeconfig: string;
const controllers: ControllerProcess[] = [];
beforeAll(() => {
  ns = createNamespace('runkill');
  kubeconfig = controllerKubeconfig();
});
afterAll(async () => {
  await Promise.all(controllers.map((c) => c.stop()));
  cleanNamespace(ns);
});

function startController(): ControllerProcess {
  const ctl = new ControllerProcess(['-n', ns, '--kubeconfig', kubeconfig, '--concurrency', '8']);
  controllers.push(ctl);
  return ctl;
}

/** Creates the burst in the background (one kubectl create per 100), resolving when all are in. */
function burst(names: string[]): Promise<void> {
  const batches = [];
  for (let i = 0; i < names.length; i += 100) {
    const items = names.slice(i, i + 100).map((name) => ({
      apiVersion: 'apps.labhub.io/v1',
      kind: 'WebService',
      metadata: { name, namespace: ns },
      spec: { image: 'nginx:1.27' },
    }));
    batches.push(JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  }
  return batches.reduce(
    (previous, batch) =>
      previous.then(
        () =>
          new Promise<void>((resolve, reject) => {
            const child = spawn('kubectl', ['create', '-f', '-'], { stdio: ['pipe', 'ignore', 'inherit'] });
            child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kubectl create exited ${code}`))));
            child.stdin.end(batch);
          }),
      ),
    Promise.resolve(),
  );
}

it('SIGKILL mid-burst, restart: all 500 converge, nothing duplicated or orphaned, then silence', async () => {
  const first = startController();
  await first.waitForLog(/controller working/);
  const names = numbered('burst', BURST);
  const created = burst(names);
  // Kill once the controller has made a good part of the children, not all of them.
  await eventually(() => count('configmaps', ns, OWNED) >= 100, 120_000);
  first.signal('SIGKILL');
  await first.exited;
  const childrenAtKill = count('configmaps', ns, OWNED);
  await created;

  const second = startController();
  await second.waitForLog(/controller working/);
  const report = await checkInvariants({ namespace: ns, live: names, withinMs: 180_000, steadyWindowMs: 10_000 });
  recordResult('run SIGKILLed during a burst of 500 creates, then restarted', 'run', report, {
    childrenAtKill,
    killedBy: first.exit?.signal,
  });
  expect(first.exit?.signal).toBe('SIGKILL');
  expect(childrenAtKill).toBeLessThan(BURST);
  expect(report.violations).toEqual([]);
});

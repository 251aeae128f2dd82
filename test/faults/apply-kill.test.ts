// apply --all SIGKILLed at varied points of a cold pass over 300 WebServices, ten times;
// each time apply runs again, and the invariants must hold: nothing lost, no orphan, no
// duplicate child, no stuck finalizer, and a converged pass that writes nothing.
import { AuditWindow, createNamespace, plugin, sleep } from '../support/cluster';
import { checkInvariants } from '../support/invariants';
import {
  AuditTail,
  OWNED,
  PluginProcess,
  cleanNamespace,
  count,
  createWebServices,
  numbered,
  recordResult,
} from './support';

const SIZE = 300;
/**
 * Where to kill: once this many children exist. 0 is before the first write (while it
 * lists); 300 is after the last child, while statuses and Events are still being written.
 */
const KILL_AT_CHILDREN = [0, 10, 40, 80, 120, 160, 200, 240, 270, 295];

/** Kills the pass once it has created `children` children (0: while it is still listing). */
async function killWhen(pass: PluginProcess, created: AuditTail, children: number): Promise<void> {
  if (children === 0) await sleep(100);
  else while (pass.exit === null && created.count() < children) await sleep(5);
  pass.signal('SIGKILL');
}

const namespaces: string[] = [];
afterAll(() => namespaces.forEach(cleanNamespace));

describe.each(KILL_AT_CHILDREN.map((children, i) => [i + 1, children]))(
  'trial %i: SIGKILL once %i children exist',
  (trial, killAt) => {
    it('then apply --all --wait converges, and every invariant holds', async () => {
      const ns = createNamespace(`kill-${trial}`);
      namespaces.push(ns);
      const names = numbered('ws', SIZE);
      createWebServices(ns, names, (name) => ({ image: 'nginx:1.27', replicas: (Number(name.slice(3)) % 5) + 1 }));
      const audit = new AuditWindow(ns);
      audit.mark();

      const created = new AuditTail(
        (e) =>
          e.verb === 'create' &&
          e.objectRef?.resource === 'configmaps' &&
          e.objectRef.namespace === ns &&
          e.responseStatus?.code === 201,
      );
      const started = Date.now();
      const killed = new PluginProcess(['apply', '--all', '-n', ns, '-o', 'json']);
      await killWhen(killed, created, killAt);
      const exit = await killed.exited;
      const killedAfterMs = Date.now() - started;
      const writesBeforeKill = (await audit.mutating()).length;
      const childrenAtKill = count('configmaps', ns, OWNED);

      const again = plugin(['apply', '--all', '--wait=3m', '-n', ns, '-o', 'json']);
      expect(again.stderr).toBe('');
      expect(again.status).toBe(0);

      const report = await checkInvariants({
        namespace: ns,
        live: names,
        withinMs: 30_000,
        steadyWindowMs: 2_000,
        duringSteadyState: () => {
          const converged = plugin(['apply', '--all', '-n', ns, '-o', 'json']);
          if (converged.status !== 0)
            throw new Error(`a converged pass exited ${converged.status}: ${converged.stderr}`);
        },
      });
      recordResult('apply --all SIGKILLed mid-pass (300 CRs), then apply again', 'apply', report, {
        trial,
        killAt,
        killedAfterMs,
        killedBy: exit.signal ?? `exit ${exit.code}`,
        writesBeforeKill,
        childrenAtKill,
      });
      expect(exit.signal).toBe('SIGKILL'); // killed mid-pass, not after it ended
      expect(report.violations).toEqual([]);
      expect(report.figures.liveCRs).toBe(SIZE);
    });
  },
);

// One campaign run: a seeded history (or a given one, to replay) carried out against the
// plane with `run` as the controller, then the oracles at quiescence. The result holds the
// history, every violation and the figures a report needs (how often each step ran, how
// often each perturbation fired, how long each part took).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, deleteNamespace } from '../support/cluster';
import { generate } from './generate';
import type { ProxyCounts } from '../../harness/proxy-kubeconfig';
import type { Perturbation } from '../support/proxy';
import {
  Reversibility,
  crashViolations,
  quiesce,
  readState,
  stateViolations,
  statusRegressions,
  steadyStateWrites,
} from './oracles';
import { describeStep, type Step } from './steps';
import { World } from './world';

export interface CampaignOptions {
  seed: number;
  /** The history to run; by default the one the seed generates, of `steps` steps. */
  history?: Step[];
  steps?: number;
  /** How long the namespace may take to converge once the steps end. */
  convergeWithinMs?: number;
  /** The quiet window in which the controller may not write. */
  steadyWindowMs?: number;
  /** Sieve's stale and unobserved states: the controller's watches go through the proxy. */
  perturbation?: Perturbation;
  log?: (line: string) => void;
}

export interface CampaignResult {
  seed: number;
  history: Step[];
  violations: string[];
  /** Each controller's log (its stderr), in the order they ran: what a failure is read from. */
  controllerLogs: string[];
  figures: {
    stepsMs: number;
    convergedMs: number;
    totalMs: number;
    controllers: number;
    counts: World['counts'];
    fired: World['fired'];
    /** The watch proxy's counts: watches, events, delayed, coalesced. */
    proxy: Partial<ProxyCounts>;
    webServices: number;
    /** How often a spec came back to one seen at a quiescence, and its children were compared. */
    reverted: number;
    /** Status writes the watch sampled. */
    statusSamples: number;
  };
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const history = options.history ?? generate(options.seed, options.steps ?? 30);
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const world = new World('campaign', options.perturbation);
  const violations: string[] = [];
  const reversibility = new Reversibility();
  const times = { stepsMs: 0, convergedMs: 0, webServices: 0 };
  /** The steps carried out: all of them, unless a check in the middle failed. */
  let ran = history;
  try {
    await world.startController();
    for (const [i, step] of history.entries()) {
      log(`step ${i + 1}/${history.length}: ${describeStep(step)}`);
      await world.step(step);
      if (step.step !== 'check') continue;
      const checked = await quiesce(world, options.convergeWithinMs ?? 120_000);
      if (checked.violations.length === 0) checked.violations.push(...reversibility.check(readState(world.ns), i + 1));
      if (checked.violations.length > 0) {
        // The history stops here: what follows would only hide or repeat it.
        violations.push(...checked.violations.map((v) => `at step ${i + 1}: ${v}`));
        ran = history.slice(0, i + 1);
        break;
      }
    }
    times.stepsMs = Date.now() - started;
    // Quiescence at the end, unless a check in the middle failed already.
    if (ran === history) await finalChecks();
    times.webServices = readState(world.ns).webServices.length;
  } finally {
    await world.stop();
    violations.unshift(...world.violations);
    violations.push(...crashViolations(world), ...statusRegressions(world.statusSamples));
    if (violations.length === 0 || process.env.CAMPAIGN_KEEP_NAMESPACE !== 'true') deleteNamespace(world.ns);
    else log(`namespace ${world.ns} kept for a look`);
  }
  return finish();

  /** Quiescence: the controller runs, and nothing else changes anything any more. */
  async function finalChecks(): Promise<void> {
    await world.startController();
    await world.settleApplies();
    const converged = await quiesce(world, options.convergeWithinMs ?? 120_000);
    times.convergedMs = converged.ms;
    violations.push(...converged.violations);
    if (converged.violations.length === 0) violations.push(...reversibility.check(readState(world.ns), history.length));
    if (converged.violations.length === 0) {
      const writes = await steadyStateWrites(world.ns, options.steadyWindowMs ?? 20_000, 60_000);
      if (writes.length > 0)
        violations.push(
          `${writes.length} write(s) by the controller in the steady state: ${writes.slice(0, 10).join('; ')}`,
        );
      // And it still holds after the window.
      violations.push(...stateViolations(readState(world.ns), world));
    }
  }

  function finish(): CampaignResult {
    return {
      seed: options.seed,
      history: ran,
      violations,
      controllerLogs: world.controllers.map((c) => c.process.stderr),
      figures: {
        stepsMs: times.stepsMs,
        convergedMs: times.convergedMs,
        totalMs: Date.now() - started,
        controllers: world.controllers.length,
        counts: world.counts,
        fired: world.fired,
        proxy: world.proxyCounts(),
        webServices: times.webServices,
        reverted: reversibility.compared,
        statusSamples: world.statusSamples.length,
      },
    };
  }
}

/** Where a failing history is written, for --replay. */
export function historyFile(seed: number, suffix = ''): string {
  return path.join(ROOT, '.cache', 'campaign', `seed-${seed}${suffix}.json`);
}

/** The report of a failing run: its seed, how to replay it, its violations and its history. */
export function failureReport(result: CampaignResult, file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(result.history, null, 2)}\n`);
  const logs = result.controllerLogs.map((log, i) => {
    const logFile = file.replace(/\.json$/, `.controller-${i}.log`);
    fs.writeFileSync(logFile, log);
    return path.relative(ROOT, logFile);
  });
  return [
    `campaign seed ${result.seed}: ${result.violations.length} violation(s)`,
    ...result.violations.map((v) => `  - ${v}`),
    `replay: npm run test:campaign -- --seed ${result.seed} --steps ${result.history.length}` +
      ` (or --replay ${path.relative(ROOT, file)})`,
    ...(logs.length > 0 ? [`controller logs: ${logs.join(', ')}`] : []),
    'history:',
    ...result.history.map((step, i) => `  ${i + 1}. ${describeStep(step)}`),
  ].join('\n');
}

// The campaign's entry point for jest (npm run test:campaign maps its flags to these variables):
// CAMPAIGN_SEEDS (one seed or several, comma-separated; by default one from the clock, printed),
// CAMPAIGN_STEPS (per seed, 30 by default) or CAMPAIGN_REPLAY (a history file a failing run
// wrote). Each seed is one test; a failure prints the seed, the violations and the history,
// and with CAMPAIGN_SHRINK=N (--shrink N) the smallest history still failing found in N more runs.
import * as fs from 'node:fs';
import { failureReport, historyFile, runCampaign } from './campaign';
import { shrink } from './shrink';
import type { Step } from './steps';

const replay = process.env.CAMPAIGN_REPLAY;
const seeds = (process.env.CAMPAIGN_SEEDS ?? String(Date.now() % 1_000_000)).split(',').map(Number);
const steps = Number(process.env.CAMPAIGN_STEPS ?? 30);
const shrinkTries = Number(process.env.CAMPAIGN_SHRINK ?? 0);
/**
 * CAMPAIGN_PERTURB=P,MS[,S] (--perturb P,MS[,S]): a share P of watch events hold the stream up
 * to MS ms; a share S of lists are answered from a lagging copy.
 */
const perturb = process.env.CAMPAIGN_PERTURB?.split(',').map(Number);
const log = (line: string) => process.stderr.write(`${line}\n`);

const runs = replay
  ? [{ seed: 0, history: JSON.parse(fs.readFileSync(replay, 'utf8')) as Step[] }]
  : seeds.map((seed) => ({ seed, history: undefined }));

describe('correctness campaign', () => {
  for (const { seed, history } of runs) {
    const title = history ? `replay of ${replay} (${history.length} steps)` : `seed ${seed}, ${steps} steps`;
    it(title, async () => {
      const perturbation = perturb && { delayP: perturb[0], delayMs: perturb[1], staleListP: perturb[2], seed };
      const result = await runCampaign({ seed, history, steps, perturbation, log });
      log(`campaign ${title}: ${JSON.stringify(result.figures)}`);
      if (result.violations.length > 0) {
        log(failureReport(result, historyFile(seed)));
        if (shrinkTries > 0) {
          const smallest = await shrink(
            result.history,
            async (candidate) => (await runCampaign({ seed, history: candidate, perturbation })).violations.length > 0,
            shrinkTries,
            (smaller) => log(`shrinking: ${smaller.length} steps still fail`),
          );
          const last = await runCampaign({ seed, history: smallest.items, perturbation });
          log(`shrunk in ${smallest.tries} runs:\n${failureReport(last, historyFile(seed, '-min'))}`);
        }
      }
      expect(result.violations).toEqual([]);
    });
  }
});

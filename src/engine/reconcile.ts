// The imperative shell around the core: observe -> decide -> act -> status, for one CR.
// Every command and reconcile.sh reach the core's decide and computeStatus through here
// or through the same core functions; no decision is made in this file.
import { Decision, DecideOptions, Op, decide } from '../core/decide';
import { SyncInput } from '../core/model';
import { Observation, observe } from '../core/observe';
import { Outcome, StatusResult, computeStatus, isConverged, statusPatch } from '../core/status';
import { ReportItem } from '../core/report';
import { ConflictError, NotFoundError } from '../kube/errors';
import type { KubeClient } from '../kube/client';
import { gatherOne } from './gather';

/** Optimistic-concurrency conflicts are retried from a fresh observation this many times. */
const MAX_ATTEMPTS = 4;

export interface ReconcileOptions extends DecideOptions {
  now: () => string;
  /** Compute everything, write nothing. */
  dryRun?: boolean;
}

export interface ReconcileResult {
  observation: Observation;
  decision: Decision;
  status: StatusResult;
  statusWritten: boolean;
  /** ConfigMaps a finalize deleted. */
  cleaned: string[];
  error?: Error;
  converged: boolean;
}

export async function reconcile(client: KubeClient, input: SyncInput, options: ReconcileOptions): Promise<ReconcileResult> {
  let current = input;
  for (let attempt = 1; ; attempt++) {
    const observation = observe(current);
    const decision = decide(observation, options);
    if (options.dryRun) return planned(observation, decision, options);

    let cleaned: string[] = [];
    let outcome: Outcome = { kind: 'applied' };
    try {
      cleaned = await carryOut(client, decision);
    } catch (err) {
      if (err instanceof ConflictError && attempt < MAX_ATTEMPTS) {
        try {
          current = await gatherOne(client, observation.namespace, observation.name);
          continue;
        } catch (again) {
          err = again; // e.g. the CR was deleted meanwhile: report it as this CR's failure
        }
      }
      outcome = { kind: 'failed', message: (err as Error).message };
    }
    return finish(client, observation, decision, outcome, cleaned, options);
  }
}

function planned(observation: Observation, decision: Decision, options: ReconcileOptions): ReconcileResult {
  const status = computeStatus(observation, decision, { kind: 'planned' }, options.now());
  return {
    observation,
    decision,
    status,
    statusWritten: false,
    cleaned: [],
    converged: isConverged(observation.generation, status.status),
  };
}

async function finish(
  client: KubeClient,
  observation: Observation,
  decision: Decision,
  outcome: Outcome,
  cleaned: string[],
  options: ReconcileOptions,
): Promise<ReconcileResult> {
  const status = computeStatus(observation, decision, outcome, options.now());
  let error = outcome.kind === 'failed' ? new Error(outcome.message) : undefined;
  let statusWritten = false;
  const patch = statusPatch(status);
  if (patch) {
    try {
      await client.patchWebServiceStatus(observation.namespace, observation.name, patch);
      statusWritten = true;
    } catch (err) {
      error ??= err as Error;
    }
  }
  const converged = !error && isConverged(observation.generation, status.status);
  return { observation, decision, status, statusWritten, cleaned, error, converged };
}

/** Executes a decision's ops in order. Returns the ConfigMaps it deleted. */
export async function carryOut(client: KubeClient, decision: Decision): Promise<string[]> {
  const cleaned: string[] = [];
  for (const op of decision.ops) {
    const deleted = await execute(client, decision, op);
    if (deleted) cleaned.push(deleted);
  }
  return cleaned;
}

/** Carries out one op; returns what it deleted, if anything. */
async function execute(client: KubeClient, decision: Decision, op: Op): Promise<string | null> {
  const { namespace, name } = decision;
  switch (op.op) {
    case 'addFinalizer':
    case 'removeFinalizer':
      try {
        await client.patchWebService(namespace, name, {
          metadata: { resourceVersion: op.resourceVersion, finalizers: op.finalizers },
        });
      } catch (err) {
        // The object is already gone once its last finalizer is off: nothing left to do.
        if (!(op.op === 'removeFinalizer' && err instanceof NotFoundError)) throw err;
      }
      return null;
    case 'createChild':
      await client.createConfigMap(namespace, op.object);
      return null;
    case 'patchChild':
      await client.patchConfigMap(namespace, op.name, op.patch);
      return null;
    case 'deleteChild':
      return (await client.deleteConfigMap(namespace, op.name, op.uid)) ? `configmap/${op.name}` : null;
  }
}

export function reportItem(result: ReconcileResult): ReportItem {
  const { decision } = result;
  const item: ReportItem = {
    name: decision.name,
    namespace: decision.namespace,
    action: decision.action,
    reason: decision.reason,
    target: decision.target,
    converged: result.converged,
  };
  if (decision.after_seconds !== undefined) item.after_seconds = decision.after_seconds;
  if (result.error) item.error = result.error.message;
  return item;
}

/** Runs fn over items with at most `limit` in flight, keeping the input order in the result. */
export async function mapBounded<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  });
  await Promise.all(workers);
  return results;
}

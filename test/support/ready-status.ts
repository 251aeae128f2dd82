// A WebService's status once a reconcile of its generation succeeded: Ready, as the controller writes it.
import type { WebServiceStatus } from '../../src/core/model';

export function readyStatus(generation = 1, lastTransitionTime = 'x'): WebServiceStatus {
  return {
    observedGeneration: generation,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Reconciled',
        message: 'ok',
        lastTransitionTime,
        observedGeneration: generation,
      },
    ],
  };
}

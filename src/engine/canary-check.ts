// What a running canary needs read beyond its children, for the core to weigh (core/canary.ts):
// its check's query, sent to the Prometheus-compatible HTTP API that the operator configured
// (--prometheus-url), never to an address a WebService names, with its result (one number, or
// why there is none); and the restarts of its pods.
import { checkDue } from '../core/canary';
import { TRACK_LABEL } from '../core/canary-requests';
import { CANARY_PODS } from '../core/kinds';
import { INSTANCE_LABEL, instanceLabelValue, Child } from '../core/model';
import type { CanaryCheckResult, SyncInput } from '../core/model';
import type { KubeApi } from '../kube/api';

/** How long a query may take: a slow metrics API holds the canary, it does not hold the pass. */
const QUERY_TIMEOUT_MS = 5_000;

export interface MetricsApi {
  /** The instant query's result as one number, or why it is not one. */
  query(promql: string): Promise<CanaryCheckResult>;
}

/** The HTTP API at a base URL (http://prometheus.monitoring:9090), as Prometheus, Thanos and Mimir serve it. */
export function prometheusApi(baseUrl: string): MetricsApi {
  const endpoint = new URL('api/v1/query', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  return {
    async query(promql) {
      const url = new URL(endpoint);
      // The query is the WebService's text: it travels as a parameter, encoded by URLSearchParams.
      url.searchParams.set('query', promql);
      let body: unknown;
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(QUERY_TIMEOUT_MS) });
        body = await response.json();
        if (!response.ok) return { error: `${endpoint.origin} answered ${response.status}: ${errorOf(body)}` };
      } catch (err) {
        return { error: `${endpoint.origin}: ${(err as Error).message}` };
      }
      return resultOf(body);
    },
  };
}

function errorOf(body: unknown): string {
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === 'string' ? error : 'no error message';
}

/** One number from an instant query's data: a scalar, or a vector of exactly one sample. */
function resultOf(body: unknown): CanaryCheckResult {
  const data = (body as { status?: string; data?: { resultType?: string; result?: unknown } } | null)?.data;
  if ((body as { status?: string } | null)?.status !== 'success' || !data) {
    return { error: `the query failed: ${errorOf(body)}` };
  }
  const sample = (pair: unknown): CanaryCheckResult => {
    const text = Array.isArray(pair) ? (pair as unknown[])[1] : undefined;
    return typeof text === 'string' ? { value: Number(text) } : { error: 'the query gave no value' };
  };
  if (data.resultType === 'scalar') return sample(data.result);
  if (data.resultType === 'vector' && Array.isArray(data.result)) {
    const samples = data.result as { value?: unknown }[];
    if (samples.length !== 1) return { error: `the query gave ${samples.length} samples, not one` };
    return sample(samples[0].value);
  }
  return { error: `the query gave a ${String(data.resultType)}, not a scalar or a vector of one sample` };
}

/** The input with what its running canary needs read: its check's result and its pods' restarts. */
export async function withCanaryReads(
  input: SyncInput,
  client: Pick<KubeApi, 'list'>,
  metrics: MetricsApi | undefined,
  at: string = new Date().toISOString(),
): Promise<SyncInput> {
  return withCanaryRestarts(await withCanaryCheck(input, metrics, at), client);
}

/** Whether the WebService's status says a canary runs (and it is not being deleted): only then is any of this read. */
function canaryRuns(parent: SyncInput['parent']): boolean {
  const phase = parent.status?.rollout?.phase;
  return phase !== undefined && phase !== 'Aborted' && phase !== 'Completed' && !parent.metadata.deletionTimestamp;
}

/**
 * The input with its canary check's result, where a canary with a check runs and the check is
 * due at this pass (core/canary.ts checkDue); without an API to ask, why there is no result.
 */
export async function withCanaryCheck(
  input: SyncInput,
  metrics: MetricsApi | undefined,
  at: string,
): Promise<SyncInput> {
  const check = input.parent.spec.rollout?.canary.check;
  if (!check || !canaryRuns(input.parent) || !checkDue(input.parent, at)) return input;
  if (!metrics) return { ...input, canaryCheck: { error: 'no metrics API: it runs without --prometheus-url' } };
  return { ...input, canaryCheck: await metrics.query(check.query) };
}

/** A pod as the restart count needs it. */
interface PodStatusView {
  metadata: { deletionTimestamp?: string };
  status?: { containerStatuses?: { restartCount?: number }[]; initContainerStatuses?: { restartCount?: number }[] };
}

/**
 * The input with the most restarts of any one of its running canary's pods (a LIST by the
 * canary's labels), where a canary runs; the core weighs it against maxRestarts.
 */
async function withCanaryRestarts(input: SyncInput, client: Pick<KubeApi, 'list'>): Promise<SyncInput> {
  const { metadata, spec } = input.parent;
  if (!spec.rollout || !canaryRuns(input.parent)) return input;
  const selector = `${TRACK_LABEL}=canary,${INSTANCE_LABEL}=${instanceLabelValue(metadata.name)}`;
  const pods = await client.list<Child>(CANARY_PODS, metadata.namespace ?? 'default', { labelSelector: selector });
  const restarts = (pods.items as unknown as PodStatusView[])
    .filter((pod) => !pod.metadata.deletionTimestamp)
    .map((pod) =>
      [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].reduce(
        (sum, container) => sum + (container.restartCount ?? 0),
        0,
      ),
    );
  return { ...input, canaryRestarts: Math.max(0, ...restarts) };
}

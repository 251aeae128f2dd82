// A canary check's query, against a small HTTP server that answers as the Prometheus query API
// does: the query travels encoded, one number comes back, and every other answer says why not.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MetricsApi, prometheusApi, withCanaryCheck } from '../../src/engine/canary-check';
import type { SyncInput } from '../../src/core/model';

let server: http.Server;
let base: string;
const asked: string[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    asked.push(`${url.pathname} ${url.searchParams.get('query')}`);
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const success = (resultType: string, result: unknown) => ({
  status: 200,
  body: { status: 'success', data: { resultType, result } },
});

describe('prometheusApi', () => {
  it.each([
    ['a scalar', success('scalar', [1733400000, '0.25']), { value: 0.25 }],
    ['a vector of one sample', success('vector', [{ metric: {}, value: [1733400000, '3'] }]), { value: 3 }],
    ['an empty vector', success('vector', []), { error: 'the query gave 0 samples, not one' }],
    [
      'a vector of two',
      success('vector', [
        { metric: { a: '1' }, value: [1, '1'] },
        { metric: { a: '2' }, value: [1, '2'] },
      ]),
      { error: 'the query gave 2 samples, not one' },
    ],
    ['a matrix', success('matrix', []), { error: 'the query gave a matrix, not a scalar or a vector of one sample' }],
    [
      'a refused query',
      { status: 400, body: { status: 'error', errorType: 'bad_data', error: 'parse error at char 5' } },
      { error: expect.stringMatching(/answered 400: parse error at char 5$/) },
    ],
  ])('reads %s', async (_, response, expected) => {
    answer = response;
    expect(await prometheusApi(base).query('up')).toEqual(expected);
  });

  it('sends the query as a parameter, encoded, to /api/v1/query under the base path', async () => {
    answer = success('scalar', [1, '1']);
    asked.length = 0;
    const query = 'sum(rate(http_requests_total{job="shop",code=~"5.."}[1m])) & x=1';
    await prometheusApi(`${base}/prometheus`).query(query);
    expect(asked).toEqual([`/prometheus/api/v1/query ${query}`]);
  });

  it('says where it could not connect', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await prometheusApi(`http://127.0.0.1:${port}`).query('up')).toEqual({
      error: expect.stringMatching(new RegExp(`^http://127.0.0.1:${port}: `)),
    });
  });
});

describe('withCanaryCheck', () => {
  const AT = '2026-01-01T00:10:00Z';
  const STEPS = [{ weight: 10 }, { pause: { duration: '5m' } }, { pause: {} }, { weight: 50 }];
  const input = (
    phase: string | undefined,
    { check = true, step = 1, startedAt = '2026-01-01T00:00:00Z' } = {},
  ): SyncInput => ({
    parent: {
      metadata: { name: 'shop', namespace: 'ns' },
      spec: {
        image: 'shop:2',
        rollout: { canary: { steps: STEPS, ...(check ? { check: { query: 'up', max: 1 } } : {}) } },
      },
      status: phase
        ? {
            rollout: {
              revision: 'shop-2',
              stableRevision: 'shop-1',
              step,
              stepStartedAt: startedAt,
              weight: 10,
              phase: phase as 'Paused',
            },
          }
        : {},
    },
    children: [],
    related: [],
  });
  const asked = async (given: SyncInput, api: MetricsApi | undefined) =>
    (await withCanaryCheck(given, api, AT)).canaryCheck;

  it('asks where a canary with a check runs and its check is due', async () => {
    answer = success('scalar', [1, '0.5']);
    const api = prometheusApi(base);
    // A timed pause that has ended, and the last step (into the promotion).
    expect(await asked(input('Paused'), api)).toEqual({ value: 0.5 });
    expect(await asked(input('Progressing', { step: 3 }), api)).toEqual({ value: 0.5 });
    for (const phase of [undefined, 'Aborted', 'Completed']) expect(await asked(input(phase), api)).toBeUndefined();
    expect(await asked(input('Paused', { check: false }), api)).toBeUndefined();
  });

  it('asks nothing in the middle of a step: a pause still running, one until promote, a weight step, promoting', async () => {
    answer = success('scalar', [1, '0.5']);
    const api = prometheusApi(base);
    expect(await asked(input('Paused', { startedAt: '2026-01-01T00:06:00Z' }), api)).toBeUndefined();
    expect(await asked(input('Paused', { step: 2 }), api)).toBeUndefined();
    expect(await asked(input('Progressing', { step: 0 }), api)).toBeUndefined();
    expect(await asked(input('Promoting', { step: 4 }), api)).toBeUndefined();
  });

  it('says why there is no result where no API was configured', async () => {
    expect(await asked(input('Paused'), undefined)).toEqual({
      error: 'no metrics API: it runs without --prometheus-url',
    });
  });
});

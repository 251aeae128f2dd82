// A canary check's query, against a small HTTP server that answers as the Prometheus query API
// does: the query travels encoded, one number comes back, and every other answer says why not.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { prometheusApi, withCanaryCheck } from '../../src/engine/canary-check';
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
  const input = (phase: string | undefined, check = true): SyncInput => ({
    parent: {
      metadata: { name: 'shop', namespace: 'ns' },
      spec: {
        image: 'shop:2',
        rollout: { canary: { steps: [{ weight: 50 }], ...(check ? { check: { query: 'up', max: 1 } } : {}) } },
      },
      status: phase ? { rollout: { phase: phase as 'Paused' } } : {},
    },
    children: [],
    related: [],
  });

  it('asks only while a canary with a check runs, and only where there is an API', async () => {
    answer = success('scalar', [1, '0.5']);
    const api = prometheusApi(base);
    expect((await withCanaryCheck(input('Paused'), api)).canaryCheck).toEqual({ value: 0.5 });
    expect((await withCanaryCheck(input('Progressing'), api)).canaryCheck).toEqual({ value: 0.5 });
    for (const phase of [undefined, 'Aborted', 'Completed']) {
      expect((await withCanaryCheck(input(phase), api)).canaryCheck).toBeUndefined();
    }
    expect((await withCanaryCheck(input('Paused', false), api)).canaryCheck).toBeUndefined();
    expect((await withCanaryCheck(input('Paused'), undefined)).canaryCheck).toBeUndefined();
  });
});

// A Prometheus-compatible query API, run as its own process (a test's spawnSync of the plugin
// would block one in the test's own): node metrics-api-server.cjs DIR. It listens on 127.0.0.1 (a port
// the kernel picks, printed on stdout as one line); GET /api/v1/query answers a vector of one
// sample whose value is DIR/value's content, and appends each query to DIR/queries.
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const [dir] = process.argv.slice(2);

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== '/api/v1/query') {
    res.writeHead(404).end();
    return;
  }
  fs.appendFileSync(path.join(dir, 'queries'), `${url.searchParams.get('query')}\n`);
  const value = fs.readFileSync(path.join(dir, 'value'), 'utf8').trim();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [0, value] }] } }),
  );
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));

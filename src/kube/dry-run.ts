// Dry runs, around the client's requests. Client: no write is sent, and each answers what the
// server would have been sent. Server: every write is sent with dryRun=All, so the API server
// validates and admits it, and persists nothing. Reads go out either way.
import type { ApiRequest, Interceptor, Send } from './send';

export function dryRun(mode: 'client' | 'server'): Interceptor {
  return mode === 'client' ? sendNoWrite : serverDryRun;
}

function sendNoWrite(next: Send): Send {
  return <T>(req: ApiRequest): Promise<T> =>
    req.verb === 'read' ? next<T>(req) : Promise.resolve(structuredClone(req.body) as T);
}

function serverDryRun(next: Send): Send {
  return <T>(req: ApiRequest): Promise<T> => (req.verb === 'read' ? next<T>(req) : next<T>(asServerDryRun(req)));
}

/**
 * A write as a server-side dry run. The API server reads a DELETE's options from its body when
 * it has one, and then ignores the query: dryRun goes in both.
 */
function asServerDryRun(req: ApiRequest): ApiRequest {
  const query = { ...req.query, dryRun: 'All' };
  if (req.method === 'DELETE' && typeof req.body === 'object' && req.body !== null) {
    return { ...req, query, body: { ...req.body, dryRun: ['All'] } };
  }
  return { ...req, query };
}

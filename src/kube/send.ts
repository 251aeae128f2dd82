// How the client's requests go out: through the transport, or through interceptors around it
// (dry-run.ts, write-guard.ts, abort-signal.ts), as controller-runtime's client is wrapped by
// its dry-run and interceptor packages. Each interceptor is made once per client, not per request.
import type { Request } from './transport';

export type WriteVerb = 'create' | 'patch' | 'update' | 'delete';

/** A request, with what it does: a read, or a write by verb (metrics count writes by verb and resource). */
export interface ApiRequest extends Request {
  verb: 'read' | WriteVerb;
  /** The REST resource, with its subresource: deployments, webservices/status. */
  resource: string;
}

export type Send = <T>(req: ApiRequest) => Promise<T>;

/** Wraps how requests go out: may change a request, answer it, or refuse it. */
export type Interceptor = (next: Send) => Send;

// An abort signal, around the client's requests: each one sent carries it, so all are cut off
// once it aborts, and refused unsent after (a reconcile past its deadline writes nothing more).
import type { ApiRequest, Interceptor, Send } from './send';

export function abortOn(signal: AbortSignal): Interceptor {
  return (next: Send): Send =>
    <T>(req: ApiRequest): Promise<T> =>
      next<T>({ ...req, signal });
}

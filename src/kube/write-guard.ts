// The write guard, around the client's requests: every write asks the guard first, and throws
// unsent when it refuses (a replica that is not the leader); observer hears of each write made.
import type { ApiRequest, Interceptor, Send, WriteVerb } from './send';

export function guardWrites(guard: () => void, observer: (verb: WriteVerb, resource: string) => void): Interceptor {
  return (next: Send): Send =>
    async <T>(req: ApiRequest): Promise<T> => {
      if (req.verb === 'read') return next<T>(req);
      // Asked twice: now, to refuse before any work, and again as the bytes go out (see Request.gate).
      guard();
      const result = await next<T>({ ...req, gate: guard });
      observer(req.verb, req.resource);
      return result;
    };
}

// Typed API errors. The client module maps every failure into one of these, so
// commands can tell "not found" from "conflict" without knowing client-node.

export type KubeErrorKind =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Invalid'
  | 'Unreachable'
  | 'Timeout'
  | 'Gone'
  | 'Server';

export class KubeError extends Error {
  constructor(
    readonly kind: KubeErrorKind,
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = `${kind}Error`;
  }
}

export class NotFoundError extends KubeError {
  constructor(message: string) {
    super('NotFound', message, 404);
  }
}

/**
 * Like controller-runtime's client.IgnoreNotFound: what the request gives, or fallback when the
 * API answers 404. Any other error is thrown.
 */
export async function ignoreNotFound<T, F>(request: Promise<T>, fallback: F): Promise<T | F> {
  try {
    return await request;
  } catch (err) {
    if (err instanceof NotFoundError) return fallback;
    throw err;
  }
}

/** A read of something that may not exist: the object, or null on 404. */
export function orNull<T>(request: Promise<T>): Promise<T | null> {
  return ignoreNotFound(request, null);
}

/** 409: either an optimistic-concurrency conflict or AlreadyExists on create. */
export class ConflictError extends KubeError {
  constructor(
    message: string,
    readonly alreadyExists = false,
  ) {
    super(alreadyExists ? 'AlreadyExists' : 'Conflict', message, 409);
  }
}

export class ForbiddenError extends KubeError {
  constructor(message: string, httpStatus = 403) {
    super(httpStatus === 401 ? 'Unauthorized' : 'Forbidden', message, httpStatus);
  }
}

/**
 * A write refused because this replica does not lead: by its own write gate, or by the API
 * server's leader fence (deploy/15-leader-fence.yaml), whose 403 names its policy.
 */
export class NotLeaderError extends ForbiddenError {
  constructor(
    message: string,
    /** Refused by the API server's fence, not by this replica's own gate. */
    readonly byApiServer = false,
  ) {
    super(message, 403);
    this.name = 'NotLeaderError';
  }
}

/** The ValidatingAdmissionPolicy of the leader fence; its refusals name it. */
export const LEADER_FENCE_POLICY = 'webservice-controller-leader-fence';

/** 410 Gone: a watch or list asked for a resourceVersion that etcd has compacted. */
export function isGone(err: unknown): boolean {
  return err instanceof KubeError && err.kind === 'Gone';
}

export class InvalidError extends KubeError {
  constructor(message: string, httpStatus = 422) {
    super('Invalid', message, httpStatus);
  }
}

export class UnreachableError extends KubeError {
  constructor(message: string, timeout = false) {
    super(timeout ? 'Timeout' : 'Unreachable', message);
  }
}

/** A watch that brought neither an event nor a bookmark for idleTimeoutMs, so the transport ended it. */
export class WatchIdleError extends UnreachableError {
  constructor(
    what: string,
    readonly idleTimeoutMs: number,
  ) {
    super(`watch ${what}: no event or bookmark for ${idleTimeoutMs / 1000}s`, true);
    this.name = 'WatchIdleError';
  }
}

/** A request cancelled through its AbortSignal (a reconcile past --reconcile-timeout): sent unsent or cut off. */
export class AbortedError extends KubeError {
  constructor(what: string) {
    super('Timeout', `${what}: request aborted`);
    this.name = 'AbortedError';
  }
}

/** A usage or configuration error: bad flags, no kubeconfig, a CR in the wrong state. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

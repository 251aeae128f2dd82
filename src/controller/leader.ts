// Leader election over a lease, ported from client-go's tools/leaderelection: one replica
// holds the lease and does the writes; the others wait to take over.
//
// Like client-go, a candidate never trusts the timestamps inside the lease (another machine's
// clock wrote them). It only notices that the record changed, and judges the holder's lease
// expired once it has seen no change for the lease duration on its own clock.
//
// The leader renews every retryPeriod. If no renew has succeeded for renewDeadline (shorter
// than the lease duration), it stops leading before anyone else could take the lease.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Clock, systemClock } from './clock';

/** client-go's JitterFactor: candidates wait retryPeriod plus up to 1.2 × retryPeriod more. */
const JITTER_FACTOR = 1.2;

/** The spec of a coordination.k8s.io/v1 Lease, as far as leader election uses it. */
export interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime strings, e.g. 2026-11-30T01:02:03.123456Z */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/**
 * Where the lease lives. create and update must fail on conflict (the lease exists already;
 * the resourceVersion moved): any error counts as "not acquired or renewed this time".
 */
export interface LeaseStore {
  /** The lease and its resourceVersion, or null if there is no lease yet. */
  get(): Promise<{ record: LeaseRecord; resourceVersion: string } | null>;
  /** Creates the lease; returns its resourceVersion. */
  create(record: LeaseRecord): Promise<string>;
  /** Replaces the lease if it is still at resourceVersion; returns the new resourceVersion. */
  update(record: LeaseRecord, resourceVersion: string): Promise<string>;
  /** For log lines, e.g. "crd-lab/webservice-controller". */
  describe(): string;
}

export interface LeaderElectorOptions {
  /** Unique per replica; see defaultIdentity(). */
  identity: string;
  store: LeaseStore;
  /** How long a candidate waits without seeing the lease change before taking it. */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it stops leading. */
  renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew. */
  retryPeriodMs?: number;
  clock?: Clock;
  /** Returns [0, 1); jitters the acquire retries. */
  random?: () => number;
  onStartedLeading: () => void;
  /** Called once when run() ends: leadership lost, stop() called, or never acquired. */
  onStoppedLeading: () => void;
  /** Called when the observed holder changes, including the first holder seen. */
  onNewLeader?: (identity: string) => void;
  log?: (msg: string) => void;
}

/** A Kubernetes MicroTime: RFC 3339 in UTC with exactly six fractional digits. */
export function microTime(ms: number): string {
  const micros = Math.round(ms * 1000);
  const wholeSeconds = Math.floor(micros / 1e6);
  const fraction = String(micros - wholeSeconds * 1e6).padStart(6, '0');
  return new Date(wholeSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, `.${fraction}Z`);
}

/**
 * The pod's name (POD_NAME, from the downward API), else the hostname, plus a random suffix,
 * so two replicas on one host (or a restart) never share one. The API server's leader fence
 * (deploy/15-leader-fence.yaml) matches the part before "_" with the pod its token names.
 */
export function defaultIdentity(podName = process.env.POD_NAME): string {
  return `${podName || hostname()}_${randomBytes(4).toString('hex')}`;
}

export class LeaderElector {
  private readonly identity: string;
  private readonly store: LeaseStore;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly options: LeaderElectorOptions;
  private readonly log: (msg: string) => void;

  /** The lease as last seen (or written), when we first saw it like this, and its version. */
  private observed: LeaseRecord | undefined;
  private observedTime = 0;
  private resourceVersion: string | undefined;
  /** The holder last passed to onNewLeader. */
  private reportedLeader = '';

  /** Between a successful acquire and losing or giving up the lease. */
  private leading = false;
  /** Start time of the last successful acquire or renew. */
  private renewedAt = 0;

  private running: Promise<void> | undefined;
  private stopping = false;
  /** Ends the current sleep early (set while sleeping). */
  private wake: (() => void) | undefined;

  constructor(options: LeaderElectorOptions) {
    this.options = options;
    this.identity = options.identity;
    this.store = options.store;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? (() => undefined);
    this.validate();
  }

  /**
   * Tries to acquire the lease until it succeeds, then renews it until renewing fails for
   * renewDeadline or stop() is called. Resolves after onStoppedLeading has been called.
   */
  run(): Promise<void> {
    if (this.running) throw new Error('LeaderElector.run() may be called only once');
    this.running = this.runLoops();
    return this.running;
  }

  /**
   * Stops trying. A leader first stops leading (isLeader() turns false), then releases the
   * lease so a successor need not wait for it to expire. Resolves when run() has ended.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
  }

  /**
   * The write gate: true only while we hold the lease and the last successful renew is less
   * than renewDeadline old, judged by the clock right now rather than by a timer that may be late.
   */
  isLeader(): boolean {
    return (
      this.leading &&
      this.observed?.holderIdentity === this.identity &&
      this.clock.now() - this.renewedAt < this.renewDeadlineMs
    );
  }

  /** The holder of the lease as last observed; '' if none. */
  getLeader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  private validate(): void {
    const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = this;
    if (!this.identity) throw new Error('leader election: identity must not be empty');
    for (const [name, value] of Object.entries({ leaseDurationMs, renewDeadlineMs, retryPeriodMs })) {
      if (!(Number.isFinite(value) && value > 0)) {
        throw new Error(`leader election: ${name} must be greater than zero, got ${value}`);
      }
    }
    if (leaseDurationMs <= renewDeadlineMs) {
      throw new Error(
        `leader election: leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs})`,
      );
    }
    if (renewDeadlineMs <= JITTER_FACTOR * retryPeriodMs) {
      throw new Error(
        `leader election: renewDeadlineMs (${renewDeadlineMs}) must be greater than retryPeriodMs × ${JITTER_FACTOR} (${JITTER_FACTOR * retryPeriodMs})`,
      );
    }
  }

  private async runLoops(): Promise<void> {
    try {
      if (await this.acquire()) await this.renew();
      if (this.leading) {
        // Close the write gate before the lease can pass to anyone else.
        this.leading = false;
        if (this.stopping) await this.release();
      }
    } finally {
      this.leading = false;
      this.callback('onStoppedLeading', () => this.options.onStoppedLeading());
    }
  }

  /** Retries every retryPeriod (plus jitter) until the lease is ours or stop() is called. */
  private async acquire(): Promise<boolean> {
    const desc = this.store.describe();
    this.log(`attempting to acquire leader lease ${desc}...`);
    while (!this.stopping) {
      const startedAt = this.clock.now();
      // A hung API call must not stall the loop; treat it as a failed attempt.
      const acquired = await this.withDeadline(this.tryAcquireOrRenew(), this.renewDeadlineMs, false);
      this.reportTransition();
      if (acquired) {
        this.leading = true;
        this.renewedAt = startedAt;
        this.log(`successfully acquired lease ${desc}`);
        // stop() came while acquiring: hold it only long enough to release it.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() sets it during the awaits above
        if (!this.stopping) this.callback('onStartedLeading', () => this.options.onStartedLeading());
        return true;
      }
      await this.sleep(this.retryPeriodMs * (1 + JITTER_FACTOR * this.random()));
    }
    return false;
  }

  /** Renews every retryPeriod; returns on stop(), or once no renew has succeeded for renewDeadline. */
  private async renew(): Promise<void> {
    const desc = this.store.describe();
    while (!this.stopping) {
      const deadline = this.renewedAt + this.renewDeadlineMs;
      await this.sleep(Math.min(this.retryPeriodMs, deadline - this.clock.now()));
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() sets it during the sleep
      if (this.stopping) return;
      const startedAt = this.clock.now();
      if (startedAt >= deadline) {
        this.leading = false;
        this.log(`failed to renew lease ${desc}: no successful renew for ${this.renewDeadlineMs}ms`);
        return;
      }
      const renewed = await this.withDeadline(this.tryAcquireOrRenew(), deadline - startedAt, false);
      this.reportTransition();
      // Counted from when the attempt started: others see the write no earlier than that.
      if (renewed) this.renewedAt = startedAt;
    }
  }

  /**
   * One round of client-go's tryAcquireOrRenew. Never throws: any error means "not this time".
   */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const desired: LeaseRecord = {
      holderIdentity: this.identity,
      // Rounded up, so nobody can judge our lease expired while we still think we lead.
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };

    // 1. Fast path: a leader with a valid lease updates the version it wrote last time.
    if (this.observedHolderIsUs() && this.leaseValid(now) && this.resourceVersion !== undefined) {
      const record = this.keepTermOf(desired, this.observed);
      try {
        this.setObserved(record, await this.store.update(record, this.resourceVersion));
        return true;
      } catch (err) {
        this.log(`failed to update lease ${this.store.describe()} optimistically, reading it again: ${message(err)}`);
      }
    }

    // 2. Read the lease; create it if there is none.
    let current: { record: LeaseRecord; resourceVersion: string } | null;
    try {
      current = await this.store.get();
      if (!current) {
        this.setObserved(desired, await this.store.create(desired));
        return true;
      }
    } catch (err) {
      this.log(`error retrieving or creating lease ${this.store.describe()}: ${message(err)}`);
      return false;
    }

    // 3. Restart the expiry countdown only when the record changed since we last looked.
    this.resourceVersion = current.resourceVersion;
    if (!this.observed || recordKey(this.observed) !== recordKey(current.record)) {
      this.setObserved(current.record, current.resourceVersion);
    }
    const holder = current.record.holderIdentity ?? '';
    if (holder !== '' && holder !== this.identity && this.leaseValid(now)) {
      return false; // held by someone else and not expired yet
    }

    // 4. Take it over (a new term) or renew it (same term).
    const record =
      holder === this.identity
        ? this.keepTermOf(desired, current.record)
        : { ...desired, leaseTransitions: (current.record.leaseTransitions ?? 0) + 1 };
    try {
      this.setObserved(record, await this.store.update(record, current.resourceVersion));
      return true;
    } catch (err) {
      this.log(`failed to update lease ${this.store.describe()}: ${message(err)}`);
      return false;
    }
  }

  /** Gives the lease up: no holder, a 1s duration, so a candidate may take it at once. */
  private async release(): Promise<void> {
    const desc = this.store.describe();
    const released = await this.withDeadline(
      (async () => {
        try {
          const current = await this.store.get();
          if (!current || current.record.holderIdentity !== this.identity) return true;
          const now = microTime(this.clock.now());
          const record: LeaseRecord = {
            holderIdentity: '',
            leaseDurationSeconds: 1,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: current.record.leaseTransitions ?? 0,
          };
          this.setObserved(record, await this.store.update(record, current.resourceVersion));
          return true;
        } catch (err) {
          this.log(`failed to release lease ${desc}: ${message(err)}`);
          return false;
        }
      })(),
      this.renewDeadlineMs,
      false,
    );
    if (released) this.log(`released lease ${desc}`);
  }

  /** A renew keeps the term's acquireTime and transition count. */
  private keepTermOf(desired: LeaseRecord, term: LeaseRecord | undefined): LeaseRecord {
    return { ...desired, acquireTime: term?.acquireTime, leaseTransitions: term?.leaseTransitions ?? 0 };
  }

  private setObserved(record: LeaseRecord, resourceVersion: string): void {
    this.observed = { ...record };
    this.observedTime = this.clock.now();
    this.resourceVersion = resourceVersion;
  }

  private observedHolderIsUs(): boolean {
    return this.observed?.holderIdentity === this.identity;
  }

  /**
   * Whether the observed lease is still running at now, on our clock: from when we first saw
   * this version of it, for the duration its holder asked for (ours if it names none).
   */
  private leaseValid(now: number): boolean {
    const seconds = this.observed?.leaseDurationSeconds ?? 0;
    const durationMs = seconds > 0 ? seconds * 1000 : this.leaseDurationMs;
    return this.observedTime + durationMs > now;
  }

  private reportTransition(): void {
    const holder = this.getLeader();
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    // A released lease has no holder: nobody new to report.
    const onNewLeader = this.options.onNewLeader;
    if (holder !== '' && onNewLeader) this.callback('onNewLeader', () => onNewLeader(holder));
  }

  /** A throwing callback must not kill the loops (which would leave the lease to expire silently). */
  private callback(name: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log(`leader election: ${name} threw: ${message(err)}`);
    }
  }

  /** Waits ms on the clock; stop() ends the wait early. */
  private sleep(ms: number): Promise<void> {
    if (this.stopping || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        this.wake = undefined;
        this.clock.clearTimeout(timer);
        resolve();
      };
    });
  }

  /** work's result, or fallback if it takes longer than ms (work is left to finish on its own). */
  private withDeadline<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => resolve(fallback), ms);
      const settle = (value: T) => {
        this.clock.clearTimeout(timer);
        resolve(value);
      };
      work.then(settle, () => settle(fallback));
    });
  }
}

/** Compares records by content, whatever order their fields came in. */
function recordKey(r: LeaseRecord): string {
  return JSON.stringify([
    r.holderIdentity ?? '',
    r.leaseDurationSeconds ?? 0,
    r.acquireTime ?? '',
    r.renewTime ?? '',
    r.leaseTransitions ?? 0,
  ]);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// The controller's Events go out in the background, as client-go's recorder sends them: a
// reconcile hands its Events over and its worker moves on, so an Event create is not a
// third request in a row on every reconcile's path. The queue is bounded (client-go keeps
// 1000 and drops the rest); what is queued at shutdown gets a short while to go out.
import type { KubeEvent } from '../kube/api';
import { NotLeaderError } from '../kube/errors';
import type { Logger } from './log';

/** client-go's maxQueuedEvents. */
const MAX_QUEUED_EVENTS = 1000;

interface Queued {
  /** The WebService's key, for the log. */
  key: string;
  event: KubeEvent;
}

export interface EventRecorderOptions {
  send: (event: KubeEvent) => Promise<unknown>;
  /** Events sent at once. */
  inFlight: number;
  log: Logger;
  maxQueued?: number;
}

export class EventRecorder {
  private readonly queue: Queued[] = [];
  private sending = 0;
  private dropping = false;
  private stopped = false;
  private readonly onIdle: (() => void)[] = [];
  private readonly maxQueued: number;

  constructor(private readonly options: EventRecorderOptions) {
    this.maxQueued = options.maxQueued ?? MAX_QUEUED_EVENTS;
  }

  /** Queues a reconcile's Events; they are sent in order of arrival, a few at a time. */
  record(key: string, events: KubeEvent[]): void {
    for (const event of events) {
      if (this.stopped) return;
      if (this.queue.length >= this.maxQueued) {
        // Once per time the queue fills: a log line per dropped Event would flood the log when it matters least.
        if (!this.dropping) {
          this.options.log('warn', 'Event queue full; dropping Events until it drains', {
            key,
            queued: this.queue.length,
          });
        }
        this.dropping = true;
        continue;
      }
      this.queue.push({ key, event });
      this.pump();
    }
  }

  /** Events queued or in flight. */
  pending(): number {
    return this.queue.length + this.sending;
  }

  /**
   * Waits until every queued Event went out, or timeoutMs at the latest; then records no
   * more and says how many were left unsent.
   */
  async drain(timeoutMs: number): Promise<void> {
    if (this.pending() > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.onIdle.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.stopped = true;
    const unsent = this.queue.splice(0).length;
    if (unsent > 0) this.options.log('warn', 'shutting down with Events not recorded', { unsent });
  }

  private pump(): void {
    while (this.sending < this.options.inFlight && this.queue.length > 0) {
      const next = this.queue.shift()!;
      this.sending++;
      void this.send(next).finally(() => {
        this.sending--;
        if (this.queue.length === 0) this.dropping = false;
        this.pump();
        if (this.pending() === 0) for (const idle of this.onIdle.splice(0)) idle();
      });
    }
  }

  private async send({ key, event }: Queued): Promise<void> {
    try {
      await this.options.send(event);
    } catch (err) {
      // Refused unsent by our own gate: another replica leads, and records what it does. A
      // refusal by the API server's leader fence is another matter: the Event went out.
      if (err instanceof NotLeaderError && !err.byApiServer) return;
      this.options.log('error', 'recording an Event failed', { key, error: (err as Error).message });
    }
  }
}

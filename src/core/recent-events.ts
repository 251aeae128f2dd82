// describe's Events: those about a WebService and everything under it, merged and sorted by
// time as kubectl describe shows one object's. Pure. Takes core/v1 Events and events.k8s.io/v1
// ones alike (the API server serves each through both; their fields have different names).
import type { ResourceType } from './kinds';
import type { ObjectRef } from './tree';

/** An Event as either API gives it: only the fields read here. */
export interface RawEvent {
  metadata: { name: string; namespace?: string; creationTimestamp?: string };
  type?: string;
  reason?: string;
  /** core/v1 */
  involvedObject?: { kind?: string; name?: string; uid?: string };
  message?: string;
  source?: { component?: string };
  reportingComponent?: string;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  /** events.k8s.io/v1 */
  regarding?: { kind?: string; name?: string; uid?: string };
  note?: string;
  reportingController?: string;
  deprecatedSource?: { component?: string };
  deprecatedFirstTimestamp?: string | null;
  deprecatedLastTimestamp?: string | null;
  deprecatedCount?: number;
  /** both */
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
}

export interface DescribedEvent {
  type: string;
  reason: string;
  /** Kind/name of what it is about: WebService/web, Pod/web-7d9c-abcde. */
  object: string;
  /** Who reported it (kubectl describe's From). */
  from: string;
  message: string;
  /** How many times it happened, from first to last. */
  count: number;
  firstTime: string;
  lastTime: string;
}

/**
 * The Events about these objects, oldest first: matched by uid where the Event has one, else
 * by kind and name (the namespace is the caller's: it hands in one namespace's Events).
 */
export function eventsAbout(events: RawEvent[], objects: ObjectRef[]): DescribedEvent[] {
  const byUid = new Map(objects.filter((o) => o.uid).map((o) => [o.uid, o]));
  const byName = new Map(objects.map((o) => [`${o.kind}/${o.name}`, o]));
  const found: DescribedEvent[] = [];
  for (const event of events) {
    const about = event.involvedObject ?? event.regarding ?? {};
    const object = about.uid ? byUid.get(about.uid) : byName.get(`${about.kind}/${about.name}`);
    if (!object) continue;
    const lastTime = lastTimeOf(event);
    found.push({
      type: event.type ?? 'Normal',
      reason: event.reason ?? '',
      object: `${object.kind}/${object.name}`,
      from:
        event.source?.component ||
        event.deprecatedSource?.component ||
        event.reportingComponent ||
        event.reportingController ||
        '',
      message: (event.message ?? event.note ?? '').trim(),
      count: event.series?.count ?? event.count ?? event.deprecatedCount ?? 1,
      firstTime: event.firstTimestamp || event.deprecatedFirstTimestamp || event.eventTime || lastTime,
      lastTime,
    });
  }
  return found.sort((a, b) => Date.parse(a.lastTime) - Date.parse(b.lastTime) || a.object.localeCompare(b.object));
}

function lastTimeOf(event: RawEvent): string {
  return (
    event.series?.lastObservedTime ||
    event.lastTimestamp ||
    event.deprecatedLastTimestamp ||
    event.eventTime ||
    event.firstTimestamp ||
    event.metadata.creationTimestamp ||
    ''
  );
}

/** core/v1 Events: the API server serves events.k8s.io/v1 ones through it too, so one read has them all. */
export const EVENT: ResourceType = { kind: 'Event', apiVersion: 'v1', group: '', resource: 'events' };

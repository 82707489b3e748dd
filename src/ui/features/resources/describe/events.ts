/**
 * An object's Events as `kubectl describe` lists them: found by the
 * object's uid (`involvedObject.uid`), sorted by when each last happened
 * (series.lastObservedTime, else lastTimestamp, else eventTime), each row
 * Type, Reason, Age (`5s (x3 over 1m)` for a repeated event), From (the
 * source component, else the reporting controller) and the message.
 */
import { field, num, str } from '../../../../core/printers/format';
import { parseTimestamp, timestampSince } from '../../../../core/printers/duration';
import type { KubeObject, ResourceKind } from '../../../api';

/** core/v1 Events: the ones kubectl describe reads (events.k8s.io/v1 holds the same objects). */
export const EVENTS_KIND: ResourceKind = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, verbs: ['get', 'list', 'watch'] };

/** The field selector for the events about one object. */
export function involvedObjectSelector(uid: string): string {
  return `involvedObject.uid=${uid}`;
}

/** kubectl's SortableEvents key: the time the event last happened (ms; 0 when it has none). */
export function eventTime(event: KubeObject): number {
  return parseTimestamp(field(event, 'series', 'lastObservedTime')) ?? parseTimestamp(field(event, 'lastTimestamp')) ?? parseTimestamp(field(event, 'eventTime')) ?? 0;
}

/** Oldest first, as describe prints them; events at the same time keep the order they came in. */
export function sortEvents<T extends KubeObject>(events: readonly T[]): T[] {
  return [...events].sort((a, b) => eventTime(a) - eventTime(b));
}

export interface EventRow {
  /** namespace/name, unique among events. */
  key: string;
  type: string;
  reason: string;
  /** `2m`, or `5s (x3 over 2m)` for an event seen more than once. */
  age: string;
  from: string;
  message: string;
}

/** DescribeEvents' columns for one event, its ages counted back from `now`. */
export function eventRow(event: KubeObject, now: Date): EventRow {
  const eventTimeSet = parseTimestamp(field(event, 'eventTime')) !== undefined;
  const first = eventTimeSet ? timestampSince(field(event, 'eventTime'), now) : timestampSince(field(event, 'firstTimestamp'), now);
  const series = field(event, 'series');
  const count = num(field(event, 'count'));
  let age = first;
  if (series !== undefined && series !== null) age = `${timestampSince(field(series, 'lastObservedTime'), now)} (x${num(field(series, 'count'))} over ${first})`;
  else if (count > 1) age = `${timestampSince(field(event, 'lastTimestamp'), now)} (x${count} over ${first})`;
  return {
    key: `${event.metadata?.namespace ?? ''}/${event.metadata?.name ?? ''}`,
    type: str(field(event, 'type')),
    reason: str(field(event, 'reason')),
    age,
    from: str(field(event, 'source', 'component')) || str(field(event, 'reportingComponent')),
    message: str(field(event, 'message')).trim(),
  };
}

/**
 * kube-apiserver's --event-ttl (default 1h): Events are stored with an etcd
 * lease that every write renews, so an Event nobody has written for that long
 * is deleted, with a DELETED watch event, as a lease's expiry deletes its keys.
 * kubesim has no leases: a loop on the server clock deletes the Events whose
 * last write (their newest creation, lastTimestamp, eventTime, series or
 * managedFields time) is at least the TTL ago, each on the condition that it
 * was not written again meanwhile.
 */
import { isObject, type KubeObject } from '../../api/types';
import { isConflict, isNotFound } from '../../errors';
import type { Clock } from '../../util/clock';
import type { Store } from '../generic/store';

export const defaultEventTTLMs = 60 * 60 * 1000;

/** The time an Event was last written, as far as it says (ms; 0 when it says nothing). */
export function lastWrittenMs(event: KubeObject): number {
  const times: unknown[] = [event.metadata.creationTimestamp, event['lastTimestamp'], event['eventTime']];
  const series = event['series'];
  if (isObject(series)) times.push(series['lastObservedTime']);
  for (const entry of event.metadata.managedFields ?? []) times.push(entry.time);
  let last = 0;
  for (const t of times) {
    const ms = typeof t === 'string' ? Date.parse(t) : NaN;
    if (ms > last) last = ms;
  }
  return last;
}

/** Starts the loop; it wakes every minute (or every TTL, if shorter) of the server clock. Returns its stop. */
export function startEventTTL(events: Store, clock: Clock, ttlMs: number): () => void {
  const stopped = new AbortController();
  const intervalMs = Math.max(1, Math.min(ttlMs, 60_000));
  void (async () => {
    while (!stopped.signal.aborted) {
      try {
        await clock.sleep(intervalMs, stopped.signal);
      } catch {
        return;
      }
      if (stopped.signal.aborted) return;
      try {
        const now = clock.now().getTime();
        for (const event of (await events.list('')).items) {
          if (lastWrittenMs(event) + ttlMs > now) continue;
          try {
            await events.delete(event.metadata.namespace ?? '', event.metadata.name!, { preconditions: { resourceVersion: event.metadata.resourceVersion } });
          } catch (e) {
            // Gone already, or written again since the list: its new lease runs.
            if (!isNotFound(e) && !isConflict(e)) throw e;
          }
        }
      } catch (e) {
        if (!stopped.signal.aborted) console.error('kubesim: event TTL:', e);
      }
    }
  })();
  return () => stopped.abort();
}

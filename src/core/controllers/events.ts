/**
 * The event recorder kube-controller-manager's controllers report with
 * (client-go tools/record), so `kubectl describe` and `kubectl get events`
 * show what they did. An event about an object is a core/v1 Event named
 * `<object>.<nanoseconds in hex>` in the object's namespace (default for a
 * cluster-scoped one), pointing at the object, with count 1, first and last
 * timestamps and the controller as source and reporting component. Before it
 * is written it goes through the EventCorrelator's three steps:
 *
 * - aggregation: the tenth distinct message of one reason about one object
 *   within ten minutes, and every one after, goes to a single Event whose
 *   message is `(combined from similar events): <latest>`;
 * - the logger: an event seen before (same object, type, reason, message, or
 *   the same aggregate) raises the recorded Event's count and lastTimestamp;
 * - the spam filter: 25 events per source and object at once, then one per
 *   five minutes (a token bucket on the server clock); the others are dropped
 *   unwritten, though counted.
 *
 * Each cache keeps its last 4096 keys. Writes take their own turn, in order,
 * and a failed one is dropped, as the broadcaster drops it after its retries.
 */
import type { KubeObject } from '../api/types';
import { formatTime } from '../api/types';
import { isNotFound } from '../errors';
import type { Store } from '../registry/generic/store';
import type { NamespaceControllerDeps } from './namespace';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** Records an event about obj (a kubelet's about one of its containers: fieldPath `spec.containers{name}`); returns at once. */
  event(obj: KubeObject, type: EventType, reason: string, message: string, fieldPath?: string): void;
  /** Resolves once every event recorded so far is written. */
  flushed(): Promise<void>;
}

const cacheSize = 4096;
/** EventAggregator: distinct messages before aggregation, and the window they count in. */
const maxSimilarEvents = 10;
const aggregationWindowMs = 600_000;
/** EventSourceObjectSpamFilter's token bucket. */
const spamBurst = 25;
const spamRefillMs = 300_000;

/** Map.set that keeps the newest `cacheSize` keys (an LRU for caches read at most once per event). */
function remember<K, V>(cache: Map<K, V>, key: K, value: V): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
}

/** What the logger remembers of a written Event. */
interface Observation {
  namespace: string;
  name: string;
  count: number;
  firstTimestamp: string;
}

/** host: the node a kubelet's events come from (EventSource.Host, and the reporting instance). */
/** The last event name's time per server (keyed by its storage). */
const namesByStorage = new WeakMap<object, { lastNanos: bigint }>();

export function newEventRecorder(deps: NamespaceControllerDeps, component: string, host?: string): EventRecorder {
  let store: Store | undefined;
  const events = (): Store | undefined => {
    const type = deps.registry.resourceFor('', 'v1', 'events');
    return (store ??= type ? deps.storeFor(type) : undefined);
  };
  const aggregates = new Map<string, { messages: Set<string>; lastMs: number }>();
  const observations = new Map<string, Observation>();
  const buckets = new Map<string, { tokens: number; atMs: number }>();
  // Shared by every recorder of the server: on the fake clock two components' events fall in one nanosecond.
  let names = namesByStorage.get(deps.storage);
  if (!names) namesByStorage.set(deps.storage, (names = { lastNanos: 0n }));
  const shared = names;
  let queue: Promise<void> = Promise.resolve();

  /** A name no earlier event of this recorder had: the time in nanoseconds, moved on when two fall in one. */
  function eventName(object: string, now: Date): string {
    let nanos = BigInt(now.getTime()) * 1_000_000n;
    if (nanos <= shared.lastNanos) nanos = shared.lastNanos + 1n;
    shared.lastNanos = nanos;
    return `${object}.${nanos.toString(16)}`;
  }

  function allowed(key: string, nowMs: number): boolean {
    const bucket = buckets.get(key) ?? { tokens: spamBurst, atMs: nowMs };
    bucket.tokens = Math.min(spamBurst, bucket.tokens + (nowMs - bucket.atMs) / spamRefillMs);
    bucket.atMs = nowMs;
    const ok = bucket.tokens >= 1;
    if (ok) bucket.tokens -= 1;
    remember(buckets, key, bucket);
    return ok;
  }

  async function write(target: Store, observed: Observation, existed: boolean, body: Record<string, unknown>): Promise<void> {
    if (existed) {
      try {
        await target.update(observed.namespace, observed.name, (cur) => {
          if (!cur) throw gone;
          cur['count'] = body['count'];
          cur['lastTimestamp'] = body['lastTimestamp'];
          cur['message'] = body['message'];
          return cur;
        });
        return;
      } catch (e) {
        // Deleted meanwhile (its namespace went): written anew.
        if (e !== gone && !isNotFound(e)) throw e;
      }
    }
    await target.create(observed.namespace, { apiVersion: 'v1', kind: 'Event', metadata: { name: observed.name, namespace: observed.namespace }, ...body } as unknown as KubeObject);
  }

  const gone = new Error('gone');
  return {
    event(obj, type, reason, message, fieldPath) {
      const target = events();
      if (!target) return;
      const now = deps.clock.now();
      const nowMs = now.getTime();
      const at = formatTime(now);
      const ref = {
        kind: obj.kind,
        ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
        name: obj.metadata.name,
        uid: obj.metadata.uid,
        apiVersion: obj.apiVersion,
        resourceVersion: obj.metadata.resourceVersion,
        ...(fieldPath ? { fieldPath } : {}),
      };
      const objectKey = [component, host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.uid, ref.apiVersion];
      // EventAggregate
      const aggregateKey = JSON.stringify([...objectKey, type, reason]);
      let similar = aggregates.get(aggregateKey);
      if (!similar || nowMs - similar.lastMs > aggregationWindowMs) similar = { messages: new Set(), lastMs: nowMs };
      similar.messages.add(message);
      similar.lastMs = nowMs;
      remember(aggregates, aggregateKey, similar);
      const aggregated = similar.messages.size >= maxSimilarEvents;
      if (aggregated) similar.messages.delete(similar.messages.values().next().value!);
      const key = aggregated ? aggregateKey : JSON.stringify([...objectKey, fieldPath ?? '', type, reason, message]);
      // eventObserve
      const previous = observations.get(key);
      const namespace = obj.metadata.namespace || 'default';
      const observed: Observation = previous
        ? { ...previous, count: previous.count + 1 }
        : { namespace, name: eventName(obj.metadata.name ?? '', now), count: 1, firstTimestamp: at };
      remember(observations, key, observed);
      // The spam filter drops the write, not the observation.
      if (!allowed(JSON.stringify(objectKey), nowMs)) return;
      const body: Record<string, unknown> = {
        involvedObject: ref,
        reason,
        message: aggregated ? `(combined from similar events): ${message}` : message,
        source: host ? { component, host } : { component },
        firstTimestamp: observed.firstTimestamp,
        lastTimestamp: at,
        count: observed.count,
        type,
      };
      // An aggregate Event is made afresh by the aggregator, without the reporting fields.
      if (!aggregated) Object.assign(body, { reportingComponent: component, reportingInstance: host ?? '' });
      queue = queue.then(() => write(target, observed, previous !== undefined, body)).catch(() => {});
    },
    flushed: () => queue,
  };
}

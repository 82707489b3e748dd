/**
 * An event as the watch cache holds and fans it out (storage/cacher
 * caching_object.go): the storage event plus a memo of what watchers derive
 * from it. Every watcher of one collection decodes the same value and, when
 * it wants the same encoding, writes the same bytes; the first watcher to ask
 * computes them and the rest share the result, so an event is decoded and
 * encoded once per (encoding, version) however many watchers see it.
 *
 * Values in the memo are shared between watchers and must not be mutated.
 */
import type { KeyValue, StorageEvent, WatchEventType } from '../interface';

export class CachingEvent implements StorageEvent {
  readonly type: WatchEventType;
  readonly revision: number;
  readonly kv: KeyValue;
  readonly prevKv?: KeyValue;
  /** Derived values by key (decoded objects, encoded frames), made on first use. */
  #memo: Map<string, unknown> | undefined;

  constructor(event: StorageEvent) {
    this.type = event.type;
    this.revision = event.revision;
    this.kv = event.kv;
    if (event.prevKv) this.prevKv = event.prevKv;
  }

  /** Tells an event from a bookmark in a watcher's queue (on the prototype, so the event's own fields stay the storage event's). */
  get kind(): 'event' {
    return 'event';
  }

  /** The value memoized under key, if any. */
  recall<T>(key: string): T | undefined {
    return this.#memo?.get(key) as T | undefined;
  }

  /** Memoizes value under key and returns it. */
  remember<T>(key: string, value: T): T {
    (this.#memo ??= new Map()).set(key, value);
    return value;
  }
}

/** The event with its memo: the watch cache's own, or a fresh one (nothing shared) for an event from elsewhere. */
export function cachingEvent(event: StorageEvent): CachingEvent {
  return event instanceof CachingEvent ? event : new CachingEvent(event);
}

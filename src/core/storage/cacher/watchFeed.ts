/**
 * The events of one key prefix as the watch cache's watchers of that prefix
 * read them: one shared, append-only run that each watcher reads through a
 * cursor (kube's cacheWatcher reads its input channel; here the channel is
 * shared and nothing is copied per watcher). A write appends once, whatever
 * the number of watchers, and the watchers are told together after the write
 * returned (or at once past `readyBatch` untold events).
 *
 * A watcher whose cursor falls more than its capacity behind the end is
 * closed, as kube's cacher closes a watcher whose channel is full: each
 * watcher is checked once at the sequence number where its backlog would
 * pass its capacity (it is re-armed there if it read meanwhile), so the check
 * costs O(1) per event amortized, and the run keeps only the last `capacity`
 * events (the watch cache window keeps the history).
 */
import type { CachingEvent } from './cachingEvent';

/** Events a consumer may have waiting, untold, before it is told synchronously. */
export const readyBatch = 128;

/** What the feed needs of a watcher reading it. */
export interface FeedReader {
  /** Sequence number of the next event this reader takes. */
  cursor: number;
  /** Events it may fall behind by. */
  readonly capacity: number;
  readonly closed: boolean;
  /** The events before `end` wait: tell the consumer. */
  tell(): void;
  /** It fell more than its capacity behind. */
  overflow(): void;
}

/** Feeds with events their readers were not told about, told together in the next task. */
let due: WatchFeed[] = [];
function tellSoon(feed: WatchFeed): void {
  if (due.push(feed) === 1) setTimeout(tellDue, 0);
}
function tellDue(): void {
  const now = due;
  due = [];
  for (const feed of now) feed.tellAll();
}

export class WatchFeed {
  readonly readers = new Set<FeedReader>();
  /** Events at sequence numbers [base, base + events.length - head). */
  private events: CachingEvent[] = [];
  private head = 0;
  private base = 0;
  /** Readers to check when the event with this sequence number is appended (their backlog would then pass capacity). */
  private readonly deadlines = new Map<number, FeedReader[]>();
  private untold = 0;
  private telling = false;
  /** The largest capacity of a reader: events further back are never read again. */
  private keep = 0;
  /** Revision of the newest event appended. */
  newestRevision = 0;

  constructor(readonly prefix: string) {}

  /** Sequence number the next event will get. */
  get end(): number {
    return this.base + this.events.length - this.head;
  }

  /** The event at sequence number seq (base <= seq < end). */
  at(seq: number): CachingEvent {
    return this.events[this.head + seq - this.base]!;
  }

  /** Adds a reader that starts at the next event. */
  join(reader: FeedReader): void {
    reader.cursor = this.end;
    this.readers.add(reader);
    if (reader.capacity > this.keep) this.keep = reader.capacity;
    this.arm(reader);
  }

  leave(reader: FeedReader): void {
    this.readers.delete(reader);
  }

  append(event: CachingEvent): void {
    const seq = this.end;
    this.events.push(event);
    this.newestRevision = event.revision;
    const check = this.deadlines.get(seq);
    if (check) {
      this.deadlines.delete(seq);
      for (const reader of check) {
        if (reader.closed || !this.readers.has(reader)) continue;
        if (reader.cursor + reader.capacity <= seq) reader.overflow();
        else this.arm(reader);
      }
    }
    this.trim();
    if (++this.untold >= readyBatch) this.tellAll();
    else if (!this.telling) {
      this.telling = true;
      tellSoon(this);
    }
  }

  /** Tells every reader with events waiting (the scheduled call, or a full batch). */
  tellAll(): void {
    this.telling = false;
    this.untold = 0;
    const end = this.end;
    for (const reader of this.readers) if (reader.cursor < end) reader.tell();
  }

  /** Checks the reader again when its backlog would pass its capacity. */
  private arm(reader: FeedReader): void {
    const at = reader.cursor + reader.capacity;
    const list = this.deadlines.get(at);
    if (list) list.push(reader);
    else this.deadlines.set(at, [reader]);
  }

  /** Drops events no reader can still need, keeping appends amortized O(1). */
  private trim(): void {
    const live = this.events.length - this.head;
    if (live <= this.keep) return;
    const drop = live - this.keep;
    this.head += drop;
    this.base += drop;
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }
}

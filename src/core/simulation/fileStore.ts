/**
 * Files shared by processes that each run on their own virtual clock, ahead
 * of the server's in bursts: a store keeps each write with its time, and a
 * process reads what was there at its own time, so it never sees another's
 * write from its future. Before a read, the store runs the other processes
 * sharing it up to the reader's time, so their writes until then are in;
 * at the same instant they act in order (a container started before
 * another first, an exec after the containers). containerFiles.ts mounts
 * such stores into a container.
 */
import type { FsEntry } from './containerView';

/** Another process sharing a store, run up to a time before a read (the runtime's RecordedProcess). */
export interface StoreRunner {
  /** Runs it up to `at`; not `inclusive`: it does not look at files at `at` itself (the reader acts first then). */
  runUntil(at: number, inclusive: boolean): void;
  /** It exited or was stopped: it writes nothing more. */
  readonly finished: boolean;
  /** Its container stops at `at`: so does it. */
  stop(at: number): void;
  /**
   * Its order among processes acting at the same instant: the lower first
   * (a container started before another, as the kubelet starts them in
   * order; an exec after the container's own process).
   */
  readonly rank: number;
}

/** The processes running now, innermost last: the last is the one reading. */
const runningNow: StoreRunner[] = [];

/** The process reading now (the innermost running), if any: /proc/self leads to it. */
export const readerNow = (): StoreRunner | undefined => runningNow[runningNow.length - 1];

/** Runs `step` as the process reading from now until it returns (the runtime's run of a process). */
export function asReader<T>(runner: StoreRunner, step: () => T): T {
  runningNow.push(runner);
  try {
    return step();
  } finally {
    runningNow.pop();
  }
}

interface Version {
  at: number;
  entry: FsEntry | undefined;
}

/** How long a path's older versions are kept for a process reading behind the others. */
const retainMs = 5_000;

/** Files with the time of each write: a read at a time sees the last write at or before it. */
export class FileStore {
  private readonly versions = new Map<string, Version[]>();
  private readonly runners = new Set<StoreRunner>();
  /** Paths whose oldest versions were let go. */
  private readonly pruned = new Set<string>();

  /** `base`: what is there from the start (the image's files; a new volume's empty root). */
  constructor(private readonly base: ReadonlyMap<string, FsEntry> = new Map([['/', { type: 'dir', mode: 0o777 }]])) {
    for (const e of base.values()) if (e.type === 'link') this.holdsLinks = true;
  }

  /** Whether it has ever held a symlink: paths through a store that never did need no resolving. */
  holdsLinks = false;

  /**
   * The latest time a process has read the store at (every read catches
   * up first): a writer from outside the processes (the kubelet) writes
   * after it, so no process finds what it read has changed under it.
   */
  get readUpTo(): number {
    return this.readTo;
  }
  private readTo = -Infinity;

  /** A process sharing the store from now on. */
  join(runner: StoreRunner): void {
    this.runners.add(runner);
  }

  /**
   * Runs every other process sharing the store up to `at` (one already
   * running is the reader, or is reading): one before the reader in order
   * acts at `at` too, one after it only until just before.
   */
  catchUp(at: number): void {
    if (at > this.readTo) this.readTo = at;
    const reader = readerNow();
    for (const r of this.runners) {
      if (r.finished) this.runners.delete(r);
      else if (r !== reader) r.runUntil(at, !reader || r.rank < reader.rank);
    }
  }

  get(path: string, at: number): FsEntry | undefined {
    const list = this.versions.get(path);
    if (list) {
      for (let i = list.length - 1; i >= 0; i--) if (list[i]!.at <= at) return list[i]!.entry;
      // Every version is later than the reader: what was there before them, unless that is forgotten (the oldest kept is nearest).
      if (this.pruned.has(path)) return list[0]!.entry;
    }
    return this.base.get(path);
  }

  /** Writes (or, with undefined, removes) a path at a time. */
  put(path: string, entry: FsEntry | undefined, at: number): void {
    if (entry?.type === 'link') this.holdsLinks = true;
    let list = this.versions.get(path);
    if (!list) this.versions.set(path, (list = []));
    let i = list.length;
    while (i > 0 && list[i - 1]!.at > at) i--;
    // Writes at the same instant: the last one stands.
    if (i > 0 && list[i - 1]!.at === at) list[i - 1] = { at, entry };
    else list.splice(i, 0, { at, entry });
    // Versions no reader can still want: all but the last one before the retention window.
    const horizon = list[list.length - 1]!.at - retainMs;
    let drop = 0;
    while (drop + 1 < list.length && list[drop + 1]!.at <= horizon) drop++;
    if (drop) {
      list.splice(0, drop);
      this.pruned.add(path);
    }
  }

  /** Every path there at a time. */
  *paths(at: number): IterableIterator<string> {
    for (const p of this.base.keys()) if (!this.versions.has(p)) yield p;
    for (const [p] of this.versions) if (this.get(p, at)) yield p;
  }
}

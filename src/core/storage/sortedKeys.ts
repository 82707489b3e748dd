/**
 * A sorted set of keys (JS string order) kept in chunks of at most
 * `maxChunk` keys, so an insert or removal moves at most one chunk's
 * entries, however many keys there are (one sorted array moves half of them
 * on average when names arrive in random order, as generated names do).
 * Positions are global indices, as in one sorted array.
 */
export class SortedKeys {
  /** Non-empty sorted chunks, each key greater than every key of the chunks before. */
  private chunks: string[][] = [];
  /** Global index of each chunk's first key. */
  private starts: number[] = [];
  private count = 0;

  constructor(private readonly maxChunk = 512) {}

  get length(): number {
    return this.count;
  }

  /** Adds key; false when it is there already. */
  insert(key: string): boolean {
    const chunks = this.chunks;
    if (chunks.length === 0) {
      chunks.push([key]);
      this.starts.push(0);
      this.count = 1;
      return true;
    }
    // The chunk it belongs in: the first whose last key is >= key, else the last one.
    const c = Math.min(this.chunkOf(key), chunks.length - 1);
    const chunk = chunks[c]!;
    let i: number;
    // Appending (names that grow, the common case) needs no search.
    if (chunk[chunk.length - 1]! < key) i = chunk.length;
    else {
      i = lowerBound(chunk, key);
      if (chunk[i] === key) return false;
    }
    if (i === chunk.length) chunk.push(key);
    else chunk.splice(i, 0, key);
    this.count++;
    if (chunk.length > this.maxChunk) {
      chunks.splice(c + 1, 0, chunk.splice(chunk.length >> 1));
      this.reindex(c);
    } else {
      for (let j = c + 1; j < this.starts.length; j++) this.starts[j]!++;
    }
    return true;
  }

  /** Removes key; false when it is not there. */
  delete(key: string): boolean {
    const c = this.chunkOf(key);
    const chunk = this.chunks[c];
    if (!chunk) return false;
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return false;
    chunk.splice(i, 1);
    this.count--;
    if (chunk.length === 0) {
      this.chunks.splice(c, 1);
      this.starts.splice(c, 1);
      this.reindex(c);
    } else {
      for (let j = c + 1; j < this.starts.length; j++) this.starts[j]!--;
    }
    return true;
  }

  /** Keeps only the keys `keep` accepts. */
  filter(keep: (key: string) => boolean): void {
    this.chunks = this.chunks.map((chunk) => chunk.filter(keep)).filter((chunk) => chunk.length > 0);
    this.reindex(0);
  }

  /** The key at a global index (undefined past the end). */
  at(index: number): string | undefined {
    if (index < 0 || index >= this.count) return undefined;
    const c = upperBoundNumber(this.starts, index) - 1;
    return this.chunks[c]![index - this.starts[c]!];
  }

  /** Index of the first key >= target. */
  lowerBound(target: string): number {
    const c = this.chunkOf(target);
    if (c === this.chunks.length) return this.count;
    return this.starts[c]! + lowerBound(this.chunks[c]!, target);
  }

  /** Index of the first key > target. */
  upperBound(target: string): number {
    // The first chunk whose last key is > target.
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid]!;
      if (chunk[chunk.length - 1]! <= target) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.chunks.length) return this.count;
    return this.starts[lo]! + upperBound(this.chunks[lo]!, target);
  }

  /**
   * End of the run of keys with this prefix that starts at or before index
   * `from` (keys from `from` on that start with prefix are contiguous).
   */
  prefixEnd(from: number, prefix: string): number {
    let lo = from;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid)!.startsWith(prefix)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Calls visit with each key from index `from` on, in order, and its
   * index, until visit returns false.
   */
  forEachFrom(from: number, visit: (key: string, index: number) => boolean): void {
    if (from >= this.count) return;
    let c = upperBoundNumber(this.starts, Math.max(0, from)) - 1;
    let i = Math.max(0, from) - this.starts[c]!;
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]!;
      const start = this.starts[c]!;
      for (; i < chunk.length; i++) if (!visit(chunk[i]!, start + i)) return;
    }
  }

  /** Every key, in order (for tests). */
  toArray(): string[] {
    return this.chunks.flat();
  }

  /** The chunk where target would go: the first whose last key is >= target (chunks.length when none). */
  private chunkOf(target: string): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid]!;
      if (chunk[chunk.length - 1]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Recomputes the starts of chunks from c on (after chunks were added or removed). */
  private reindex(c: number): void {
    const starts = this.starts;
    starts.length = this.chunks.length;
    let at = c === 0 ? 0 : starts[c - 1]! + this.chunks[c - 1]!.length;
    for (let j = c; j < this.chunks.length; j++) {
      starts[j] = at;
      at += this.chunks[j]!.length;
    }
    this.count = at;
  }
}

/** Index of the first key >= target. */
function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first key > target. */
function upperBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first number > target. */
function upperBoundNumber(xs: readonly number[], target: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

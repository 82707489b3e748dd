/**
 * Keys seen lately, for caches that keep an entry only for a key that comes
 * back: a reader going through many keys in turn (each seen once) then keeps
 * nothing alive for the garbage collector to copy for no hit. Bounded: the
 * set starts over when full.
 */
export class RecentKeys<K> {
  readonly #seen = new Set<K>();

  constructor(private readonly limit: number) {}

  /** Whether key was seen since the set last started over; a key not seen is remembered. */
  repeated(key: K): boolean {
    // One add, not a lookup then an add: a key already there leaves the size as it was.
    const seen = this.#seen;
    const size = seen.size;
    seen.add(key);
    if (seen.size === size) return true;
    if (size >= this.limit) {
      seen.clear();
      seen.add(key);
    }
    return false;
  }
}

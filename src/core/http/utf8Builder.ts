/**
 * UTF-8 bytes written piece by piece into one buffer (TextEncoder.encodeInto),
 * for a large response assembled from many strings (a run of watch events
 * written from stored texts): no joined string is built and flattened before
 * the encode.
 */
const encoder = new TextEncoder();

export class Utf8Builder {
  private buf: Uint8Array;
  private length = 0;

  /** `capacity`: the expected size in bytes; the buffer grows when a piece does not fit. */
  constructor(capacity: number) {
    this.buf = new Uint8Array(Math.max(64, capacity));
  }

  add(text: string): void {
    for (;;) {
      const r = encoder.encodeInto(text, this.buf.subarray(this.length));
      this.length += r.written;
      if (r.read === text.length) return;
      // Out of room: keep what was written, grow, write the rest.
      text = text.slice(r.read);
      const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.length + text.length * 3));
      bigger.set(this.buf.subarray(0, this.length));
      this.buf = bigger;
    }
  }

  /** add() for each text: the shape of a string array's push, for writers that fill either. */
  push(...texts: string[]): void {
    for (const text of texts) this.add(text);
  }

  /** Bytes written so far. */
  get size(): number {
    return this.length;
  }

  /** The bytes written so far (a view of the buffer). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

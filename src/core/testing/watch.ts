/** Reads a streamed watch response the way a client does: one JSON event per line. */

export interface WatchEvent {
  type: string;
  /** Decoded JSON; tests read arbitrary fields of it. */
  object: any;
}

export class WatchStream {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  /** Number of body chunks read, to check one event per chunk. */
  chunks = 0;
  done = false;

  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    this.reader = response.body!.getReader();
  }

  /** The next event, or undefined when the stream has ended. */
  async next(): Promise<WatchEvent | undefined> {
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        return JSON.parse(line) as WatchEvent;
      }
      if (this.done) return undefined;
      const { value, done } = await this.reader.read();
      if (done) {
        this.done = true;
        continue;
      }
      this.chunks++;
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** Exactly `n` events; fails if the stream ends first. */
  async take(n: number): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (let i = 0; i < n; i++) {
      const e = await this.next();
      if (!e) throw new Error(`watch ended after ${out.length} of ${n} events`);
      out.push(e);
    }
    return out;
  }

  /** Every remaining event until the server ends the stream. */
  async rest(): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (let e = await this.next(); e; e = await this.next()) out.push(e);
    return out;
  }

  /** The client goes away: aborts the request and cancels the body. */
  close(): void {
    this.abort.abort();
    void this.reader.cancel().catch(() => {});
  }
}

/**
 * A watch as client-go's watch.Interface, as an async iterable: the events
 * of one streamed watch response (one JSON WatchEvent per line) decoded as
 * they arrive. stop() is the client going away: the request's signal
 * aborts, the server ends the stream and the iteration finishes.
 */
import type { KubeObject } from '../api/types';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One event; an ERROR event's object is a Status. */
export interface WatchEvent<T extends object = KubeObject> {
  type: WatchEventType;
  object: T;
}

export class Watch<T extends object = KubeObject> implements AsyncIterable<WatchEvent<T>> {
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #abort: AbortController;
  #decoder = new TextDecoder();
  #buffer = '';
  #done = false;

  constructor(body: ReadableStream<Uint8Array> | null, abort: AbortController) {
    this.#reader = body?.getReader();
    this.#abort = abort;
    if (!this.#reader) this.#done = true;
  }

  /** The next event, or undefined once the stream ended (the server closed it, or stop()). */
  async next(): Promise<WatchEvent<T> | undefined> {
    for (;;) {
      const nl = this.#buffer.indexOf('\n');
      if (nl >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        if (line.trim() === '') continue;
        return JSON.parse(line) as WatchEvent<T>;
      }
      if (this.#done) return undefined;
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.#reader!.read();
      } catch (e) {
        // A stream cancelled by stop() ends the watch; anything else is the caller's to see.
        if (this.#abort.signal.aborted) chunk = { done: true, value: undefined };
        else throw e;
      }
      if (chunk.done) {
        this.#done = true;
        this.#buffer += this.#decoder.decode();
        if (this.#buffer.trim() !== '' && !this.#buffer.endsWith('\n')) this.#buffer += '\n';
        continue;
      }
      this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Stops the watch: the server's handler sees its request aborted; events not yet read are dropped. */
  stop(): void {
    if (this.#abort.signal.aborted) return;
    this.#abort.abort();
    this.#done = true;
    this.#buffer = '';
    void this.#reader?.cancel().catch(() => {});
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    try {
      for (let event = await this.next(); event; event = await this.next()) yield event;
    } finally {
      this.stop();
    }
  }
}

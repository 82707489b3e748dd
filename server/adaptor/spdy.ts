/**
 * The server side of a SPDY/3.1 session, as far as port-forward needs it
 * (kubectl speaks it through moby/spdystream, over a WebSocket tunnel or an
 * upgraded connection): frames in and out, the client's streams (SYN_STREAM
 * with their headers, DATA, FIN, RST_STREAM), SYN_REPLY and DATA back, and
 * PING answered. Flow control is left out (spdystream sends no
 * WINDOW_UPDATE it waits on, and a forwarded exchange is small).
 *
 * Header blocks are zlib streams preset with the SPDY/3 dictionary, one
 * compression context per direction for the whole session. The client's is
 * inflated by re-reading everything it sent so far (Node's one-shot inflate
 * keeps no context; header blocks are few and short). Ours is written as
 * stored (uncompressed) deflate blocks behind a zlib header that names no
 * dictionary, each block followed by the empty one a sync flush writes,
 * which any inflater reads.
 */
import { constants, inflateSync } from 'node:zlib';

/** The SPDY/3 header dictionary: the common header names, length-prefixed, then common values (draft 3, 2.6.10.1). */
const dictionaryNames = ['options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language', 'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding', 'content-language', 'content-length', 'content-location', 'content-md5', 'content-range', 'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'pragma', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning', 'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public', 'set-cookie', 'keep-alive', 'origin'];
const dictionaryValues =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not Found' +
  '500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,' +
  'publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

export const headerDictionary: Buffer = Buffer.concat([
  ...dictionaryNames.map((name) => {
    const b = Buffer.alloc(4 + name.length);
    b.writeUInt32BE(name.length, 0);
    b.write(name, 4, 'latin1');
    return b;
  }),
  Buffer.from(dictionaryValues, 'latin1'),
]);

const version = 3;
const synStream = 1;
const synReply = 2;
const rstStream = 3;
const ping = 6;
const goAway = 7;
const headersFrame = 8;
const flagFin = 0x01;
/** An empty stored block (BFINAL 0): zlib's Z_SYNC_FLUSH marker. */
const syncFlush = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

/** A stream the client opened. */
export interface SpdyStream {
  readonly id: number;
  /** Its headers, names lower-cased, multiple values joined by NUL. */
  readonly headers: ReadonlyMap<string, string>;
  /** Called with what the client sends on it. */
  onData?: (data: Buffer) => void;
  /** The client finished sending (FIN), or reset the stream. */
  onEnd?: () => void;
  write(data: Uint8Array): void;
  /** Our side is done (FIN). */
  end(): void;
}

/** The name/value block of a header frame: count, then length-prefixed names and values. */
export function parseHeaderBlock(block: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  let at = 0;
  const count = block.readUInt32BE(at);
  at += 4;
  for (let i = 0; i < count; i++) {
    const nameLength = block.readUInt32BE(at);
    const name = block.toString('utf8', at + 4, at + 4 + nameLength);
    at += 4 + nameLength;
    const valueLength = block.readUInt32BE(at);
    headers.set(name.toLowerCase(), block.toString('utf8', at + 4, at + 4 + valueLength));
    at += 4 + valueLength;
  }
  return headers;
}

function headerBlock(headers: ReadonlyMap<string, string>): Buffer {
  const parts: Buffer[] = [Buffer.alloc(4)];
  parts[0]!.writeUInt32BE(headers.size, 0);
  for (const [name, value] of headers) {
    for (const s of [name, value]) {
      const b = Buffer.from(s, 'utf8');
      const len = Buffer.alloc(4);
      len.writeUInt32BE(b.length, 0);
      parts.push(len, b);
    }
  }
  return Buffer.concat(parts);
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | version, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

function dataFrame(id: number, flags: number, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(id & 0x7fffffff, 0);
  head.writeUInt32BE(((flags & 0xff) << 24) | data.length, 4);
  return Buffer.concat([head, data]);
}

export class SpdySession {
  #buffer = Buffer.alloc(0);
  /** Every header block byte the client sent, for the inflater's context. */
  #compressedIn: Buffer[] = [];
  #inflatedLength = 0;
  #deflateStarted = false;
  #streams = new Map<number, SpdyStream>();
  #closed = false;

  constructor(
    private readonly send: (bytes: Buffer) => void,
    private readonly onStream: (stream: SpdyStream) => void,
    private readonly onClose: () => void = () => undefined,
  ) {}

  /** Bytes from the client: whole frames are handled, a partial one waits for the rest. */
  receive(bytes: Uint8Array): void {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, bytes]) : Buffer.from(bytes);
    while (!this.#closed && this.#buffer.length >= 8) {
      const length = this.#buffer.readUInt32BE(4) & 0xffffff;
      if (this.#buffer.length < 8 + length) return;
      const frame = this.#buffer.subarray(0, 8 + length);
      this.#buffer = this.#buffer.subarray(8 + length);
      this.#frame(frame);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const s of this.#streams.values()) s.onEnd?.();
    this.#streams.clear();
    this.onClose();
  }

  #frame(frame: Buffer): void {
    const flags = frame[4]!;
    if ((frame[0]! & 0x80) === 0) {
      const stream = this.#streams.get(frame.readUInt32BE(0) & 0x7fffffff);
      if (!stream) return;
      if (frame.length > 8) stream.onData?.(frame.subarray(8));
      if (flags & flagFin) stream.onEnd?.();
      return;
    }
    const type = frame.readUInt16BE(2);
    switch (type) {
      case synStream: {
        const id = frame.readUInt32BE(8) & 0x7fffffff;
        const headers = this.#inflate(frame.subarray(18));
        const stream = this.#stream(id, headers);
        this.#streams.set(id, stream);
        this.send(controlFrame(synReply, 0, Buffer.concat([frame.subarray(8, 12), this.#deflate(new Map())])));
        this.onStream(stream);
        if (flags & flagFin) stream.onEnd?.();
        return;
      }
      case headersFrame:
        // Read to keep the inflater's context, nothing else.
        this.#inflate(frame.subarray(12));
        return;
      case rstStream: {
        const id = frame.readUInt32BE(8) & 0x7fffffff;
        const stream = this.#streams.get(id);
        this.#streams.delete(id);
        stream?.onEnd?.();
        return;
      }
      case ping:
        this.send(frame);
        return;
      case goAway:
        this.close();
        return;
      default:
        // SETTINGS, WINDOW_UPDATE: nothing to do.
        return;
    }
  }

  #stream(id: number, headers: Map<string, string>): SpdyStream {
    let finished = false;
    return {
      id,
      headers,
      write: (data) => {
        if (!finished && !this.#closed && data.length) this.send(dataFrame(id, 0, data));
      },
      end: () => {
        if (finished || this.#closed) return;
        finished = true;
        this.send(dataFrame(id, flagFin, new Uint8Array()));
      },
    };
  }

  #inflate(block: Buffer): Map<string, string> {
    this.#compressedIn.push(Buffer.from(block));
    const all = inflateSync(Buffer.concat(this.#compressedIn), { dictionary: headerDictionary, finishFlush: constants.Z_SYNC_FLUSH });
    const mine = all.subarray(this.#inflatedLength);
    this.#inflatedLength = all.length;
    return parseHeaderBlock(mine);
  }

  /** A header block in our compression stream: stored deflate blocks, the zlib header (no dictionary) first. */
  #deflate(headers: ReadonlyMap<string, string>): Buffer {
    const data = headerBlock(headers);
    const stored = Buffer.alloc(5);
    stored[0] = 0; // BFINAL 0, BTYPE 00 (stored), padded to the byte
    stored.writeUInt16LE(data.length, 1);
    stored.writeUInt16LE(~data.length & 0xffff, 3);
    const head = this.#deflateStarted ? [] : [Buffer.from([0x78, 0x01])];
    this.#deflateStarted = true;
    // Then an empty stored block, as a sync flush writes it: an inflater hands over what it has without reading on.
    return Buffer.concat([...head, stored, data, syncFlush]);
  }
}

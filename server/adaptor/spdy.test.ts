/** SPDY/3.1 as port-forward speaks it: a client's compressed header blocks read, ours readable by any inflater, frames both ways. */
import { constants, createDeflate, inflateSync, type Deflate } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { completeRequest } from './portForward';
import { headerDictionary, parseHeaderBlock, SpdySession, type SpdyStream } from './spdy';

/** A client's header compressor: one zlib stream preset with the dictionary, sync-flushed after each block (as Go's framer writes). */
function clientCompressor(): (headers: Record<string, string>) => Promise<Buffer> {
  const deflate: Deflate = createDeflate({ dictionary: headerDictionary });
  return (headers) =>
    new Promise((resolve) => {
      const parts: Buffer[] = [];
      const entries = Object.entries(headers);
      const block: Buffer[] = [u32(entries.length)];
      for (const [k, v] of entries) block.push(u32(k.length), Buffer.from(k), u32(v.length), Buffer.from(v));
      const onData = (d: Buffer) => parts.push(d);
      deflate.on('data', onData);
      deflate.write(Buffer.concat(block));
      deflate.flush(constants.Z_SYNC_FLUSH, () => {
        deflate.off('data', onData);
        resolve(Buffer.concat(parts));
      });
    });
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
};

function synStream(id: number, block: Buffer, fin = false): Buffer {
  const payload = Buffer.concat([u32(id), u32(0), Buffer.from([0, 0]), block]);
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8003, 0);
  head.writeUInt16BE(1, 2);
  head.writeUInt32BE(((fin ? 1 : 0) << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

function data(id: number, bytes: string, fin = false): Buffer {
  const body = Buffer.from(bytes);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(id, 0);
  head.writeUInt32BE(((fin ? 1 : 0) << 24) | body.length, 4);
  return Buffer.concat([head, body]);
}

describe('the SPDY/3.1 session of port-forward', () => {
  it('the header dictionary is SPDY/3 draft 3 (its Adler-32, which zlib streams name it by)', () => {
    let a = 1;
    let b = 0;
    for (const x of headerDictionary) {
      a = (a + x) % 65521;
      b = (b + a) % 65521;
    }
    expect(headerDictionary.length).toBe(1423);
    expect(((b << 16) | a) >>> 0).toBe(0xe3c6a7c2);
  });

  it('reads streams in one header compression context, replies in ours, and passes data and FIN both ways', async () => {
    const out: Buffer[] = [];
    const streams: SpdyStream[] = [];
    const got: string[] = [];
    const session = new SpdySession((b) => out.push(b), (s) => {
      streams.push(s);
      s.onData = (d) => got.push(`${s.id}:${d.toString()}`);
      s.onEnd = () => got.push(`${s.id}:FIN`);
    });
    const compress = clientCompressor();
    const first = synStream(1, await compress({ streamtype: 'error', port: '8080', requestid: '0' }));
    const second = synStream(3, await compress({ streamtype: 'data', port: '8080', requestid: '0' }));
    // Frames split anywhere arrive whole.
    const all = Buffer.concat([first, data(1, '', true), second, data(3, 'GET / HTTP/1.1\r\n\r\n')]);
    session.receive(all.subarray(0, 5));
    session.receive(all.subarray(5, 50));
    session.receive(all.subarray(50));
    expect(streams.map((s) => [s.id, Object.fromEntries(s.headers)])).toEqual([
      [1, { streamtype: 'error', port: '8080', requestid: '0' }],
      [3, { streamtype: 'data', port: '8080', requestid: '0' }],
    ]);
    expect(got).toEqual(['1:FIN', '3:GET / HTTP/1.1\r\n\r\n']);
    // Two SYN_REPLYs: their header blocks form one zlib stream that a plain inflater reads, block by block.
    expect(out.map((f) => f.readUInt16BE(2))).toEqual([2, 2]);
    expect(out.map((f) => f.readUInt32BE(8))).toEqual([1, 3]);
    const blocks = out.map((f) => f.subarray(12));
    expect(parseHeaderBlock(inflateSync(blocks[0]!, { finishFlush: constants.Z_SYNC_FLUSH })).size).toBe(0);
    expect(inflateSync(Buffer.concat(blocks), { finishFlush: constants.Z_SYNC_FLUSH })).toEqual(Buffer.alloc(8));
    streams[1]!.write(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'));
    streams[1]!.end();
    streams[1]!.write(Buffer.from('late'));
    const [reply, fin] = out.slice(2);
    expect(reply!.readUInt32BE(0)).toBe(3);
    expect(reply!.subarray(8).toString()).toBe('HTTP/1.1 200 OK\r\n\r\n');
    expect([fin!.readUInt32BE(0), fin![4], fin!.length]).toEqual([3, 1, 8]);
    expect(out).toHaveLength(4);
  });

  it('answers PING with the same frame; GOAWAY ends the session and its streams', async () => {
    const out: Buffer[] = [];
    let closed = false;
    const ended: number[] = [];
    const session = new SpdySession((b) => out.push(b), (s) => void (s.onEnd = () => ended.push(s.id)), () => void (closed = true));
    session.receive(synStream(1, await clientCompressor()({ streamtype: 'data', port: '80', requestid: '7' })));
    const ping = Buffer.from([0x80, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01]);
    session.receive(ping);
    expect(out.at(-1)).toEqual(ping);
    session.receive(Buffer.from([0x80, 0x03, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08, 0, 0, 0, 1, 0, 0, 0, 0]));
    expect(closed).toBe(true);
    expect(ended).toEqual([1]);
  });

  it('a forwarded HTTP request is whole once its head and Content-Length bytes are in', () => {
    expect(completeRequest('GET / HTTP/1.1\r\nHost: x\r\n')).toBe(false);
    expect(completeRequest('GET / HTTP/1.1\r\nHost: x\r\n\r\n')).toBe(true);
    expect(completeRequest('POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nabc')).toBe(false);
    expect(completeRequest('POST /a HTTP/1.1\r\ncontent-length: 5\r\n\r\nabcde')).toBe(true);
    expect(completeRequest('hello\n')).toBe(false);
  });
});

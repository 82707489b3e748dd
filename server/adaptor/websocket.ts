/**
 * The server side of RFC 6455 over an upgraded socket: the handshake, and
 * messages in and out (client frames are masked, ours are not; fragments are
 * joined; pings answered; a close is echoed). Enough for the channel
 * protocols of exec (remotecommand's v4/v5.channel.k8s.io).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const magic = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export interface WebSocketHandlers {
  message(data: Buffer): void;
  /** The peer closed, or the socket went. */
  closed(): void;
}

export interface ServerWebSocket {
  /** The subprotocol chosen. */
  protocol: string;
  send(data: Uint8Array): void;
  close(code?: number): void;
}

/** Whether the request asks for a WebSocket (Upgrade: websocket). */
export function isWebSocketRequest(incoming: IncomingMessage): boolean {
  return (incoming.headers.upgrade ?? '').toLowerCase() === 'websocket' && typeof incoming.headers['sec-websocket-key'] === 'string';
}

/** The client's subprotocols, in its order. */
export function offeredProtocols(incoming: IncomingMessage): string[] {
  return String(incoming.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
}

function frame(opcode: number, payload: Uint8Array): Buffer {
  const len = payload.byteLength;
  const header = len < 126 ? Buffer.from([0x80 | opcode, len]) : len < 65536 ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 0xff]) : Buffer.alloc(10);
  if (len >= 65536) {
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([header, payload]);
}

/** Completes the handshake with `protocol` and starts reading messages. */
export function acceptWebSocket(incoming: IncomingMessage, socket: Duplex, head: Buffer, protocol: string, handlers: WebSocketHandlers): ServerWebSocket {
  const accept = createHash('sha1').update(String(incoming.headers['sec-websocket-key']) + magic).digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`);
  let buffered: Buffer = head.length ? Buffer.from(head) : Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let closing = false;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    handlers.closed();
  };
  const ws: ServerWebSocket = {
    protocol,
    send(data) {
      if (!closing && socket.writable) socket.write(frame(0x2, data));
    },
    close(code = 1000) {
      if (closing) return;
      closing = true;
      const payload = Buffer.alloc(2);
      payload.writeUInt16BE(code);
      if (socket.writable) socket.write(frame(0x8, payload));
      // The peer answers with its close; it is not waited for long.
      setTimeout(() => socket.destroy(), 1000).unref();
    },
  };
  const read = () => {
    for (;;) {
      if (buffered.length < 2) return;
      const b0 = buffered[0]!;
      const b1 = buffered[1]!;
      let len = b1 & 0x7f;
      let at = 2;
      if (len === 126) {
        if (buffered.length < 4) return;
        len = buffered.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (buffered.length < 10) return;
        len = Number(buffered.readBigUInt64BE(2));
        at = 10;
      }
      const masked = (b1 & 0x80) !== 0;
      const mask = masked ? buffered.subarray(at, at + 4) : undefined;
      if (masked) at += 4;
      if (buffered.length < at + len) return;
      const payload = Buffer.from(buffered.subarray(at, at + len));
      if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
      buffered = buffered.subarray(at + len);
      const opcode = b0 & 0x0f;
      const fin = (b0 & 0x80) !== 0;
      if (opcode === 0x8) {
        if (!closing) {
          closing = true;
          if (socket.writable) socket.end(frame(0x8, payload.subarray(0, 2)));
        } else socket.end();
        end();
        return;
      }
      if (opcode === 0x9) {
        if (socket.writable) socket.write(frame(0xa, payload));
        continue;
      }
      if (opcode === 0xa) continue;
      fragments.push(payload);
      if (fin) {
        const message = fragments.length === 1 ? fragments[0]! : Buffer.concat(fragments);
        fragments = [];
        handlers.message(message);
      }
    }
  };
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    read();
  });
  socket.on('close', end);
  socket.on('error', () => socket.destroy());
  if (buffered.length) queueMicrotask(read);
  return ws;
}

/**
 * The WebSocket side of an upgraded request, through the `ws` library: the
 * handshake with the subprotocol the caller chose, binary messages in and
 * out. Enough for the channel protocols of exec (remotecommand's
 * v4/v5.channel.k8s.io).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

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

/** A message is at most the API server's request body limit (3 MiB): stdin comes in small chunks. */
const maxPayload = 3 * 1024 * 1024;

/** Whether the request asks for a WebSocket (Upgrade: websocket). */
export function isWebSocketRequest(incoming: IncomingMessage): boolean {
  return (incoming.headers.upgrade ?? '').toLowerCase() === 'websocket' && typeof incoming.headers['sec-websocket-key'] === 'string';
}

/** The client's subprotocols, in its order. */
export function offeredProtocols(incoming: IncomingMessage): string[] {
  return String(incoming.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
}

function bufferOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

/**
 * Completes the handshake with `protocol` and starts reading messages.
 * Messages sent before the handshake completes are queued behind it.
 */
export function acceptWebSocket(incoming: IncomingMessage, socket: Duplex, head: Buffer, protocol: string, handlers: WebSocketHandlers): ServerWebSocket {
  const server = new WebSocketServer({ noServer: true, maxPayload, handleProtocols: () => protocol });
  // ws refuses subprotocols that are not HTTP tokens, and kubectl's SPDY tunnel (`SPDY/3.1+portforward.k8s.io`) has a '/':
  // such a choice is taken out of ws's hands and answered here.
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(protocol)) {
    delete incoming.headers['sec-websocket-protocol'];
    server.on('headers', (headers) => headers.push(`Sec-WebSocket-Protocol: ${protocol}`));
  }
  let socketReady: WebSocket | undefined;
  const pending: (() => void)[] = [];
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    server.close();
    handlers.closed();
  };
  server.handleUpgrade(incoming, socket, head, (ws) => {
    socketReady = ws;
    ws.on('message', (data) => handlers.message(bufferOf(data)));
    ws.on('close', end);
    ws.on('error', () => ws.terminate());
    for (const run of pending.splice(0)) run();
  });
  const whenOpen = (run: () => void) => (socketReady ? run() : pending.push(run));
  return {
    protocol,
    send(data) {
      whenOpen(() => {
        if (socketReady!.readyState === socketReady!.OPEN) socketReady!.send(data);
      });
    },
    close(code = 1000) {
      whenOpen(() => socketReady!.close(code));
    },
  };
}

/** A 400 Status written on the socket before any upgrade (kubectl prints its message). */
export function refuseUpgrade(socket: Duplex, message: string): void {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * The streaming side of port-forward on the Node host: SPDY/3.1 (spdy.ts)
 * over the WebSocket tunnel kubectl opens first (subprotocol
 * `SPDY/3.1+portforward.k8s.io`), or over a connection upgraded to SPDY/3.1
 * (its fallback, `X-Stream-Protocol-Version: portforward.k8s.io`). For each
 * local connection the client opens an error stream and a data stream with
 * the same requestID and the pod's port; what it sends on the data stream
 * goes to the server in the pod, whose answer comes back on it before both
 * streams end; a dial that fails is told on the error stream, as the
 * kubelet's port-forward server does.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PortForwardSession } from '../../src/core/http/upgrade';
import { SpdySession, type SpdyStream } from './spdy';
import { acceptWebSocket, isWebSocketRequest, offeredProtocols, refuseUpgrade, type ServerWebSocket } from './websocket';

/** The WebSocket subprotocol of kubectl's SPDY tunnel, and the SPDY protocol version header's value. */
export const tunnelProtocol = 'SPDY/3.1+portforward.k8s.io';
export const portForwardProtocol = 'portforward.k8s.io';

/**
 * Whether what the client sent is a whole request, by HTTP/1.1's framing:
 * the head, then Content-Length bytes. Anything that is not HTTP is whole
 * when the client stops sending.
 */
export function completeRequest(sent: string): boolean {
  if (!/^[A-Z]+ \S+ HTTP\/1\.[01]\r\n/.test(sent)) return false;
  const headEnd = sent.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(sent.slice(0, headEnd));
  return Buffer.byteLength(sent.slice(headEnd + 4)) >= (length ? Number(length[1]) : 0);
}

/** The forwarded connections of one session, by requestID: their error and data streams. */
function forwarder(session: PortForwardSession): (stream: SpdyStream) => void {
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  return (stream) => {
    const id = stream.headers.get('requestid') ?? '';
    const pair = pairs.get(id) ?? {};
    pairs.set(id, pair);
    if (stream.headers.get('streamtype') === 'error') {
      pair.error = stream;
      return;
    }
    pair.data = stream;
    const port = Number(stream.headers.get('port'));
    const finish = () => {
      pair.data?.end();
      pair.error?.end();
      pairs.delete(id);
    };
    const dialed = session.dial(port);
    if ('error' in dialed) {
      pair.error?.write(Buffer.from(dialed.error));
      return finish();
    }
    let sent = '';
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      stream.write(Buffer.from(dialed.exchange(sent)));
      finish();
    };
    stream.onData = (data) => {
      sent += data.toString('utf8');
      if (completeRequest(sent)) answer();
    };
    stream.onEnd = answer;
  };
}

export function servePortForward(session: PortForwardSession, incoming: IncomingMessage, socket: Duplex, head: Buffer): void {
  const onStream = forwarder(session);
  if (isWebSocketRequest(incoming)) {
    const offered = offeredProtocols(incoming);
    if (!offered.includes(tunnelProtocol)) return refuseUpgrade(socket, `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server supports [${tunnelProtocol}]`);
    let ws: ServerWebSocket | undefined;
    const spdy = new SpdySession((bytes) => ws?.send(bytes), onStream, () => ws?.close());
    ws = acceptWebSocket(incoming, socket, head, tunnelProtocol, { message: (data) => spdy.receive(data), closed: () => spdy.close() });
    return;
  }
  if ((incoming.headers.upgrade ?? '').toLowerCase() !== 'spdy/3.1') return refuseUpgrade(socket, 'unable to upgrade: missing upgrade headers in request');
  const versions = String(incoming.headers['x-stream-protocol-version'] ?? '').split(',').map((v) => v.trim());
  if (!versions.includes(portForwardProtocol)) return refuseUpgrade(socket, `unable to upgrade: unable to negotiate protocol: client supports [${versions.join(' ')}], server supports [${portForwardProtocol}]`);
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${portForwardProtocol}\r\n\r\n`);
  const spdy = new SpdySession((bytes) => void socket.write(bytes), onStream, () => socket.end());
  socket.on('data', (data: Buffer) => spdy.receive(data));
  socket.on('close', () => spdy.close());
  socket.on('error', () => socket.destroy());
  if (head.length) spdy.receive(head);
}

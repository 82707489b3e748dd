/**
 * The page's side of an exec stream. The service worker cannot take a
 * WebSocket upgrade, so the stream travels as messages (src/sw/streams.ts):
 * the page posts the exec path and its input to the worker, and the worker
 * posts the process's output and its end back on the stream's own port.
 * While the stream is open the page pings the worker, which the browser
 * would otherwise stop after 30 seconds without an event (and the
 * simulated cluster with it).
 */
import { parseStreamMessage, type MessageTarget, type PageMessage } from '../../../../sw';
import { statusFrom, type Status } from '../../../api';

export type ExecEnd =
  /** The API server answered without opening the stream: its Status (a 400, a 403, the kubelet's 500). */
  | { kind: 'refused'; status: Status }
  /** The error channel's Status: Success, NonZeroExitCode, or the runtime's failure. */
  | { kind: 'done'; status: Status }
  /** The page closed it. */
  | { kind: 'closed' };

export interface ExecStreamEvents {
  onOpen(): void;
  /** Output as written: stream 1 is stdout (everything, with a terminal), 2 stderr. */
  onOutput(stream: 1 | 2, text: string): void;
  onEnd(end: ExecEnd): void;
}

export interface ExecStream {
  /** Sends the user's keystrokes (with a terminal) or text to the process's stdin. */
  input(data: string): void;
  /** Closes stdin (a command reading to its end then finishes). */
  closeInput(): void;
  /** Leaves the stream: an exec'd process is stopped. */
  close(): void;
}

/** How often an open stream pings the worker (well inside the browser's 30-second idle limit). */
export const STREAM_PING_MS = 10_000;

let nextId = 0;

export function openExecStream(worker: MessageTarget, path: string, events: ExecStreamEvents, pingMs = STREAM_PING_MS): ExecStream {
  const id = `exec-${Date.now().toString(36)}-${(nextId++).toString(36)}`;
  const channel = new MessageChannel();
  let ended = false;
  const post = (message: PageMessage) => worker.postMessage(message, []);
  const ping = setInterval(() => post({ type: 'kubesim/stream-ping', id }), pingMs);
  const end = (result: ExecEnd) => {
    if (ended) return;
    ended = true;
    clearInterval(ping);
    channel.port1.close();
    events.onEnd(result);
  };
  channel.port1.onmessage = (event: MessageEvent<unknown>) => {
    const message = parseStreamMessage(event.data);
    if (!message || ended) return;
    switch (message.type) {
      case 'opened':
        events.onOpen();
        return;
      case 'output':
        events.onOutput(message.stream, message.text);
        return;
      case 'done':
        end({ kind: 'done', status: { ...message.status, kind: 'Status', apiVersion: 'v1' } as Status });
        return;
      case 'refused':
        void statusFrom(new Response(message.body, { status: message.code, headers: { 'content-type': message.contentType } })).then((status) => end({ kind: 'refused', status }));
        return;
    }
  };
  worker.postMessage({ type: 'kubesim/stream-open', id, path } satisfies PageMessage, [channel.port2]);
  return {
    input: (data) => !ended && post({ type: 'kubesim/stream-input', id, data }),
    closeInput: () => !ended && post({ type: 'kubesim/stream-close-input', id }),
    close() {
      if (ended) return;
      post({ type: 'kubesim/stream-detach', id });
      end({ kind: 'closed' });
    },
  };
}

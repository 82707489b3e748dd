/**
 * exec and attach on the service-worker host. A worker's fetch cannot be
 * upgraded, so the page asks for the stream with a message naming the path
 * it would GET with `Connection: Upgrade`; the core decides as for any
 * upgrade (authentication, authorization of the `create` on pods/exec,
 * admission, the kubelet), and the session it hands over is bridged over the
 * MessagePort the page sent: remotecommand's channels as messages (stdin
 * from the page's messages, stdout and stderr as they are written, the
 * error channel's Status at the end), as the Node host bridges them over a
 * WebSocket (server/adaptor/remoteCommand.ts).
 */
import { newInternalError } from '../core/errors';
import { headerFields, LightRequest } from '../core/http/lightRequest';
import { isPortForward, isProcessStream, upgradeSessionOf, type AttachedProcess } from '../core/http/upgrade';
import type { RequestHandler } from './fetchHandler';
import type { PageMessage, StreamMessage } from './protocol';

type StreamPageMessage = Exclude<PageMessage, { type: 'kubesim/hello' | 'kubesim/claim' }>;

/** Where a stream's messages go: a MessagePort, or a stand-in in tests. */
export interface StreamPort {
  postMessage(message: StreamMessage): void;
}

/** An open stream: the process's input, or (a command run over its whole input) the input gathered until it closes. */
interface OpenStream {
  attached?: AttachedProcess;
  input?: (data: string) => void;
  closeInput?: () => void;
  abort: AbortController;
}

export interface StreamHost {
  /** Handles one stream message from the page; the promise settles once it has been acted on (an open: once answered). */
  receive(message: StreamPageMessage, port: StreamPort | undefined): Promise<void>;
  /** How many streams are open (for tests). */
  readonly open: number;
}

/** A failure outside the session's own Status: apierrors.NewInternalError's, as the error channel carries it. */
const internalError = (e: unknown): Record<string, unknown> => ({ ...newInternalError(e).status });

export function createStreamHost(origin: string, server: () => Promise<RequestHandler>): StreamHost {
  const streams = new Map<string, OpenStream>();

  async function open(id: string, path: string, port: StreamPort): Promise<void> {
    if (streams.has(id)) return;
    const stream: OpenStream = { abort: new AbortController() };
    streams.set(id, stream);
    const close = (status: Record<string, unknown>) => {
      if (streams.get(id) !== stream) return;
      streams.delete(id);
      port.postMessage({ type: 'done', status });
    };
    try {
      // The headers a WebSocket upgrade carries: the core hands over a session only to an upgrade.
      const request = new LightRequest('GET', new URL(path, origin).href, headerFields({ accept: 'application/json, */*', connection: 'Upgrade', upgrade: 'websocket' }), null, stream.abort.signal) as unknown as Request;
      const response = await (await server()).handle(request);
      const session = upgradeSessionOf(request);
      // A page cannot take a forwarded port: the browser opens no listening socket.
      if (session && isPortForward(session)) {
        streams.delete(id);
        const message = 'port-forward is not available in the browser: run kubectl port-forward against the Node host';
        port.postMessage({ type: 'refused', code: 400, contentType: 'application/json', body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 }) });
        return;
      }
      if (!session) {
        streams.delete(id);
        port.postMessage({ type: 'refused', code: response.status, contentType: response.headers.get('content-type') ?? '', body: await response.text() });
        return;
      }
      if (streams.get(id) !== stream) {
        // The page left while the core decided: an exec'd process that started is stopped.
        if (isProcessStream(session)) session.attach(() => undefined).detach();
        return;
      }
      port.postMessage({ type: 'opened' });
      if (isProcessStream(session)) {
        const attached = session.attach((s, text) => streams.get(id) === stream && port.postMessage({ type: 'output', stream: s, text }));
        stream.attached = attached;
        void attached.done.then(close, (e: unknown) => close(internalError(e)));
        return;
      }
      // A command run over its whole standard input (one that could not start answers at once).
      let stdin = '';
      const run = () => {
        stream.input = stream.closeInput = undefined;
        session.run(stdin, stream.abort.signal).then(
          (result) => {
            if (session.options.stdout && result.stdout) port.postMessage({ type: 'output', stream: 1, text: result.stdout });
            if (session.options.stderr && result.stderr) port.postMessage({ type: 'output', stream: 2, text: result.stderr });
            close(result.status);
          },
          (e: unknown) => close(internalError(e)),
        );
      };
      if (!session.readsStdin) return run();
      stream.input = (data) => void (stdin += data);
      stream.closeInput = run;
    } catch (e) {
      close(internalError(e));
    }
  }

  return {
    get open() {
      return streams.size;
    },
    async receive(message, port) {
      const stream = streams.get(message.id);
      switch (message.type) {
        case 'kubesim/stream-open':
          if (port) await open(message.id, message.path, port);
          return;
        case 'kubesim/stream-input':
          if (stream?.attached) stream.attached.input(message.data);
          else stream?.input?.(message.data);
          return;
        case 'kubesim/stream-close-input':
          if (stream?.attached) stream.attached.closeInput();
          else stream?.closeInput?.();
          return;
        case 'kubesim/stream-detach':
          if (!stream) return;
          streams.delete(message.id);
          stream.attached?.detach();
          stream.abort.abort();
          return;
        case 'kubesim/stream-ping':
          return;
      }
    },
  };
}

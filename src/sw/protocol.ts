/**
 * The message protocol between the workbench page and the service worker, and
 * the only code that packs or unpacks those messages. Each request travels
 * with its own MessageChannel; the worker answers on the channel's port.
 *
 * The hello handshake carries the protocol version and the build id, so a
 * page can tell when the worker controlling it came from another build (a
 * stale worker) and ask the browser to update it.
 */

/** Bumped whenever a message shape changes. */
export const PROTOCOL_VERSION = 2;

interface BuildEnv {
  env?: { KUBESIM_BUILD_ID?: string };
}

/**
 * Set by vite.config.ts as `import.meta.env.KUBESIM_BUILD_ID`, which Vite
 * resolves per module (in the worker as in the page, in dev as in builds);
 * 'unbuilt' when run straight from source, e.g. in tests.
 */
export const BUILD_ID: string = (import.meta as BuildEnv).env?.KUBESIM_BUILD_ID ?? 'unbuilt';

/** The IndexedDB database holding the cluster state. */
export const DATABASE_NAME = 'kubesim';

export type PageMessage =
  /** Asks for the worker's protocol version and build id. */
  | { type: 'kubesim/hello' }
  /** Asks the worker to control every in-scope page (recovers a page loaded with Shift-reload). */
  | { type: 'kubesim/claim' }
  /** Asks for the stream a GET of path with `Connection: Upgrade` would open (exec, attach); the worker answers on the port (StreamMessage). */
  | { type: 'kubesim/stream-open'; id: string; path: string }
  /** What the page's user typed or pasted: the stream's stdin. */
  | { type: 'kubesim/stream-input'; id: string; data: string }
  /** The page closed the stream's stdin (v5.channel.k8s.io's close of channel 0). */
  | { type: 'kubesim/stream-close-input'; id: string }
  /** The page left the stream (the connection closed). */
  | { type: 'kubesim/stream-detach'; id: string }
  /** Sent while a stream is open: a worker with no event for 30 seconds is stopped by the browser. */
  | { type: 'kubesim/stream-ping'; id: string };

/** What the worker posts on a stream's port: the remotecommand channels as messages. */
export type StreamMessage =
  /** The API server answered without upgrading (a Status, or the kubelet's plain-text error). */
  | { type: 'refused'; code: number; contentType: string; body: string }
  /** The streams are ready (the kubelet's first, empty message). */
  | { type: 'opened' }
  /** Output: stream 1 is stdout (with a terminal, everything), 2 stderr. */
  | { type: 'output'; stream: 1 | 2; text: string }
  /** The error channel: the command's end as a metav1.Status. */
  | { type: 'done'; status: Record<string, unknown> };

export type WorkerMessage =
  | { type: 'kubesim/hello'; protocolVersion: number; buildId: string }
  | { type: 'kubesim/claimed' }
  | { type: 'kubesim/error'; message: string };

const PAGE_TYPES: ReadonlySet<string> = new Set(['kubesim/hello', 'kubesim/claim']);
const STREAM_TYPES: ReadonlySet<string> = new Set(['kubesim/stream-open', 'kubesim/stream-input', 'kubesim/stream-close-input', 'kubesim/stream-detach', 'kubesim/stream-ping']);

function typeOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const type: unknown = (data as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

/** Unpacks a message received by the worker; undefined when it is not one of ours. */
export function parsePageMessage(data: unknown): PageMessage | undefined {
  const type = typeOf(data);
  if (type === undefined) return undefined;
  if (PAGE_TYPES.has(type)) return { type } as PageMessage;
  if (!STREAM_TYPES.has(type)) return undefined;
  const { id, path, data: input } = data as Record<string, unknown>;
  if (typeof id !== 'string') return undefined;
  switch (type) {
    case 'kubesim/stream-open':
      return typeof path === 'string' && path.startsWith('/') ? { type, id, path } : undefined;
    case 'kubesim/stream-input':
      return typeof input === 'string' ? { type, id, data: input } : undefined;
    default:
      return { type, id } as PageMessage;
  }
}

/** Unpacks a message received by the page on a stream's port; undefined when malformed. */
export function parseStreamMessage(data: unknown): StreamMessage | undefined {
  const type = typeOf(data);
  const record = data as Record<string, unknown>;
  switch (type) {
    case 'refused':
      return typeof record.code === 'number' && typeof record.body === 'string' ? { type, code: record.code, contentType: typeof record.contentType === 'string' ? record.contentType : '', body: record.body } : undefined;
    case 'opened':
      return { type };
    case 'output':
      return (record.stream === 1 || record.stream === 2) && typeof record.text === 'string' ? { type, stream: record.stream, text: record.text } : undefined;
    case 'done':
      return typeof record.status === 'object' && record.status !== null ? { type, status: record.status as Record<string, unknown> } : undefined;
    default:
      return undefined;
  }
}

/** Unpacks a reply received by the page; undefined when malformed. */
export function parseWorkerMessage(data: unknown): WorkerMessage | undefined {
  const type = typeOf(data);
  const record = data as Record<string, unknown>;
  switch (type) {
    case 'kubesim/hello':
      return typeof record.protocolVersion === 'number' && typeof record.buildId === 'string'
        ? { type, protocolVersion: record.protocolVersion, buildId: record.buildId }
        : undefined;
    case 'kubesim/claimed':
      return { type };
    case 'kubesim/error':
      return { type, message: typeof record.message === 'string' ? record.message : 'unknown error' };
    default:
      return undefined;
  }
}

/** Something a message can be posted to together with a transferred port (a ServiceWorker). */
export interface MessageTarget {
  postMessage(message: unknown, transfer: Transferable[]): void;
}

export class WorkerReplyTimeoutError extends Error {
  constructor(readonly request: PageMessage['type']) {
    super(`the service worker did not answer ${request}`);
    this.name = 'WorkerReplyTimeoutError';
  }
}

/** Page side: sends one message on a fresh channel and resolves with the worker's reply. */
export function sendToWorker(target: MessageTarget, message: Extract<PageMessage, { type: 'kubesim/hello' | 'kubesim/claim' }>, timeoutMs = 5_000): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => {
      channel.port1.close();
      reject(new WorkerReplyTimeoutError(message.type));
    }, timeoutMs);
    channel.port1.onmessage = (event: MessageEvent<unknown>) => {
      clearTimeout(timer);
      channel.port1.close();
      const reply = parseWorkerMessage(event.data);
      if (reply === undefined) reject(new Error(`malformed reply to ${message.type}`));
      else if (reply.type === 'kubesim/error') reject(new Error(reply.message));
      else resolve(reply);
    };
    target.postMessage(message, [channel.port2]);
  });
}

/** Worker side: answers a request on the port it came with. */
export function replyToPage(port: MessagePort | undefined, message: WorkerMessage): void {
  port?.postMessage(message);
}

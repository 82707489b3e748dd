/**
 * Turns a FetchEvent for an API path into a call of the core's handler, as a
 * Node host turns a socket into a Request: translation only.
 *
 * Navigations (but to a pod's or service's proxy) and paths outside the API
 * are left to the network. Response
 * bodies (watch streams included) pass through unbuffered; when the page
 * stops reading (a cancelled watch) or aborts its fetch, the Request handed
 * to the core is aborted, so core watch handlers stop the same way as under
 * the Node host.
 */
import { nativeResponse } from '../core/http/lightResponse';
import { isApiPath, isProxyPath } from './apiPaths';
import type { FetchEvent } from './types';

/** The part of the core's ApiServer the host calls. */
export interface RequestHandler {
  handle(request: Request): Promise<Response>;
}

export interface FetchListenerOptions {
  /** Only requests to this origin are answered. */
  origin: string;
  /** Resolves the core; called on each API request, so it may start the core lazily. */
  server: () => Promise<RequestHandler>;
  /** Reports a failure the core did not turn into a Status itself. */
  onError?: (error: unknown) => void;
  /** Called with each answer of the core, before the browser has it (afterFirstAnswer.ts). */
  onAnswer?: () => void;
}

export function createFetchListener(options: FetchListenerOptions): (event: FetchEvent) => void {
  return (event) => {
    const request = event.request;
    const url = new URL(request.url);
    // A tab opened on a pod's or service's proxy shows what the pod serves; every other navigation is the workbench's.
    if (request.mode === 'navigate' && !isProxyPath(url.pathname)) return;
    if (url.origin !== options.origin || !isApiPath(url.pathname)) return;
    event.respondWith(answer(request, options));
  };
}

async function answer(request: Request, options: FetchListenerOptions): Promise<Response> {
  const controller = new AbortController();
  followAbort(request.signal, controller);
  let server: RequestHandler;
  try {
    server = await options.server();
  } catch (error) {
    options.onError?.(error);
    return failure(503, 'ServiceUnavailable', `the API server could not start: ${messageOf(error)}`);
  }
  try {
    const response = await server.handle(new Request(request, { signal: controller.signal }));
    options.onAnswer?.();
    // respondWith takes only a platform Response; the core's light ones become one here.
    return abortOnCancel(nativeResponse(response), controller);
  } catch (error) {
    options.onError?.(error);
    return failure(500, 'InternalError', `an error on the server ("${messageOf(error)}") has prevented the request from succeeding`);
  }
}

/** Aborts controller when the page's request is aborted (FetchEvent request signals abort when the client goes away). */
function followAbort(signal: AbortSignal | undefined, controller: AbortController): void {
  if (!signal) return;
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
}

/**
 * Re-wraps the body so that cancelling it (the page closed the stream) also
 * aborts the core's Request. Chunks are pulled one at a time, so a watch
 * stream is never buffered ahead of the reader.
 *
 * A body of known length (the core sets Content-Length on every complete
 * body) is handed to the browser as it is: the core's work is done, nothing
 * is left to abort, and the browser reads it without a pull through the
 * worker's script per chunk, which would wait whenever the worker is busy.
 */
export function abortOnCancel(response: Response, controller: AbortController): Response {
  const source = response.body;
  if (source === null || response.headers.has('content-length')) return response;
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(sink) {
        try {
          const { done, value } = await reader.read();
          if (done) sink.close();
          else sink.enqueue(value);
        } catch (error) {
          sink.error(error);
        }
      },
      async cancel(reason) {
        controller.abort(reason);
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A Status for failures outside the core, shaped as kube-apiserver writes them. */
function failure(code: number, reason: string, message: string): Response {
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  return new Response(JSON.stringify(status), {
    status: code,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' },
  });
}

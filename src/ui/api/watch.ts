/**
 * Watching a collection, as an informer does: list once, then watch from the
 * list's resourceVersion and fold each event into the list. Folding is a pure
 * function; resourceVersions are only passed back to the server, never
 * compared (clients may only test them for equality).
 */
import { ApiError, statusFrom, type ApiClient } from './client';
import { isProtobufResponse, protobufBodyProblem } from './protobufGuard';
import type { KubeList, KubeObject, Status } from './types';

export type WatchEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: KubeObject }
  | { type: 'ERROR'; object: Status };

function identity(object: KubeObject): string {
  return `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/**
 * Applies one watch event to a list and returns the new list (the input is
 * not changed). Items stay ordered by namespace then name, as lists are
 * served; the list's resourceVersion follows the event's, so a restarted
 * watch resumes where this one stopped.
 */
export function applyWatchEvent<T extends KubeObject>(list: KubeList<T>, event: WatchEvent): KubeList<T> {
  if (event.type === 'ERROR') return list;
  const resourceVersion = event.object.metadata?.resourceVersion ?? list.metadata.resourceVersion;
  const metadata = { ...list.metadata, resourceVersion };
  if (event.type === 'BOOKMARK') return { ...list, metadata };
  const id = identity(event.object);
  const rest = list.items.filter((item) => identity(item) !== id);
  if (event.type === 'DELETED') return { ...list, metadata, items: rest };
  const object = event.object as T;
  const at = rest.findIndex((item) => identity(item) > id);
  const items = at < 0 ? [...rest, object] : [...rest.slice(0, at), object, ...rest.slice(at)];
  return { ...list, metadata, items };
}

/** Splits a watch response body (one JSON event per line) into events. */
export async function* readWatchEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<WatchEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== '') yield JSON.parse(line) as WatchEvent;
      }
    }
    buffered += decoder.decode();
    if (buffered.trim() !== '') yield JSON.parse(buffered) as WatchEvent;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The watch ended with an ERROR event or a failed request; `status` says why (410 Expired means relist). */
export class WatchError extends ApiError {}

/**
 * Watches a collection from a resourceVersion, calling onEvent for each
 * event, until the server ends the stream (resolves) or signal aborts. The
 * selectors must be the list's, so the watch continues the same collection.
 */
export async function watchCollection(
  client: ApiClient,
  collectionPath: string,
  resourceVersion: string,
  labelSelector: string,
  onEvent: (event: WatchEvent) => void,
  signal: AbortSignal,
  fieldSelector = '',
): Promise<void> {
  const query = new URLSearchParams({ watch: '1', resourceVersion, allowWatchBookmarks: 'true' });
  if (labelSelector) query.set('labelSelector', labelSelector);
  if (fieldSelector) query.set('fieldSelector', fieldSelector);
  const response = await client.fetch(`${collectionPath}?${query}`, { headers: { Accept: 'application/json' }, signal });
  if (!response.ok) throw new WatchError(await statusFrom(response));
  if (isProtobufResponse(response)) {
    const message = protobufBodyProblem(new Uint8Array(await response.arrayBuffer()));
    throw new WatchError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: response.status, reason: 'Unknown', message });
  }
  if (!response.body) return;
  for await (const event of readWatchEvents(response.body)) {
    if (signal.aborted) return;
    if (event.type === 'ERROR') throw new WatchError(event.object);
    onEvent(event);
  }
}

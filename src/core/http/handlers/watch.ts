/**
 * watch: a chunked stream of newline-delimited JSON events
 * ({"type","object"}), started per the spec's watch table (unset/"0": synthetic
 * ADDED for the current state, then changes; n: changes after n), filtered by
 * selectors (an object that stops matching is DELETED, one that starts is
 * ADDED), with bookmarks, timeouts, and a clean stop when the client leaves.
 */
import { apiVersionOf, type KubeObject } from '../../api/types';
import { errorToStatus, newResourceExpired } from '../../errors';
import { isStorageError, type StorageEvent } from '../../storage/interface';
import { toTable } from '../../printers';
import { negotiateOutput, type Representation } from '../negotiation';
import { jsonSerializer } from '../serializers/json';
import { parseResourceVersion, validateListParams, waitForRevision } from './resourceVersion';
import type { RequestScope } from './scope';
import { selectionFrom } from './selection';
import { tableOptions } from './transform';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** kube-apiserver's --min-request-timeout: watches last a random time in [1x, 2x) of it. */
export const minRequestTimeoutSeconds = 1800;
/** Bookmarks go out about once a minute, as the watch cache sends them. */
export const bookmarkIntervalMs = 60_000;
/** A watcher this many frames behind is closed so that it relists, like a full cacheWatcher channel. */
export const maxBufferedFrames = 10_000;

export async function watchResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store, type } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { protobuf: false, transforms: true, url, userAgent: request.headers.get('user-agent') });
  const params = validateListParams(url, true);
  const selection = selectionFrom(url, type);
  const nameFilter = info.name;
  const matches = (obj: KubeObject) => (!nameFilter || obj.metadata.name === nameFilter) && (!selection.predicate || selection.predicate(obj));
  const rv = parseResourceVersion(params.resourceVersion ?? null);
  const sendInitialEvents = url.searchParams.get('sendInitialEvents') === 'true';
  const bookmarks = url.searchParams.get('allowWatchBookmarks') === 'true';
  const timeoutParam = url.searchParams.get('timeoutSeconds');
  const timeoutSeconds = timeoutParam ? Number(timeoutParam) : minRequestTimeoutSeconds * (1 + Math.random());
  const prefix = store.collectionPrefix(info.namespace);
  const apiVersion = apiVersionOf(type.group, type.version);

  if (rv && !sendInitialEvents) await waitForRevision(store.storage, scope.clock, rv, request.signal);

  const encoder = new TextEncoder();
  const stop = new AbortController();
  let unsubscribe: (() => void) | undefined;
  let closed = false;
  let headersSent = false;

  const toWire = (eventType: WatchEventType, obj: unknown): Uint8Array => {
    let object = obj;
    if (eventType !== 'ERROR' && eventType !== 'BOOKMARK' && choice.representation.as !== 'object') {
      object = representation(obj as KubeObject, choice.representation, scope, !headersSent);
    }
    headersSent = true;
    return encoder.encode(JSON.stringify({ type: eventType, object }) + '\n');
  };

  const stream = new ReadableStream<Uint8Array>({
    start: async (controller) => {
      const close = () => {
        if (closed) return;
        closed = true;
        stop.abort();
        unsubscribe?.();
        try {
          controller.close();
        } catch {
          // already closed by the consumer
        }
      };
      const send = (eventType: WatchEventType, obj: unknown) => {
        if (closed) return;
        controller.enqueue(toWire(eventType, obj));
        // A consumer that stopped reading must not hold events forever.
        if ((controller.desiredSize ?? 0) < -maxBufferedFrames) close();
      };
      request.signal.addEventListener('abort', close, { once: true });

      const decode = (kv: StorageEvent['kv']) => store.decode(kv);
      const onEvent = (e: StorageEvent) => {
        if (closed) return;
        const obj = decode(e.kv);
        if (e.type === 'DELETE') {
          const prev = e.prevKv ? decode(e.prevKv) : obj;
          prev.metadata.resourceVersion = String(e.revision);
          if (matches(prev)) send('DELETED', prev);
          return;
        }
        const now = matches(obj);
        const before = e.prevKv ? matches(decode(e.prevKv)) : false;
        if (now && before) send('MODIFIED', obj);
        else if (now) send('ADDED', obj);
        else if (before) send('DELETED', obj);
      };

      try {
        let startRevision: number;
        if (!rv || sendInitialEvents) {
          // Get State and Start at Most Recent / Any: synthetic ADDED for what exists now.
          const listed = await store.list(info.namespace, { predicate: matches });
          startRevision = listed.revision;
          if (rv && sendInitialEvents && rv > startRevision) {
            await waitForRevision(store.storage, scope.clock, rv, request.signal);
          }
          for (const obj of listed.items) send('ADDED', obj);
          if (sendInitialEvents && bookmarks) {
            send('BOOKMARK', {
              kind: type.kind,
              apiVersion,
              metadata: { resourceVersion: String(startRevision), annotations: { 'k8s.io/initial-events-end': 'true' } },
            });
          }
        } else {
          startRevision = rv;
        }
        let lastRevision = startRevision;
        unsubscribe = await store.storage.watch(prefix, startRevision, (e) => {
          lastRevision = e.revision;
          onEvent(e);
        });
        if (closed) unsubscribe();
        void scope.clock.sleep(timeoutSeconds * 1000, stop.signal).then(close);
        if (bookmarks) {
          void (async () => {
            while (!closed) {
              await scope.clock.sleep(bookmarkIntervalMs, stop.signal);
              if (closed) break;
              const current = Math.max(lastRevision, await store.storage.currentRevision());
              send('BOOKMARK', { kind: type.kind, apiVersion, metadata: { resourceVersion: String(current) } });
            }
          })();
        }
      } catch (e) {
        if (isStorageError(e, 'Compacted')) {
          const compacted = await store.storage.compactedRevision();
          send('ERROR', newResourceExpired(`too old resource version: ${rv} (${compacted})`).status);
        } else {
          send('ERROR', errorToStatus(e));
        }
        close();
      }
    },
    cancel: () => {
      closed = true;
      stop.abort();
      unsubscribe?.();
    },
  });

  return new Response(stream, {
    status: 200,
    headers: {
      'Content-Type': choice.serializer === jsonSerializer || choice.representation.as !== 'object' ? 'application/json' : choice.serializer.mediaType,
      'Cache-Control': 'no-cache, private',
    },
  });
}

function representation(obj: KubeObject, rep: Representation, scope: RequestScope, withHeaders: boolean): unknown {
  if (rep.as === 'Table') {
    const t = toTable([obj], { ...tableOptions(scope), noHeaders: !withHeaders });
    return rep.version === 'v1' ? t : { ...t, apiVersion: 'meta.k8s.io/v1beta1' };
  }
  if (rep.as === 'PartialObjectMetadata' || rep.as === 'PartialObjectMetadataList') {
    return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${rep.version}`, metadata: obj.metadata };
  }
  return obj;
}

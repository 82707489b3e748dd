/**
 * watch: a chunked stream of events ({"type","object"}), one event per chunk
 * while the client keeps up (events it fell behind on go out together, as
 * kube-apiserver flushes once its channel is empty), in the negotiated
 * encoding: newline-delimited JSON (`application/json`),
 * length-prefixed protobuf WatchEvent frames
 * (`application/vnd.kubernetes.protobuf;stream=watch`) or a CBOR sequence
 * (`application/cbor-seq`, with CBORServingAndStorage). Started per the
 * spec's watch table:
 *
 *   rv unset  Get State and Start at Most Recent: ADDED for the current state, then changes
 *   rv "0"    Get State and Start at Any: the same (the newest state is allowed)
 *   rv n      Start at Exact: only changes after n (a future n waits, until the timeout)
 *
 * A streaming list (sendInitialEvents=true, resourceVersionMatch=NotOlderThan)
 * ends its synthetic ADDED events with a BOOKMARK annotated
 * `k8s.io/initial-events-end` when bookmarks are allowed. Selectors apply to
 * every event: an object that stops matching is DELETED, one that starts is
 * ADDED. A version older than the retained history is HTTP 200 then an ERROR
 * event (410 Expired). Events come from a bounded per-client queue pulled
 * only as fast as the client reads; a client too far behind is cut off so it
 * resumes or relists. The stream ends at timeoutSeconds (or kube's randomized
 * server maximum), when the request is aborted, or when the reader cancels.
 */
import { apiVersionOf, type KubeObject } from '../../api/types';
import { errorToStatus, type Status } from '../../errors';
import { toTable } from '../../printers';
import { isStorageError } from '../../storage/interface';
import { openCacheWatcher, type CacheWatcher, type WatchItem } from '../../storage/cacher/cacheWatcher';
import type { CachingEvent } from '../../storage/cacher/cachingEvent';
import type { WatchFeed } from '../../storage/cacher/watchFeed';
import { negotiateOutput, type Representation } from '../negotiation';
import { CBOR_SEQ_MEDIA_TYPE } from '../serializers/cborSerializer';
import { jsonSerializer } from '../serializers/json';
import { Utf8Builder } from '../utf8Builder';
import { protobufFor } from './common';
import { parseResourceVersion, tooOldResourceVersion, validateListParams, waitForRevision } from './resourceVersion';
import type { RequestScope } from './scope';
import { customResourceInfo } from '../../apiextensions/resources';
import { selectionFrom } from './selection';
import { tableOptions } from './transform';
import { concatBytes } from '../../util/bytes';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** kube-apiserver's --min-request-timeout: watches without timeoutSeconds last a random time in [1x, 2x) of it. */
export const minRequestTimeoutSeconds = 1800;
/** Bookmarks go out about once a minute, as the watch cache sends them. */
export const bookmarkIntervalMs = 60_000;
/** Events a client may fall behind by before its watch is closed (a full cacheWatcher channel). */
export const watcherCapacity = 1000;
/** Queued events written together stop at about this many bytes, so one chunk stays small. */
const maxChunkBytes = 128 * 1024;
/** The JSON event envelope before the object, by event type. */
const jsonEventHeads: Record<WatchEventType, string> = {
  ADDED: '{"type":"ADDED","object":',
  MODIFIED: '{"type":"MODIFIED","object":',
  DELETED: '{"type":"DELETED","object":',
  BOOKMARK: '{"type":"BOOKMARK","object":',
  ERROR: '{"type":"ERROR","object":',
};
const utf8 = new TextEncoder();

/** A storage event's watch event type for a watcher without a selector. */
function unfilteredType(e: CachingEvent): WatchEventType {
  return e.type === 'DELETE' ? 'DELETED' : e.prevKv ? 'MODIFIED' : 'ADDED';
}
/** The annotation on the bookmark that ends a streaming list's initial events. */
export const initialEventsEndAnnotation = 'k8s.io/initial-events-end';


/** The Content-Type of a watch in each encoding, as kube's serveWatch sets it. */
function streamContentType(mediaType: string): string {
  if (mediaType === 'application/json') return mediaType;
  // A client that accepts application/cbor gets the conformant sequence type.
  if (mediaType === 'application/cbor') return CBOR_SEQ_MEDIA_TYPE;
  return `${mediaType};stream=watch`;
}

export async function watchResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store, type } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), {
    protobuf: protobufFor(scope),
    cbor: scope.gates.CBORServingAndStorage,
    stream: true,
    transforms: true,
    url,
    userAgent: request.headers.get('user-agent'),
  });
  const serializer = choice.serializer;
  const encodeEvent = serializer.encodeWatchEvent!.bind(serializer);
  const params = validateListParams(url, true);
  const selection = selectionFrom(url, type);
  const rv = parseResourceVersion(params.resourceVersion);
  const sendInitialEvents = params.sendInitialEvents === true;
  const timeoutMs = (params.timeoutSeconds ?? minRequestTimeoutSeconds * (1 + scope.random.fill(new Uint8Array(1))[0]! / 256)) * 1000;
  const prefix = store.collectionPrefix(info.namespace);
  const apiVersion = apiVersionOf(type.group, type.version);
  const cacheKey = `${type.group}/${type.version}/${type.resource}`;
  const representation = choice.representation;
  const plainObject = representation.as === 'object';
  /** Keys of what every watcher of this version shares in an event's memo, built once per watch rather than per event. */
  const objectKey = `object ${cacheKey}`;
  const prevObjectKey = `prevObject ${cacheKey}`;
  const frameKeys: Record<WatchEventType, string> = {
    ADDED: `${serializer.mediaType} ADDED ${cacheKey}`,
    MODIFIED: `${serializer.mediaType} MODIFIED ${cacheKey}`,
    DELETED: `${serializer.mediaType} DELETED ${cacheKey}`,
    BOOKMARK: `${serializer.mediaType} BOOKMARK ${cacheKey}`,
    ERROR: `${serializer.mediaType} ERROR ${cacheKey}`,
  };

  const nameFilter = info.name;
  const filtered = !!nameFilter || !!selection.predicate;
  const matches = (obj: KubeObject) => (!nameFilter || obj.metadata.name === nameFilter) && (!selection.predicate || selection.predicate(obj));

  /** The event's object (its last state for a delete), decoded once for every watcher of this version. */
  const objectOf = (e: CachingEvent): KubeObject => e.recall<KubeObject>(objectKey) ?? e.remember(objectKey, store.decode(e.kv));
  const prevObjectOf = (e: CachingEvent): KubeObject | undefined =>
    e.prevKv ? (e.recall<KubeObject>(prevObjectKey) ?? e.remember(prevObjectKey, store.decode(e.prevKv))) : undefined;

  let firstObject = true;
  const line = (eventType: WatchEventType, object: unknown): Uint8Array => encodeEvent({ type: eventType, object });
  const objectLine = (eventType: WatchEventType, obj: KubeObject): Uint8Array => {
    const body = plainObject ? obj : represent(obj, representation, scope, firstObject);
    firstObject = false;
    return line(eventType, body);
  };
  /**
   * JSON events of plain objects are written from the stored text
   * (Store.servedJson, exactly the JSON of the decoded object): no event is
   * decoded and encoded again only to be sent.
   */
  const jsonText = plainObject && serializer === jsonSerializer;
  const jsonTextLine = (eventType: WatchEventType, e: CachingEvent): Uint8Array | undefined => {
    const json = store.servedJson(e.kv);
    return json === undefined ? undefined : utf8.encode(jsonEventHeads[eventType] + json + '}\n');
  };
  /** One storage event as this watcher sees it, or undefined when filtered out. */
  const eventLine = (e: CachingEvent): Uint8Array | undefined => {
    let eventType: WatchEventType;
    if (!filtered) eventType = unfilteredType(e);
    else {
      const now = e.type === 'PUT' && matches(objectOf(e));
      const before = e.type === 'DELETE' ? matches(objectOf(e)) : !!e.prevKv && matches(prevObjectOf(e)!);
      if (now && before) eventType = 'MODIFIED';
      else if (now) eventType = 'ADDED';
      else if (before) eventType = 'DELETED';
      else return undefined;
    }
    if (!plainObject) return objectLine(eventType, objectOf(e));
    // The same bytes for every watcher that wants this event in this encoding, version and type.
    const key = frameKeys[eventType];
    return e.recall<Uint8Array>(key) ?? e.remember(key, (jsonText && jsonTextLine(eventType, e)) || line(eventType, objectOf(e)));
  };
  const bookmark = (revision: number, initialEventsEnd = false): Uint8Array => {
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    if (initialEventsEnd) metadata['annotations'] = { [initialEventsEndAnnotation]: 'true' };
    return line('BOOKMARK', { kind: type.kind, apiVersion, metadata });
  };

  const stop = new AbortController();
  let watcher: CacheWatcher | undefined;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  /** Revision this watch starts after; bookmarks never go below it. */
  let startRevision = 0;

  const finish = () => {
    if (closed) return;
    closed = true;
    stop.abort();
    watcher?.close();
    try {
      controllerRef?.close();
    } catch {
      // already closed or errored by the consumer
    }
  };
  const emit = (bytes: Uint8Array) => {
    if (closed) return;
    controllerRef?.enqueue(bytes);
    scope.watchEventSent?.(bytes.byteLength);
  };
  const fail = (status: Status) => {
    emit(line('ERROR', status));
    finish();
  };

  const start = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    controllerRef = controller;
    if (request.signal.aborted) return finish();
    request.signal.addEventListener('abort', finish, { once: true });
    // A custom resource's watches end when its CRD is deleted or changed.
    const withdrawn = customResourceInfo(scope.type)?.withdrawn.signal;
    if (withdrawn?.aborted) return finish();
    withdrawn?.addEventListener('abort', finish, { once: true });
    void scope.clock.sleep(timeoutMs, stop.signal).then(finish);
    try {
      if (rv === undefined && params.sendInitialEvents === false) {
        // Start at Most Recent without the state.
        startRevision = await store.storage.currentRevision();
        watcher = await openCacheWatcher(store.storage, prefix, startRevision, watcherCapacity);
        if (closed) return watcher.close();
      } else if (rv === undefined || sendInitialEvents) {
        // Get State: a consistent list (unset rv) or one not older than rv, then changes after it.
        if (rv !== undefined) await waitForRevision(store.storage, scope.clock, rv, stop.signal);
        const listed = await store.list(info.namespace, { predicate: filtered ? matches : undefined });
        if (closed) return;
        startRevision = listed.revision;
        watcher = await openCacheWatcher(store.storage, prefix, startRevision, watcherCapacity);
        if (closed) return watcher.close();
        if (sendInitialEvents) {
          for (const obj of listed.items) emit(objectLine('ADDED', obj));
          if (params.allowWatchBookmarks) emit(bookmark(startRevision, true));
        }
      } else {
        startRevision = rv;
        watcher = await openCacheWatcher(store.storage, prefix, rv, watcherCapacity);
        if (closed) return watcher.close();
      }
    } catch (e) {
      if (closed) return;
      if (isStorageError(e, 'Compacted')) {
        return fail(tooOldResourceVersion(rv ?? 0, e.revision ?? (await store.storage.compactedRevision())).status);
      }
      return fail(errorToStatus(e));
    }
    if (params.allowWatchBookmarks) void bookmarks();
  };

  /** About once a minute, a BOOKMARK at the newest revision, queued behind every event before it. */
  const bookmarks = async () => {
    while (!closed) {
      await scope.clock.sleep(bookmarkIntervalMs, stop.signal);
      if (closed || !watcher) return;
      const current = Math.max(watcher.lastRevision, await store.storage.currentRevision());
      if (current >= startRevision) watcher.push({ kind: 'bookmark', revision: current });
    }
  };

  const toBytes = (item: WatchItem): Uint8Array | undefined => (item.kind === 'bookmark' ? bookmark(item.revision) : eventLine(item));

  /** Set by pull: a read waits for the next chunk. */
  let wanted = false;
  let pumping = false;
  /** Watchers that see every event as plain objects write the same chunk for the same run of events. */
  const sharesChunks = plainObject && !filtered;
  const chunkKey = `chunk ${serializer.mediaType} ${cacheKey} after `;
  /** Where the first event of a run of the prefix's feed keeps that run's chunk (a feed per prefix, so the prefix is part of it). */
  const runKey = `run ${serializer.mediaType} ${cacheKey} ${prefix}`;
  /**
   * The live events waiting for this watcher as one chunk, when it shares
   * chunks and nothing pushed comes first: the watchers of one prefix read the
   * same runs of its feed, so the first to write a run concatenates it and the
   * others enqueue the same bytes, one lookup per chunk instead of work per event.
   */
  const sharedRun = (): Uint8Array | undefined => {
    const run = watcher!.run();
    if (!run) return undefined;
    const first = run.feed.at(run.from);
    let shared = first.recall<SharedRun>(runKey);
    if (!shared || shared.count > run.to - run.from) {
      const fresh = (jsonText && jsonTextRun(run.feed, run.from, run.to)) || encodedRun(run.feed, run.from, run.to);
      if (!shared) first.remember(runKey, fresh);
      shared = fresh;
    }
    watcher!.skip(shared.count);
    if (scope.watchEventSent) for (let i = 0; i < shared.sizes.length; i += 2) scope.watchEventSent(shared.sizes[i]!, shared.sizes[i + 1]);
    return shared.bytes;
  };
  /** Events [from, to) of feed (up to about maxChunkBytes) as one chunk, each event encoded on its own. */
  const encodedRun = (feed: WatchFeed, from: number, to: number): SharedRun => {
    const parts: Uint8Array[] = [];
    const sizes: number[] = [];
    let size = 0;
    for (let at = from; at < to && size < maxChunkBytes; at++) {
      const bytes = eventLine(feed.at(at))!;
      parts.push(bytes);
      sizes.push(bytes.byteLength);
      size += bytes.byteLength;
    }
    return { count: parts.length, bytes: parts.length === 1 ? parts[0]! : concatBytes(parts, size), sizes: countSizes(sizes) };
  };
  /**
   * The same run in JSON, written from the events' stored texts into one
   * buffer: no event decoded, encoded or copied on its own. Undefined when a
   * stored value does not have the stored layout (the run is then encoded).
   */
  const jsonTextRun = (feed: WatchFeed, from: number, to: number): SharedRun | undefined => {
    // Sized from the stored texts (envelope and resourceVersion aside), so the buffer rarely grows.
    let capacity = 0;
    for (let at = from; at < to && capacity < maxChunkBytes; at++) capacity += feed.at(at).kv.value.length + 64;
    const out = new Utf8Builder(capacity);
    const sizes: number[] = [];
    let at = from;
    for (let written = 0; at < to && written < maxChunkBytes; at++) {
      const e = feed.at(at);
      out.add(jsonEventHeads[unfilteredType(e)]);
      if (!store.appendServedJson(e.kv, false, out)) return undefined;
      out.add('}\n');
      sizes.push(out.size - written);
      written = out.size;
    }
    return { count: at - from, bytes: out.bytes(), sizes: countSizes(sizes) };
  };
  /**
   * Moves queued events into the stream while it has room. It runs from pull
   * and when the watcher has new items (after the write that made them), so
   * events reach a reading client without a hop per event; a client that does
   * not read leaves events in its bounded queue, where an overflow closes the
   * watcher and ends the stream.
   */
  const pump = () => {
    if (pumping || closed || !watcher) return;
    pumping = true;
    try {
      while (wanted && !closed) {
        if (sharesChunks) {
          let run: Uint8Array | undefined;
          try {
            run = sharedRun();
          } catch (e) {
            return fail(errorToStatus(e));
          }
          if (run) {
            // The stream asks again (pull sets wanted) once its reader waits for more.
            wanted = false;
            controllerRef!.enqueue(run);
            continue;
          }
        }
        // Everything queued goes out together, as kube-apiserver flushes only once its channel is empty:
        // a reader that keeps up gets each write's event in its own chunk, one that fell behind catches up in fewer.
        let first: Uint8Array | undefined;
        let parts: Uint8Array[] | undefined;
        let size = 0;
        let firstEvent: CachingEvent | undefined;
        let lastEvent: CachingEvent | undefined;
        let shared = sharesChunks;
        for (let item = watcher.take(); item; item = size < maxChunkBytes ? watcher.take() : undefined) {
          let bytes: Uint8Array | undefined;
          try {
            bytes = toBytes(item);
          } catch (e) {
            return fail(errorToStatus(e));
          }
          if (!bytes) continue;
          if (item.kind === 'event') {
            firstEvent ??= item;
            lastEvent = item;
          } else shared = false;
          if (!first) first = bytes;
          else (parts ??= [first]).push(bytes);
          size += bytes.byteLength;
          scope.watchEventSent?.(bytes.byteLength);
        }
        if (!first) break;
        let chunk = first;
        if (parts && !shared) chunk = concatBytes(parts, size);
        else if (parts) {
          // A run of events is the same bytes for every such watcher: concatenated once, by the first to write it.
          const key = chunkKey + (firstEvent!.revision - 1);
          chunk = lastEvent!.recall<Uint8Array>(key) ?? lastEvent!.remember(key, concatBytes(parts, size));
        }
        // The stream asks again (pull sets wanted) once its reader waits for more.
        wanted = false;
        controllerRef!.enqueue(chunk);
      }
      if (watcher.closed && watcher.backlog === 0) finish();
    } catch {
      // The consumer went away mid-enqueue.
      finish();
    } finally {
      pumping = false;
    }
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start: async (controller) => {
        await start(controller);
        if (watcher && !closed) watcher.onReady = pump;
      },
      pull: () => {
        if (closed) return;
        if (!watcher) return finish();
        wanted = true;
        pump();
      },
      cancel: () => finish(),
    },
    // Nothing is buffered in the stream: pull means a read waits, so every chunk is handed straight to a waiting
    // read (one pull per chunk, not a second to refill a buffer), and whatever came meanwhile goes out in the next.
    { highWaterMark: 0 },
  );

  return new Response(stream, {
    status: 200,
    headers: {
      'Content-Type': streamContentType(serializer.mediaType),
      'Cache-Control': 'no-cache, private',
    },
  });
}

/** A run of a feed's events as one chunk, shared by the watchers that write it. */
interface SharedRun {
  /** Events in the run. */
  count: number;
  bytes: Uint8Array;
  /** The events' sizes for the watch event metrics, as pairs: a size, then how many events have it (events of a run mostly differ by a few bytes). */
  sizes: number[];
}

/** Sizes as (size, count) pairs, in order of first appearance. */
function countSizes(sizes: readonly number[]): number[] {
  const pairs: number[] = [];
  for (const size of sizes) {
    let i = 0;
    while (i < pairs.length && pairs[i] !== size) i += 2;
    if (i < pairs.length) pairs[i + 1]!++;
    else pairs.push(size, 1);
  }
  return pairs;
}


/** The object as the negotiated representation: a one-row Table (kubectl get -w) or partial metadata. */
function represent(obj: KubeObject, rep: Representation, scope: RequestScope, withColumns: boolean): unknown {
  if (rep.as === 'Table') {
    const t = toTable([obj], { ...tableOptions(scope), noHeaders: !withColumns });
    return rep.version === 'v1' ? t : { ...t, apiVersion: 'meta.k8s.io/v1beta1' };
  }
  if (rep.as === 'PartialObjectMetadata' || rep.as === 'PartialObjectMetadataList') {
    return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${rep.version}`, metadata: obj.metadata };
  }
  return obj;
}

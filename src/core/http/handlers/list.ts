/**
 * GET of a collection: the spec's list table (resourceVersion x
 * resourceVersionMatch x paging), chunking with continue tokens that pin the
 * first chunk's snapshot, and selectors.
 *
 *   rv unset           Most Recent      latest revision
 *   rv "0"             Any              latest revision (newest is allowed)
 *   rv n, no limit     Not Older Than   wait for n, then latest
 *   rv n + limit       Exact            at n (410 if compacted)
 *   rvm=Exact, rv n    Exact            at n
 *   rvm=NotOlderThan   Not Older Than   (limit or not)
 *   continue=token     Exact at the token's revision; rv "0" ignored, rv n is 400
 */
import { apiVersionOf, type KubeList, type KubeObject } from '../../api/types';
import { newBadRequest } from '../../errors';
import { isStorageError, type KeyValue } from '../../storage/interface';
import { negotiateOutput } from '../negotiation';
import { writeJsonText, writeObject } from '../responseWriter';
import { jsonSerializer } from '../serializers/json';
import { protobufFor } from './common';
import { decodeContinue, encodeContinue, expiredContinue, expiredList, parseResourceVersion, validateListParams, waitForRevision } from './resourceVersion';
import type { RequestScope } from './scope';
import { selectionFrom } from './selection';
import { servesStoredJson } from './storedObject';
import { transformList } from './transform';
import type { Store } from '../../registry/generic/store';

export async function listResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store, type } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf: protobufFor(scope), transforms: true, url, userAgent: request.headers.get('user-agent') });
  const params = validateListParams(url, false);
  const selection = selectionFrom(url, type);
  const prefix = store.collectionPrefix(info.namespace);

  let revision = 0;
  let startKey: string | undefined;
  let continueStart: string | undefined;
  if (params.continueToken) {
    const token = decodeContinue(params.continueToken);
    if (params.resourceVersion && params.resourceVersion !== '0') throw newBadRequest('specifying resource version is not allowed when using continue');
    // rv -1: the remainder of an expired list, at the latest revision.
    revision = token.rv > 0 ? token.rv : 0;
    continueStart = token.start;
    startKey = prefix + token.start;
  } else {
    const rv = parseResourceVersion(params.resourceVersion);
    if (rv) {
      await waitForRevision(store.storage, scope.clock, rv, request.signal);
      const exact = params.resourceVersionMatch === 'Exact' || (!params.resourceVersionMatch && params.limit > 0);
      if (exact) revision = rv;
    }
  }

  // A whole collection (no page, no selector) at the latest revision, answered in compact JSON: when nothing
  // was written anywhere since the kept answer was read, it is the answer, and no key needs reading.
  const whole = !params.limit && !params.continueToken && !selection.predicate;
  const stored = servesStoredJson(choice);
  // Custom resource lists are unstructured: every item keeps its apiVersion and kind.
  const typedItems = !type.custom;
  const options = { pretty: choice.pretty, warnings: scope.warnings };
  if (whole && stored && !revision) {
    const known = keptList(store, prefix, store.storage.revisionNow?.());
    if (known !== undefined) return writeJsonText(200, jsonSerializer.mediaType, known, options);
  }

  let result;
  try {
    result = await store.listKvs(info.namespace, { revision, limit: params.limit, startKey, predicate: selection.predicate });
  } catch (e) {
    if (isStorageError(e, 'Compacted')) throw continueStart !== undefined ? expiredContinue(continueStart) : expiredList();
    throw e;
  }
  const list: KubeList = {
    kind: `${type.kind}List`,
    apiVersion: apiVersionOf(type.group, type.version),
    metadata: { resourceVersion: String(result.revision) },
    items: [],
  };
  if (result.nextKey) {
    list.metadata.continue = encodeContinue(result.revision, result.nextKey.slice(prefix.length));
    // An estimate of what is left, only when no selector makes it unknowable.
    if (result.remainingItemCount !== undefined && !selection.predicate) list.metadata.remainingItemCount = result.remainingItemCount;
  }
  // Compact JSON of the list itself: the items' stored texts joined, as JSON.stringify(list) would write them.
  if (stored) {
    // A whole collection at one revision is the same text every time it is read.
    const known = whole ? keptList(store, prefix, result.revision) : undefined;
    if (known !== undefined) return writeJsonText(200, jsonSerializer.mediaType, known, options);
    const text = storedListJson(store, `${JSON.stringify(list).slice(0, -3)}[`, result.kvs, typedItems);
    if (text !== undefined) {
      if (whole) wholeLists.set(store, { prefix, revision: result.revision, text });
      return writeJsonText(200, jsonSerializer.mediaType, text, options);
    }
  }
  // Items of a typed list carry no apiVersion/kind, as kube-apiserver encodes them.
  const decoded = result.items ?? result.kvs.map((kv) => store.decode(kv));
  list.items = typedItems ? decoded.map(({ apiVersion: _a, kind: _k, ...rest }) => rest as KubeObject) : decoded;
  return writeObject(choice.serializer, 200, transformList(list, choice.representation, scope), options);
}

/**
 * The last whole-collection list answered in compact JSON, per store. Revisions are global, so a list
 * of the same collection read at the same revision has had nothing written anywhere since, and its
 * text is the same (a store's kind, and so its items' layout, never changes): a client listing an
 * unchanged collection again is answered without joining every item's text again. One entry per
 * store (its next whole list replaces it), held no longer than the store (a closed server's go with it).
 */
interface WholeList {
  prefix: string;
  revision: number;
  text: string;
}
const wholeLists = new WeakMap<Store, WholeList>();

/** The kept text of this collection read at `revision`, if that is the one kept. */
function keptList(store: Store, prefix: string, revision: number | undefined): string | undefined {
  const known = wholeLists.get(store);
  return known && known.prefix === prefix && known.revision === revision ? known.text : undefined;
}

/**
 * The list in compact JSON as jsonSerializer writes it (trailing newline
 * included): head (`{"kind":…,"metadata":{…},"items":[`), its items' stored
 * texts, then `]}`, appended into one string; undefined if any item is not in
 * the stored layout. Kept a string, as a GET's answer is: an in-process
 * client parses it with no encode and decode on the way, and a host encodes
 * it as it writes it.
 */
function storedListJson(store: Store, head: string, kvs: KeyValue[], typed: boolean): string | undefined {
  const out = new TextRope(head);
  for (let i = 0; i < kvs.length; i++) {
    if (i > 0) out.text += ',';
    if (!store.appendServedJson(kvs[i]!, typed, out)) return undefined;
  }
  return out.text + ']}\n';
}

/**
 * Pieces appended to one string with +=: V8 keeps the result a rope until it is first read, and that
 * read (the client's JSON.parse, the host's encode) flattens it in one pass. Array join copies every
 * piece up front and was several times slower for a list of thousands of stored texts.
 */
class TextRope {
  constructor(public text: string) {}

  push(...texts: string[]): void {
    for (const t of texts) this.text += t;
  }
}

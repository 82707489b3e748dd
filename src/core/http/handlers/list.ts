/** GET of a collection: the list table of the spec, chunking with continue tokens, selectors. */
import { apiVersionOf, type KubeList } from '../../api/types';
import { newBadRequest, newResourceExpired } from '../../errors';
import { isStorageError } from '../../storage/interface';
import { negotiateOutput } from '../negotiation';
import { writeObject } from '../responseWriter';
import { protobufFor } from './common';
import {
  decodeContinue,
  encodeContinue,
  expiredContinue,
  expiredListMessage,
  parseResourceVersion,
  validateListParams,
  waitForRevision,
} from './resourceVersion';
import type { RequestScope } from './scope';
import { selectionFrom } from './selection';
import { transformList } from './transform';

export async function listResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store, type } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { protobuf: protobufFor(scope), transforms: true, url, userAgent: request.headers.get('user-agent') });
  const params = validateListParams(url, false);
  const selection = selectionFrom(url, type);
  const rv = parseResourceVersion(params.resourceVersion ?? null);

  let revision = 0;
  let startKey: string | undefined;
  const prefix = store.collectionPrefix(info.namespace);
  if (params.continueToken) {
    // Continue Token, Exact: the snapshot of the first chunk. A non-zero resourceVersion is a client error.
    if (rv) throw newBadRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(params.continueToken);
    revision = token.rv;
    startKey = prefix + token.start;
    if (revision < (await store.storage.compactedRevision())) throw expiredContinue();
  } else if (rv) {
    await waitForRevision(store.storage, scope.clock, rv, request.signal);
    // Exact with limit (or resourceVersionMatch=Exact); otherwise Not Older Than = the newest state.
    const exact = params.resourceVersionMatch === 'Exact' || (!params.resourceVersionMatch && params.limit > 0);
    if (exact) {
      revision = rv;
      if (revision < (await store.storage.compactedRevision())) throw newResourceExpired(expiredListMessage);
    }
  }

  let result;
  try {
    result = await store.list(info.namespace, { revision, limit: params.limit, startKey, predicate: selection.predicate });
  } catch (e) {
    if (isStorageError(e, 'Compacted')) throw params.continueToken ? expiredContinue() : newResourceExpired(expiredListMessage);
    throw e;
  }
  const list: KubeList = {
    kind: `${type.kind}List`,
    apiVersion: apiVersionOf(type.group, type.version),
    metadata: { resourceVersion: String(result.revision) },
    // Items of a typed list carry no apiVersion/kind, as kube-apiserver encodes them.
    items: result.items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest as typeof result.items[number]),
  };
  if (result.nextKey) {
    list.metadata.continue = encodeContinue(result.revision, result.nextKey.slice(prefix.length));
    if (result.remainingItemCount !== undefined && !selection.predicate) list.metadata.remainingItemCount = result.remainingItemCount;
  }
  const body = transformList(list, choice.representation, scope);
  return writeObject(choice.serializer, 200, body, { request, pretty: choice.pretty, warnings: scope.warnings });
}

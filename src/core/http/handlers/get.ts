/** GET of one object (and of the status subresource, which shows the same object). */
import { negotiateOutput } from '../negotiation';
import { newNotFound } from '../../errors';
import { protobufFor } from './common';
import { queryOf } from '../queryParams';
import { parseResourceVersion, waitForRevision } from './resourceVersion';
import type { Store } from '../../registry/generic/store';
import type { RequestInfo } from '../requestInfo';
import type { RequestScope } from './scope';
import { writeStoredObject } from './storedObject';
import { hasSharedUrl } from '../request/context';

/**
 * Store.getKv's key for the object a request names, kept per RequestInfo: requests to the same
 * path share one, so a repeated GET finds its key (and its hash) made.
 */
const keyByInfo = new WeakMap<RequestInfo, { store: Store; key: string }>();

function objectKeyOf(request: Request, store: Store, info: RequestInfo): string {
  const known = keyByInfo.get(info);
  if (known?.store === store) return known.key;
  const key = store.key(info.namespace, info.name);
  // Only a shared URL's RequestInfo is seen again.
  if (hasSharedUrl(request)) keyByInfo.set(info, { store, key });
  return key;
}

export async function getResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf: protobufFor(scope), transforms: true, url, userAgent: request.headers.get('user-agent') });
  // unset: most recent; "0": any; n: not older than n (wait briefly if the store is behind).
  const rv = parseResourceVersion(queryOf(url).get('resourceVersion'));
  if (rv) await waitForRevision(store.storage, scope.clock, rv, request.signal);
  const kv = await store.storage.get(objectKeyOf(request, store, info));
  if (!kv) throw newNotFound(store.gr, info.name);
  return writeStoredObject(scope, choice, 200, kv);
}

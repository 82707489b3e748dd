/** GET of one object (and of the status subresource, which shows the same object). */
import { negotiateOutput } from '../negotiation';
import { newNotFound } from '../../errors';
import { protobufFor } from './common';
import { queryOf } from '../queryParams';
import { parseResourceVersion, waitForRevision } from './resourceVersion';
import type { RequestScope } from './scope';
import { writeStoredObject } from './storedObject';

export async function getResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf: protobufFor(scope), transforms: true, url, userAgent: request.headers.get('user-agent') });
  // unset: most recent; "0": any; n: not older than n (wait briefly if the store is behind).
  const rv = parseResourceVersion(queryOf(url).get('resourceVersion'));
  if (rv) await waitForRevision(store.storage, scope.clock, rv, request.signal);
  const kv = await store.getKv(info.namespace, info.name);
  if (!kv) throw newNotFound(store.gr, info.name);
  return writeStoredObject(scope, choice, 200, kv);
}

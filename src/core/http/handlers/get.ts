/** GET of one object (and of the status subresource, which shows the same object). */
import { writeObject } from '../responseWriter';
import { negotiateOutput } from '../negotiation';
import { newNotFound } from '../../errors';
import { protobufFor } from './common';
import { parseResourceVersion, waitForRevision } from './resourceVersion';
import type { RequestScope } from './scope';
import { transformObject } from './transform';

export async function getResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { protobuf: protobufFor(scope), transforms: true, url, userAgent: request.headers.get('user-agent') });
  // unset: most recent; "0": any; n: not older than n (wait briefly if the store is behind).
  const rv = parseResourceVersion(url.searchParams.get('resourceVersion'));
  if (rv) await waitForRevision(store.storage, scope.clock, rv, request.signal);
  const kv = await store.getKv(info.namespace, info.name);
  if (!kv) throw newNotFound(store.gr, info.name);
  const obj = store.decode(kv);
  const body = transformObject(obj, choice.representation, scope);
  return writeObject(choice.serializer, 200, body, { pretty: choice.pretty, warnings: scope.warnings });
}

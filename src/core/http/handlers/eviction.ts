/**
 * The pods/eviction sub-resource: a virtual create (policy/v1 Eviction) that
 * deletes the pod. There are no PodDisruptionBudget checks yet.
 */
import { newBadRequest, successStatus } from '../../errors';
import { negotiateInput, negotiateOutput } from '../negotiation';
import { writeObject } from '../responseWriter';
import { readBody } from './common';
import type { RequestScope } from './scope';

export async function evictPod(scope: RequestScope): Promise<Response> {
  const { request, url, info, store } = scope;
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, url, userAgent: request.headers.get('user-agent') });
  const eviction = negotiateInput(request.headers.get('content-type'), { cbor: scope.gates.CBORServingAndStorage, protobuf: true }).decode(await readBody(request)) as {
    metadata?: { name?: string };
    deleteOptions?: { preconditions?: { uid?: string; resourceVersion?: string } };
  };
  if (eviction?.metadata?.name && eviction.metadata.name !== info.name) {
    throw newBadRequest(`name in URL does not match name in Eviction object`);
  }
  await store.delete(info.namespace, info.name, { preconditions: eviction?.deleteOptions?.preconditions });
  return writeObject(choice.serializer, 201, { ...successStatus(), code: 201 }, { pretty: choice.pretty });
}

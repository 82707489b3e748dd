/**
 * PUT of an object: optimistic concurrency on resourceVersion, create-on-update
 * where the kind allows it. The body is defaulted as decoding defaults it, so a
 * defaulted field it leaves out comes back equal to the live one and keeps its owner.
 */
import { negotiateInput, negotiateOutput } from '../negotiation';
import { writeObject } from '../responseWriter';
import { fieldValidationDirective } from '../../schema';
import { traceSink } from '../request/context';
import { trackUpdate } from './fieldManagement';
import { validateBodyFields } from './fieldValidation';
import { checkNameAndNamespace, decodeBody, fieldManagerName, parseDryRun, protobufFor, readBody } from './common';
import type { RequestScope } from './scope';
import { servesStoredJson, writeStoredObject } from './storedObject';

export async function updateResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store, type } = scope;
  const protobuf = protobufFor(scope);
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf, url, userAgent: request.headers.get('user-agent') });
  const decoder = negotiateInput(request.headers.get('content-type'), { cbor: scope.gates.CBORServingAndStorage, protobuf });
  const dryRun = parseDryRun(url, 'UpdateOptions');
  const directive = fieldValidationDirective(url, 'UpdateOptions');
  const body = await readBody(request);
  const manager = fieldManagerName(scope, 'UpdateOptions');
  const obj = validateBodyFields(scope, directive, decoder, body, decodeBody(decoder, body, type));
  checkNameAndNamespace(obj, scope, true);
  if (!obj.metadata.name) obj.metadata.name = info.name;
  store.strategy.defaulter?.(obj);
  const fm = store.fieldManager(info.subresource);
  const result = await store.update(info.namespace, info.name, (current) => trackUpdate(fm, current, structuredClone(obj), manager, traceSink(request)), {
    dryRun,
    subresource: info.subresource,
    preconditions: { uid: obj.metadata.uid || undefined },
  });
  // The object as stored, in compact JSON: its stored text, with no decode and encode.
  if (result.kv && servesStoredJson(choice)) return writeStoredObject(scope, choice, result.created ? 201 : 200, result.kv);
  return writeObject(choice.serializer, result.created ? 201 : 200, result.object, { pretty: choice.pretty, warnings: scope.warnings });
}

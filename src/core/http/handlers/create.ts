/**
 * POST to a collection: negotiate, decode (with the kind's defaults, as the
 * codec applies them), record the writer's ownership, run the store's create
 * pipeline (mutating admission, strategy, validation, storage), answer 201.
 */
import { negotiateInput, negotiateOutput } from '../negotiation';
import { writeObject } from '../responseWriter';
import { fieldValidationDirective } from '../../schema';
import { traceSink } from '../request/context';
import { trackUpdate } from './fieldManagement';
import { validateBodyFields } from './fieldValidation';
import { checkNameAndNamespace, decodeBody, fieldManagerName, parseDryRun, protobufFor, readBody } from './common';
import type { RequestScope } from './scope';
import { writeStoredObject } from './storedObject';

export async function createResource(scope: RequestScope): Promise<Response> {
  const { request, url, info, store, type } = scope;
  const protobuf = protobufFor(scope);
  const choice = negotiateOutput(request.headers.get('accept'), { cbor: scope.gates.CBORServingAndStorage, protobuf, url, userAgent: request.headers.get('user-agent') });
  const decoder = negotiateInput(request.headers.get('content-type'), { cbor: scope.gates.CBORServingAndStorage, protobuf });
  const dryRun = parseDryRun(url, 'CreateOptions');
  const directive = fieldValidationDirective(url, 'CreateOptions');
  const body = await readBody(request);
  const manager = fieldManagerName(scope, 'CreateOptions');
  const decoded = validateBodyFields(scope, directive, decoder, body, decodeBody(decoder, body, type));
  checkNameAndNamespace(decoded, scope, false);
  // Decoding defaults the object, so the creator owns the defaulted fields.
  store.strategy.defaulter?.(decoded);
  const obj = trackUpdate(store.fieldManager(), undefined, decoded, manager, traceSink(request));
  const created = await store.createStored(info.namespace, obj, { dryRun, defaulted: true });
  if (created.kv) return writeStoredObject(scope, choice, 201, created.kv);
  return writeObject(choice.serializer, 201, created.object, { pretty: choice.pretty, warnings: scope.warnings });
}

/**
 * Responses written straight from stored values: a compact JSON answer of
 * the object itself is the stored text with kind, apiVersion and
 * resourceVersion filled in (Store.servedJson), so reads and writes skip a
 * JSON.parse and a JSON.stringify. Every other encoding decodes as before.
 */
import type { KeyValue } from '../../storage/interface';
import type { OutputChoice } from '../negotiation';
import { writeJsonText, writeObject } from '../responseWriter';
import { jsonSerializer } from '../serializers/json';
import type { RequestScope } from './scope';
import { transformObject } from './transform';

/** Whether the response is the object itself in compact JSON. */
export function servesStoredJson(choice: OutputChoice): boolean {
  return choice.serializer === jsonSerializer && !choice.pretty && choice.representation.as === 'object';
}

/** Writes the object stored in kv, in the negotiated encoding and representation. */
export function writeStoredObject(scope: RequestScope, choice: OutputChoice, status: number, kv: KeyValue): Response {
  const options = { pretty: choice.pretty, warnings: scope.warnings };
  const json = servesStoredJson(choice) ? scope.store.servedJson(kv) : undefined;
  if (json !== undefined) return writeJsonText(status, json, options);
  return writeObject(choice.serializer, status, transformObject(scope.store.decode(kv), choice.representation, scope), options);
}

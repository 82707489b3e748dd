/**
 * Responses written straight from stored values: a compact JSON answer of
 * the object itself is the stored text with kind, apiVersion and
 * resourceVersion filled in (Store.servedJson), so reads and writes skip a
 * JSON.parse and a JSON.stringify. Every other encoding decodes as before.
 */
import type { Store } from '../../registry/generic/store';
import type { KeyValue } from '../../storage/interface';
import type { OutputChoice } from '../negotiation';
import { writeJsonText, writeObject } from '../responseWriter';
import { jsonSerializer } from '../serializers/json';
import type { RequestScope } from './scope';
import { transformObject } from './transform';
import { RecentKeys } from '../../util/recentKeys';

/** Whether the response is the object itself in compact JSON. */
export function servesStoredJson(choice: OutputChoice): boolean {
  return choice.serializer === jsonSerializer && !choice.pretty && choice.representation.as === 'object';
}

/**
 * The answers of values read more than once lately. A stored value never
 * changes (a write stores a new one), so a GET of an object nobody wrote
 * since sends the text the last GET sent. A value's text is kept only when
 * its previous read is among the last few hundred (the window this cache
 * would have held it in): a reader that goes through more objects than that
 * in turn keeps no text alive, which would only grow the young generation
 * the garbage collector copies, for no hit. Both tables start over when full.
 */
const readAnswers = new Map<KeyValue, { store: Store; text: string }>();
const readWindow = 256;
const readOnce = new RecentKeys<KeyValue>(readWindow);

/** The answer's text (kept a string: the response writer and hosts encode it, an in-process client parses it). */
function servedJsonText(store: Store, kv: KeyValue, reuse: boolean): string | undefined {
  const known = reuse ? readAnswers.get(kv) : undefined;
  if (known?.store === store) return known.text;
  const json = store.servedJson(kv);
  if (json === undefined) return undefined;
  const text = json + '\n';
  if (reuse && readOnce.repeated(kv)) {
    if (readAnswers.size >= readWindow) readAnswers.clear();
    readAnswers.set(kv, { store, text });
  }
  return text;
}

/** Writes the object stored in kv, in the negotiated encoding and representation. */
export function writeStoredObject(scope: RequestScope, choice: OutputChoice, status: number, kv: KeyValue): Response {
  const options = { pretty: choice.pretty, warnings: scope.warnings };
  // Reads repeat; a write's answer is sent once.
  const text = servesStoredJson(choice) ? servedJsonText(scope.store, kv, scope.info.verb === 'get') : undefined;
  if (text !== undefined) return writeJsonText(status, jsonSerializer.mediaType, text, options);
  return writeObject(choice.serializer, status, transformObject(scope.store.decode(kv), choice.representation, scope), options);
}

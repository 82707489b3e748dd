/**
 * Responses written straight from stored values: a compact JSON answer of
 * the object itself is the stored text with kind, apiVersion and
 * resourceVersion filled in (Store.servedJson), so reads and writes skip a
 * JSON.parse and a JSON.stringify. Every other encoding decodes as before.
 */
import type { Store } from '../../registry/generic/store';
import type { KeyValue } from '../../storage/interface';
import type { OutputChoice } from '../negotiation';
import { writeBytes, writeObject } from '../responseWriter';
import { jsonSerializer } from '../serializers/json';
import type { RequestScope } from './scope';
import { transformObject } from './transform';

/** Whether the response is the object itself in compact JSON. */
export function servesStoredJson(choice: OutputChoice): boolean {
  return choice.serializer === jsonSerializer && !choice.pretty && choice.representation.as === 'object';
}

const encoder = new TextEncoder();

/**
 * The encoded answers of the values read most recently. A stored value
 * never changes (a write stores a new one), so a GET of an object nobody
 * wrote since sends the bytes the last GET sent. Bounded: the cache starts
 * over when full, keeping the values it holds (and their bytes) alive no
 * longer than a few hundred reads.
 */
const readAnswers = new Map<KeyValue, { store: Store; bytes: Uint8Array }>();
const readAnswersLimit = 256;

function servedJsonBytes(store: Store, kv: KeyValue, reuse: boolean): Uint8Array | undefined {
  const known = reuse ? readAnswers.get(kv) : undefined;
  if (known?.store === store) return known.bytes;
  const json = store.servedJson(kv);
  if (json === undefined) return undefined;
  const bytes = encoder.encode(json + '\n');
  if (reuse) {
    if (readAnswers.size >= readAnswersLimit) readAnswers.clear();
    readAnswers.set(kv, { store, bytes });
  }
  return bytes;
}

/** Writes the object stored in kv, in the negotiated encoding and representation. */
export function writeStoredObject(scope: RequestScope, choice: OutputChoice, status: number, kv: KeyValue): Response {
  const options = { pretty: choice.pretty, warnings: scope.warnings };
  // Reads repeat; a write's answer is sent once.
  const bytes = servesStoredJson(choice) ? servedJsonBytes(scope.store, kv, scope.info.verb === 'get') : undefined;
  if (bytes !== undefined) return writeBytes(status, jsonSerializer.mediaType, bytes, options);
  return writeObject(choice.serializer, status, transformObject(scope.store.decode(kv), choice.representation, scope), options);
}

/**
 * The independent CBOR reader of the tests: cbor-x, with what it returns
 * turned into the JSON kube's decoder would produce.
 */
import { Decoder, Tag } from 'cbor-x';

export const cborX = new Decoder({ mapsAsObjects: false, useRecords: false });

/** A cbor-x value as JSON: byte strings as text, tag 22 as base64, maps as objects. */
export function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  // Tag 22: raw bytes JSON carries as base64 (a []byte field), as kube's decoder reads them into a string.
  if (v instanceof Tag) return v.tag === 22 && v.value instanceof Uint8Array ? Buffer.from(v.value).toString('base64') : plain(v.value);
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [plain(k) as string, plain(x)]));
  return v;
}

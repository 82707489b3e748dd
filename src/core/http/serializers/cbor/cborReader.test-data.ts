/**
 * The independent CBOR reader of the tests: cborg (pure JavaScript), with what
 * it returns turned into the JSON kube's decoder would produce.
 */
import { decode, decodeFirst } from 'cborg';

/** A tag cborg hands back as itself, so tests can check which tag was written. */
export class Tagged {
  constructor(readonly tag: number, readonly value: unknown) {}
}

// Every tag kube writes or reads is kept as a Tagged value; 55799 (self-described) is unwrapped.
const tags: ((inner: unknown) => unknown)[] = [];
for (const t of [0, 1, 21, 22, 23]) tags[t] = (inner) => new Tagged(t, inner);
tags[55799] = (inner) => inner;

const options = { useMaps: true, tags };

/** One CBOR item, maps as Map (keys may be byte strings, as kube writes them). */
export const readCbor = (bytes: Uint8Array): unknown => decode(bytes, options);

/** A CBOR sequence (a watch stream): every item in order. */
export function readCborSequence(bytes: Uint8Array): unknown[] {
  const items: unknown[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const [item, remainder] = decodeFirst(rest, options);
    items.push(item);
    rest = remainder;
  }
  return items;
}

/** A value read by cborg as JSON: byte strings as text, tag 22 as base64, maps as objects. */
export function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  // Tag 22: raw bytes JSON carries as base64 (a []byte field), as kube's decoder reads them into a string.
  if (v instanceof Tagged) return v.tag === 22 && v.value instanceof Uint8Array ? Buffer.from(v.value).toString('base64') : plain(v.value);
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [plain(k) as string, plain(x)]));
  return v;
}

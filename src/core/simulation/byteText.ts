/**
 * Bytes as the simulated processes' text, and back, without loss. A process
 * reads and writes JavaScript strings, while files, stdin and stdout carry
 * bytes that need not be UTF-8 (a binary `kubectl cp` sends through `tar`).
 * Valid UTF-8 decodes as TextDecoder decodes it; each byte that is not part
 * of a valid sequence becomes a lone surrogate U+DC80-U+DCFF (Python's
 * surrogateescape), which encodeText turns back into that byte. A string
 * without such surrogates encodes as TextEncoder encodes it.
 */

import { concatBytes } from '../util/bytes';

const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder();
const encoder = new TextEncoder();

/** How many bytes the valid UTF-8 sequence at `i` takes (0: none starts there; RFC 3629, no overlong forms or surrogates). */
function sequenceAt(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const ok1 = c === 0xe0 ? cont(1, 0xa0) : c === 0xed ? cont(1, 0x80, 0x9f) : cont(1);
    return ok1 && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const ok1 = c === 0xf0 ? cont(1, 0x90) : c === 0xf4 ? cont(1, 0x80, 0x8f) : cont(1);
    return ok1 && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** The text of bytes: UTF-8, with every byte outside a valid sequence kept as U+DC80 + (byte - 0x80). */
export function decodeBytes(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    // Not UTF-8 throughout: valid runs decode, the other bytes are escaped one by one.
  }
  let out = '';
  let run = 0;
  let i = 0;
  while (i < bytes.length) {
    const n = sequenceAt(bytes, i);
    if (n) {
      i += n;
      continue;
    }
    if (run < i) out += lenient.decode(bytes.subarray(run, i));
    out += String.fromCharCode(0xdc00 + bytes[i]!);
    run = ++i;
  }
  if (run < i) out += lenient.decode(bytes.subarray(run, i));
  return out;
}

/** An escaped byte: a low surrogate U+DC80-U+DCFF that is not the second half of a pair. */
const escapedByte = /(?<![\ud800-\udbff])[\udc80-\udcff]/g;

/** The bytes of text: UTF-8, an escaped byte (decodeBytes) being that byte again. */
export function encodeText(text: string): Uint8Array {
  escapedByte.lastIndex = 0;
  if (!escapedByte.test(text)) return encoder.encode(text);
  const parts: Uint8Array[] = [];
  let size = 0;
  let from = 0;
  escapedByte.lastIndex = 0;
  for (let m = escapedByte.exec(text); m; m = escapedByte.exec(text)) {
    const before = encoder.encode(text.slice(from, m.index));
    parts.push(before, Uint8Array.of(text.charCodeAt(m.index) - 0xdc00));
    size += before.length + 1;
    from = m.index + 1;
  }
  const rest = encoder.encode(text.slice(from));
  parts.push(rest);
  return concatBytes(parts, size + rest.length);
}

/**
 * decodeBytes over a stream of chunks: a sequence split between two chunks
 * is held until the next one completes it (or the end escapes its bytes).
 */
export class ByteTextDecoder {
  #held: Uint8Array = new Uint8Array(0);

  decode(chunk: Uint8Array, end = false): string {
    let bytes = chunk;
    if (this.#held.length) {
      bytes = new Uint8Array(this.#held.length + chunk.length);
      bytes.set(this.#held);
      bytes.set(chunk, this.#held.length);
    }
    const keep = end ? 0 : incompleteTail(bytes);
    this.#held = bytes.slice(bytes.length - keep);
    return decodeBytes(keep ? bytes.subarray(0, bytes.length - keep) : bytes);
  }
}

/** How many trailing bytes begin a sequence that more bytes could still complete. */
function incompleteTail(b: Uint8Array): number {
  for (let k = 1; k <= 3 && k <= b.length; k++) {
    const c = b[b.length - k]!;
    if (c < 0x80) return 0;
    if (c >= 0xc0) {
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return need > k ? k : 0;
    }
  }
  return 0;
}

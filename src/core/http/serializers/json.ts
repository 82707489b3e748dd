import { newBadRequest } from '../../errors';
import type { Serializer } from './types';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** Nesting beyond this is rejected, as the apiserver's JSON decoder limits depth. */
export const maxNestingDepth = 10_000;

/** Depth of a parsed JSON value, computed without recursion. */
export function nestingDepth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > maxNestingDepth) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
    }
  }
  return max;
}

export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw newBadRequest(`json parse error: ${msg}`);
  }
  // Deeper than the limit takes more than twice as many brackets as the limit: shorter texts need no walk.
  if (text.length > 2 * maxNestingDepth && nestingDepth(value) > maxNestingDepth) throw newBadRequest(`json parse error: exceeded max depth of ${maxNestingDepth}`);
  return value;
}

/** A JSON body's text (invalid UTF-8 replaced, as the decoder reads it). */
export function jsonText(body: Uint8Array): string {
  return decoder.decode(body);
}

export const jsonSerializer: Serializer = {
  mediaType: 'application/json',
  binary: false,
  encode(obj, options) {
    return encoder.encode(options?.pretty ? JSON.stringify(obj, null, 2) + '\n' : JSON.stringify(obj) + '\n');
  },
  decode(body) {
    return parseJson(jsonText(body));
  },
  encodeWatchEvent(event) {
    return encoder.encode(JSON.stringify(event) + '\n');
  },
};

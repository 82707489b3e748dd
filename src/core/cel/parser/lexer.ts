// Tokenizer for CEL source text. Literal tokens are decoded here (numbers,
// strings and bytes with all of CEL's escapes) so the parser only builds nodes.

import { CelUint, INT64_MAX, UINT64_MAX } from '../common/values';

export type TokenKind = 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'ident' | 'op' | 'eof' | 'error';

export interface Token {
  kind: TokenKind;
  /** operator text or identifier name */
  text: string;
  offset: number;
  value?: bigint | CelUint | number | string | Uint8Array;
  /** for int tokens: the literal text (range is checked once the sign is known) */
  raw?: string;
  error?: string;
}

const OPERATORS = [
  '==', '!=', '<=', '>=', '&&', '||', '.?',
  '<', '>', '+', '-', '*', '/', '%', '!', '?', ':', '.', ',', '(', ')', '[', ']', '{', '}',
];

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}
function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}
function isHex(c: string): boolean {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    // string / bytes literals with optional r/b prefixes
    if (c === '"' || c === "'" || ((c === 'r' || c === 'R' || c === 'b' || c === 'B') && isQuotePrefix(src, i))) {
      let raw = false;
      let bytes = false;
      while (src[i] !== '"' && src[i] !== "'") {
        const p = src[i]!.toLowerCase();
        if (p === 'r') raw = true;
        if (p === 'b') bytes = true;
        i++;
      }
      const q = src[i]!;
      const triple = src.startsWith(q + q + q, i);
      const delim = triple ? q + q + q : q;
      i += delim.length;
      const bodyStart = i;
      let closed = false;
      while (i < n) {
        if (src.startsWith(delim, i)) {
          closed = true;
          break;
        }
        if (src[i] === '\\' && !raw) {
          i += 2;
          continue;
        }
        if (!triple && (src[i] === '\n' || src[i] === '\r')) break;
        i++;
      }
      if (!closed) {
        out.push({ kind: 'error', text: src.slice(start, i), offset: start, error: `Syntax error: token recognition error at: '${src.slice(start, i + 1)}'` });
        i = n;
        continue;
      }
      const body = src.slice(bodyStart, i);
      i += delim.length;
      const dec = decodeString(body, raw, bytes);
      if (typeof dec === 'object' && 'error' in dec) {
        out.push({ kind: 'error', text: src.slice(start, i), offset: start, error: dec.error });
      } else {
        out.push({ kind: bytes ? 'bytes' : 'string', text: src.slice(start, i), offset: start, value: dec });
      }
      continue;
    }
    if (isIdentStart(c)) {
      while (i < n && (isIdentStart(src[i]!) || isDigit(src[i]!))) i++;
      out.push({ kind: 'ident', text: src.slice(start, i), offset: start });
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1] ?? ''))) {
      out.push(lexNumber(src, i));
      i = start + out[out.length - 1]!.text.length;
      continue;
    }
    if (c === '`') {
      // quoted identifiers (escaped field names) as in `a.b`
      const end = src.indexOf('`', i + 1);
      if (end < 0) {
        out.push({ kind: 'error', text: c, offset: start, error: `Syntax error: token recognition error at: '\`'` });
        i = n;
        continue;
      }
      out.push({ kind: 'ident', text: src.slice(i + 1, end), offset: start, raw: 'quoted' });
      i = end + 1;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op) {
      // `.?` only when followed by an identifier char, `[?` always
      out.push({ kind: 'op', text: op, offset: start });
      i += op.length;
      continue;
    }
    out.push({ kind: 'error', text: c, offset: start, error: `Syntax error: token recognition error at: '${c}'` });
    i++;
  }
  out.push({ kind: 'eof', text: '<EOF>', offset: n });
  return out;
}

function isQuotePrefix(src: string, i: number): boolean {
  let j = i;
  let k = 0;
  while (k < 2 && j < src.length && 'rRbB'.includes(src[j]!)) {
    j++;
    k++;
  }
  if (j >= src.length || (src[j] !== '"' && src[j] !== "'")) return false;
  const prefix = src.slice(i, j).toLowerCase();
  return prefix === 'r' || prefix === 'b' || prefix === 'rb' || prefix === 'br';
}

function lexNumber(src: string, i: number): Token {
  const start = i;
  if (src[i] === '0' && (src[i + 1] === 'x' || src[i + 1] === 'X')) {
    i += 2;
    while (i < src.length && isHex(src[i]!)) i++;
    const digits = src.slice(start, i);
    if (src[i] === 'u' || src[i] === 'U') {
      i++;
      const v = BigInt(digits);
      if (v > UINT64_MAX) return { kind: 'error', text: src.slice(start, i), offset: start, error: 'invalid uint literal' };
      return { kind: 'uint', text: src.slice(start, i), offset: start, value: new CelUint(v) };
    }
    return { kind: 'int', text: digits, offset: start, raw: digits };
  }
  while (i < src.length && isDigit(src[i]!)) i++;
  let isDouble = false;
  if (src[i] === '.' && isDigit(src[i + 1] ?? '')) {
    isDouble = true;
    i++;
    while (i < src.length && isDigit(src[i]!)) i++;
  }
  if (src[i] === 'e' || src[i] === 'E') {
    let j = i + 1;
    if (src[j] === '+' || src[j] === '-') j++;
    if (isDigit(src[j] ?? '')) {
      isDouble = true;
      i = j;
      while (i < src.length && isDigit(src[i]!)) i++;
    }
  }
  const text = src.slice(start, i);
  if (isDouble) return { kind: 'double', text, offset: start, value: Number(text) };
  if (src[i] === 'u' || src[i] === 'U') {
    const v = BigInt(text);
    i++;
    if (v > UINT64_MAX) return { kind: 'error', text: src.slice(start, i), offset: start, error: 'invalid uint literal' };
    return { kind: 'uint', text: src.slice(start, i), offset: start, value: new CelUint(v) };
  }
  return { kind: 'int', text, offset: start, raw: text };
}

/** Parses an int literal with its sign; undefined when out of int64 range. */
export function intLiteral(raw: string, negative: boolean): bigint | undefined {
  let v = BigInt(raw);
  if (negative) v = -v;
  if (v > INT64_MAX || v < -INT64_MAX - 1n) return undefined;
  return v;
}

function decodeString(body: string, raw: boolean, bytes: boolean): string | Uint8Array | { error: string } {
  // Bytes literals hold UTF-8 of the text with escapes giving raw octets.
  const octets: number[] = [];
  let text = '';
  const enc = new TextEncoder();
  const pushCp = (cp: number): void => {
    if (bytes) octets.push(...enc.encode(String.fromCodePoint(cp)));
    else text += String.fromCodePoint(cp);
  };
  const pushByte = (b: number): void => {
    if (bytes) octets.push(b);
    else text += String.fromCodePoint(b);
  };
  for (let i = 0; i < body.length; ) {
    const cp = body.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    if (body[i] !== '\\' || raw) {
      // normalise CRLF inside triple-quoted strings as cel-go does not; keep as is
      pushCp(cp);
      i += w;
      continue;
    }
    const e = body[i + 1];
    i += 2;
    switch (e) {
      case 'a': pushByte(7); break;
      case 'b': pushByte(8); break;
      case 'f': pushByte(12); break;
      case 'n': pushByte(10); break;
      case 'r': pushByte(13); break;
      case 't': pushByte(9); break;
      case 'v': pushByte(11); break;
      case '\\': pushByte(92); break;
      case "'": pushByte(39); break;
      case '"': pushByte(34); break;
      case '`': pushByte(96); break;
      case '?': pushByte(63); break;
      case 'x':
      case 'X': {
        const h = body.slice(i, i + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(h)) return { error: 'Syntax error: invalid escape sequence' };
        pushByte(parseInt(h, 16));
        i += 2;
        break;
      }
      case 'u':
      case 'U': {
        const len = e === 'u' ? 4 : 8;
        const h = body.slice(i, i + len);
        if (bytes) return { error: 'Syntax error: unicode escape sequences are not allowed in bytes literals' };
        if (h.length !== len || !/^[0-9a-fA-F]+$/.test(h)) return { error: 'Syntax error: invalid escape sequence' };
        const v = parseInt(h, 16);
        if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return { error: 'Syntax error: invalid unicode code point' };
        pushCp(v);
        i += len;
        break;
      }
      default: {
        if (e !== undefined && e >= '0' && e <= '3') {
          const o = body.slice(i - 1, i + 2);
          if (!/^[0-7]{3}$/.test(o)) return { error: 'Syntax error: invalid escape sequence' };
          pushByte(parseInt(o, 8));
          i += 2;
          break;
        }
        return { error: `Syntax error: invalid escape sequence` };
      }
    }
  }
  return bytes ? new Uint8Array(octets) : text;
}

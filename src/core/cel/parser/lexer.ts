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

/** A token with every field present, so all tokens share one object shape. */
function tok(kind: TokenKind, text: string, offset: number, value?: Token['value'], raw?: string, error?: string): Token {
  return { kind, text, offset, value, raw, error };
}

function isIdentStartCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

/** ASCII letters, digits and `_`: identifier characters after the first, looked up by code. */
const IDENT_PART = new Uint8Array(128);
for (let c = 0; c < 128; c++) if (isIdentStartCode(c) || (c >= 48 && c <= 57)) IDENT_PART[c] = 1;
function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isHex(c: string): boolean {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/** Length of the operator at i (0 when none): two-character operators first, decided by character codes. */
function operatorLength(src: string, i: number, c: number): number {
  const d = src.charCodeAt(i + 1);
  switch (c) {
    case 61: // =
      return d === 61 ? 2 : 0;
    case 33: // !
    case 60: // <
    case 62: // >
      return d === 61 ? 2 : 1;
    case 38: // &
      return d === 38 ? 2 : 0;
    case 124: // |
      return d === 124 ? 2 : 0;
    case 46: // .
      return d === 63 ? 2 : 1;
    case 43: case 45: case 42: case 47: case 37: case 63: case 58: case 44: case 40: case 41: case 91: case 93: case 123: case 125:
      return 1;
    default:
      return 0;
  }
}

/** The two-character operator starting with `c` (see operatorLength). */
function twoCharOperator(c: number): string {
  switch (c) {
    case 61:
      return '==';
    case 33:
      return '!=';
    case 60:
      return '<=';
    case 62:
      return '>=';
    case 38:
      return '&&';
    case 124:
      return '||';
    default:
      return '.?';
  }
}

export interface Tokens {
  /** every token, the last one eof */
  tokens: Token[];
  /** the first error token, if any: the parser reports it before any syntax error */
  error?: Token;
}

export function tokenize(src: string): Tokens {
  const out: Token[] = [];
  let error: number | undefined;
  let i = 0;
  const n = src.length;
  while (i < n) {
    const code = src.charCodeAt(i);
    // space, tab, newline, carriage return, form feed
    if (code === 32 || code === 9 || code === 10 || code === 13 || code === 12) {
      i++;
      continue;
    }
    if (code === 47 && src.charCodeAt(i + 1) === 47) {
      while (i < n && src.charCodeAt(i) !== 10) i++;
      continue;
    }
    const start = i;
    // string / bytes literals with optional r/b prefixes (r, R, b, B)
    if (code === 34 || code === 39 || ((code === 114 || code === 82 || code === 98 || code === 66) && isQuotePrefix(src, i))) {
      let raw = false;
      let bytes = false;
      while (src[i] !== '"' && src[i] !== "'") {
        const p = src[i]!.toLowerCase();
        if (p === 'r') raw = true;
        if (p === 'b') bytes = true;
        i++;
      }
      const q = src[i]!;
      const qc = q.charCodeAt(0);
      const triple = src.charCodeAt(i + 1) === qc && src.charCodeAt(i + 2) === qc;
      const delimLength = triple ? 3 : 1;
      i += delimLength;
      const bodyStart = i;
      let closed = false;
      let escaped = false;
      while (i < n) {
        const ch = src.charCodeAt(i);
        if (ch === qc && (!triple || (src.charCodeAt(i + 1) === qc && src.charCodeAt(i + 2) === qc))) {
          closed = true;
          break;
        }
        if (ch === 92 && !raw) {
          // backslash
          escaped = true;
          i += 2;
          continue;
        }
        if (!triple && (ch === 10 || ch === 13)) break;
        i++;
      }
      if (!closed) {
        error ??= out.length;
        out.push(tok('error', src.slice(start, i), start, undefined, undefined, `Syntax error: token recognition error at: '${src.slice(start, i + 1)}'`));
        i = n;
        continue;
      }
      const body = src.slice(bodyStart, i);
      i += delimLength;
      // most literals have no escapes: the body is the value
      const dec = !escaped && !bytes ? body : decodeString(body, raw, bytes);
      if (typeof dec === 'object' && 'error' in dec) {
        error ??= out.length;
        out.push(tok('error', src.slice(start, i), start, undefined, undefined, dec.error));
      } else {
        out.push(tok(bytes ? 'bytes' : 'string', src.slice(start, i), start, dec));
      }
      continue;
    }
    if (isIdentStartCode(code)) {
      i++;
      // charCodeAt past the end is NaN, which indexes to undefined
      while (IDENT_PART[src.charCodeAt(i)] === 1) i++;
      out.push(tok('ident', src.slice(start, i), start));
      continue;
    }
    if (isDigitCode(code) || (code === 46 && isDigitCode(src.charCodeAt(i + 1)))) {
      const t = lexNumber(src, i);
      if (t.kind === 'error') error ??= out.length;
      out.push(t);
      i = start + t.text.length;
      continue;
    }
    const c = src[i]!;
    if (code === 96) {
      // quoted identifiers (escaped field names) as in `a.b`
      const end = src.indexOf('`', i + 1);
      if (end < 0) {
        error ??= out.length;
        out.push(tok('error', c, start, undefined, undefined, `Syntax error: token recognition error at: '\`'`));
        i = n;
        continue;
      }
      out.push(tok('ident', src.slice(i + 1, end), start, undefined, 'quoted'));
      i = end + 1;
      continue;
    }
    const len = operatorLength(src, i, code);
    if (len > 0) {
      // `.?` only when followed by an identifier char, `[?` always
      // single characters are interned by the engine; two-character operators come from constants, so the parser compares them cheaply
      out.push(tok('op', len === 1 ? c : twoCharOperator(code), start));
      i += len;
      continue;
    }
    error ??= out.length;
    out.push(tok('error', c, start, undefined, undefined, `Syntax error: token recognition error at: '${c}'`));
    i++;
  }
  out.push(tok('eof', '<EOF>', n));
  return { tokens: out, error: error === undefined ? undefined : out[error] };
}

function isQuoteCode(c: number): boolean {
  return c === 34 || c === 39;
}

/** r, b, rb or br (any case) directly before a quote. By character codes: most identifiers starting with r or b are not literals. */
function isQuotePrefix(src: string, i: number): boolean {
  const b = src.charCodeAt(i + 1);
  if (isQuoteCode(b)) return true;
  // lower-cased by setting bit 0x20: r (114) and b (98) in either order
  const a = src.charCodeAt(i) | 0x20;
  const lb = b | 0x20;
  return ((a === 114 && lb === 98) || (a === 98 && lb === 114)) && isQuoteCode(src.charCodeAt(i + 2));
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
      if (v > UINT64_MAX) return tok('error', src.slice(start, i), start, undefined, undefined, 'invalid uint literal');
      return tok('uint', src.slice(start, i), start, new CelUint(v));
    }
    return tok('int', digits, start, undefined, digits);
  }
  while (i < src.length && isDigitCode(src.charCodeAt(i))) i++;
  let isDouble = false;
  if (src[i] === '.' && isDigitCode(src.charCodeAt(i + 1))) {
    isDouble = true;
    i++;
    while (i < src.length && isDigitCode(src.charCodeAt(i))) i++;
  }
  if (src[i] === 'e' || src[i] === 'E') {
    let j = i + 1;
    if (src[j] === '+' || src[j] === '-') j++;
    if (isDigitCode(src.charCodeAt(j))) {
      isDouble = true;
      i = j;
      while (i < src.length && isDigitCode(src.charCodeAt(i))) i++;
    }
  }
  const text = src.slice(start, i);
  if (isDouble) return tok('double', text, start, Number(text));
  if (src[i] === 'u' || src[i] === 'U') {
    const v = BigInt(text);
    i++;
    if (v > UINT64_MAX) return tok('error', src.slice(start, i), start, undefined, undefined, 'invalid uint literal');
    return tok('uint', src.slice(start, i), start, new CelUint(v));
  }
  return tok('int', text, start, undefined, text);
}

/** Parses an int literal with its sign; undefined when out of int64 range. */
export function intLiteral(raw: string, negative: boolean): bigint | undefined {
  // up to 15 characters (decimal or 0x hex) a double holds the value exactly, and converting it is cheaper than parsing text
  let v = raw.length < 16 ? BigInt(+raw) : BigInt(raw);
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

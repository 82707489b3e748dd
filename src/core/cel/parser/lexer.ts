// Scanner for CEL source text: a cursor the parser advances one token at a
// time, the current token held in its fields (no token objects, no token
// array). Literal tokens are decoded here (numbers, strings and bytes with all
// of CEL's escapes) so the parser only builds nodes.

import { CelUint, INT64_MAX, UINT64_MAX } from '../common/values';

/** Token kinds, as small integers. */
export const TK_EOF = 0;
export const TK_INT = 1;
export const TK_UINT = 2;
export const TK_DOUBLE = 3;
export const TK_STRING = 4;
export const TK_BYTES = 5;
export const TK_IDENT = 6;
export const TK_OP = 7;
export const TK_ERROR = 8;

export type LiteralValue = bigint | CelUint | number | string | Uint8Array | undefined;

/**
 * The code at i, -1 past the end: every look ahead goes through here, since charCodeAt past the
 * end (NaN) makes optimized code fall back to calling the builtin at that site from then on.
 */
export function codeAt(src: string, i: number): number {
  return i < src.length ? src.charCodeAt(i) : -1;
}

function isIdentStartCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

/**
 * ASCII letters, digits and `_`: identifier characters after the first. By arithmetic on the code
 * (a letter of either case lower-cased by bit 0x20).
 */
function isIdentPartCode(c: number): boolean {
  return ((c | 0x20) - 97) >>> 0 < 26 || (c - 48) >>> 0 < 10 || c === 95;
}
/** Can the code start an identifier? */
export function isIdentStart(c: number): boolean {
  return isIdentStartCode(c);
}
/** Can the code continue an identifier? */
export function isIdentPart(c: number): boolean {
  return isIdentPartCode(c);
}
/** Does a string or bytes literal's r/b prefix start at i? */
export function isLiteralPrefix(src: string, i: number): boolean {
  const c = codeAt(src, i) | 0x20;
  return (c === 114 || c === 98) && isQuotePrefixAt(src, i);
}
function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isHexCode(c: number): boolean {
  return isDigitCode(c) || ((c | 0x20) >= 97 && (c | 0x20) <= 102);
}

/** Length of the operator at i (0 when none): two-character operators first, decided by character codes. */
function operatorLength(codes: Uint8Array, i: number, c: number): number {
  const d = codes[i + 1];
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

/** Is the code a space, tab, newline, carriage return or form feed? */
function isSpaceCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

/** Zero codes after the text: look-aheads a few characters past the end read 0 and need no bounds check. */
const PAD = 4;
/** Code marking a character outside ASCII: CEL's syntax outside string literals is all ASCII. */
const NON_ASCII = 0x80;
const encoder = new TextEncoder();
/** The code array the last scan used, handed to the next (texts rarely need a longer one) */
let spareCodes: Uint8Array | undefined = new Uint8Array(256);

/**
 * The text's characters as codes, each outside ASCII as NON_ASCII, then PAD zeros. Reading a
 * byte array is several times cheaper than charCodeAt (which, in optimized code, checks the
 * string's representation on each call), and ASCII text is copied in by the encoder natively.
 */
function codesOf(src: string): Uint8Array {
  const n = src.length;
  let codes = spareCodes;
  spareCodes = undefined;
  if (codes === undefined || codes.length < n + PAD) codes = new Uint8Array(Math.max(256, n + PAD));
  // UTF-8 of ASCII is the text itself: anything else wrote more bytes, or fewer characters than the text
  const r = encoder.encodeInto(src, codes);
  if (r.read !== n || r.written !== n) {
    for (let i = 0; i < n; i++) {
      const c = src.charCodeAt(i);
      codes[i] = c < NON_ASCII ? c : NON_ASCII;
    }
  }
  for (let i = n; i < n + PAD; i++) codes[i] = 0;
  return codes;
}

/**
 * The current token of a scan over one source text. scan() reads the token at
 * `pos` into the fields and moves `pos` past it; an error token carries its
 * message in `error` (the parser reports the first one before any syntax error).
 * Decisions read the text's codes (codesOf); token texts are sliced from the text.
 */
export class Scanner {
  kind = TK_EOF;
  /** operator text, identifier name, the source text of other tokens ('' for string and bytes literals: see shown()) */
  text = '';
  offset = 0;
  /** decoded value of uint, double, string and bytes tokens */
  value: LiteralValue = undefined;
  /** int tokens: the literal text (range is checked once the sign is known) */
  raw = '';
  /** identifiers: written in backquotes (an escaped field name) */
  quoted = false;
  error = '';
  /** where the next token starts scanning */
  pos = 0;
  /** see codesOf; handed on by release() */
  private codes: Uint8Array;

  constructor(readonly src: string) {
    this.codes = codesOf(src);
  }

  /** Hands the code array to the next scanner (this one scans no more). */
  release(): void {
    spareCodes = this.codes;
    this.codes = EMPTY_CODES;
    this.pos = this.src.length;
  }

  /** Offset of the first character at or after i that is neither space nor inside a comment. */
  skipSpace(i: number): number {
    const codes = this.codes;
    const n = this.src.length;
    while (i < n) {
      const code = codes[i]!;
      if (isSpaceCode(code)) i++;
      else if (code === 47 && codes[i + 1] === 47) {
        while (i < n && codes[i] !== 10) i++;
      } else break;
    }
    return i;
  }

  /** The token as syntax errors show it: its text, or for a string or bytes literal its source text. */
  shown(): string {
    return this.kind === TK_STRING || this.kind === TK_BYTES ? this.src.slice(this.offset, this.pos) : this.text;
  }

  private set(kind: number, text: string, offset: number): void {
    this.kind = kind;
    this.text = text;
    this.offset = offset;
  }

  private fail(text: string, offset: number, message: string): void {
    this.set(TK_ERROR, text, offset);
    this.error = message;
  }

  scan(): void {
    const src = this.src;
    const codes = this.codes;
    const n = src.length;
    let i = this.skipSpace(this.pos);
    if (i >= n) {
      this.pos = n;
      this.set(TK_EOF, '<EOF>', n);
      return;
    }
    const code = codes[i]!;
    const start = i;
    if (isIdentStartCode(code) && !((code === 114 || code === 82 || code === 98 || code === 66) && isQuotePrefix(codes, i))) {
      i++;
      // the padding's zeros end an identifier at the end of the text
      while (isIdentPartCode(codes[i]!)) i++;
      this.pos = i;
      this.set(TK_IDENT, src.slice(start, i), start);
      this.quoted = false;
      return;
    }
    if (isDigitCode(code) || (code === 46 && isDigitCode(codes[i + 1]!))) {
      this.scanNumber(i);
      return;
    }
    const len = operatorLength(codes, i, code);
    if (len > 0) {
      // single characters are interned by the engine; two-character operators come from constants, so the parser compares them cheaply
      this.pos = i + len;
      this.set(TK_OP, len === 1 ? src[i]! : twoCharOperator(code), start);
      return;
    }
    // string / bytes literals with optional r/b prefixes (r, R, b, B)
    if (code === 34 || code === 39 || code === 114 || code === 82 || code === 98 || code === 66) {
      this.scanQuoted(i);
      return;
    }
    const c = src[i]!;
    if (code === 96) {
      // quoted identifiers (escaped field names) as in `a.b`
      const end = src.indexOf('`', i + 1);
      if (end < 0) {
        this.fail(c, start, `Syntax error: token recognition error at: '\`'`);
        this.pos = n;
        return;
      }
      this.pos = end + 1;
      this.set(TK_IDENT, src.slice(i + 1, end), start);
      this.quoted = true;
      return;
    }
    this.fail(c, start, `Syntax error: token recognition error at: '${c}'`);
    this.pos = i + 1;
  }

  private scanQuoted(i: number): void {
    const src = this.src;
    const codes = this.codes;
    const n = src.length;
    const start = i;
    let raw = false;
    let bytes = false;
    for (let p = codes[i]!; p !== 34 && p !== 39; p = codes[++i]!) {
      // lower-cased by setting bit 0x20
      if ((p | 0x20) === 114) raw = true;
      else bytes = true;
    }
    const qc = codes[i]!;
    const triple = codes[i + 1] === qc && codes[i + 2] === qc;
    const delimLength = triple ? 3 : 1;
    i += delimLength;
    const bodyStart = i;
    let closed = false;
    let escaped = false;
    while (i < n) {
      const ch = codes[i]!;
      if (ch === qc && (!triple || (codes[i + 1] === qc && codes[i + 2] === qc))) {
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
      this.fail(src.slice(start, i), start, `Syntax error: token recognition error at: '${src.slice(start, i + 1)}'`);
      this.pos = n;
      return;
    }
    const body = src.slice(bodyStart, i);
    i += delimLength;
    this.pos = i;
    // most literals have no escapes: the body is the value
    const dec = !escaped && !bytes ? body : decodeString(body, raw, bytes);
    if (typeof dec === 'object' && 'error' in dec) {
      this.fail(src.slice(start, i), start, dec.error);
      return;
    }
    // the literal's source text is only shown in syntax errors: shown() slices it then
    this.set(bytes ? TK_BYTES : TK_STRING, '', start);
    this.value = dec;
  }

  private scanNumber(i: number): void {
    const src = this.src;
    const codes = this.codes;
    const start = i;
    if (codes[i] === 48 && (codes[i + 1]! | 0x20) === 120) {
      // 0x / 0X
      i += 2;
      while (isHexCode(codes[i]!)) i++;
      const digits = src.slice(start, i);
      if ((codes[i]! | 0x20) === 117) {
        this.uint(digits, start, i + 1);
        return;
      }
      this.int(digits, start, i);
      return;
    }
    while (isDigitCode(codes[i]!)) i++;
    let isDouble = false;
    if (codes[i] === 46 && isDigitCode(codes[i + 1]!)) {
      isDouble = true;
      i++;
      while (isDigitCode(codes[i]!)) i++;
    }
    if ((codes[i]! | 0x20) === 101) {
      // e / E
      let j = i + 1;
      if (codes[j] === 43 || codes[j] === 45) j++;
      if (isDigitCode(codes[j]!)) {
        isDouble = true;
        i = j;
        while (isDigitCode(codes[i]!)) i++;
      }
    }
    const text = src.slice(start, i);
    if (isDouble) {
      this.pos = i;
      this.set(TK_DOUBLE, text, start);
      this.value = Number(text);
      return;
    }
    if ((codes[i]! | 0x20) === 117) {
      this.uint(text, start, i + 1);
      return;
    }
    this.int(text, start, i);
  }

  private int(digits: string, start: number, end: number): void {
    this.pos = end;
    this.set(TK_INT, digits, start);
    this.raw = digits;
  }

  private uint(digits: string, start: number, end: number): void {
    this.pos = end;
    const v = BigInt(digits);
    if (v > UINT64_MAX) {
      this.fail(this.src.slice(start, end), start, 'invalid uint literal');
      return;
    }
    this.set(TK_UINT, this.src.slice(start, end), start);
    this.value = new CelUint(v);
  }
}

const EMPTY_CODES = new Uint8Array(PAD);

function isQuoteCode(c: number): boolean {
  return c === 34 || c === 39;
}

/** r, b, rb or br (any case) directly before a quote. By character codes: most identifiers starting with r or b are not literals. */
function isQuotePrefix(codes: Uint8Array, i: number): boolean {
  const b = codes[i + 1]!;
  if (isQuoteCode(b)) return true;
  // lower-cased by setting bit 0x20: r (114) and b (98) in either order
  const a = codes[i]! | 0x20;
  const lb = b | 0x20;
  return ((a === 114 && lb === 98) || (a === 98 && lb === 114)) && isQuoteCode(codes[i + 2]!);
}

/** isQuotePrefix over a string (the parser's look-ahead). */
function isQuotePrefixAt(src: string, i: number): boolean {
  const b = codeAt(src, i + 1);
  if (isQuoteCode(b)) return true;
  const a = codeAt(src, i) | 0x20;
  const lb = b | 0x20;
  return ((a === 114 && lb === 98) || (a === 98 && lb === 114)) && isQuoteCode(codeAt(src, i + 2));
}

/** Parses an int literal with its sign; undefined when out of int64 range. */
export function intLiteral(raw: string, negative: boolean): bigint | undefined {
  // up to 15 characters (decimal or 0x hex) a double holds the value exactly, converting it is cheaper
  // than parsing text, and the value is within int64
  if (raw.length < 16) return BigInt(negative ? -raw : +raw);
  let v = BigInt(raw);
  if (negative) v = -v;
  if (v > INT64_MAX || v < INT64_MIN) return undefined;
  return v;
}

const INT64_MIN = -INT64_MAX - 1n;

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

// Go's net/netip parsers (ParseAddr, ParsePrefix), with their error texts:
// the ip and cidr libraries report them verbatim, so a learner sees what the
// API server prints.

export interface Addr {
  /** 4 or 16 bytes */
  bytes: Uint8Array;
  zone: string;
}

const quote = (s: string): string => JSON.stringify(s);

class ParseAddrError extends Error {
  constructor(input: string, msg: string, at?: string) {
    super(`ParseAddr(${quote(input)}): ${msg}${at !== undefined && at !== '' ? ` (at ${quote(at)})` : ''}`);
  }
}

function parseIPv4Fields(input: string, off: number, end: number, out: Uint8Array, at: number): void {
  let val = 0;
  let pos = 0;
  let digits = 0;
  const s = input.slice(off, end);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (digits === 1 && val === 0) throw new ParseAddrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c - 0x30);
      digits++;
      if (val > 255) throw new ParseAddrError(input, 'IPv4 field has value >255');
    } else if (c === 0x2e) {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw new ParseAddrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw new ParseAddrError(input, 'IPv4 address too long');
      out[at + pos++] = val;
      val = 0;
      digits = 0;
    } else {
      throw new ParseAddrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw new ParseAddrError(input, 'IPv4 address too short');
  out[at + 3] = val;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw new ParseAddrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const c = s[off]!;
      const d = parseInt(c, 16);
      if (!/[0-9a-fA-F]/.test(c)) break;
      acc = acc * 16 + d;
      if (off > 3) throw new ParseAddrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw new ParseAddrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw new ParseAddrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw new ParseAddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw new ParseAddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      parseIPv4Fields(input, end - s.length, end, ip, i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') throw new ParseAddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw new ParseAddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw new ParseAddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') throw new ParseAddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw new ParseAddrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw new ParseAddrError(input, 'the :: must expand to at least one field of zeros', s);
  }
  return { bytes: ip, zone };
}

/** netip.ParseAddr; the error is Go's text. */
export function parseAddr(s: string): Addr | Error {
  try {
    for (let i = 0; i < s.length; i++) {
      switch (s[i]) {
        case '.': {
          const out = new Uint8Array(4);
          parseIPv4Fields(s, 0, s.length, out, 0);
          return { bytes: out, zone: '' };
        }
        case ':':
          return parseIPv6(s);
        case '%':
          throw new ParseAddrError(s, 'missing IPv6 address');
      }
    }
    throw new ParseAddrError(s, 'unable to parse IP');
  } catch (e) {
    if (e instanceof ParseAddrError) return e;
    throw e;
  }
}

export interface Prefix {
  addr: Addr;
  bits: number;
}

/** netip.ParsePrefix; the error is Go's text. */
export function parsePrefix(s: string): Prefix | Error {
  const fail = (msg: string): Error => new Error(`netip.ParsePrefix(${quote(s)}): ${msg}`);
  const i = s.lastIndexOf('/');
  if (i < 0) return fail("no '/'");
  const addr = parseAddr(s.slice(0, i));
  if (addr instanceof Error) return fail(addr.message);
  if (addr.bytes.length === 16 && addr.zone !== '') return fail('IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(i + 1);
  if ((bitsStr.length > 1 && (bitsStr[0]! < '1' || bitsStr[0]! > '9')) || !/^[+-]?[0-9]+$/.test(bitsStr)) return fail(`bad bits after slash: ${quote(bitsStr)}`);
  const bits = Number(bitsStr);
  if (bits < 0 || bits > addr.bytes.length * 8) return fail('prefix length out of range');
  return { addr, bits };
}

/** Is the address an IPv4 address mapped into IPv6 (::ffff:a.b.c.d)? */
export function is4In6(b: Uint8Array): boolean {
  return b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}

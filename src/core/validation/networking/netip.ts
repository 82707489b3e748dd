/**
 * The strict IP and CIDR rules of kube's newer fields (IsValidCIDR, the
 * IPAddress name), over the sloppy parsers of validation/net.ts: Go's
 * net/netip ParseAddr errors and the canonical (RFC 5952) text of an address.
 */
import { goQuote } from '../../errors/goFormat';
import { parseCIDR, parseIP } from '../net';

/** net.IP.String(): dotted IPv4, or IPv6 with the longest run of two or more zero groups as `::`. */
export function ipString(bytes: number[], v4: boolean): string {
  if (v4) return bytes.slice(12).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (best < 0) return hex(groups);
  return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

const is4In6 = (bytes: number[], v4: boolean) => !v4 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;

/** netip's parseIPv4 error for a dotted address, or '' when it parses. */
function ipv4Error(s: string): string {
  const fail = (msg: string, at = '') => `ParseAddr(${goQuote(s)}): ${msg}${at ? ` (at ${goQuote(at)})` : ''}`;
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) return fail('IPv4 field has octet with leading zero');
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) return fail('IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') return fail('IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) return fail('IPv4 address too long');
      pos++;
      val = 0;
      digits = 0;
    } else {
      return fail('unexpected character', s.slice(i));
    }
  }
  return pos < 3 ? fail('IPv4 address too short') : '';
}

/**
 * netip.ParseAddr's error for s, or '' when it is an address. IPv6 text
 * that does not parse gets netip's generic message rather than its
 * per-field ones.
 */
export function parseAddrError(s: string): string {
  for (const c of s) {
    if (c === '.') return ipv4Error(s);
    if (c === ':') {
      const tail = s.slice(s.lastIndexOf(':') + 1);
      const v4TailOk = !tail.includes('.') || ipv4Error(tail) === '';
      return parseIP(s) && v4TailOk ? '' : `ParseAddr(${goQuote(s)}): unable to parse IP`;
    }
    if (c === '%') return `ParseAddr(${goQuote(s)}): missing IPv6 address`;
  }
  return `ParseAddr(${goQuote(s)}): unable to parse IP`;
}

/** The canonical text of an address netip parses. */
export function canonicalIP(s: string): string {
  const ip = parseIP(s);
  return ip ? (is4In6(ip.bytes, ip.v4) ? `::ffff:${ip.bytes.slice(12).join('.')}` : ipString(ip.bytes, ip.v4)) : s;
}

const cidrExample = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/** IsValidCIDR's messages for value (strict: no leading zeros, no IPv4-mapped, no host bits, canonical). */
export function isValidCIDR(value: string): string[] {
  const cidr = parseCIDR(value);
  if (!cidr) return [cidrExample];
  const [ipText, lenText] = [value.slice(0, value.indexOf('/')), value.slice(value.indexOf('/') + 1)];
  const v4Text = cidr.v4 ? ipText : ipText.slice(ipText.lastIndexOf(':') + 1);
  if (v4Text.split('.').some((o) => o.length > 1 && o.startsWith('0')) || (lenText.length > 1 && lenText.startsWith('0'))) {
    return ['must not have leading 0s in IP or prefix length'];
  }
  if (is4In6(cidr.bytes, cidr.v4)) return ['must not have an IPv4-mapped IPv6 address'];
  const offset = cidr.v4 ? 96 : 0;
  const masked = cidr.bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, offset + cidr.bits - i * 8));
    return i * 8 < offset ? b : b & ((0xff << (8 - keep)) & 0xff);
  });
  if (masked.some((b, i) => b !== cidr.bytes[i])) return ['must not have bits set beyond the prefix length'];
  const canonical = `${ipString(cidr.bytes, cidr.v4)}/${cidr.bits}`;
  return canonical === value ? [] : [`must be in canonical form (${goQuote(canonical)})`];
}

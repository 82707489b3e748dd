// Kubernetes ip and cidr libraries (net.IP, net.CIDR). Parsing follows
// netip: no leading zeros in IPv4 octets, no zones, no IPv4-mapped IPv6.

import { CelError, CelOpaque, codePointLength, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';
import { stringTraversal } from '../costs';
import { is4In6, parseAddr, parsePrefix } from './netip';

export class CelIP extends CelOpaque {
  readonly typeName = 'net.IP';
  constructor(readonly bytes: Uint8Array) {
    super();
  }
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  equal(o: CelValue): boolean {
    return o instanceof CelIP && o.bytes.length === this.bytes.length && o.bytes.every((b, i) => b === this.bytes[i]);
  }
  size(): number {
    return this.bytes.length;
  }
  toString(): string {
    return formatIP(this.bytes);
  }
}

export class CelCIDR extends CelOpaque {
  readonly typeName = 'net.CIDR';
  constructor(
    readonly ip: CelIP,
    readonly prefix: number,
  ) {
    super();
  }
  equal(o: CelValue): boolean {
    return o instanceof CelCIDR && o.prefix === this.prefix && o.ip.equal(this.ip);
  }
  size(): number {
    return this.ip.bytes.length;
  }
  toString(): string {
    return `${this.ip.toString()}/${this.prefix}`;
  }
}

export function parseIP(s: string): CelIP | CelError {
  const addr = parseAddr(s);
  if (addr instanceof Error) return new CelError(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ${addr.message}`);
  if (addr.zone !== '') return new CelError('IP address with zone value is not allowed');
  if (is4In6(addr.bytes)) return new CelError('IPv4-mapped IPv6 address is not allowed');
  return new CelIP(addr.bytes);
}

export function formatIP(b: Uint8Array): string {
  if (b.length === 4) return [...b].join('.');
  const w: number[] = [];
  for (let i = 0; i < 16; i += 2) w.push((b[i]! << 8) | b[i + 1]!);
  // longest run of zero words (length >= 2) becomes ::
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (w[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (xs: number[]): string => xs.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(w);
  return `${hex(w.slice(0, best))}::${hex(w.slice(best + bestLen))}`;
}

export function parseCIDR(s: string): CelCIDR | CelError {
  const fail = (msg: string): CelError => new CelError(`network address parse error during conversion from string: ${msg}`);
  const p = parsePrefix(s);
  if (p instanceof Error) return fail(`network address parse error during conversion from string: ${p.message}`);
  if (p.addr.zone !== '') return fail('CIDR with zone value is not allowed');
  if (is4In6(p.addr.bytes)) return fail('IPv4-mapped IPv6 address is not allowed');
  return new CelCIDR(new CelIP(p.addr.bytes), p.bits);
}

function masked(c: CelCIDR): CelCIDR {
  const b = new Uint8Array(c.ip.bytes);
  for (let i = 0; i < b.length; i++) {
    const keep = Math.max(0, Math.min(8, c.prefix - i * 8));
    b[i]! &= (0xff << (8 - keep)) & 0xff;
  }
  return new CelCIDR(new CelIP(b), c.prefix);
}

function containsIP(c: CelCIDR, ip: CelIP): boolean {
  if (ip.bytes.length !== c.ip.bytes.length) return false;
  return masked(new CelCIDR(ip, c.prefix)).ip.equal(masked(c).ip);
}

function ipPredicate(f: (b: Uint8Array) => boolean) {
  return (v: CelValue): CelValue => f((v as CelIP).bytes);
}

export function k8sNetLibrary(): Library {
  const parse = { cost: (a: CelValue[]) => stringTraversal(codePointLength(a[0] as string)) };
  const one = { cost: () => 1 };
  const I = 'net.IP';
  const C = 'net.CIDR';
  const asIP = (v: CelValue): CelIP | CelError => (typeof v === 'string' ? parseIP(v) : (v as CelIP));
  const asCIDR = (v: CelValue): CelCIDR | CelError => (typeof v === 'string' ? parseCIDR(v) : (v as CelCIDR));
  return {
    name: 'k8s.net',
    types: ['net.IP', 'net.CIDR'],
    overloads: [
      def('string_to_ip', `ip(string) -> ${I}`, (s) => parseIP(s as string), parse),
      def('is_ip', 'isIP(string) -> bool', (s) => !(parseIP(s as string) instanceof CelError), parse),
      def('ip_is_canonical', 'ip.isCanonical(string) -> bool', (s) => {
        const ip = parseIP(s as string);
        return ip instanceof CelError ? ip : ip.toString() === s;
      }, { cost: (a: CelValue[]) => stringTraversal(codePointLength(a[0] as string) * 2) }),
      def('ip_family', `${I}.family() -> int`, (v) => BigInt((v as CelIP).family), one),
      def('ip_is_unspecified', `${I}.isUnspecified() -> bool`, ipPredicate((b) => b.every((x) => x === 0)), one),
      def('ip_is_loopback', `${I}.isLoopback() -> bool`, ipPredicate((b) => (b.length === 4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1)), one),
      def('ip_is_link_local_multicast', `${I}.isLinkLocalMulticast() -> bool`, ipPredicate((b) => (b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02)), one),
      def('ip_is_link_local_unicast', `${I}.isLinkLocalUnicast() -> bool`, ipPredicate((b) => (b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80)), one),
      def('ip_is_global_unicast', `${I}.isGlobalUnicast() -> bool`, ipPredicate((b) => {
        if (b.length === 4) return !(b[0] === 0 || b[0] === 127 || b[0]! >= 224 || (b[0] === 169 && b[1] === 254) || b.every((x) => x === 255));
        return !(b.every((x) => x === 0) || b[0] === 0xff || (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) || (b.slice(0, 15).every((x) => x === 0) && b[15] === 1));
      }), one),
      def('ip_to_string', `string(${I}) -> string`, (v) => (v as CelIP).toString(), one),
      def('string_to_cidr', `cidr(string) -> ${C}`, (s) => parseCIDR(s as string), parse),
      def('is_cidr', 'isCIDR(string) -> bool', (s) => !(parseCIDR(s as string) instanceof CelError), parse),
      def('cidr_contains_ip_string', `${C}.containsIP(string) -> bool`, (c, s) => {
        const ip = asIP(s);
        return ip instanceof CelError ? ip : containsIP(c as CelCIDR, ip);
      }),
      def('cidr_contains_ip_ip', `${C}.containsIP(${I}) -> bool`, (c, ip) => containsIP(c as CelCIDR, ip as CelIP)),
      def('cidr_contains_cidr_string', `${C}.containsCIDR(string) -> bool`, (c, s) => {
        const o = asCIDR(s);
        if (o instanceof CelError) return o;
        return o.prefix >= (c as CelCIDR).prefix && containsIP(c as CelCIDR, o.ip);
      }),
      def('cidr_contains_cidr', `${C}.containsCIDR(${C}) -> bool`, (c, o) => (o as CelCIDR).prefix >= (c as CelCIDR).prefix && containsIP(c as CelCIDR, (o as CelCIDR).ip)),
      def('cidr_ip', `${C}.ip() -> ${I}`, (c) => (c as CelCIDR).ip, one),
      def('cidr_masked', `${C}.masked() -> ${C}`, (c) => masked(c as CelCIDR), one),
      def('cidr_prefix_length', `${C}.prefixLength() -> int`, (c) => BigInt((c as CelCIDR).prefix), one),
      def('cidr_to_string', `string(${C}) -> string`, (c) => (c as CelCIDR).toString(), one),
    ],
  };
}

/** IP and CIDR syntax as k8s.io/utils/net parses it (the "sloppy" parsers that allow leading zeros). */

const ipv4Re = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function ipv4Bytes(s: string): number[] | undefined {
  const m = ipv4Re.exec(s);
  if (!m) return undefined;
  const bytes = m.slice(1).map(Number);
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

function ipv6Groups(s: string): number[] | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(':')) return undefined;
  let text = s;
  const lastColon = s.lastIndexOf(':');
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    // An embedded IPv4 tail is two groups.
    const v4 = ipv4Bytes(last);
    if (!v4) return undefined;
    text = `${s.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (h: string) => (h === '' ? [] : h.split(':').map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...head, ...rest].some(Number.isNaN)) return undefined;
  const total = head.length + rest.length;
  if (halves.length === 1) return total === 8 ? head : undefined;
  if (total > 7) return undefined;
  return [...head, ...new Array<number>(8 - total).fill(0), ...rest];
}

/** The address as 16 bytes (IPv4 mapped), or undefined when it is not an IP. */
export function parseIP(s: string): { bytes: number[]; v4: boolean } | undefined {
  const v4 = ipv4Bytes(s);
  if (v4) return { bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4], v4: true };
  const g = ipv6Groups(s);
  if (!g) return undefined;
  return { bytes: g.flatMap((x) => [x >> 8, x & 0xff]), v4: false };
}

export interface CIDR {
  bytes: number[];
  v4: boolean;
  /** Prefix length within the family (0-32 or 0-128). */
  bits: number;
}

export function parseCIDR(s: string): CIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const lenText = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(lenText)) return undefined;
  const bits = Number(lenText);
  if (bits > (ip.v4 ? 32 : 128)) return undefined;
  return { ...ip, bits };
}

/** Whether the network of outer contains the address of inner. */
export function cidrContains(outer: CIDR, inner: CIDR): boolean {
  if (outer.v4 !== inner.v4) return false;
  const offset = outer.v4 ? 96 : 0;
  for (let i = 0; i < outer.bits; i++) {
    const bit = offset + i;
    const mask = 0x80 >> bit % 8;
    if ((outer.bytes[bit >> 3]! & mask) !== (inner.bytes[bit >> 3]! & mask)) return false;
  }
  return true;
}

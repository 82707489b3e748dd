/**
 * The ClusterIP allocator (pkg/registry/core/service/ipallocator): a bitmap
 * over one IPv4 service CIDR (`--service-cluster-ip-range`). The network
 * address and the broadcast address are never handed out. Dynamic
 * allocations scan from a random offset in the upper band first, keeping
 * the lower band for addresses users ask for by value (the static subrange),
 * as kube-apiserver does.
 */
import type { RandomSource } from '../../util/clock';

export class AllocationError extends Error {}

/** ErrAllocated */
export const errIPAllocated = 'provided IP is already allocated';
/** ErrFull */
export const errRangeFull = 'range is full';

/** An IPv4 CIDR as the allocator sees it: base address, prefix, text. */
export interface ServiceCIDR {
  /** Network address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
  /** As given on the command line, e.g. `10.96.0.0/12`. */
  text: string;
}

/** Dotted-quad IPv4 to a number; undefined for anything else (IPv6 included). */
export function parseIPv4(s: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const part = m[i]!;
    if (part.length > 1 && part.startsWith('0')) return undefined;
    const v = Number(part);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

export function formatIPv4(n: number): string {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Parses `a.b.c.d/n`; throws Error with the flag's complaint otherwise. Only IPv4 service ranges are served. */
export function parseServiceCIDR(text: string): ServiceCIDR {
  const [ip, bits, extra] = text.split('/');
  const addr = ip === undefined ? undefined : parseIPv4(ip);
  const prefix = bits !== undefined && /^\d{1,2}$/.test(bits) ? Number(bits) : NaN;
  if (addr === undefined || extra !== undefined || !(prefix >= 0 && prefix <= 30)) {
    throw new Error(`invalid CIDR address: ${text}`);
  }
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (addr & mask) >>> 0, prefix, text: `${formatIPv4((addr & mask) >>> 0)}/${prefix}` };
}

/** The kube-apiserver default service CIDR. */
export const defaultServiceCIDR = '10.96.0.0/12';

export class IPAllocator {
  /** Usable addresses: offsets 1..size (network and broadcast excluded). */
  readonly size: number;
  private readonly used = new Set<number>();
  /** First offset of the upper (dynamic) band. */
  private readonly dynamicStart: number;

  constructor(
    readonly cidr: ServiceCIDR,
    private readonly random: RandomSource,
  ) {
    this.size = 2 ** (32 - cidr.prefix) - 2;
    // calculateRangeOffset: min(max(16, size/16), 256) addresses kept for static assignment.
    const staticBand = this.size < 16 ? 0 : Math.min(Math.max(16, Math.floor(this.size / 16)), 256);
    this.dynamicStart = staticBand + 1;
  }

  /** The first usable address, which kube-apiserver gives the `kubernetes` Service. */
  get firstIP(): string {
    return formatIPv4(this.cidr.base + 1);
  }

  private offsetOf(ip: string): number | undefined {
    const n = parseIPv4(ip);
    if (n === undefined) return undefined;
    const off = n - this.cidr.base;
    return off >= 1 && off <= this.size ? off : undefined;
  }

  contains(ip: string): boolean {
    return this.offsetOf(ip) !== undefined;
  }

  has(ip: string): boolean {
    const off = this.offsetOf(ip);
    return off !== undefined && this.used.has(off);
  }

  get free(): number {
    return this.size - this.used.size;
  }

  /** Allocate: a specific address, or AllocationError with kube's text. */
  allocate(ip: string): void {
    const off = this.offsetOf(ip);
    if (off === undefined) {
      throw new AllocationError(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr.text}`);
    }
    if (this.used.has(off)) throw new AllocationError(errIPAllocated);
    this.used.add(off);
  }

  /** AllocateNext: a free address, upper band first, from a random start. */
  allocateNext(): string {
    if (this.used.size >= this.size) throw new AllocationError(errRangeFull);
    const off = this.scan(this.dynamicStart, this.size) ?? this.scan(1, this.dynamicStart - 1);
    if (off === undefined) throw new AllocationError(errRangeFull);
    this.used.add(off);
    return formatIPv4(this.cidr.base + off);
  }

  /** A free offset in [from, to], scanning forward (with wrap) from a random one. */
  private scan(from: number, to: number): number | undefined {
    const count = to - from + 1;
    if (count <= 0) return undefined;
    const b = this.random.fill(new Uint8Array(4));
    const start = (((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0) % count;
    for (let i = 0; i < count; i++) {
      const off = from + ((start + i) % count);
      if (!this.used.has(off)) return off;
    }
    return undefined;
  }

  release(ip: string): void {
    const off = this.offsetOf(ip);
    if (off !== undefined) this.used.delete(off);
  }
}

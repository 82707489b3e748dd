/**
 * The NodePort allocator (pkg/registry/core/service/portallocator): a bitmap
 * over `--service-node-port-range` (30000-32767 by default). Dynamic
 * allocations prefer the upper band, leaving the lower band for ports users
 * ask for by number (the static subrange), as kube-apiserver does.
 */
import type { RandomSource } from '../../util/clock';
import { AllocationError, errRangeFull } from './ipallocator';

/** ErrAllocated */
export const errPortAllocated = 'provided port is already allocated';

export interface PortRange {
  base: number;
  size: number;
}

export const defaultNodePortRange = '30000-32767';

/** `30000-32767` (or a single port); throws Error with the flag's complaint otherwise. */
export function parsePortRange(text: string): PortRange {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
  const low = m ? Number(m[1]) : NaN;
  const high = m ? Number(m[2] ?? m[1]) : NaN;
  if (!m || low > 65535 || high > 65535 || high < low) throw new Error(`unable to parse port range: ${text}`);
  return { base: low, size: high - low + 1 };
}

export function portRangeText(r: PortRange): string {
  return `${r.base}-${r.base + r.size - 1}`;
}

export class PortAllocator {
  private readonly used = new Set<number>();
  private readonly dynamicStart: number;

  constructor(
    readonly range: PortRange,
    private readonly random: RandomSource,
  ) {
    // calculateRangeOffset for ports: min(max(16, size/32), 128) ports kept for static assignment.
    const staticBand = range.size < 16 ? 0 : Math.min(Math.max(16, Math.floor(range.size / 32)), 128);
    this.dynamicStart = staticBand;
  }

  contains(port: number): boolean {
    return Number.isInteger(port) && port >= this.range.base && port < this.range.base + this.range.size;
  }

  has(port: number): boolean {
    return this.used.has(port);
  }

  allocate(port: number): void {
    if (!this.contains(port)) {
      throw new AllocationError(`provided port is not in the valid range. The range of valid ports is ${portRangeText(this.range)}`);
    }
    if (this.used.has(port)) throw new AllocationError(errPortAllocated);
    this.used.add(port);
  }

  allocateNext(): number {
    const port = this.scan(this.dynamicStart, this.range.size - 1) ?? this.scan(0, this.dynamicStart - 1);
    if (port === undefined) throw new AllocationError(errRangeFull);
    this.used.add(port);
    return port;
  }

  private scan(from: number, to: number): number | undefined {
    const count = to - from + 1;
    if (count <= 0) return undefined;
    const b = this.random.fill(new Uint8Array(4));
    const start = (((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0) % count;
    for (let i = 0; i < count; i++) {
      const port = this.range.base + from + ((start + i) % count);
      if (!this.used.has(port)) return port;
    }
    return undefined;
  }

  release(port: number): void {
    this.used.delete(port);
  }
}

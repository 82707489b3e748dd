/**
 * --advertise-address's default, as kube-apiserver resolves it
 * (ResolveBindAddress): the bind address, unless it is a loopback or
 * unspecified one; then the host's first non-loopback IPv4 address (its
 * ChooseHostInterface), and the bind address itself on a host with none.
 */
import { networkInterfaces } from 'node:os';
import type { HostFlags } from './flags';

const loopbackOrUnspecified = (ip: string) => ip === '0.0.0.0' || ip === '::' || ip === '::1' || ip.startsWith('127.');

export function advertiseAddress(flags: Pick<HostFlags, 'advertiseAddress' | 'bindAddress'>): string {
  if (flags.advertiseAddress) return flags.advertiseAddress;
  if (!loopbackOrUnspecified(flags.bindAddress)) return flags.bindAddress;
  for (const addresses of Object.values(networkInterfaces())) {
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return flags.bindAddress === '0.0.0.0' || flags.bindAddress === '::' ? '127.0.0.1' : flags.bindAddress;
}

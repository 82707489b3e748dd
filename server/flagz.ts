/**
 * The flag values /flagz lists: every flag this host was given, over the
 * defaults of the ones that shape the server (as kube-apiserver lists all its
 * flags with their current values).
 */
import type { HostFlags } from './flags';

export function flagzValues(flags: HostFlags): Record<string, string> {
  const out: Record<string, string> = {
    'bind-address': flags.bindAddress,
    'data-dir': flags.dataDir,
    port: String(flags.port),
    'secure-port': String(flags.securePort),
    store: flags.store,
    tls: String(flags.tls),
    'runtime-config': flags.runtimeConfig ?? '',
    'feature-gates': Object.entries(flags.featureGates ?? {}).map(([k, v]) => `${k}=${v}`).sort().join(','),
    'authorization-mode': flags.authorizationModes ?? 'AlwaysAllow',
  };
  return { ...out, ...flags.given };
}

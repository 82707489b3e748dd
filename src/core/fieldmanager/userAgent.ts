/** Longest field manager name the server accepts. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/**
 * The default manager of a write without `fieldManager`: the User-Agent up
 * to its first `/`, printable characters only, at most 128 bytes
 * (`kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07` gives `kubectl`).
 */
export function prefixFromUserAgent(userAgent: string): string {
  const head = userAgent.split('/')[0];
  let out = '';
  let bytes = 0;
  const enc = new TextEncoder();
  for (const ch of head) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]$/u.test(ch)) continue;
    const n = enc.encode(ch).length;
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

export function managerOrUserAgent(manager: string | undefined | null, userAgent: string | undefined | null): string {
  if (manager) return manager;
  return prefixFromUserAgent(userAgent ?? '');
}

/** Longest field manager name the server accepts. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's unicode.IsPrint for one character (one code point). */
export function isPrintable(ch: string): boolean {
  return printable.test(ch);
}

/** The UTF-8 length of one character (one code point). */
export function utf8Width(ch: string): number {
  const cp = ch.codePointAt(0)!;
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/** Whether every character of s is printable ASCII (U+0020 to U+007E), each one byte and printable. */
export function isPrintableAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/**
 * The default manager of a write without `fieldManager`: the User-Agent up
 * to its first `/`, printable characters only, at most 128 bytes
 * (`kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07` gives `kubectl`).
 */
export function prefixFromUserAgent(userAgent: string): string {
  const slash = userAgent.indexOf('/');
  const head = slash < 0 ? userAgent : userAgent.slice(0, slash);
  // Nearly every agent is printable ASCII: one byte per character, nothing to drop.
  if (isPrintableAscii(head)) return head.length > FIELD_MANAGER_MAX_LENGTH ? head.slice(0, FIELD_MANAGER_MAX_LENGTH) : head;
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!printable.test(ch)) continue;
    const n = utf8Width(ch);
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

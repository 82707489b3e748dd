/** Byte arrays joined end to end into one (`size`: their total length, when the caller has counted it). */
export function concatBytes(parts: readonly Uint8Array[], size = parts.reduce((n, p) => n + p.byteLength, 0)): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

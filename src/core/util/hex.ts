/** Bytes as lower-case hex, and the hex digests the server's ETags and caches are keyed by. */

const hexByte = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The two hex digits of a byte. */
export const hexOfByte = (b: number): string => hexByte[b & 0xff]!;

export function hexOfBytes(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += hexByte[b]!;
  return out;
}

/** The lower-case hex of a SHA digest (Web Crypto, in a worker as in Node). */
export async function digestHex(algorithm: 'SHA-256' | 'SHA-512', bytes: Uint8Array): Promise<string> {
  return hexOfBytes(new Uint8Array(await crypto.subtle.digest(algorithm, bytes as BufferSource)));
}

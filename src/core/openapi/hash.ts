/**
 * A deterministic 128-bit digest (four interleaved 32-bit multiply-xorshift
 * lanes) of a document's JSON, for the ?hash= of /openapi/v3 URLs. Clients
 * treat it as opaque and only need it to change when the document does;
 * a synchronous digest keeps the OpenAPI functions synchronous.
 */
export function digestHex(text: string): string {
  let h1 = 0x6a09e667;
  let h2 = 0xbb67ae85;
  let h3 = 0x3c6ef372;
  let h4 = 0xa54ff53a;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ c, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ c, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ c, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ c, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1, h2, h3, h4].map((h) => (h >>> 0).toString(16).toUpperCase().padStart(8, '0')).join('');
}

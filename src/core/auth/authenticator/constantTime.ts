/**
 * Secret comparison whose time does not depend on where two strings first
 * differ (crypto/subtle.ConstantTimeCompare), so a caller cannot guess a
 * token byte by byte from response times.
 */
const encoder = new TextEncoder();

export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

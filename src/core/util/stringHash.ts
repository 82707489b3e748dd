/**
 * A stable 32-bit hash of a text (Java's String.hashCode over its UTF-16
 * units, unsigned), from a seed: what the simulation picks by where a real
 * system draws at random (an endpoint, a client port, a query id), so a run
 * replayed picks the same.
 */
export const stringHash = (text: string, seed = 0): number => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, seed >>> 0);

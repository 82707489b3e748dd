/** Media type parsing for Accept and Content-Type headers (RFC 9110 lists with parameters and q-values). */

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

export function parseMediaType(value: string): MediaRange | undefined {
  const [full, ...rawParams] = value.split(';');
  const [type, subtype] = (full ?? '').trim().toLowerCase().split('/');
  if (!type || !subtype) return undefined;
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of rawParams) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (k === 'q') q = Number(v);
    else params[k] = v;
  }
  return { type, subtype, params, q: Number.isFinite(q) ? q : 0 };
}

/** Wildcards rank below concrete types of the same q, as goautoneg (kube's Accept parser) sorts them. */
function specificity(m: MediaRange): number {
  return (m.type === '*' ? 0 : 2) + (m.subtype === '*' ? 0 : 1);
}

/**
 * Accept headers parsed lately. Clients send the same few values on every
 * request, so most are parsed once; the cache starts over when full.
 */
const parsedAccept = new Map<string, readonly MediaRange[]>();
const parsedAcceptLimit = 64;

/** Splits an Accept header into ranges ordered by preference: q, then specificity, then position. Callers must not change them. */
export function parseAccept(header: string | null): readonly MediaRange[] {
  if (!header) return [];
  let ranges = parsedAccept.get(header);
  if (!ranges) {
    if (parsedAccept.size >= parsedAcceptLimit) parsedAccept.clear();
    parsedAccept.set(header, (ranges = parseAcceptRanges(header)));
  }
  return ranges;
}

function parseAcceptRanges(header: string): MediaRange[] {
  if (!header.trim()) return [];
  return header
    .split(',')
    .map((s) => parseMediaType(s))
    .filter((m): m is MediaRange => m !== undefined && m.q > 0)
    .map((m, i) => ({ m, i }))
    .sort((a, b) => b.m.q - a.m.q || specificity(b.m) - specificity(a.m) || a.i - b.i)
    .map(({ m }) => m);
}

export function essence(m: MediaRange): string {
  return `${m.type}/${m.subtype}`;
}

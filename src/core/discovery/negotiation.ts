/**
 * Which discovery shape an Accept header asks for: the aggregated
 * APIGroupDiscoveryList (apidiscovery.k8s.io v2 or v2beta1) or the legacy
 * APIVersions/APIGroupList. Like kube-apiserver, the client's first acceptable
 * alternative wins (highest q first, ties in the order the client listed them).
 */
import type { AggregatedDiscoveryVersion } from './aggregated';

export type DiscoveryShape =
  | { kind: 'aggregated'; version: AggregatedDiscoveryVersion }
  | { kind: 'legacy' }
  | { kind: 'notAcceptable' };

interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
  index: number;
}

function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  accept.split(',').forEach((part, index) => {
    const [mediaType, ...rawParams] = part.split(';').map((s) => s.trim());
    if (!mediaType) return;
    const [type, subtype = ''] = mediaType.toLowerCase().split('/');
    const params: Record<string, string> = {};
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    }
    const q = params.q === undefined ? 1 : Number(params.q);
    ranges.push({ type, subtype, params, q: Number.isFinite(q) ? q : 0, index });
  });
  return ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.index - b.index);
}

/** JSON is the only encoding served here; wildcards accept it too. */
function acceptsJson(r: MediaRange): boolean {
  return (r.type === 'application' && (r.subtype === 'json' || r.subtype === '*')) || (r.type === '*' && r.subtype === '*');
}

/** Decides the shape for GET /api or /apis from the Accept header (absent means legacy JSON). */
export function negotiateDiscovery(accept: string | null | undefined): DiscoveryShape {
  if (!accept || accept.trim() === '') return { kind: 'legacy' };
  for (const r of parseAccept(accept)) {
    if (!acceptsJson(r)) continue;
    const { as, g, v } = r.params;
    if (as === undefined && g === undefined && v === undefined) return { kind: 'legacy' };
    if (as === 'APIGroupDiscoveryList' && g === 'apidiscovery.k8s.io' && (v === 'v2' || v === 'v2beta1')) {
      return { kind: 'aggregated', version: v };
    }
    // Any other as/g/v (a Table, an unknown discovery version) is not something discovery serves.
  }
  return { kind: 'notAcceptable' };
}

/** Content-Type kube-apiserver sends with an aggregated discovery document. */
export function aggregatedContentType(version: AggregatedDiscoveryVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

// List concatenation with Kubernetes' list-type semantics: set lists union
// (left positions kept), map lists merge by key with right values winning.

import { celEquals } from './ops';
import { CelMap, LIST_TYPE, fromJson, isPlainObject, type CelValue, type TypedList } from './values';

export function concatLists(a: CelValue[], b: CelValue[]): CelValue[] {
  const lt = (a as TypedList)[LIST_TYPE] ?? (b as TypedList)[LIST_TYPE];
  if (!lt) {
    if (b.length === 0) return a;
    if (a.length === 0) return b;
    return a.concat(b);
  }
  if (lt.type === 'set') {
    const out: TypedList = a.slice();
    for (const v of b) if (!out.some((x) => celEquals(x, v))) out.push(v);
    out[LIST_TYPE] = lt;
    return out;
  }
  const keyOf = (v: CelValue): CelValue[] =>
    lt.keys.map((k) => (v instanceof CelMap ? (v.get(k) ?? null) : isPlainObject(v) ? fromJson((v as Record<string, unknown>)[k]) : null));
  const sameKey = (x: CelValue, y: CelValue): boolean => {
    const kx = keyOf(x);
    const ky = keyOf(y);
    return kx.every((v, i) => celEquals(v, ky[i]!));
  };
  const out: TypedList = a.slice();
  for (const v of b) {
    const i = out.findIndex((x) => sameKey(x, v));
    if (i >= 0) out[i] = v;
    else out.push(v);
  }
  out[LIST_TYPE] = lt;
  return out;
}

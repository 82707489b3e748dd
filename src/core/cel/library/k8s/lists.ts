// Kubernetes list library: isSorted, sum, min, max, indexOf, lastIndexOf.

import { celCompare, celEquals } from '../../common/ops';
import { checkDuration } from '../../common/time';
import { CelDuration, CelError, CelUint, actualSize, type CelValue } from '../../common/values';
import { def, type EstimateNode, type Library, type OverloadDecl } from '../../interpreter/functions';
import { STRING_TRAVERSAL_FACTOR, addR, factorR, fixed, mulR } from '../costs';
import { i64, noOverload, u64 } from '../stdlib';
import { traversalCost } from './cost';

/** Kubernetes EstimateCallCost for the list functions: size x (1 + element traversal for strings). */
export function estimateListTraversal(target: EstimateNode | undefined): { cost: { min: number; max: number } } | undefined {
  if (!target) return undefined;
  if (target.type.kind === 'list') {
    let el = fixed(1);
    const k = target.type.elem.kind;
    if (k === 'string' || k === 'bytes') el = addR(el, factorR(target.elementSize(), STRING_TRAVERSAL_FACTOR));
    return { cost: mulR(target.size(), el) };
  }
  return { cost: factorR(target.size(), STRING_TRAVERSAL_FACTOR) };
}

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'duration', 'timestamp'];

export function k8sListsLibrary(): Library {
  const cost = (args: CelValue[]): number => traversalCost(args[0]!);
  const estimate = (t: EstimateNode | undefined) => estimateListTraversal(t);
  const opts = { cost, estimate };
  const ov: OverloadDecl[] = [];
  for (const t of COMPARABLE) {
    ov.push(
      def(`list_${t}_is_sorted`, `list(${t}).isSorted() -> bool`, (l) => {
        const a = l as CelValue[];
        for (let i = 1; i < a.length; i++) if ((celCompare(a[i - 1]!, a[i]!) ?? 0) > 0) return false;
        return true;
      }, opts),
      def(`list_${t}_min`, `list(${t}).min() -> ${t}`, (l) => extreme(l as CelValue[], -1, 'min'), opts),
      def(`list_${t}_max`, `list(${t}).max() -> ${t}`, (l) => extreme(l as CelValue[], 1, 'max'), opts),
    );
  }
  ov.push(
    // a dynamic list reaches the first overload whatever its elements: adding another type is no such overload, as in the API server
    def('list_int_sum', 'list(int).sum() -> int', (l) => {
      let s = 0n;
      for (const v of l as CelValue[]) {
        if (typeof v !== 'bigint') return noOverload();
        s += v;
        const r = i64(s);
        if (r instanceof CelError) return r;
      }
      return s;
    }, opts),
    def('list_uint_sum', 'list(uint).sum() -> uint', (l) => {
      let s = 0n;
      for (const v of l as CelValue[]) {
        if (!(v instanceof CelUint)) return noOverload();
        s += v.v;
      }
      return u64(s);
    }, opts),
    def('list_double_sum', 'list(double).sum() -> double', (l) => {
      let s = 0;
      for (const v of l as CelValue[]) {
        if (typeof v !== 'number') return noOverload();
        s += v;
      }
      return s;
    }, opts),
    def('list_duration_sum', 'list(duration).sum() -> duration', (l) => {
      let s = 0n;
      for (const v of l as CelValue[]) {
        if (!(v instanceof CelDuration)) return noOverload();
        s += v.nanos;
      }
      return checkDuration(s);
    }, opts),
    def('list_index_of', 'list(T).indexOf(T) -> int', (l, v) => BigInt((l as CelValue[]).findIndex((x) => celEquals(x, v))), opts),
    def('list_last_index_of', 'list(T).lastIndexOf(T) -> int', (l, v) => {
      const a = l as CelValue[];
      for (let i = a.length - 1; i >= 0; i--) if (celEquals(a[i]!, v)) return BigInt(i);
      return -1n;
    }, opts),
  );
  return { name: 'k8s.lists', overloads: ov };
}

function extreme(a: CelValue[], sign: number, name: string): CelValue {
  if (a.length === 0) return new CelError(`${name} called on empty list`);
  let best: CelValue = a[0]!;
  for (const v of a) if ((celCompare(v, best) ?? 0) * sign > 0) best = v;
  return best;
}

export { actualSize };

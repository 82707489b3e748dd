// Cost helpers shared by library declarations: runtime call costs as cel-go's
// CostTracker and Kubernetes' library.CostEstimator compute them, and static
// call estimates as checker.EstimateCallCost does.

import { CelOpaque, actualSize, type CelValue } from '../common/values';
import type { CallEstimate, EstimateNode, SizeRange } from '../interpreter/functions';

export const STRING_TRAVERSAL_FACTOR = 0.1;
export const REGEX_LENGTH_FACTOR = 0.25;
/** math.MaxUint64: cel-go's "unbounded" */
export const UNBOUNDED = 18446744073709551615;

export function stringTraversal(n: number): number {
  return Math.ceil(n * STRING_TRAVERSAL_FACTOR);
}

// ---- size-range arithmetic (saturating, like cel-go's SizeEstimate) ----

const sat = (x: number): number => (x >= UNBOUNDED || !Number.isFinite(x) ? UNBOUNDED : x);
export const range = (min: number, max: number): SizeRange => ({ min: sat(min), max: sat(max) });
export const fixed = (n: number): SizeRange => range(n, n);
export function addR(a: SizeRange, b: SizeRange): SizeRange {
  return range(a.min + b.min, a.max + b.max);
}
export function mulR(a: SizeRange, b: SizeRange): SizeRange {
  return range(a.min * b.min, a.max * b.max);
}
export function factorR(a: SizeRange, f: number): SizeRange {
  return range(Math.ceil(a.min * f), a.max === UNBOUNDED ? UNBOUNDED : Math.ceil(a.max * f));
}
export function unionR(a: SizeRange, b: SizeRange): SizeRange {
  return range(Math.min(a.min, b.min), Math.max(a.max, b.max));
}

const size = (n: EstimateNode | undefined): SizeRange => (n ? n.size() : range(0, UNBOUNDED));
const first = (t: EstimateNode | undefined, args: EstimateNode[]): EstimateNode | undefined => t ?? args[0];
const second = (t: EstimateNode | undefined, args: EstimateNode[]): EstimateNode | undefined => (t ? args[0] : args[1]);

export const callEstimate = {
  minSizeTraversal(args: CelValue[]): number {
    // Kubernetes' types (IPs, CIDRs, quantities, URLs, ...) compare in one unit, as the API server's CallCost says
    if (args[0] instanceof CelOpaque) return 1;
    return stringTraversal(Math.min(actualSize(args[0]!), actualSize(args[1]!)));
  },
  sumSizeTraversal(args: CelValue[]): number {
    return stringTraversal(actualSize(args[0]!) + actualSize(args[1]!));
  },
  containsCost(args: CelValue[]): number {
    return stringTraversal(actualSize(args[0]!)) * stringTraversal(actualSize(args[1]!));
  },
  regexCost(args: CelValue[]): number {
    return stringTraversal(1 + actualSize(args[0]!)) * Math.ceil(actualSize(args[1]!) * REGEX_LENGTH_FACTOR);
  },
  estMinSizeTraversal(t: EstimateNode | undefined, args: EstimateNode[]): CallEstimate {
    const a = size(first(t, args));
    const b = size(second(t, args));
    // cel-go charges one unit at least, unless a side has no elements at all (a scalar of the schema)
    const smallestMax = Math.min(a.max, b.max);
    return { cost: factorR(range(smallestMax > 0 ? 1 : 0, smallestMax), STRING_TRAVERSAL_FACTOR) };
  },
  estConcat(t: EstimateNode | undefined, args: EstimateNode[]): CallEstimate {
    const s = addR(size(first(t, args)), size(second(t, args)));
    return { cost: factorR(s, STRING_TRAVERSAL_FACTOR), resultSize: s };
  },
  estListConcat(t: EstimateNode | undefined, args: EstimateNode[]): CallEstimate {
    const s = addR(size(first(t, args)), size(second(t, args)));
    return { cost: fixed(1), resultSize: s };
  },
  estInList(t: EstimateNode | undefined, args: EstimateNode[]): CallEstimate {
    return { cost: size(second(t, args)) };
  },
  estContains(t: EstimateNode | undefined, args: EstimateNode[]): CallEstimate {
    return { cost: mulR(factorR(size(first(t, args)), STRING_TRAVERSAL_FACTOR), factorR(size(second(t, args)), STRING_TRAVERSAL_FACTOR)) };
  },
  estArgTraversal(t: EstimateNode | undefined, args: EstimateNode[]): CallEstimate {
    return { cost: factorR(size(second(t, args)), STRING_TRAVERSAL_FACTOR) };
  },
  estFirstArgTraversal(t: EstimateNode | undefined, args: EstimateNode[]): CallEstimate {
    return { cost: factorR(size(first(t, args)), STRING_TRAVERSAL_FACTOR) };
  },
  estRegex(t: EstimateNode | undefined, args: EstimateNode[]): CallEstimate {
    const str = factorR(addR(size(first(t, args)), fixed(1)), STRING_TRAVERSAL_FACTOR);
    const re = factorR(size(second(t, args)), REGEX_LENGTH_FACTOR);
    return { cost: mulR(str, re) };
  },
};

export type CostHelpers = typeof callEstimate;

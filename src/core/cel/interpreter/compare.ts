// Comparisons against a literal, specialized at plan time by the literal's
// type: `object.spec.replicas >= 2` compares the JSON number directly (no
// int allocation) and `name == 'prod'` compares strings with the call cost
// precomputed from the literal's length. Any other operand value falls back
// to the general overload dispatch, so results, errors and costs are those
// of the general path.

import { compareStrings } from '../common/ops';
import { codePointLength, fromJson, type CelValue } from '../common/values';
import { callEstimate, stringTraversal } from '../library/costs';
import { NOT_RAW, type RawReader } from './attributes';
import { charge, type Frame, type Interpretable } from './frame';
import type { OverloadDecl } from './functions';

export type Apply2 = (f: Frame, x: CelValue, y: CelValue) => CelValue;

const COMPARISONS: Record<string, string> = {
  '_==_': 'equals',
  '_!=_': 'not_equals',
  '_<_': 'less',
  '_<=_': 'less_equals',
  '_>_': 'greater',
  '_>=_': 'greater_equals',
};

/** Overload ids of each comparison, built once. */
const OVERLOAD_IDS: Record<string, { int: string; intDouble: string; doubleInt: string; string: string }> = {};
for (const base of Object.values(COMPARISONS)) {
  OVERLOAD_IDS[base] = { int: `${base}_int64`, intDouble: `${base}_int64_double`, doubleInt: `${base}_double_int64`, string: `${base}_string` };
}

function hasOverload(cands: readonly OverloadDecl[], id: string): boolean {
  for (const c of cands) if (c.id === id) return true;
  return false;
}

/** The operator seen from the other side: `2 < x` is `x > 2`. */
const FLIPPED: Record<string, string> = { '_==_': '_==_', '_!=_': '_!=_', '_<_': '_>_', '_<=_': '_>=_', '_>_': '_<_', '_>=_': '_<=_' };

const COMPARISON_NAMES = new Set(Object.keys(COMPARISONS));

export function isComparison(fn: string): boolean {
  // comparisons are named _op_ in three or four characters: most calls are told apart without hashing
  return fn.length <= 4 && fn.charCodeAt(0) === 95 && COMPARISON_NAMES.has(fn);
}

function test(op: string): (c: number) => boolean {
  switch (op) {
    case '_==_':
      return (c) => c === 0;
    case '_!=_':
      return (c) => c !== 0;
    case '_<_':
      return (c) => c < 0;
    case '_<=_':
      return (c) => c <= 0;
    case '_>_':
      return (c) => c > 0;
    default:
      return (c) => c >= 0;
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The general overload dispatch for values the specialization does not handle. */
function generalPath(apply: Apply2, literal: CelValue, literalLeft: boolean): (f: Frame, v: CelValue) => CelValue {
  return literalLeft ? (f, v) => apply(f, literal, v) : (f, v) => apply(f, v, literal);
}

/**
 * Plans `other OP literal` (or `literal OP other` when literalLeft). `raw`
 * reads the other operand as raw JSON when it is an attribute chain; else
 * `other` evaluates it. Returns undefined when no specialization applies.
 */
export function planLiteralComparison(
  fn: string,
  literal: CelValue,
  literalLeft: boolean,
  other: { raw?: RawReader; value: Interpretable },
  cands: readonly OverloadDecl[],
  apply: Apply2,
): Interpretable | undefined {
  const base = COMPARISONS[fn];
  if (!base) return undefined;
  const equality = fn === '_==_' || fn === '_!=_';
  if (equality && !(cands.length === 1 && cands[0]!.id === base && cands[0]!.cost === callEstimate.minSizeTraversal)) return undefined;
  const op = literalLeft ? FLIPPED[fn]! : fn;
  const ok = test(op);
  const negate = fn === '_!=_';
  const fallback = generalPath(apply, literal, literalLeft);

  if (typeof literal === 'bigint') {
    if (literal > MAX_SAFE || literal < -MAX_SAFE) return undefined;
    // JSON numbers: integral ones are ints, others doubles compared across types
    const ids = OVERLOAD_IDS[base]!;
    if (!equality && !(hasOverload(cands, ids.int) && hasOverload(cands, literalLeft ? ids.intDouble : ids.doubleInt))) return undefined;
    const n = Number(literal);
    const raw = other.raw;
    if (raw) {
      return (f) => {
        const r = raw(f);
        if (typeof r === 'number') {
          charge(f, 1);
          return ok(r < n ? -1 : r > n ? 1 : 0);
        }
        const v = r === NOT_RAW ? f.alt : fromJson(r);
        if (typeof v === 'bigint') {
          charge(f, 1);
          return ok(v < literal ? -1 : v > literal ? 1 : 0);
        }
        return fallback(f, v);
      };
    }
    const value = other.value;
    return (f) => {
      const v = value(f);
      if (typeof v === 'bigint') {
        charge(f, 1);
        return ok(v < literal ? -1 : v > literal ? 1 : 0);
      }
      return fallback(f, v);
    };
  }

  if (typeof literal === 'string') {
    if (!equality) {
      const o = cands.find((c) => c.id === OVERLOAD_IDS[base]!.string);
      if (!o || o.cost !== callEstimate.minSizeTraversal) return undefined;
    }
    const len = codePointLength(literal);
    // ceil(min(size(a), size(b)) * 0.1): strings up to ten code points cost 1 unless empty
    const cost =
      len === 0 ? () => 0 : len <= 10 ? (s: string) => (s.length === 0 ? 0 : 1) : (s: string) => (s.length <= 10 ? (s.length === 0 ? 0 : 1) : stringTraversal(Math.min(codePointLength(s), len)));
    const cmp = equality ? (s: string) => (s === literal) !== negate : (s: string) => ok(compareStrings(s, literal));
    const read = other.raw ?? other.value;
    const isRaw = other.raw !== undefined;
    return (f) => {
      const r = read(f);
      if (typeof r === 'string') {
        charge(f, cost(r));
        return cmp(r);
      }
      return fallback(f, r === NOT_RAW ? f.alt : isRaw ? fromJson(r) : (r as CelValue));
    };
  }

  if (equality && (typeof literal === 'boolean' || literal === null)) {
    const read = other.raw ?? other.value;
    const isRaw = other.raw !== undefined;
    return (f) => {
      const r = read(f);
      if (typeof r === 'boolean' || r === null) {
        charge(f, 1);
        return (r === literal) !== negate;
      }
      return fallback(f, r === NOT_RAW ? f.alt : isRaw ? fromJson(r) : (r as CelValue));
    };
  }
  return undefined;
}

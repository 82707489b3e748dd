// `s.matches('literal')` specialized at plan time: the pattern is compiled
// once, and the call cost's pattern factor (ceil(length(pattern) × 0.25)) is
// computed once, so an evaluation costs one regex test and one counter
// update. Values that are not strings take the general overload dispatch, so
// results, errors and costs are those of the general path.

import type { RE2JS } from 're2js';
import { CelError, codePointLength, fromJson, type CelValue } from '../common/values';
import { REGEX_LENGTH_FACTOR, callEstimate, stringTraversal } from '../library/costs';
import { compileRegex } from '../library/stdlib';
import { NOT_RAW, type RawReader } from './attributes';
import type { Apply2 } from './compare';
import { charge, type Interpretable } from './frame';
import type { OverloadDecl } from './functions';

const MATCHES_OVERLOADS = new Set(['matches_string', 'matches']);

/** A literal pattern prepared at plan time. */
export interface LiteralPattern {
  pattern: string;
  re: RE2JS;
  /** ceil(length(pattern) × 0.25), the pattern's factor in the call cost */
  factor: number;
}

/**
 * The prepared pattern when the call is the standard overload and the
 * pattern compiles; undefined otherwise (the general path then reports the
 * error at run time).
 */
export function literalPattern(pattern: string, cands: readonly OverloadDecl[]): LiteralPattern | undefined {
  if (cands.length !== 1 || !MATCHES_OVERLOADS.has(cands[0]!.id) || cands[0]!.cost !== callEstimate.regexCost) return undefined;
  const re = compileRegex(pattern);
  if (re instanceof CelError) return undefined;
  return { pattern, re, factor: Math.ceil(codePointLength(pattern) * REGEX_LENGTH_FACTOR) };
}

/**
 * Plans `input.matches(pattern)` (or `matches(input, pattern)`). `input`
 * reads the string operand (raw JSON when it is an attribute chain); `apply`
 * is the general dispatch for anything else.
 */
export function planLiteralMatches(p: LiteralPattern, input: { raw?: RawReader; value: Interpretable }, apply: Apply2): Interpretable {
  const { pattern, re, factor } = p;
  const read = input.raw ?? input.value;
  const isRaw = input.raw !== undefined;
  return (f) => {
    const r = read(f);
    if (typeof r === 'string') {
      const matched = re.test(r);
      charge(f, stringTraversal(1 + codePointLength(r)) * factor);
      return matched;
    }
    const v: CelValue = r === NOT_RAW ? f.alt : isRaw ? fromJson(r) : (r as CelValue);
    return apply(f, v, pattern);
  };
}

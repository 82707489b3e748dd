// Per-evaluation state shared by the planner's interpretables: variables,
// comprehension and block slots, and the runtime cost counter. Charging cost
// is a counter increment and one comparison; crossing the limit throws,
// which the program turns into cel-go's cancellation error.

import { CelError, CelMap, CelOptional, fromJson, isPlainObject, type CelValue, type JsonObject } from '../common/values';
import { noOverload, optionalIndex } from '../library/stdlib';

/** Thrown (never returned) when the cost limit is exceeded; the program turns it into an error result. */
export class CostLimitExceeded {
  constructor(readonly cost: number) {}
}

export class Frame {
  cost = 0;
  slots: CelValue[];
  /** side channel of raw readers: the CEL value when the leaf is not raw JSON */
  alt: CelValue = null;
  constructor(
    public vars: Record<string, CelValue | undefined>,
    public limit: number,
    slotCount: number,
  ) {
    this.slots = slotCount === 0 ? EMPTY_SLOTS : new Array<CelValue>(slotCount).fill(null);
  }
}

const EMPTY_SLOTS: CelValue[] = [];

export type Interpretable = (f: Frame) => CelValue;

export function charge(f: Frame, n: number): void {
  if ((f.cost += n) > f.limit) throw new CostLimitExceeded(f.cost);
}

/**
 * Charges n unit steps at once. When the limit is crossed the reported cost
 * is the one a step-by-step evaluation would have stopped at.
 */
export function chargeN(f: Frame, n: number): void {
  if ((f.cost += n) > f.limit) {
    const before = f.cost - n;
    throw new CostLimitExceeded(Math.min(f.cost, before + Math.floor(f.limit - before) + 1));
  }
}

export function withId(v: CelValue, id: number): CelValue {
  if (v instanceof CelError && v.exprId === 0) return new CelError(v.message, id);
  return v;
}

export function selectField(v: CelValue, field: string): CelValue {
  if (isPlainObject(v)) {
    if (Object.prototype.hasOwnProperty.call(v, field)) {
      const raw = (v as JsonObject)[field];
      if (raw !== undefined) return fromJson(raw);
    }
    return new CelError(`no such key: ${field}`);
  }
  if (v instanceof CelMap) {
    const r = v.get(field);
    return r === undefined ? new CelError(`no such key: ${field}`) : r;
  }
  if (v instanceof CelOptional) return optionalIndex(v, field);
  return noOverload();
}

export function selectFieldWithId(v: CelValue, field: string, id: number): CelValue {
  return withId(selectField(v, field), id);
}

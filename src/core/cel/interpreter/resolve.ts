// Name resolution shared by the checker and the planner: qualified function
// names written as member calls (optional.of(x), math.greatest(...)) and
// qualified identifiers written as selections (google.protobuf.Timestamp).

import type { CallExpr, Expr } from '../ast';
import type { FunctionRegistry } from './functions';

/** The dotted name of an ident/select chain, or undefined. */
export function qualifiedName(e: Expr): string | undefined {
  if (e.kind === 'ident') return e.name;
  if (e.kind === 'select' && !e.testOnly) {
    const p = qualifiedName(e.operand);
    return p === undefined ? undefined : `${p}.${e.field}`;
  }
  return undefined;
}

/**
 * A member call whose target is a namespace (not a variable) names a global
 * function: `optional.of(x)` calls `optional.of`.
 */
export function resolveCall(
  e: CallExpr,
  fns: FunctionRegistry,
  isVariable: (name: string) => boolean,
): { fn: string; target: Expr | undefined } {
  if (e.target) {
    const q = qualifiedName(e.target);
    if (q !== undefined) {
      const root = q.split('.')[0]!;
      const full = `${q}.${e.fn}`;
      if (!isVariable(root) && fns.has(full)) return { fn: full, target: undefined };
    }
  }
  return { fn: e.fn, target: e.target };
}

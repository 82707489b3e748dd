// Name resolution shared by the checker and the planner: qualified function
// names written as member calls (optional.of(x), math.greatest(...)) and
// qualified identifiers written as selections (google.protobuf.Timestamp).

import type { CallExpr, Expr } from '../ast';
import type { FunctionRegistry } from './functions';

/** The root identifier of an ident/select chain (presence tests excluded), or undefined. */
export function chainRoot(e: Expr): string | undefined {
  let cur = e;
  while (cur.kind === 'select' && !cur.testOnly) cur = cur.operand;
  return cur.kind === 'ident' ? cur.name : undefined;
}

/**
 * The dotted name of an ident/select chain, or undefined. With `roots` (the
 * first segments of every dotted name the environment declares), chains
 * rooted elsewhere are answered without building the string.
 */
export function qualifiedName(e: Expr, roots?: ReadonlySet<string>): string | undefined {
  if (roots !== undefined && e.kind === 'select') {
    const r = chainRoot(e);
    if (r === undefined || !roots.has(r)) return undefined;
  }
  return dottedName(e);
}

function dottedName(e: Expr): string | undefined {
  if (e.kind === 'ident') return e.name;
  if (e.kind === 'select' && !e.testOnly) {
    const p = dottedName(e.operand);
    return p === undefined ? undefined : `${p}.${e.field}`;
  }
  return undefined;
}

/**
 * A member call whose target is a namespace (not a variable) names a global
 * function: `optional.of(x)` calls `optional.of`. Returns the function's
 * name; the call then has no target when that is not `e.fn` (see callTarget).
 */
export function resolveCall(e: CallExpr, fns: FunctionRegistry, scope: { isVariable(name: string): boolean }): string {
  if (e.target) {
    const root = chainRoot(e.target);
    // only chains rooted at the first segment of a dotted function name can name one
    const q = root !== undefined && fns.qualifiedRoots().has(root) ? dottedName(e.target) : undefined;
    if (q !== undefined && root !== undefined) {
      const full = `${q}.${e.fn}`;
      if (!scope.isVariable(root) && fns.has(full)) return full;
    }
  }
  return e.fn;
}

/** The receiver of a call resolved to `fn`: none when its target named a qualified global function. */
export function callTarget(e: CallExpr, fn: string): Expr | undefined {
  return fn === e.fn ? e.target : undefined;
}

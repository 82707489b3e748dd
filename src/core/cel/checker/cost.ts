// Static cost estimation over a checked AST (cel-go's checker/cost.go with
// Kubernetes' size estimator): every node gets a [min, max] cost, sizes come
// from literals and from schema bounds (maxLength, maxItems, maxProperties),
// and comprehensions multiply their loop cost by the range size.

import type { CallExpr, ComprehensionExpr, Expr } from '../ast';
import { T, type CelType } from '../common/types';
import { codePointLength } from '../common/values';
import type { EstimateNode, FunctionRegistry, OverloadDecl, SizeRange } from '../interpreter/functions';
import { LIST_CREATE_COST, MAP_CREATE_COST, STRUCT_CREATE_COST } from '../interpreter/planner';
import { UNBOUNDED, addR, fixed, mulR, range, unionR } from '../library/costs';
import { BLOCK_FN, blockIndexName } from '../parser/macros';
import { boundsOf } from '../schema/types';
import type { CheckedAst } from './checker';

export interface CostEstimate {
  min: number;
  max: number;
}

/** sizes assumed for values of a type the estimator cannot size otherwise */
export interface TypeSizes {
  string?: SizeRange;
  bytes?: SizeRange;
}

export interface EstimateOptions {
  presenceTestHasCost?: boolean;
  typeSizes?: TypeSizes;
}

const UNKNOWN_SIZE = (): SizeRange => range(0, UNBOUNDED);

export function estimateCost(ast: CheckedAst, functions: FunctionRegistry, opts: EstimateOptions = {}): CostEstimate {
  const c = new Coster(ast, functions, opts);
  return c.cost(ast.expr);
}

class Coster {
  private sizes = new Map<number, SizeRange>();
  /** sizes of iteration variables by name, innermost last */
  private iterSizes: Map<string, SizeRange>[] = [];
  private iterTypes: Map<string, CelType>[] = [];

  constructor(
    readonly ast: CheckedAst,
    readonly fns: FunctionRegistry,
    readonly opts: EstimateOptions,
  ) {}

  private type(e: Expr): CelType {
    return this.ast.typeMap.get(e.id) ?? T.dyn;
  }

  size(e: Expr): SizeRange {
    const s = this.sizes.get(e.id);
    if (s) return s;
    if (e.kind === 'const') {
      if (typeof e.value === 'string') return fixed(codePointLength(e.value));
      if (e.value instanceof Uint8Array) return fixed(e.value.length);
      return fixed(1);
    }
    if (e.kind === 'ident') {
      for (let i = this.iterSizes.length - 1; i >= 0; i--) {
        const it = this.iterSizes[i]!.get(e.name);
        if (it) return it;
      }
    }
    return this.typeSize(this.type(e)) ?? UNKNOWN_SIZE();
  }

  /** Size known from the expression itself: a literal or a computed call result. */
  private computedSize(e: Expr): SizeRange | undefined {
    const s = this.sizes.get(e.id);
    if (s) return s;
    if (e.kind === 'const') return this.size(e);
    return undefined;
  }

  /** The size estimator's answer for a type: schema bounds, the assumed sizes of strings and bytes, scalars 1. */
  private typeSize(t: CelType): SizeRange | undefined {
    const b = boundsOf(t);
    if (b) return range(b.min, b.max);
    const assumed = t.kind === 'string' ? this.opts.typeSizes?.string : t.kind === 'bytes' ? this.opts.typeSizes?.bytes : undefined;
    if (assumed) return assumed;
    return isScalar(t) ? fixed(1) : undefined;
  }

  private node(e: Expr): EstimateNode {
    return {
      expr: e,
      type: this.type(e),
      size: () => this.size(e),
      computedSize: () => this.computedSize(e),
      elementSize: () => {
        // an element node has no expression: only the size estimator can size it
        const t = this.type(e);
        if (t.kind === 'list') {
          const b = boundsOf(t.elem);
          if (b) return range(b.min, b.max);
          const k = t.elem.kind;
          const assumed = k === 'string' ? this.opts.typeSizes?.string : k === 'bytes' ? this.opts.typeSizes?.bytes : undefined;
          if (assumed) return assumed;
        }
        return UNKNOWN_SIZE();
      },
    };
  }

  cost(e: Expr): CostEstimate {
    switch (e.kind) {
      case 'const':
        return fixed(0);
      case 'ident':
        return fixed(1);
      case 'select': {
        // a qualified name the checker resolved (`net.IP`, `authorizer.requestResource`) is one identifier
        if (!e.testOnly && this.ast.refMap.has(e.id)) return fixed(1);
        const sel = this.cost(e.operand);
        if (e.testOnly) return this.opts.presenceTestHasCost ? addR(sel, fixed(1)) : sel;
        return addR(sel, fixed(1));
      }
      case 'list': {
        let sum = fixed(LIST_CREATE_COST);
        for (const el of e.elements) sum = addR(sum, this.cost(el));
        this.sizes.set(e.id, fixed(e.elements.length));
        return sum;
      }
      case 'map': {
        let sum = fixed(MAP_CREATE_COST);
        for (const en of e.entries) sum = addR(sum, addR(this.cost(en.key), this.cost(en.value)));
        this.sizes.set(e.id, fixed(e.entries.length));
        return sum;
      }
      case 'struct': {
        let sum = fixed(STRUCT_CREATE_COST);
        for (const f of e.fields) sum = addR(sum, this.cost(f.value));
        return sum;
      }
      case 'call':
        return this.call(e);
      case 'comprehension':
        return this.comprehension(e);
    }
  }

  private call(e: CallExpr): CostEstimate {
    const resolvedName = this.ast.refMap.get(e.id)?.name;
    const fn = resolvedName ?? e.fn;
    const target = resolvedName !== undefined && resolvedName !== e.fn ? undefined : e.target;
    const args = e.args;
    switch (fn) {
      case 'dyn': {
        // dyn only turns type checking off: one for the call, the argument's size carried through
        if (args.length !== 1 || target) break;
        const c = addR(fixed(1), this.cost(args[0]!));
        const sz = this.computedSize(args[0]!);
        if (sz) this.sizes.set(e.id, sz);
        return c;
      }
      case '_&&_':
      case '_||_': {
        const l = this.cost(args[0]!);
        const r = this.cost(args[1]!);
        return range(l.min, l.max + r.max);
      }
      case BLOCK_FN: {
        // each slot is evaluated at most once; references to it cost one like identifiers
        const slots = args[0]!;
        if (slots.kind !== 'list') break;
        let sum = fixed(0);
        const scope = new Map<string, SizeRange>();
        this.iterSizes.push(scope);
        slots.elements.forEach((el, i) => {
          sum = addR(sum, this.cost(el));
          scope.set(blockIndexName(i), this.size(el));
        });
        sum = addR(sum, this.cost(args[1]!));
        this.sizes.set(e.id, this.size(args[1]!));
        this.iterSizes.pop();
        return sum;
      }
      case '_?_:_': {
        const c = this.cost(args[0]!);
        const t = this.cost(args[1]!);
        const f = this.cost(args[2]!);
        this.sizes.set(e.id, unionR(this.size(args[1]!), this.size(args[2]!)));
        return addR(c, unionR(t, f));
      }
    }
    let argCost = target ? this.cost(target) : fixed(0);
    for (const a of args) argCost = addR(argCost, this.cost(a));
    const ref = this.ast.refMap.get(e.id);
    const ids = new Set(ref?.overloads ?? []);
    const overloads: OverloadDecl[] = this.fns.priced(fn).filter((o) => ids.has(o.id));
    let callCost: CostEstimate | undefined;
    let resultSize: SizeRange | undefined;
    const tNode = target ? this.node(target) : undefined;
    const aNodes = args.map((a) => this.node(a));
    for (const o of overloads) {
      const est = o.estimate?.(tNode, aNodes) ?? { cost: fixed(1) };
      callCost = callCost ? unionR(callCost, est.cost) : est.cost;
      if (est.resultSize) resultSize = resultSize ? unionR(resultSize, est.resultSize) : est.resultSize;
    }
    if (resultSize) this.sizes.set(e.id, resultSize);
    if (fn === '_[_]' || fn === '_[?_]' || fn === '_?._') {
      const t = this.type(e);
      const b = boundsOf(t);
      if (b) this.sizes.set(e.id, range(b.min, b.max));
    }
    return addR(argCost, callCost ?? fixed(1));
  }

  private comprehension(e: ComprehensionExpr): CostEstimate {
    let sum = this.cost(e.iterRange);
    sum = addR(sum, this.cost(e.accuInit));
    const rangeType = this.type(e.iterRange);
    const elemSize = (t: CelType | undefined): SizeRange => {
      if (!t) return UNKNOWN_SIZE();
      const b = boundsOf(t);
      if (b) return range(b.min, b.max);
      return isScalar(t) ? fixed(1) : UNKNOWN_SIZE();
    };
    const scope = new Map<string, SizeRange>();
    if (rangeType.kind === 'list') {
      if (e.iterVar2 !== undefined) {
        scope.set(e.iterVar, fixed(1));
        scope.set(e.iterVar2, elemSize(rangeType.elem));
      } else scope.set(e.iterVar, elemSize(rangeType.elem));
    } else if (rangeType.kind === 'map') {
      scope.set(e.iterVar, elemSize(rangeType.key));
      if (e.iterVar2 !== undefined) scope.set(e.iterVar2, elemSize(rangeType.value));
    }
    if (e.accuVar !== '@result') scope.set(e.accuVar, this.size(e.accuInit));
    this.iterSizes.push(scope);
    const loop = addR(this.cost(e.loopCondition), this.cost(e.loopStep));
    this.iterSizes.pop();
    const accuScope = new Map<string, SizeRange>();
    if (e.accuVar !== '@result') accuScope.set(e.accuVar, this.size(e.accuInit));
    this.iterSizes.push(accuScope);
    sum = addR(sum, this.cost(e.result));
    this.iterSizes.pop();
    const n = this.size(e.iterRange);
    this.sizes.set(e.id, n);
    void this.iterTypes;
    return addR(sum, mulR(n, loop));
  }
}

/** cel-go's isScalar: fixed-size values (opaque library values included) have size 1. */
function isScalar(t: CelType): boolean {
  switch (t.kind) {
    case 'int':
    case 'uint':
    case 'double':
    case 'bool':
    case 'null':
    case 'timestamp':
    case 'duration':
    case 'type':
      return true;
    case 'opaque':
      return t.name === 'optional_type' ? isScalar(t.params[0]!) : true;
    default:
      return false;
  }
}

export function formatEstimate(n: number): number | string {
  return n >= UNBOUNDED ? '18446744073709551615' : n;
}

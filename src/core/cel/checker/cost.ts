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
  /** sizes of the keys (or indices) and values of list and map literals, and of what is built from them */
  private entries = new Map<number, EntrySize>();
  /** iteration, accumulator and block variables by name, innermost scope last */
  private scopes: Map<string, LocalSize>[] = [];

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
    // a type identifier resolves, in the API server's estimator, to a declaration without elements
    if (e.kind === 'ident' || e.kind === 'select') {
      if (this.ast.refMap.get(e.id)?.isType) return fixed(0);
    }
    // the size estimator (schema bounds, assumed sizes) answers first, then what a local variable was bound to
    const ts = this.typeSize(this.type(e));
    if (ts) return ts;
    if (e.kind === 'ident') return this.local(e.name)?.size ?? UNKNOWN_SIZE();
    return UNKNOWN_SIZE();
  }

  private local(name: string): LocalSize | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const v = this.scopes[i]!.get(name);
      if (v) return v;
    }
    return undefined;
  }

  /** Entry sizes of a list or map value, when the expression tells them (cel-go's computeEntrySize). */
  private entryOf(e: Expr): EntrySize | undefined {
    return this.entries.get(e.id) ?? (e.kind === 'ident' ? this.local(e.name)?.entry : undefined);
  }

  /** A local variable bound to an expression: its size (undefined when only the type could tell) and entry sizes. */
  private bound(e: Expr): LocalSize {
    const sz = this.size(e);
    return { size: sz.min === 0 && sz.max === UNBOUNDED ? undefined : sz, entry: this.entryOf(e) };
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
    return new CostNode(this, e, this.type(e));
  }

  /** Size of a list node's elements (an element node has no expression: only the size estimator can size it). */
  elementSizeOf(e: Expr): SizeRange {
    const t = this.type(e);
    if (t.kind === 'list') {
      const b = boundsOf(t.elem);
      if (b) return range(b.min, b.max);
      const k = t.elem.kind;
      const assumed = k === 'string' ? this.opts.typeSizes?.string : k === 'bytes' ? this.opts.typeSizes?.bytes : undefined;
      if (assumed) return assumed;
    }
    return UNKNOWN_SIZE();
  }

  sizeOf(e: Expr): SizeRange {
    return this.size(e);
  }

  computedSizeOf(e: Expr): SizeRange | undefined {
    return this.computedSize(e);
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
        let val: SizeRange | undefined;
        for (const el of e.elements) {
          sum = addR(sum, this.cost(el));
          const sz = this.size(el);
          val = val ? unionR(val, sz) : sz;
        }
        this.sizes.set(e.id, fixed(e.elements.length));
        this.entries.set(e.id, { key: fixed(1), val: val ?? fixed(0) });
        return sum;
      }
      case 'map': {
        let sum = fixed(MAP_CREATE_COST);
        let key: SizeRange | undefined;
        let val: SizeRange | undefined;
        for (const en of e.entries) {
          sum = addR(sum, addR(this.cost(en.key), this.cost(en.value)));
          const ks = this.size(en.key);
          const vs = this.size(en.value);
          key = key ? unionR(key, ks) : ks;
          val = val ? unionR(val, vs) : vs;
        }
        this.sizes.set(e.id, fixed(e.entries.length));
        this.entries.set(e.id, { key: key ?? fixed(0), val: val ?? fixed(0) });
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
        const entry = this.entryOf(args[0]!);
        if (entry) this.entries.set(e.id, entry);
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
        const scope = new Map<string, LocalSize>();
        this.scopes.push(scope);
        slots.elements.forEach((el, i) => {
          sum = addR(sum, this.cost(el));
          scope.set(blockIndexName(i), this.bound(el));
        });
        sum = addR(sum, this.cost(args[1]!));
        this.sizes.set(e.id, this.size(args[1]!));
        this.scopes.pop();
        return sum;
      }
      case '_?_:_': {
        const c = this.cost(args[0]!);
        const t = this.cost(args[1]!);
        const f = this.cost(args[2]!);
        this.sizes.set(e.id, unionR(this.size(args[1]!), this.size(args[2]!)));
        const et = this.entryOf(args[1]!);
        const ef = this.entryOf(args[2]!);
        if (et && ef) this.entries.set(e.id, { key: unionR(et.key, ef.key), val: unionR(et.val, ef.val) });
        return addR(c, unionR(t, f));
      }
    }
    let argCost = target ? this.cost(target) : fixed(0);
    for (const a of args) argCost = addR(argCost, this.cost(a));
    const ref = this.ast.refMap.get(e.id);
    // the checker's matched overloads, unless the AST was checked against another registry
    const priced = this.fns.priced(fn);
    let overloads: readonly OverloadDecl[] | undefined = ref?.decls;
    if (overloads === undefined || (overloads.length > 0 && !priced.includes(overloads[0]!))) {
      const ids = new Set(ref?.overloads ?? []);
      overloads = priced.filter((o) => ids.has(o.id));
    }
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
    if (fn === '_+_' && args.length === 2 && this.type(e).kind === 'list') {
      // concatenated lists hold the elements of both
      const l = this.entryOf(args[0]!);
      const r = this.entryOf(args[1]!);
      if (l && r) this.entries.set(e.id, { key: unionR(l.key, r.key), val: unionR(l.val, r.val) });
    }
    if (fn === '_[_]' || fn === '_[?_]' || fn === '_?._') {
      const t = this.type(e);
      const b = boundsOf(t);
      const entry = fn === '_[_]' ? this.entryOf(args[0]!) : undefined;
      if (b) this.sizes.set(e.id, range(b.min, b.max));
      else if (entry) this.sizes.set(e.id, entry.val);
    }
    return addR(argCost, callCost ?? fixed(1));
  }

  private comprehension(e: ComprehensionExpr): CostEstimate {
    let sum = this.cost(e.iterRange);
    sum = addR(sum, this.cost(e.accuInit));
    const accu = this.bound(e.accuInit);
    if (isBind(e)) {
      // cel.bind: the variable is bound once; the result is the bind's value
      this.scopes.push(new Map([[e.accuVar, accu]]));
      sum = addR(sum, this.cost(e.result));
      this.scopes.pop();
      this.sizes.set(e.id, this.size(e.result));
      const entry = this.entryOf(e.result);
      if (entry) this.entries.set(e.id, entry);
      return sum;
    }
    const rangeType = this.type(e.iterRange);
    const entry = this.entryOf(e.iterRange);
    const scope = new Map<string, LocalSize>([[e.accuVar, accu]]);
    if (e.iterVar2 !== undefined) {
      scope.set(e.iterVar, { size: entry?.key });
      scope.set(e.iterVar2, { size: entry?.val });
    } else {
      scope.set(e.iterVar, { size: rangeType.kind === 'list' ? entry?.val : entry?.key });
    }
    this.scopes.push(scope);
    const loop = addR(this.cost(e.loopCondition), this.cost(e.loopStep));
    const stepEntry = this.entryOf(e.loopStep);
    this.scopes.pop();
    this.scopes.push(new Map([[e.accuVar, accu]]));
    sum = addR(sum, this.cost(e.result));
    this.scopes.pop();
    const n = this.size(e.iterRange);
    if (e.accuInit.kind === 'const') this.sizes.set(e.id, this.size(e.accuInit));
    else if (e.accuInit.kind === 'list' || e.accuInit.kind === 'map') {
      // a comprehension building a list or map has an entry per element at most
      this.sizes.set(e.id, n);
      if (stepEntry) this.entries.set(e.id, stepEntry);
    }
    return addR(sum, mulR(n, loop));
  }
}

interface EntrySize {
  key: SizeRange;
  val: SizeRange;
}

interface LocalSize {
  size?: SizeRange;
  entry?: EntrySize;
}

/** cel.bind(v, init, result): an empty range, a false condition, a named accumulator. */
function isBind(e: ComprehensionExpr): boolean {
  return (
    e.iterRange.kind === 'list' &&
    e.iterRange.elements.length === 0 &&
    e.loopCondition.kind === 'const' &&
    e.loopCondition.value === false &&
    e.accuVar !== '@result' &&
    e.accuVar !== '__result__'
  );
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

/** What the library estimators see of one argument: sizes computed on demand, by methods rather than a closure per node. */
class CostNode implements EstimateNode {
  constructor(
    private readonly coster: Coster,
    readonly expr: Expr,
    readonly type: CelType,
  ) {}
  size(): SizeRange {
    return this.coster.sizeOf(this.expr);
  }
  computedSize(): SizeRange | undefined {
    return this.coster.computedSizeOf(this.expr);
  }
  elementSize(): SizeRange {
    return this.coster.elementSizeOf(this.expr);
  }
}

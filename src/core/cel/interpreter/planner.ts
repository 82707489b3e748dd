// Planner: turns a (checked or unchecked) AST into a tree of closures once,
// so evaluation is a plain function call per node. Every closure charges
// runtime cost the way cel-go's CostTracker does: idents and selections 1,
// constants 0, list/map/struct literals 10/30/40, calls their CallCost,
// logical operators and conditionals nothing of their own.

import { ACCU_VAR, type CallExpr, type ComprehensionExpr, type Expr } from '../ast';
import type { CheckedAst } from '../checker/checker';
import { celEquals } from '../common/ops';
import { hasDyn } from '../common/types';
import {
  CelError,
  CelFault,
  CelMap,
  CelOptional,
  CelTypeValue,
  CelUint,
  CelUnknown,
  fromJson,
  isPlainObject,
  mergeUnknowns,
  type CelValue,
  type JsonObject,
} from '../common/values';
import { NO_OVERLOAD, TYPE_IDENTS, noOverload, optionalIndex } from '../library/stdlib';
import { NOT_RAW, chainReaders, type AttributeChain } from './attributes';
import { isComparison, planLiteralComparison, type Apply2 } from './compare';
import { literalPattern, planLiteralMatches } from './matches';
import { Frame, charge, withId, selectField, type Interpretable } from './frame';
import { valueMatches, type FunctionRegistry, type OverloadDecl } from './functions';
import { callTarget, chainRoot, qualifiedName, resolveCall } from './resolve';
import { BLOCK_FN, blockIndexName } from '../parser/macros';

export { CostLimitExceeded, Frame, selectField, type Interpretable } from './frame';

export const LIST_CREATE_COST = 10;
export const MAP_CREATE_COST = 30;
export const STRUCT_CREATE_COST = 40;

export interface PlanOptions {
  functions: FunctionRegistry;
  checked?: CheckedAst;
  /** declared variable names (for qualified name resolution in unchecked ASTs) */
  variables: Set<string>;
  /** cel-go's PresenceTestHasCost; Kubernetes sets false */
  presenceTestHasCost?: boolean;
  /** fused attribute chains and literal comparisons (default true; off only to cross-check them) */
  specialize?: boolean;
  /** first segments of the dotted variable and type names (see qualifiedName) */
  qualifiedRoots?: ReadonlySet<string>;
  /** type identifiers the libraries declare, beyond the standard ones */
  libraryTypes?: ReadonlyMap<string, CelTypeValue>;
  /**
   * cel-go's OptOptimize, which the API server's programs run with: list and map literals of
   * constants and type conversions of constants are built once, when the program is planned,
   * and cost nothing at runtime; `x in [constants]` is a set lookup that costs nothing either
   */
  optimize?: boolean;
}

/** cel-go's type conversion functions (overloads.IsTypeConversionFunction) */
const CONVERSIONS = new Set(['int', 'uint', 'double', 'string', 'bytes', 'bool', 'duration', 'timestamp', 'dyn', 'type']);

/** Is the expression a constant once the program is optimized? */
export function foldable(e: Expr): boolean {
  switch (e.kind) {
    case 'const':
      return true;
    case 'list':
      return e.optionalIndices.length === 0 && e.elements.every(foldable);
    case 'map':
      return e.entries.every((en) => !en.optional && foldable(en.key) && foldable(en.value));
    case 'call':
      return !e.target && e.args.length === 1 && CONVERSIONS.has(e.fn) && foldable(e.args[0]!);
    default:
      return false;
  }
}

export const isScalarValue = (v: CelValue): boolean => typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v instanceof CelUint;

export interface Plan {
  root: Interpretable;
  slotCount: number;
}

export function anyNonStrict(cands: readonly OverloadDecl[]): boolean {
  for (const o of cands) if (o.nonStrict) return true;
  return false;
}

export function isErrUnk(v: CelValue): v is CelError | CelUnknown {
  return v instanceof CelFault;
}

/** Own field of a JSON object without a hasOwnProperty call: JSON holds no functions, so inherited members are skipped by type. */
export function jsonField(v: JsonObject, field: string): unknown {
  const raw = v[field];
  if (raw === undefined || typeof raw === 'function' || field === '__proto__') return undefined;
  return raw;
}

/** The interpretable's value without its cost. */
function uncharged(p: Interpretable): Interpretable {
  return (f) => {
    const c0 = f.cost;
    const v = p(f);
    f.cost = c0;
    return v;
  };
}

const ALWAYS_TRUE: Interpretable = () => true;

/** Marks a block slot not evaluated yet. */
const UNSET = Object.freeze(Object.create(null)) as CelValue;

type CostFn = NonNullable<OverloadDecl['cost']>;

/** Calls a two-argument cost function with a reused argument array (cost functions keep no reference). */
export function cost2(cost: CostFn, pair: CelValue[], x: CelValue, y: CelValue, r: CelValue): number {
  pair[0] = x;
  pair[1] = y;
  const c = cost(pair, r);
  pair[0] = pair[1] = null;
  return c;
}

/** Attribute chains (ident.select[index]) are charged once per step; other operands add one for the relative attribute. */
export function isAttribute(e: Expr): boolean {
  if (e.kind === 'ident') return true;
  if (e.kind === 'select') return !e.testOnly && isAttribute(e.operand);
  if (e.kind === 'call' && e.fn === '_[_]' && !e.target && e.args.length === 2) return isAttribute(e.args[0]!);
  return false;
}

export function presence(v: CelValue, field: string): CelValue {
  if (isPlainObject(v)) return Object.prototype.hasOwnProperty.call(v, field) && (v as JsonObject)[field] !== undefined;
  if (v instanceof CelMap) return v.has(field);
  if (v instanceof CelOptional) return v.value === undefined ? false : presence(v.value, field);
  return new CelError('invalid type for field selection.');
}

/** The first overload whose parameter types fit the values. */
export function selectOverload(cands: readonly OverloadDecl[], vals: CelValue[]): OverloadDecl | undefined {
  for (const o of cands) {
    let ok = true;
    for (let i = 0; i < vals.length; i++) {
      if (!valueMatches(o.sig.params[i]!, vals[i]!)) {
        ok = false;
        break;
      }
    }
    if (ok) return o;
  }
  return undefined;
}

/**
 * A call whose argument is an error or unknown is still charged, as cel-go's
 * cost tracker observes every call: one unit, what the library estimators
 * charge for an argument without a size.
 */
export function chargeFault<T extends CelValue>(f: Frame, v: T): T {
  charge(f, 1);
  return v;
}

/** Charges a call's cost and tags its result with the call's id. */
export function finish(f: Frame, o: OverloadDecl | undefined, vals: CelValue[], r: CelValue, id: number): CelValue {
  charge(f, o?.cost ? o.cost(vals, r) : 1);
  return withId(r, id);
}

/** A one-argument call of overload o on v: its result tagged with the call's id, its cost charged. */
export function call1(f: Frame, o: OverloadDecl, v: CelValue, id: number): CelValue {
  const r = o.impl(v);
  charge(f, o.cost ? o.cost([v], r) : 1);
  return r instanceof CelError ? withId(r, id) : r;
}

/**
 * A strict two-argument call's answer when an argument is an error or unknown (the left one first,
 * unknowns merged), charged as a fault; undefined when both are values.
 */
export function strictFault2(f: Frame, x: CelValue, y: CelValue): CelValue | undefined {
  if (isErrUnk(x)) return chargeFault(f, x instanceof CelUnknown ? mergeUnknowns(x, y) : x);
  if (isErrUnk(y)) return chargeFault(f, y);
  return undefined;
}

/** The first of a two-argument call's overloads whose parameters the two values match. */
export function overloadFor2(cands: readonly OverloadDecl[], x: CelValue, y: CelValue): OverloadDecl | undefined {
  for (const c of cands) if (valueMatches(c.sig.params[0]!, x) && valueMatches(c.sig.params[1]!, y)) return c;
  return undefined;
}

/**
 * A call on its evaluated arguments, none an error or unknown the call is strict about: the first
 * overload the values match, charged and tagged with the call's id (no_matching_overload when none does).
 */
export function callOn(f: Frame, cands: readonly OverloadDecl[], vals: CelValue[], id: number): CelValue {
  const o = selectOverload(cands, vals);
  if (!o) return finish(f, o, vals, noOverload(), id);
  return finish(f, o, vals, o.impl(...vals), id);
}

/**
 * `&&` (stop = false) or `||` (stop = true) once neither side short-circuited: either side's stop value
 * wins wherever it is, then unknowns merge, then an error, and a non-bool is no_matching_overload.
 */
export function logicOutcome(stop: boolean, a: CelValue, b: CelValue, id: number): CelValue {
  if (b === stop) return stop;
  if (a === !stop && b === !stop) return !stop;
  if (a instanceof CelUnknown) return mergeUnknowns(a, b);
  if (b instanceof CelUnknown) return b;
  if (a instanceof CelError) return a;
  if (b instanceof CelError) return b;
  return new CelError(NO_OVERLOAD, id);
}

/**
 * One iteration of a comprehension after its loop variables are set: the loop condition (all() and
 * exists() read the accumulator inline, condKind 1 and 2, charged as the planned condition would be),
 * then the step. False stops the loop. Built once per comprehension, when it is planned.
 */
function iteration(condKind: number, condAlwaysTrue: boolean, cond: Interpretable, step: Interpretable, accuSlot: number): (f: Frame) => boolean {
  return (f) => {
    const slots = f.slots;
    if (condKind === 1) {
      charge(f, 2);
      if (slots[accuSlot] === false) return false;
    } else if (condKind === 2) {
      const acc = slots[accuSlot];
      charge(f, 3);
      if (acc === true) return false;
    } else if (!condAlwaysTrue && cond(f) === false) return false;
    slots[accuSlot] = step(f);
    return true;
  };
}

/** The overloads a call may run: the checker's matches for this call when it resolved it, else the function's table. */
export function callCandidates(opts: PlanOptions, e: CallExpr, fn: string, member: boolean, arity: number): readonly OverloadDecl[] {
  const ref = opts.checked?.refMap.get(e.id);
  const matched = ref?.decls;
  // the checker resolved this same call: its table and matches are reused (the matches only when a proper subset)
  if (matched !== undefined && ref!.name === fn && ref!.table !== undefined && matched.length > 0) {
    const table = ref!.table;
    if (table.length === 0 || table[0]!.sig.member !== member || table[0]!.sig.params.length !== arity) return opts.functions.overloads(fn, member, arity);
    return matched.length < table.length ? matched : table;
  }
  return opts.functions.overloads(fn, member, arity);
}

/** One overload and fully typed arguments: no runtime overload check is needed. */
export function staticallyTyped(checked: CheckedAst | undefined, cands: readonly OverloadDecl[], argExprs: readonly Expr[]): boolean {
  if (cands.length !== 1 || checked === undefined) return false;
  for (const a of argExprs) {
    const t = checked.typeMap.get(a.id);
    if (t === undefined || hasDyn(t) || t.kind === 'object' || t.kind === 'null') return false;
  }
  return true;
}

export function plan(expr: Expr, opts: PlanOptions): Plan {
  const p = new Planner(opts);
  const root = p.plan(expr);
  return { root, slotCount: p.slotCount };
}

class Planner {
  slotCount = 0;
  /** local variables in scope (comprehension variables, block slots) and their slots, innermost last */
  private readonly localNames: string[] = [];
  private readonly localSlots: number[] = [];
  private localCount = 0;
  /** block slots evaluated on first use, by slot number */
  private lazy: Map<number, Interpretable> | undefined;
  /** ids of `_+_` / mapInsert calls that may update a private accumulator in place (made on first use) */
  private inPlace: Set<number> | undefined;
  private readonly presenceCost: number;

  constructor(readonly opts: PlanOptions) {
    this.presenceCost = opts.presenceTestHasCost ? 1 : 0;
  }

  private slotOf(name: string): number | undefined {
    const names = this.localNames;
    for (let i = this.localCount - 1; i >= 0; i--) if (names[i] === name) return this.localSlots[i];
    return undefined;
  }

  private declareLocal(name: string, slot: number): void {
    this.localNames[this.localCount] = name;
    this.localSlots[this.localCount++] = slot;
  }

  isVariable(name: string): boolean {
    return this.slotOf(name) !== undefined || this.opts.variables.has(name);
  }

  plan(e: Expr): Interpretable {
    // only literals and conversions fold: selections and identifiers are told apart by kind first
    if (e.kind !== 'const' && e.kind !== 'select' && e.kind !== 'ident' && this.opts.optimize && foldable(e)) return this.fold(e);
    switch (e.kind) {
      case 'const': {
        const v = e.value;
        return () => v;
      }
      case 'ident':
        return this.planIdent(e.id, e.name);
      case 'select':
        return this.planSelect(e);
      case 'call':
        return this.planCall(e);
      case 'list':
        return this.planList(e);
      case 'map':
        return this.planMap(e);
      case 'struct': {
        const id = e.id;
        const name = e.typeName;
        return (f) => {
          charge(f, STRUCT_CREATE_COST);
          return new CelError(`unknown type: ${name}`, id);
        };
      }
      case 'comprehension':
        return this.planComprehension(e);
    }
  }

  private planIdent(id: number, name: string): Interpretable {
    const slot = this.slotOf(name);
    const lazy = slot === undefined ? undefined : this.lazy?.get(slot);
    if (slot !== undefined && lazy) {
      return (f) => {
        charge(f, 1);
        let v: CelValue = f.slots[slot]!;
        if (v === UNSET) f.slots[slot] = v = lazy(f);
        return v;
      };
    }
    if (slot !== undefined) {
      return (f) => {
        charge(f, 1);
        return f.slots[slot]!;
      };
    }
    const ref = this.opts.checked?.refMap.get(id);
    const tv: CelTypeValue | undefined = TYPE_IDENTS[name] ?? this.opts.libraryTypes?.get(name);
    if ((ref?.isType || !this.opts.variables.has(name)) && tv) return () => tv;
    return (f) => {
      charge(f, 1);
      const v = f.vars[name];
      if (v === undefined) return new CelError(`undeclared reference to '${name}' (in container '')`, id);
      return v;
    };
  }

  private planSelect(e: Expr & { kind: 'select' }): Interpretable {
    const q = e.testOnly ? undefined : qualifiedName(e, this.opts.qualifiedRoots);
    if (q !== undefined) {
      const root = chainRoot(e)!;
      if ((this.opts.variables.has(q) && this.slotOf(root) === undefined) || (!this.isVariable(root) && (TYPE_IDENTS[q] ?? this.opts.libraryTypes?.get(q)))) return this.planIdent(e.id, q);
    }
    if (!e.testOnly) {
      const chain = this.chainOf(e);
      const readers = chain && chainReaders(chain);
      if (readers) return readers.value;
    }
    const operand = this.plan(e.operand);
    const field = e.field;
    const id = e.id;
    const extra = isAttribute(e.operand) ? 0 : 1;
    if (e.testOnly) {
      const c = this.presenceCost + extra;
      return (f) => {
        const v = operand(f);
        if (c) charge(f, c);
        if (isErrUnk(v)) return v;
        return withId(presence(v, field), id);
      };
    }
    const c = 1 + extra;
    return (f) => {
      const v = operand(f);
      charge(f, c);
      if (isErrUnk(v)) return v;
      if (isPlainObject(v)) {
        const raw = jsonField(v as JsonObject, field);
        if (raw !== undefined) return fromJson(raw);
      } else if (v instanceof CelMap) {
        const r = v.entries.get(field);
        if (r !== undefined) return r[1];
      }
      return withId(selectField(v, field), id);
    };
  }

  /** An ident.field.field... chain rooted at a variable or a comprehension slot, for fused reading. */
  private chainOf(e: Expr): AttributeChain | undefined {
    if (this.opts.specialize === false) return undefined;
    let n = 0;
    let cur = e;
    while (cur.kind === 'select' && !cur.testOnly) {
      n++;
      cur = cur.operand;
    }
    if (cur.kind !== 'ident' || n === 0) return undefined;
    // fields and ids from the root outwards
    const fields = new Array<string>(n);
    const ids = new Array<number>(n);
    for (let s = e, i = n - 1; i >= 0; i--, s = (s as Expr & { kind: 'select' }).operand) {
      fields[i] = (s as Expr & { kind: 'select' }).field;
      ids[i] = s.id;
    }
    const slot = this.slotOf(cur.name);
    if (slot !== undefined) return this.lazy?.has(slot) ? undefined : { slot, fields, ids };
    const vars = this.opts.variables;
    if (!vars.has(cur.name) || this.opts.checked?.refMap.get(cur.id)?.isType) return undefined;
    // a dotted variable name (authorizer.requestResource) resolves as one identifier
    const roots = this.opts.qualifiedRoots;
    if (roots === undefined || roots.has(cur.name)) {
      let q = cur.name;
      for (const f of fields) {
        q += `.${f}`;
        if (vars.has(q)) return undefined;
      }
    }
    return { variable: { name: cur.name, id: cur.id }, fields, ids };
  }

  /** The operand as a raw reader when it is a fusable attribute chain. */
  private readerOf(e: Expr): { raw?: (f: Frame) => unknown; value: Interpretable } {
    if (e.kind === 'select' && !e.testOnly) {
      const chain = this.chainOf(e);
      const r = chain && chainReaders(chain);
      if (r) return r;
    }
    return { value: this.plan(e) };
  }

  private planList(e: Expr & { kind: 'list' }): Interpretable {
    const els = e.elements.map((x) => this.plan(x));
    const id = e.id;
    if (e.optionalIndices.length === 0) {
      return (f) => {
        const out = new Array<CelValue>(els.length);
        for (let i = 0; i < els.length; i++) {
          const v = els[i]!(f);
          if (isErrUnk(v)) return v;
          out[i] = v;
        }
        charge(f, LIST_CREATE_COST);
        return out;
      };
    }
    const opt = new Set(e.optionalIndices);
    return (f) => {
      const out: CelValue[] = [];
      for (let i = 0; i < els.length; i++) {
        const v = els[i]!(f);
        if (isErrUnk(v)) return v;
        if (opt.has(i)) {
          if (!(v instanceof CelOptional)) return new CelError(NO_OVERLOAD, id);
          if (v.value !== undefined) out.push(v.value);
        } else out.push(v);
      }
      charge(f, LIST_CREATE_COST);
      return out;
    };
  }

  private planMap(e: Expr & { kind: 'map' }): Interpretable {
    const entries = e.entries.map((en) => ({ k: this.plan(en.key), v: this.plan(en.value), optional: en.optional, id: en.id }));
    return (f) => {
      const m = new CelMap();
      for (const en of entries) {
        const k = en.k(f);
        if (isErrUnk(k)) return k;
        let v = en.v(f);
        if (isErrUnk(v)) return v;
        if (en.optional) {
          if (!(v instanceof CelOptional)) return new CelError(NO_OVERLOAD, en.id);
          if (v.value === undefined) continue;
          v = v.value;
        }
        if (m.has(k)) return new CelError(`Failed with repeated key: ${String(k instanceof Object ? (k as { v?: bigint }).v ?? k : k)}`, en.id);
        if (!m.set(k, v)) return new CelError(`unsupported key type: ${typeof k}`, en.id);
      }
      charge(f, MAP_CREATE_COST);
      return m;
    };
  }

  private candidates(e: CallExpr, fn: string, member: boolean, arity: number): readonly OverloadDecl[] {
    return callCandidates(this.opts, e, fn, member, arity);
  }

  private planCall(e: CallExpr): Interpretable {
    const fn = resolveCall(e, this.opts.functions, this);
    const target = callTarget(e, fn);
    const id = e.id;
    switch (fn) {
      case '_&&_':
      case '_||_':
        if (!target && e.args.length === 2) return this.planLogic(fn === '_&&_', this.plan(e.args[0]!), this.plan(e.args[1]!), id);
        break;
      case '_?_:_':
        if (!target && e.args.length === 3) return this.planConditional(e);
        break;
      case '@in':
        if (this.opts.optimize && !target && e.args.length === 2) {
          const set = this.planSetMembership(e);
          if (set) return set;
        }
        break;
      case '@not_strictly_false': {
        const a = this.plan(e.args[0]!);
        return (f) => {
          const v = a(f);
          charge(f, 1);
          return v !== false;
        };
      }
      case 'or':
      case 'orValue':
        if (target && e.args.length === 1) return this.planOptionalOr(fn, e, this.plan(target), this.plan(e.args[0]!));
        break;
      case '_[_]':
        if (!target && e.args.length === 2) return this.planIndex(e);
        break;
      case 'type': {
        // values typed from a schema report their declared object type, as the API server's do
        const t = !target && e.args.length === 1 ? this.opts.checked?.typeMap.get(e.args[0]!.id) : undefined;
        if (t?.kind === 'object') {
          const a = this.plan(e.args[0]!);
          const tv = new CelTypeValue(t.name);
          return (f) => {
            const v = a(f);
            if (isErrUnk(v)) return v;
            charge(f, 1);
            return tv;
          };
        }
        break;
      }
      case BLOCK_FN:
        if (!target && e.args.length === 2 && e.args[0]!.kind === 'list') return this.planBlock(e.args[0]!, e.args[1]!);
        break;
    }
    if (!target && e.args.length === 2 && isComparison(fn) && this.opts.specialize !== false) {
      const special = this.planLiteralCompare(e, fn);
      if (special) return special;
    }
    if (fn === 'matches' && this.opts.specialize !== false) {
      const special = this.planMatches(e, target);
      if (special) return special;
    }
    const argExprs = target ? [target, ...e.args] : e.args;
    const args: Interpretable[] = [];
    for (const a of argExprs) args.push(this.plan(a));
    const cands = this.candidates(e, fn, target !== undefined, args.length);
    if (cands.length === 0) {
      const msg = this.opts.functions.has(fn) ? NO_OVERLOAD : `no matching overload for '${fn}'`;
      return (f) => {
        for (const a of args) {
          const v = a(f);
          if (isErrUnk(v)) return v;
        }
        return new CelError(msg, id);
      };
    }
    const staticOk = this.staticOk(cands, argExprs);
    const inPlace = this.inPlace !== undefined && this.inPlace.has(id);
    const appended = argExprs[1];
    if (inPlace && fn === '_+_' && appended?.kind === 'list' && appended.optionalIndices.length === 0) {
      const acc0 = args[0]!;
      // a list of constants is built when the program is planned (OptOptimize): only the append is charged
      const appendCost = (this.opts.optimize && foldable(appended) ? 0 : LIST_CREATE_COST) + 1;
      const els = appended.elements.map((x) => this.plan(x));
      if (els.length === 1) {
        const el = els[0]!;
        return (f) => {
          const acc = acc0(f);
          const v = el(f);
          if (isErrUnk(v)) return v;
          charge(f, appendCost);
          if (isErrUnk(acc)) return acc;
          if (!Array.isArray(acc)) return new CelError(NO_OVERLOAD, id);
          acc.push(v);
          return acc;
        };
      }
      return (f) => {
        const acc = acc0(f);
        const vals: CelValue[] = [];
        for (const el of els) {
          const v = el(f);
          if (isErrUnk(v)) return v;
          vals.push(v);
        }
        charge(f, appendCost);
        if (isErrUnk(acc)) return acc;
        if (!Array.isArray(acc)) return new CelError(NO_OVERLOAD, id);
        for (const x of vals) acc.push(x);
        return acc;
      };
    }
    if (inPlace && fn === '_+_') {
      const [a0, a1] = args as [Interpretable, Interpretable];
      return (f) => {
        const acc = a0(f);
        const add = a1(f);
        charge(f, 1);
        if (isErrUnk(acc)) return acc;
        if (isErrUnk(add)) return add;
        if (!Array.isArray(acc) || !Array.isArray(add)) return new CelError(NO_OVERLOAD, id);
        for (const x of add) acc.push(x);
        return acc;
      };
    }
    return this.dispatch(id, cands, args, staticOk);
  }

  private staticOk(cands: readonly OverloadDecl[], argExprs: Expr[]): boolean {
    return staticallyTyped(this.opts.checked, cands, argExprs);
  }

  /** `x OP literal` / `literal OP x`, specialized by the literal's type. */
  private planLiteralCompare(e: CallExpr, fn: string): Interpretable | undefined {
    const [l, r] = e.args as [Expr, Expr];
    const litLeft = l.kind === 'const' && r.kind !== 'const';
    if (!litLeft && !(r.kind === 'const' && l.kind !== 'const')) return undefined;
    const cands = this.candidates(e, fn, false, 2);
    if (cands.length === 0) return undefined;
    const lit = (litLeft ? l : r) as Expr & { kind: 'const' };
    const other = this.readerOf(litLeft ? r : l);
    const apply = this.apply2(e.id, cands, this.staticOk(cands, e.args));
    const special = planLiteralComparison(fn, lit.value, litLeft, other, cands, apply);
    if (special) return special;
    const v = other.value;
    const c = lit.value;
    return litLeft ? (f) => apply(f, c, v(f)) : (f) => apply(f, v(f), c);
  }

  /** `x.matches('literal')`: the pattern compiled once, at plan time. */
  private planMatches(e: CallExpr, target: Expr | undefined): Interpretable | undefined {
    const argExprs = target ? [target, ...e.args] : e.args;
    if (argExprs.length !== 2) return undefined;
    const [input, pattern] = argExprs as [Expr, Expr];
    if (pattern.kind !== 'const' || typeof pattern.value !== 'string') return undefined;
    const cands = this.candidates(e, 'matches', target !== undefined, 2);
    const p = literalPattern(pattern.value, cands);
    if (!p) return undefined;
    return planLiteralMatches(p, this.readerOf(input), this.apply2(e.id, cands, this.staticOk(cands, argExprs)));
  }

  private dispatch(id: number, cands: readonly OverloadDecl[], args: Interpretable[], staticOk: boolean): Interpretable {
    const nonStrict = anyNonStrict(cands);
    if (args.length === 1) {
      const [a0] = args as [Interpretable];
      const only = cands[0]!;
      if (staticOk && !only.nonStrict) {
        return (f) => {
          const v = a0(f);
          return isErrUnk(v) ? chargeFault(f, v) : call1(f, only, v, id);
        };
      }
      let last: OverloadDecl = cands[0]!;
      return (f) => {
        const v = a0(f);
        if (!nonStrict && isErrUnk(v)) return chargeFault(f, v);
        let o: OverloadDecl | undefined = last;
        if (!valueMatches(o.sig.params[0]!, v)) {
          o = selectOverload(cands, [v]);
          if (!o) return finish(f, o, [v], isErrUnk(v) ? v : noOverload(), id);
          last = o;
        }
        return call1(f, o, v, id);
      };
    }
    if (args.length === 2) {
      const [a0, a1] = args as [Interpretable, Interpretable];
      const apply = this.apply2(id, cands, staticOk);
      return (f) => apply(f, a0(f), a1(f));
    }
    return (f) => {
      const vals = new Array<CelValue>(args.length);
      let unk: CelUnknown | undefined;
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!(f);
        if (!nonStrict && isErrUnk(v)) {
          if (v instanceof CelError) return chargeFault(f, v);
          unk = unk ? mergeUnknowns(unk, v) : v;
        }
        vals[i] = v;
      }
      if (unk) return chargeFault(f, unk);
      return callOn(f, cands, vals, id);
    };
  }

  /** Overload selection, call and cost of a two-argument call on evaluated arguments. */
  private apply2(id: number, cands: readonly OverloadDecl[], staticOk: boolean): Apply2 {
    const only = cands[0]!;
    const pair: CelValue[] = [null, null];
    if (staticOk && !only.nonStrict) {
      const impl = only.impl;
      const cost = only.cost;
      return (f, x, y) => {
        const fault = strictFault2(f, x, y);
        if (fault !== undefined) return fault;
        const r = impl(x, y);
        charge(f, cost ? cost2(cost, pair, x, y, r) : 1);
        return r instanceof CelError ? withId(r, id) : r;
      };
    }
    const nonStrict = anyNonStrict(cands);
    // inline cache: the overload that matched last time is tried first
    let last: OverloadDecl = only;
    return (f, x, y) => {
      if (!nonStrict) {
        const fault = strictFault2(f, x, y);
        if (fault !== undefined) return fault;
      }
      let o: OverloadDecl | undefined = last;
      if (!valueMatches(o.sig.params[0]!, x) || !valueMatches(o.sig.params[1]!, y)) {
        o = overloadFor2(cands, x, y);
        if (!o) {
          charge(f, 1);
          return withId(noOverload(), id);
        }
        last = o;
      }
      const r = o.impl(x, y);
      charge(f, o.cost ? cost2(o.cost, pair, x, y, r) : 1);
      return r instanceof CelError ? withId(r, id) : r;
    };
  }

  private planIndex(e: CallExpr): Interpretable {
    const operand = this.plan(e.args[0]!);
    // an attribute used as the index qualifies the operand as cel-go's attribute qualifier: its lookup is not charged
    const index = isAttribute(e.args[1]!) ? uncharged(this.plan(e.args[1]!)) : this.plan(e.args[1]!);
    const cands = this.candidates(e, '_[_]', false, 2);
    const id = e.id;
    const extra = isAttribute(e.args[0]!) ? 0 : 1;
    return (f) => {
      const c = operand(f);
      const k = index(f);
      charge(f, 1 + extra);
      if (isErrUnk(c)) return c;
      if (isErrUnk(k)) return k;
      if (Array.isArray(c) && typeof k === 'bigint') {
        if (k >= 0n && k < BigInt(c.length)) return c[Number(k)]!;
      } else if (typeof k === 'string' && isPlainObject(c)) {
        const raw = jsonField(c as JsonObject, k);
        if (raw !== undefined) return fromJson(raw);
      }
      for (const o of cands) {
        if (valueMatches(o.sig.params[0]!, c) && valueMatches(o.sig.params[1]!, k)) return withId(o.impl(c, k), id);
      }
      return new CelError(NO_OVERLOAD, id);
    };
  }

  private planLogic(isAnd: boolean, l: Interpretable, r: Interpretable, id: number): Interpretable {
    const stop = !isAnd; // value that short-circuits
    return (f) => {
      const a = l(f);
      if (a === stop) return stop;
      return logicOutcome(stop, a, r(f), id);
    };
  }

  private planConditional(e: CallExpr): Interpretable {
    // a branch that hands back the comprehension's accumulator unchanged costs nothing in the API server
    // (seen in the API server's optimized programs: celcoststability's exists_one and filter costs)
    const c = this.plan(e.args[0]!);
    const t = this.planBranch(e.args[1]!);
    const el = this.planBranch(e.args[2]!);
    const id = e.id;
    return (f) => {
      const v = c(f);
      if (v === true) return t(f);
      if (v === false) return el(f);
      if (isErrUnk(v)) return v;
      return new CelError(NO_OVERLOAD, id);
    };
  }

  private planBranch(x: Expr): Interpretable {
    return this.opts.optimize && x.kind === 'ident' && x.name === ACCU_VAR ? uncharged(this.plan(x)) : this.plan(x);
  }

  private planOptionalOr(fn: string, e: CallExpr, target: Interpretable, arg: Interpretable): Interpretable {
    const id = e.id;
    return (f) => {
      const o = target(f);
      charge(f, 1);
      if (isErrUnk(o)) return o;
      if (!(o instanceof CelOptional)) return new CelError(NO_OVERLOAD, id);
      if (o.value !== undefined) return fn === 'or' ? o : o.value;
      const v = arg(f);
      if (fn === 'or' && !(v instanceof CelOptional) && !isErrUnk(v)) return new CelError(NO_OVERLOAD, id);
      return v;
    };
  }

  /** cel.@block: each slot is evaluated on first use and then reused until the block is entered again. */
  private planBlock(slotList: Expr & { kind: 'list' }, resultExpr: Expr): Interpretable {
    const n = slotList.elements.length;
    const base = this.slotCount;
    this.slotCount += n;
    const depth = this.localCount;
    slotList.elements.forEach((el, i) => {
      (this.lazy ??= new Map()).set(base + i, this.plan(el));
      this.declareLocal(blockIndexName(i), base + i);
    });
    const result = this.plan(resultExpr);
    this.localCount = depth;
    return (f) => {
      const slots = f.slots;
      for (let i = 0; i < n; i++) slots[base + i] = UNSET;
      return result(f);
    };
  }

  private planComprehension(e: ComprehensionExpr): Interpretable {
    const rangeReader = this.readerOf(e.iterRange);
    const rawRange = rangeReader.raw;
    // a fused chain is read raw; its value reader is not needed
    const range = rawRange === undefined ? rangeReader.value : undefined;
    this.markInPlace(e);
    const init = this.plan(e.accuInit);
    const accuSlot = this.slotCount++;
    const depth = this.localCount;
    this.declareLocal(e.accuVar, accuSlot);
    const it1 = this.slotCount++;
    const it2 = e.iterVar2 !== undefined ? this.slotCount++ : -1;
    this.declareLocal(e.iterVar, it1);
    if (e.iterVar2 !== undefined) this.declareLocal(e.iterVar2, it2);
    const condAlwaysTrue = e.loopCondition.kind === 'const' && e.loopCondition.value === true;
    // all() and exists() conditions read only the accumulator: evaluate them inline with the same cost
    const lc = e.loopCondition;
    let condKind = 0; // 1: @not_strictly_false(@result) (cost 2), 2: @not_strictly_false(!@result) (cost 3)
    if (lc.kind === 'call' && lc.fn === '@not_strictly_false' && !lc.target) {
      const a = lc.args[0]!;
      if (a.kind === 'ident' && a.name === e.accuVar) condKind = 1;
      else if (a.kind === 'call' && a.fn === '!_' && a.args[0]?.kind === 'ident' && a.args[0].name === e.accuVar) condKind = 2;
    }
    // a condition evaluated inline (or always true) is never planned
    const cond = condKind === 0 && !condAlwaysTrue ? this.plan(e.loopCondition) : ALWAYS_TRUE;
    const step = this.plan(e.loopStep);
    // the result sees the accumulator, not the iteration variables
    this.localCount = depth + 1;
    const result = this.plan(e.result);
    this.localCount = depth;
    const twoVar = it2 >= 0;
    const id = e.id;
    const iterate = iteration(condKind, condAlwaysTrue, cond, step, accuSlot);
    return (f) => {
      // a JSON array is iterated as it is, converting one element at a time
      let r: CelValue;
      let json: unknown[] | undefined;
      if (rawRange) {
        const x = rawRange(f);
        if (Array.isArray(x)) {
          json = x;
          r = null;
        } else r = x === NOT_RAW ? f.alt : fromJson(x);
      } else r = range!(f);
      if (isErrUnk(r)) return r;
      const slots = f.slots;
      slots[accuSlot] = init(f);
      const list = json ?? (Array.isArray(r) ? r : undefined);
      if (list !== undefined) {
        const convert = json !== undefined;
        for (let i = 0; i < list.length; i++) {
          const el = convert ? fromJson(list[i]) : (list[i] as CelValue);
          if (twoVar) {
            slots[it1] = BigInt(i);
            slots[it2] = el;
          } else slots[it1] = el;
          if (!iterate(f)) break;
        }
      } else if (r instanceof CelMap || isPlainObject(r)) {
        const keys = r instanceof CelMap ? [...r.keys()] : Object.keys(r);
        for (const k of keys) {
          slots[it1] = k;
          if (twoVar) slots[it2] = r instanceof CelMap ? r.get(k)! : fromJson((r as JsonObject)[k as string]);
          if (!iterate(f)) break;
        }
      } else {
        return new CelError(`cannot iterate over ${r === null ? 'null' : typeof r}`, id);
      }
      return result(f);
    };
  }

  /** ids of empty accumulator literals appended to in place: each evaluation needs its own */
  private freshAccu: Set<number> | undefined;
  private scratch: Frame | undefined;

  /** A constant expression evaluated once, at plan time (OptOptimize); its value costs nothing at runtime. */
  private fold(e: Expr): Interpretable {
    if (this.freshAccu?.has(e.id)) return e.kind === 'map' ? () => new CelMap() : () => [];
    const saved = this.opts.optimize;
    this.opts.optimize = false;
    const interp = this.plan(e);
    this.opts.optimize = saved;
    const v = interp((this.scratch ??= new Frame({}, Infinity, 0)));
    // a conversion that fails stays a runtime error, reported where it is
    if (v instanceof CelError || v instanceof CelUnknown) return interp;
    return () => v;
  }

  /** `x in [constants]` as a set lookup (OptOptimize): only the operand is charged. */
  private planSetMembership(e: CallExpr): Interpretable | undefined {
    const list = e.args[1]!;
    if (list.kind !== 'list' || !foldable(list)) return undefined;
    const values = this.fold(list)((this.scratch ??= new Frame({}, Infinity, 0)));
    if (!Array.isArray(values) || !values.every(isScalarValue)) return undefined;
    const x = this.plan(e.args[0]!);
    return (f) => {
      const v = x(f);
      if (v instanceof CelError || v instanceof CelUnknown) return v;
      for (const c of values) if (celEquals(v, c)) return true;
      return false;
    };
  }

  /** Accumulators built from an empty literal are private to the loop, so appends may mutate them. */
  private markInPlace(e: ComprehensionExpr): void {
    if (e.accuVar !== ACCU_VAR) return;
    const emptyInit = (e.accuInit.kind === 'list' && e.accuInit.elements.length === 0) || (e.accuInit.kind === 'map' && e.accuInit.entries.length === 0);
    if (!emptyInit) return;
    (this.freshAccu ??= new Set()).add(e.accuInit.id);
    this.markAppend(e.loopStep);
  }

  private markAppend(s: Expr): void {
    if (s.kind !== 'call') return;
    if (s.fn === '_?_:_') {
      this.markAppend(s.args[1]!);
      return;
    }
    if ((s.fn === '_+_' || s.fn === 'cel.@mapInsert') && s.args[0]?.kind === 'ident' && s.args[0].name === ACCU_VAR) (this.inPlace ??= new Set()).add(s.id);
  }
}

export { optionalIndex };

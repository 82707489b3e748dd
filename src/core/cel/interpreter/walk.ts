// Tree-walking evaluation of a (checked) AST. A program's first evaluation
// runs here, so an expression evaluated once (a rule compiled when its CRD is
// written, an expression sent to the evaluations resource) is never planned;
// the program plans itself on its second evaluation. Each node does what the
// planner's interpretable for it does (value, error and failing node, cost,
// the point where a cost limit stops), without the fused chains and literal
// specializations, which are invisible by construction (specialize.test.ts).
// Nodes it does not take (cel.@block, optional syntax, schema type values)
// throw NOT_INTERPRETED before any effect, and the program is planned instead.

import { ACCU_VAR, type CallExpr, type ComprehensionExpr, type Expr } from '../ast';
import { celEquals } from '../common/ops';
import { CelError, CelMap, CelUnknown, fromJson, isPlainObject, mergeUnknowns, type CelValue, type JsonObject } from '../common/values';
import { NO_OVERLOAD, TYPE_IDENTS, noOverload } from '../library/stdlib';
import { BLOCK_FN } from '../parser/macros';
import { Frame, charge, selectField, withId } from './frame';
import { valueMatches, type OverloadDecl } from './functions';
import {
  LIST_CREATE_COST,
  MAP_CREATE_COST,
  STRUCT_CREATE_COST,
  anyNonStrict,
  call1,
  callCandidates,
  callOn,
  chargeFault,
  finish,
  foldable,
  isAttribute,
  isErrUnk,
  isScalarValue,
  jsonField,
  logicOutcome,
  overloadFor2,
  presence,
  selectOverload,
  staticallyTyped,
  strictFault2,
  type PlanOptions,
} from './planner';
import { callTarget, chainRoot, qualifiedName, resolveCall } from './resolve';

/** A member call's receiver and arguments as one list (without a spread's iterator). */
function withReceiver(target: Expr, args: Expr[]): Expr[] {
  const out = new Array<Expr>(args.length + 1);
  out[0] = target;
  for (let i = 0; i < args.length; i++) out[i + 1] = args[i]!;
  return out;
}

const NO_NAMES: string[] = [];
const NO_VALUES: CelValue[] = [];

/** Thrown when the walk meets a node it leaves to the planner. */
export class NotInterpreted {}
const NOT_INTERPRETED = new NotInterpreted();

/** Evaluates `expr` on the frame's variables, charging its cost; throws NotInterpreted or CostLimitExceeded. */
export function walk(expr: Expr, opts: PlanOptions, f: Frame): CelValue {
  return new TreeWalk(opts, f).eval(expr);
}

class TreeWalk {
  /** local variables in scope (comprehension variables) and their values, innermost last */
  private names: string[] = NO_NAMES;
  private vals: CelValue[] = NO_VALUES;
  private count = 0;
  /** cleared while a constant is folded, as the planner plans folded expressions without it */
  private optimize: boolean;
  private readonly presenceCost: number;
  /** ids of empty accumulator literals, and of `_+_` calls appending to them in place (see Planner.markInPlace) */
  private freshAccu: number[] | undefined;
  private inPlace: number[] | undefined;
  private scratch: Frame | undefined;

  constructor(
    readonly opts: PlanOptions,
    private f: Frame,
  ) {
    this.optimize = opts.optimize ?? false;
    this.presenceCost = opts.presenceTestHasCost ? 1 : 0;
  }

  private local(name: string): number {
    const names = this.names;
    for (let i = this.count - 1; i >= 0; i--) if (names[i] === name) return i;
    return -1;
  }

  private push(name: string, v: CelValue): number {
    // most expressions declare no local: the stacks are made by the first comprehension
    if (this.names === NO_NAMES) {
      this.names = [];
      this.vals = [];
    }
    const i = this.count++;
    this.names[i] = name;
    this.vals[i] = v;
    return i;
  }

  isVariable(name: string): boolean {
    return this.local(name) >= 0 || this.opts.variables.has(name);
  }

  eval(e: Expr): CelValue {
    // the kind is read once: nodes of eight shapes make every property read here a megamorphic one
    switch (e.kind) {
      case 'const':
        return e.value;
      case 'ident':
        return this.ident(e.id, e.name);
      case 'select':
        return this.select(e, false);
      case 'call':
        return this.optimize && e.target === undefined && e.args.length === 1 && foldable(e) ? this.fold(e) : this.call(e);
      case 'list':
        return this.optimize && foldable(e) ? this.fold(e) : this.list(e);
      case 'map':
        return this.optimize && foldable(e) ? this.fold(e) : this.map(e);
      case 'struct':
        charge(this.f, STRUCT_CREATE_COST);
        return new CelError(`unknown type: ${e.typeName}`, e.id);
      case 'comprehension':
        return this.comprehension(e);
    }
  }

  /** The value of a constant expression, computed off the books (the planner computes it when planning). */
  private foldValue(e: Expr): CelValue {
    if (this.freshAccu !== undefined && this.freshAccu.includes(e.id)) return e.kind === 'map' ? new CelMap() : [];
    return this.unoptimized(e, (this.scratch ??= new Frame({}, Infinity, 0)));
  }

  private fold(e: Expr): CelValue {
    const v = this.foldValue(e);
    // a conversion that fails stays a runtime error, evaluated (and charged) where it is
    return v instanceof CelError || v instanceof CelUnknown ? this.unoptimized(e, this.f) : v;
  }

  private unoptimized(e: Expr, f: Frame): CelValue {
    const saved = this.optimize;
    const frame = this.f;
    this.optimize = false;
    this.f = f;
    try {
      return this.eval(e);
    } finally {
      this.optimize = saved;
      this.f = frame;
    }
  }

  private uncharged(e: Expr): CelValue {
    const c0 = this.f.cost;
    const v = this.eval(e);
    this.f.cost = c0;
    return v;
  }

  private ident(id: number, name: string): CelValue {
    const i = this.local(name);
    if (i >= 0) {
      charge(this.f, 1);
      return this.vals[i]!;
    }
    // a declared variable is read unless the checker resolved the name as a type
    if (!this.opts.variables.has(name) || this.opts.checked?.refMap.get(id)?.isType) {
      const tv = TYPE_IDENTS[name] ?? this.opts.libraryTypes?.get(name);
      if (tv) return tv;
    }
    charge(this.f, 1);
    const v = this.f.vars[name];
    if (v === undefined) return new CelError(`undeclared reference to '${name}' (in container '')`, id);
    return v;
  }

  /** whether the select just evaluated is an attribute (see isAttribute), so a chain is not walked again at each step */
  private attribute = false;

  /** `rootPlain`: the chain's root starts no dotted name, so no part of it is a qualified name (as in the checker). */
  private select(e: Expr & { kind: 'select' }, rootPlain: boolean): CelValue {
    const q = e.testOnly || rootPlain ? undefined : qualifiedName(e, this.opts.qualifiedRoots);
    if (q !== undefined) {
      const root = chainRoot(e)!;
      if ((this.opts.variables.has(q) && this.local(root) < 0) || (!this.isVariable(root) && (TYPE_IDENTS[q] ?? this.opts.libraryTypes?.get(q)))) {
        this.attribute = true;
        return this.ident(e.id, q);
      }
    }
    const op = e.operand;
    let v: CelValue;
    let attribute: boolean;
    switch (op.kind) {
      case 'ident':
        v = this.ident(op.id, op.name);
        attribute = true;
        break;
      case 'select':
        v = !op.testOnly && q === undefined && !e.testOnly && this.opts.qualifiedRoots !== undefined ? this.select(op, true) : this.select(op, false);
        attribute = this.attribute;
        break;
      default:
        v = this.eval(op);
        attribute = isAttribute(op);
    }
    this.attribute = attribute && !e.testOnly;
    const f = this.f;
    if (e.testOnly) {
      const c = this.presenceCost + (attribute ? 0 : 1);
      if (c) charge(f, c);
      if (isErrUnk(v)) return v;
      return withId(presence(v, e.field), e.id);
    }
    charge(f, attribute ? 1 : 2);
    if (isErrUnk(v)) return v;
    if (isPlainObject(v)) {
      const raw = jsonField(v as JsonObject, e.field);
      if (raw !== undefined) return fromJson(raw);
    } else if (v instanceof CelMap) {
      const r = v.entries.get(e.field);
      if (r !== undefined) return r[1];
    }
    return withId(selectField(v, e.field), e.id);
  }

  private call(e: CallExpr): CelValue {
    const fn = resolveCall(e, this.opts.functions, this);
    const target = callTarget(e, fn);
    const args = e.args;
    const id = e.id;
    const f = this.f;
    switch (fn) {
      case '_&&_':
      case '_||_':
        if (!target && args.length === 2) return this.logic(fn === '_&&_', args[0]!, args[1]!, id);
        break;
      case '_?_:_':
        if (!target && args.length === 3) {
          const v = this.eval(args[0]!);
          if (v === true) return this.branch(args[1]!);
          if (v === false) return this.branch(args[2]!);
          if (isErrUnk(v)) return v;
          return new CelError(NO_OVERLOAD, id);
        }
        break;
      case '@in':
        if (this.optimize && !target && args.length === 2) {
          const r = this.setMembership(args[0]!, args[1]!);
          if (r !== undefined) return r;
        }
        break;
      case '@not_strictly_false': {
        const v = this.eval(args[0]!);
        charge(f, 1);
        return v !== false;
      }
      case 'or':
      case 'orValue':
        if (target && args.length === 1) throw NOT_INTERPRETED;
        break;
      case '_[_]':
        if (!target && args.length === 2) return this.index(e);
        break;
      case 'type':
        if (!target && args.length === 1 && this.opts.checked?.typeMap.get(args[0]!.id)?.kind === 'object') throw NOT_INTERPRETED;
        break;
      case BLOCK_FN:
        if (!target && args.length === 2 && args[0]!.kind === 'list') throw NOT_INTERPRETED;
        break;
    }
    const argExprs = target ? withReceiver(target, args) : args;
    const cands = callCandidates(this.opts, e, fn, target !== undefined, argExprs.length);
    if (cands.length === 0) {
      for (const a of argExprs) {
        const v = this.eval(a);
        if (isErrUnk(v)) return v;
      }
      return new CelError(this.opts.functions.has(fn) ? NO_OVERLOAD : `no matching overload for '${fn}'`, id);
    }
    if (fn === '_+_' && this.inPlace !== undefined && this.inPlace.includes(id)) return this.append(argExprs[0]!, argExprs[1]!, id);
    const staticOk = staticallyTyped(this.opts.checked, cands, argExprs);
    if (argExprs.length === 1) return this.apply1(id, cands, this.eval(argExprs[0]!), staticOk);
    if (argExprs.length === 2) {
      const x = this.eval(argExprs[0]!);
      return this.apply2(id, cands, x, this.eval(argExprs[1]!), staticOk);
    }
    const nonStrict = anyNonStrict(cands);
    const vals = new Array<CelValue>(argExprs.length);
    let unk: CelUnknown | undefined;
    for (let i = 0; i < argExprs.length; i++) {
      const v = this.eval(argExprs[i]!);
      if (!nonStrict && isErrUnk(v)) {
        if (v instanceof CelError) return chargeFault(f, v);
        unk = unk ? mergeUnknowns(unk, v) : v;
      }
      vals[i] = v;
    }
    if (unk) return chargeFault(f, unk);
    return callOn(f, cands, vals, id);
  }

  private apply1(id: number, cands: readonly OverloadDecl[], v: CelValue, staticOk: boolean): CelValue {
    const f = this.f;
    const only = cands[0]!;
    if (staticOk && !only.nonStrict) return isErrUnk(v) ? chargeFault(f, v) : call1(f, only, v, id);
    if (!anyNonStrict(cands) && isErrUnk(v)) return chargeFault(f, v);
    const o = valueMatches(only.sig.params[0]!, v) ? only : selectOverload(cands, [v]);
    if (!o) return finish(f, o, [v], isErrUnk(v) ? v : noOverload(), id);
    return call1(f, o, v, id);
  }

  private apply2(id: number, cands: readonly OverloadDecl[], x: CelValue, y: CelValue, staticOk: boolean): CelValue {
    const f = this.f;
    const only = cands[0]!;
    const strict = staticOk ? !only.nonStrict : !anyNonStrict(cands);
    if (strict) {
      const fault = strictFault2(f, x, y);
      if (fault !== undefined) return fault;
    }
    let o: OverloadDecl | undefined = only;
    if (!(staticOk && !only.nonStrict)) {
      o = overloadFor2(cands, x, y);
      if (!o) {
        charge(f, 1);
        return withId(noOverload(), id);
      }
    }
    const r = o.impl(x, y);
    charge(f, o.cost ? o.cost([x, y], r) : 1);
    return r instanceof CelError ? withId(r, id) : r;
  }

  /** `@result + [...]` on an accumulator private to its loop: appended in place, charged as the planner's. */
  private append(accExpr: Expr, added: Expr, id: number): CelValue {
    const f = this.f;
    const acc = this.eval(accExpr);
    if (added.kind === 'list' && added.optionalIndices.length === 0) {
      // a list of constants is built when the program is planned (OptOptimize): only the append is charged
      const appendCost = (this.optimize && foldable(added) ? 0 : LIST_CREATE_COST) + 1;
      const els = added.elements;
      const vals = new Array<CelValue>(els.length);
      for (let i = 0; i < els.length; i++) {
        const v = this.eval(els[i]!);
        if (isErrUnk(v)) return v;
        vals[i] = v;
      }
      charge(f, appendCost);
      if (isErrUnk(acc)) return acc;
      if (!Array.isArray(acc)) return new CelError(NO_OVERLOAD, id);
      for (const x of vals) acc.push(x);
      return acc;
    }
    const add = this.eval(added);
    charge(f, 1);
    if (isErrUnk(acc)) return acc;
    if (isErrUnk(add)) return add;
    if (!Array.isArray(acc) || !Array.isArray(add)) return new CelError(NO_OVERLOAD, id);
    for (const x of add) acc.push(x);
    return acc;
  }

  private logic(isAnd: boolean, l: Expr, r: Expr, id: number): CelValue {
    const stop = !isAnd; // value that short-circuits
    const a = this.eval(l);
    if (a === stop) return stop;
    return logicOutcome(stop, a, this.eval(r), id);
  }

  /** A conditional's branch: handing back the accumulator unchanged costs nothing in optimized programs. */
  private branch(x: Expr): CelValue {
    return this.optimize && x.kind === 'ident' && x.name === ACCU_VAR ? this.uncharged(x) : this.eval(x);
  }

  /** `x in [constants]` as a set lookup (OptOptimize), or undefined when the list does not qualify. */
  private setMembership(x: Expr, list: Expr): CelValue | undefined {
    if (list.kind !== 'list' || !foldable(list)) return undefined;
    const values = this.foldValue(list);
    if (!Array.isArray(values) || !values.every(isScalarValue)) return undefined;
    const v = this.eval(x);
    if (v instanceof CelError || v instanceof CelUnknown) return v;
    for (const c of values) if (celEquals(v, c)) return true;
    return false;
  }

  private index(e: CallExpr): CelValue {
    const [operand, index] = e.args as [Expr, Expr];
    const c = this.eval(operand);
    // an attribute used as the index qualifies the operand: its lookup is not charged
    const k = isAttribute(index) ? this.uncharged(index) : this.eval(index);
    const id = e.id;
    charge(this.f, isAttribute(operand) ? 1 : 2);
    if (isErrUnk(c)) return c;
    if (isErrUnk(k)) return k;
    if (Array.isArray(c) && typeof k === 'bigint') {
      if (k >= 0n && k < BigInt(c.length)) return c[Number(k)]!;
    } else if (typeof k === 'string' && isPlainObject(c)) {
      const raw = jsonField(c as JsonObject, k);
      if (raw !== undefined) return fromJson(raw);
    }
    for (const o of callCandidates(this.opts, e, '_[_]', false, 2)) {
      if (valueMatches(o.sig.params[0]!, c) && valueMatches(o.sig.params[1]!, k)) return withId(o.impl(c, k), id);
    }
    return new CelError(NO_OVERLOAD, id);
  }

  private list(e: Expr & { kind: 'list' }): CelValue {
    if (e.optionalIndices.length !== 0) throw NOT_INTERPRETED;
    const els = e.elements;
    const out = new Array<CelValue>(els.length);
    for (let i = 0; i < els.length; i++) {
      const v = this.eval(els[i]!);
      if (isErrUnk(v)) return v;
      out[i] = v;
    }
    charge(this.f, LIST_CREATE_COST);
    return out;
  }

  private map(e: Expr & { kind: 'map' }): CelValue {
    for (const en of e.entries) if (en.optional) throw NOT_INTERPRETED;
    const m = new CelMap();
    for (const en of e.entries) {
      const k = this.eval(en.key);
      if (isErrUnk(k)) return k;
      const v = this.eval(en.value);
      if (isErrUnk(v)) return v;
      if (m.has(k)) return new CelError(`Failed with repeated key: ${String(k instanceof Object ? (k as { v?: bigint }).v ?? k : k)}`, en.id);
      if (!m.set(k, v)) return new CelError(`unsupported key type: ${typeof k}`, en.id);
    }
    charge(this.f, MAP_CREATE_COST);
    return m;
  }

  private comprehension(e: ComprehensionExpr): CelValue {
    const r = this.eval(e.iterRange);
    if (isErrUnk(r)) return r;
    this.markInPlace(e);
    const init = this.eval(e.accuInit);
    const depth = this.count;
    const accu = this.push(e.accuVar, init);
    const it1 = this.push(e.iterVar, null);
    const it2 = e.iterVar2 !== undefined ? this.push(e.iterVar2, null) : -1;
    // all() and exists() conditions read only the accumulator: evaluated inline with the planned condition's cost
    const lc = e.loopCondition;
    let condKind = lc.kind === 'const' && lc.value === true ? 3 : 0; // 1: @not_strictly_false(@result), 2: @not_strictly_false(!@result), 3: always true
    if (lc.kind === 'call' && lc.fn === '@not_strictly_false' && !lc.target) {
      const a = lc.args[0]!;
      if (a.kind === 'ident' && a.name === e.accuVar) condKind = 1;
      else if (a.kind === 'call' && a.fn === '!_' && a.args[0]?.kind === 'ident' && a.args[0].name === e.accuVar) condKind = 2;
    }
    const vals = this.vals;
    if (Array.isArray(r)) {
      for (let i = 0; i < r.length; i++) {
        if (it2 >= 0) {
          vals[it1] = BigInt(i);
          vals[it2] = r[i]!;
        } else vals[it1] = r[i]!;
        if (!this.iterate(e, condKind, accu)) break;
      }
    } else if (r instanceof CelMap || isPlainObject(r)) {
      const keys = r instanceof CelMap ? [...r.keys()] : Object.keys(r);
      for (const k of keys) {
        vals[it1] = k;
        if (it2 >= 0) vals[it2] = r instanceof CelMap ? r.get(k)! : fromJson((r as JsonObject)[k as string]);
        if (!this.iterate(e, condKind, accu)) break;
      }
    } else {
      this.count = depth;
      return new CelError(`cannot iterate over ${r === null ? 'null' : typeof r}`, e.id);
    }
    // the result sees the accumulator, not the iteration variables
    this.count = depth + 1;
    const out = this.eval(e.result);
    this.count = depth;
    return out;
  }

  /** One iteration after the loop variables are set (see the planner's iteration()); false stops the loop. */
  private iterate(e: ComprehensionExpr, condKind: number, accu: number): boolean {
    const vals = this.vals;
    if (condKind === 1) {
      charge(this.f, 2);
      if (vals[accu] === false) return false;
    } else if (condKind === 2) {
      const acc = vals[accu];
      charge(this.f, 3);
      if (acc === true) return false;
    } else if (condKind === 0 && this.eval(e.loopCondition) === false) return false;
    vals[accu] = this.eval(e.loopStep);
    return true;
  }

  /** Accumulators built from an empty literal are private to the loop, so appends may mutate them. */
  private markInPlace(e: ComprehensionExpr): void {
    if (e.accuVar !== ACCU_VAR) return;
    const init = e.accuInit;
    if (!((init.kind === 'list' && init.elements.length === 0) || (init.kind === 'map' && init.entries.length === 0))) return;
    (this.freshAccu ??= []).push(init.id);
    let s = e.loopStep;
    while (s.kind === 'call' && s.fn === '_?_:_') s = s.args[1]!;
    if (s.kind === 'call' && (s.fn === '_+_' || s.fn === 'cel.@mapInsert') && s.args[0]?.kind === 'ident' && s.args[0].name === ACCU_VAR) (this.inPlace ??= []).push(s.id);
  }
}

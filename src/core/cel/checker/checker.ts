// Type checker: infers a type for every node and resolves identifiers and
// overloads, recording results in side tables keyed by node id. Messages
// follow cel-go's checker wording.

import { IdMap, type CelIssue, type ComprehensionExpr, type Expr, type SourceInfo } from '../ast';
import {
  T,
  isAssignable,
  isDynOrError,
  mostGeneral,
  substitute,
  typeEquals,
  typeToString,
  TrialSubstitution,
  type CelType,
  type Substitution,
} from '../common/types';
import { CelDuration, CelError, CelTimestamp, CelUint } from '../common/values';
import type { FunctionRegistry, OverloadDecl } from '../interpreter/functions';
import { callTarget, chainRoot, qualifiedName, resolveCall } from '../interpreter/resolve';
import { BLOCK_FN, blockIndexName } from '../parser/macros';

export interface Reference {
  /** resolved variable or function name */
  name: string;
  /** matching overload ids for calls */
  overloads?: string[];
  /** true when the name is a type identifier such as int */
  isType?: boolean;
}

export interface CheckedAst {
  expr: Expr;
  source: SourceInfo;
  typeMap: IdMap<CelType>;
  refMap: IdMap<Reference>;
  /** the type of the whole expression */
  type: CelType;
}

export interface CheckerEnv {
  variables: Map<string, CelType>;
  functions: FunctionRegistry;
  /** cel.HomogeneousAggregateLiterals */
  homogeneousLiterals?: boolean;
  /** type identifiers usable as values */
  typeIdents: Map<string, CelType>;
  /** first segments of the dotted variable and type names; chains rooted elsewhere skip qualified-name resolution */
  qualifiedRoots?: ReadonlySet<string>;
}

export function check(expr: Expr, source: SourceInfo, env: CheckerEnv): { ast?: CheckedAst; issues: CelIssue[] } {
  const c = new Checker(env, source);
  c.check(expr);
  if (c.issues.length) return { issues: c.issues };
  // final types in place: substitute() returns the same object when nothing is bound, so most entries stay
  const typeMap = c.types;
  if (c.usedParams) typeMap.update((t) => substitute(t, c.subst, true));
  return {
    ast: { expr, source, typeMap, refMap: c.refs, type: typeMap.get(expr.id) ?? T.dyn },
    issues: [],
  };
}

class Checker {
  readonly types = new IdMap<CelType>();
  readonly refs = new IdMap<Reference>();
  readonly issues: CelIssue[] = [];
  readonly subst = new Map<string, CelType>();
  /** bindings of one overload trial over arguments without type parameters */
  private readonly scratch = new Map<string, CelType>();
  private scopes: Map<string, CelType>[] = [];
  private fresh = 0;

  constructor(
    readonly env: CheckerEnv,
    readonly source: SourceInfo,
  ) {}

  private error(e: Expr, message: string): CelType {
    this.issues.push({ message, exprId: e.id, offset: this.source.positions.get(e.id) ?? 0 });
    return T.error;
  }

  private set(e: Expr, t: CelType): CelType {
    this.types.set(e.id, t);
    return t;
  }

  private lookupLocal(name: string): CelType | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i]!.get(name);
      if (t) return t;
    }
    return undefined;
  }

  isVariable(name: string): boolean {
    return this.lookupLocal(name) !== undefined || this.env.variables.has(name);
  }

  /** whether any type parameter was created (otherwise no type needs substituting) */
  get usedParams(): boolean {
    return this.fresh > 0;
  }

  private freshParam(): CelType {
    return T.param(`_var${this.fresh++}`);
  }

  private instantiate(o: OverloadDecl): { params: CelType[]; result: CelType } {
    const names = new Map<string, CelType>();
    const params: CelType[] = [];
    for (const p of o.sig.params) params.push(this.inst(p, names));
    return { params, result: this.inst(o.sig.result, names) };
  }

  /** A declared type with each of its type parameters replaced by a fresh one (the same one per name). */
  private inst(t: CelType, names: Map<string, CelType>): CelType {
    switch (t.kind) {
      case 'param': {
        let p = names.get(t.name);
        if (!p) names.set(t.name, (p = this.freshParam()));
        return p;
      }
      case 'list':
        return T.list(this.inst(t.elem, names));
      case 'map':
        return T.map(this.inst(t.key, names), this.inst(t.value, names));
      case 'type':
        return t.param ? T.type(this.inst(t.param, names)) : t;
      case 'opaque': {
        if (!t.params.length) return t;
        const ps: CelType[] = [];
        for (const p of t.params) ps.push(this.inst(p, names));
        return T.opaque(t.name, ...ps);
      }
      default:
        return t;
    }
  }

  private resolved(t: CelType): CelType {
    return substitute(t, this.subst);
  }

  check(e: Expr): CelType {
    switch (e.kind) {
      case 'const':
        return this.set(e, constType(e.value));
      case 'ident':
        return this.set(e, this.checkIdent(e, e.name));
      case 'select':
        return this.set(e, this.checkSelect(e));
      case 'call':
        return this.set(e, this.checkCall(e));
      case 'list': {
        let elem: CelType | undefined;
        e.elements.forEach((el, i) => {
          let t = this.check(el);
          if (e.optionalIndices.includes(i)) {
            const rt = this.resolved(t);
            if (rt.kind === 'opaque' && rt.name === 'optional_type') t = rt.params[0]!;
            else if (!isDynOrError(rt)) t = this.error(el, `expected type 'optional_type' but found '${typeToString(rt)}'`);
          }
          elem = this.joinElem(el, elem, t);
        });
        return this.set(e, T.list(elem ?? this.freshParam()));
      }
      case 'map': {
        let kt: CelType | undefined;
        let vt: CelType | undefined;
        for (const en of e.entries) {
          kt = this.joinElem(en.key, kt, this.check(en.key));
          let t = this.check(en.value);
          if (en.optional) {
            const rt = this.resolved(t);
            if (rt.kind === 'opaque' && rt.name === 'optional_type') t = rt.params[0]!;
          }
          vt = this.joinElem(en.value, vt, t);
        }
        return this.set(e, T.map(kt ?? this.freshParam(), vt ?? this.freshParam()));
      }
      case 'struct': {
        for (const f of e.fields) this.check(f.value);
        return this.set(e, this.error(e, `undeclared reference to '${e.typeName}' (in container '')`));
      }
      case 'comprehension':
        return this.set(e, this.checkComprehension(e));
    }
  }

  private joinElem(e: Expr, prev: CelType | undefined, t: CelType): CelType {
    if (!prev) return t;
    if (isAssignable(prev, t, this.subst)) return mostGeneral(this.resolved(prev), this.resolved(t));
    if (this.env.homogeneousLiterals) {
      return this.error(e, `expected type '${typeToString(this.resolved(prev))}' but found '${typeToString(this.resolved(t))}'`);
    }
    return T.dyn;
  }

  private checkIdent(e: Expr, name: string): CelType {
    const local = this.lookupLocal(name);
    if (local) {
      this.refs.set(e.id, { name });
      return local;
    }
    const v = this.env.variables.get(name);
    if (v) {
      this.refs.set(e.id, { name });
      return v;
    }
    const ti = this.env.typeIdents.get(name);
    if (ti) {
      this.refs.set(e.id, { name, isType: true });
      return T.type(ti);
    }
    return this.error(e, `undeclared reference to '${name}' (in container '')`);
  }

  private checkSelect(e: Expr & { kind: 'select' }): CelType {
    // qualified identifiers: a.b.c where a is not a variable
    const q = e.testOnly ? undefined : qualifiedName(e, this.env.qualifiedRoots);
    if (q !== undefined) {
      const root = chainRoot(e)!;
      if (this.env.variables.has(q) || (!this.isVariable(root) && this.env.typeIdents.has(q))) {
        return this.checkIdent(e, q);
      }
    }
    const ot = this.resolved(this.check(e.operand));
    const ft = this.fieldType(e, ot, e.field);
    if (e.testOnly) return T.bool;
    return ft;
  }

  private fieldType(e: Expr, ot: CelType, field: string): CelType {
    switch (ot.kind) {
      case 'map':
        if (!isAssignable(T.string, ot.key, this.subst)) break;
        return ot.value;
      case 'object': {
        const f = ot.fields.get(field);
        if (!f) return this.error(e, `undefined field '${field}'`);
        return f;
      }
      case 'dyn':
      case 'error':
      case 'param':
        return T.dyn;
      case 'opaque':
        if (ot.name === 'optional_type') return T.optional(this.fieldType(e, this.resolved(ot.params[0]!), field));
        break;
    }
    return this.error(e, `type '${typeToString(ot)}' does not support field selection`);
  }

  private checkCall(e: Expr & { kind: 'call' }): CelType {
    const fn = resolveCall(e, this.env.functions, this);
    const target = callTarget(e, fn);
    const args = e.args;
    if (fn === '_?._' && !target && args.length === 2 && args[1]!.kind === 'const' && typeof args[1]!.value === 'string') {
      const ot = this.resolved(this.check(args[0]!));
      this.check(args[1]!);
      this.refs.set(e.id, { name: fn, overloads: ['select_optional_field'] });
      const base = ot.kind === 'opaque' && ot.name === 'optional_type' ? this.resolved(ot.params[0]!) : ot;
      const ft = this.fieldType(e, base, args[1]!.value);
      return ft.kind === 'error' ? ft : T.optional(ft);
    }
    if (fn === BLOCK_FN && !target && args.length === 2 && args[0]!.kind === 'list') return this.checkBlock(args[0]!, args[1]!);
    const argTypes: CelType[] = [];
    if (target) argTypes.push(this.check(target));
    for (const a of args) argTypes.push(this.check(a));
    const member = target !== undefined;
    const decls = this.env.functions.overloads(fn, member, argTypes.length);
    if (decls.length === 0 && !this.env.functions.has(fn)) {
      return this.error(e, `undeclared reference to '${fn}' (in container '')`);
    }
    const matches: OverloadDecl[] = [];
    let result: CelType | undefined;
    const resolvedArgs = argTypes.map((t) => this.resolved(t));
    const argsHaveParams = resolvedArgs.some(hasParam);
    for (const o of decls) {
      if (!kindsMayMatch(o.sig.params, resolvedArgs)) continue;
      const generic = sigHasParams(o);
      if (generic && !argsHaveParams) {
        // arguments without type parameters: the signature's own parameter names can be bound in a
        // scratch table, with no fresh names and nothing to commit, unless the result keeps one unbound
        const local = this.scratch;
        local.clear();
        if (!allAssignable(o.sig.params, resolvedArgs, local)) continue;
        const rt = substitute(o.sig.result, local);
        if (!hasParam(rt)) {
          matches.push(o);
          result = result === undefined ? rt : typeEquals(result, rt) ? result : T.dyn;
          continue;
        }
      }
      const inst = generic ? this.instantiate(o) : o.sig;
      // bindings are only made when a type parameter is involved; otherwise check in place
      const trial = generic || argsHaveParams ? new TrialSubstitution(this.subst) : this.subst;
      if (!allAssignable(inst.params, argTypes, trial)) continue;
      // commit the bindings of the first match; later matches only widen the result
      if (matches.length === 0 && trial instanceof TrialSubstitution) trial.commit();
      matches.push(o);
      const rt = substitute(inst.result, trial);
      result = result === undefined ? rt : typeEquals(result, rt) ? result : T.dyn;
    }
    if (matches.length === 0) {
      const shown = argTypes.map((t) => typeToString(substitute(t, this.subst, true)));
      const applied = member ? `${shown[0]}.(${shown.slice(1).join(', ')})` : `(${shown.join(', ')})`;
      return this.error(e, `found no matching overload for '${fn}' applied to '${applied}'`);
    }
    this.refs.set(e.id, { name: fn, overloads: matches.map((m) => m.id) });
    return result!;
  }

  /** Slot i sees slots 0..i-1; the result sees them all. The slot list itself is not a value. */
  private checkBlock(slots: Expr & { kind: 'list' }, result: Expr): CelType {
    const scope = new Map<string, CelType>();
    this.scopes.push(scope);
    slots.elements.forEach((el, i) => {
      let t = this.check(el);
      if (slots.optionalIndices.includes(i)) {
        const rt = this.resolved(t);
        t = rt.kind === 'opaque' && rt.name === 'optional_type' ? rt.params[0]! : T.dyn;
      }
      scope.set(blockIndexName(i), t);
    });
    this.set(slots, T.list(T.dyn));
    const t = this.check(result);
    this.scopes.pop();
    return t;
  }

  private checkComprehension(e: ComprehensionExpr): CelType {
    const rt = this.resolved(this.check(e.iterRange));
    let it1: CelType;
    let it2: CelType | undefined;
    switch (rt.kind) {
      case 'list':
        it1 = e.iterVar2 !== undefined ? T.int : rt.elem;
        if (e.iterVar2 !== undefined) it2 = rt.elem;
        break;
      case 'map':
        it1 = rt.key;
        if (e.iterVar2 !== undefined) it2 = rt.value;
        break;
      case 'dyn':
      case 'error':
      case 'param':
        it1 = T.dyn;
        it2 = T.dyn;
        break;
      default:
        this.error(e.iterRange, `expression of type '${typeToString(rt)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
        it1 = T.dyn;
        it2 = T.dyn;
    }
    const accuType = this.check(e.accuInit);
    this.scopes.push(new Map<string, CelType>().set(e.accuVar, accuType));
    const iterScope = new Map<string, CelType>().set(e.iterVar, it1);
    if (e.iterVar2 !== undefined) iterScope.set(e.iterVar2, it2 ?? T.dyn);
    this.scopes.push(iterScope);
    const ct = this.check(e.loopCondition);
    if (!isAssignable(T.bool, ct, this.subst)) this.error(e.loopCondition, `expected type 'bool' but found '${typeToString(this.resolved(ct))}'`);
    const st = this.check(e.loopStep);
    if (!isAssignable(accuType, st, this.subst)) {
      this.error(e.loopStep, `expected type '${typeToString(this.resolved(accuType))}' but found '${typeToString(this.resolved(st))}'`);
    }
    this.scopes.pop();
    const res = this.check(e.result);
    this.scopes.pop();
    return res;
  }
}

function allAssignable(params: readonly CelType[], args: readonly CelType[], s: Substitution): boolean {
  for (let i = 0; i < params.length; i++) if (!isAssignable(params[i]!, args[i]!, s)) return false;
  return true;
}

function hasParam(t: CelType): boolean {
  switch (t.kind) {
    case 'param':
      return true;
    case 'list':
      return hasParam(t.elem);
    case 'map':
      return hasParam(t.key) || hasParam(t.value);
    case 'type':
      return t.param ? hasParam(t.param) : false;
    case 'opaque':
      return t.params.some(hasParam);
    default:
      return false;
  }
}

const genericOverloads = new WeakMap<OverloadDecl, boolean>();
function sigHasParams(o: OverloadDecl): boolean {
  let g = genericOverloads.get(o);
  if (g === undefined) {
    g = o.sig.params.some(hasParam) || hasParam(o.sig.result);
    genericOverloads.set(o, g);
  }
  return g;
}

/** Kinds that only ever accept their own kind (dyn, null, type, params and errors are decided by isAssignable). */
function simple(kind: CelType['kind']): boolean {
  switch (kind) {
    case 'int':
    case 'uint':
    case 'double':
    case 'string':
    case 'bytes':
    case 'bool':
    case 'timestamp':
    case 'duration':
    case 'list':
    case 'map':
    case 'object':
    case 'opaque':
      return true;
    default:
      return false;
  }
}

/** A quick rejection before instantiating an overload: concrete kinds that can never be assigned. */
function kindsMayMatch(params: readonly CelType[], args: readonly CelType[]): boolean {
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    const a = args[i]!;
    if (p.kind === a.kind || !simple(p.kind) || !simple(a.kind)) continue;
    // objects typed from schemas are maps to map parameters only through isAssignable's rules
    if ((p.kind === 'map' && a.kind === 'object') || (p.kind === 'object' && a.kind === 'map')) continue;
    return false;
  }
  return true;
}

export function constType(v: unknown): CelType {
  switch (typeof v) {
    case 'bigint':
      return T.int;
    case 'number':
      return T.double;
    case 'string':
      return T.string;
    case 'boolean':
      return T.bool;
  }
  if (v === null) return T.null;
  if (v instanceof CelUint) return T.uint;
  if (v instanceof Uint8Array) return T.bytes;
  if (v instanceof CelTimestamp) return T.timestamp;
  if (v instanceof CelDuration) return T.duration;
  if (v instanceof CelError) return T.error;
  return T.dyn;
}

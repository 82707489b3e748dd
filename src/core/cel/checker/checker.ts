// Type checker: infers a type for every node and resolves identifiers and
// overloads, recording results in side tables keyed by node id. Messages
// follow cel-go's checker wording.

import { IdMap, SourceInfo, type CelIssue, type ComprehensionExpr, type Expr } from '../ast';
import {
  LIST_OF_DYN,
  T,
  isAssignable,
  mentionsSignatureParam,
  isDynOrError,
  mostGeneral,
  substitute,
  typeEquals,
  typeToString,
  SmallBindings,
  TrialSubstitution,
  type CelType,
  type Substitution,
} from '../common/types';
import { CelDuration, CelError, CelTimestamp, CelUint } from '../common/values';
import { FunctionRegistry, type OverloadDecl } from '../interpreter/functions';
import { callTarget, chainRoot, qualifiedName, resolveCall } from '../interpreter/resolve';
import { BLOCK_FN, blockIndexName } from '../parser/macros';

export interface Reference {
  /** resolved variable or function name */
  name: string;
  /** matching overload ids for calls */
  overloads?: readonly string[];
  /** the matching overloads themselves, in the same order (as the environment prices them) */
  decls?: readonly OverloadDecl[];
  /** the overload table (the function's overloads of this arity and form) the matches were chosen from */
  table?: readonly OverloadDecl[];
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

/**
 * The checker between two checks, kept with its bindings table, scratch arrays and the overload
 * tables of the registry it last used (a check within a check, were there one, makes its own).
 */
let spare: Checker | undefined;

export function check(expr: Expr, source: SourceInfo, env: CheckerEnv): { ast?: CheckedAst; issues: CelIssue[] } {
  const c = spare ?? new Checker();
  spare = undefined;
  c.start(env, source);
  try {
    c.check(expr);
    if (c.issues.length) return { issues: c.issues };
    // final types in place: substitute() returns the same object when nothing is bound, so most entries stay
    const typeMap = c.types;
    if (c.usedParams) {
      // only the types set once a type parameter existed can mention one
      for (const id of c.paramIds) typeMap.set(id, substitute(typeMap.get(id)!, c.subst, true));
    }
    return {
      ast: { expr, source, typeMap, refMap: c.refs, type: typeMap.get(expr.id) ?? T.dyn },
      issues: [],
    };
  } finally {
    c.finish();
    spare = c;
  }
}

/** The first fresh type parameter names, made once (cel-go names them _var0, _var1, ...). */
const PARAM_NAMES = Array.from({ length: 64 }, (_, i) => `_var${i}`);

const NO_SOURCE = new SourceInfo('');
/** the environment of a checker between checks */
const NO_ENV: CheckerEnv = { variables: new Map(), functions: new FunctionRegistry(), typeIdents: new Map() };

class Checker {
  /** made at the parser's id count: every node gets a type, most idents and calls a reference */
  types = new IdMap<CelType>();
  refs = new IdMap<Reference>();
  issues: CelIssue[] = [];
  env = NO_ENV;
  source = NO_SOURCE;
  readonly subst = new Map<string, CelType>();
  /** ids of the nodes whose type may mention a type parameter (set after the first one was made) */
  paramIds: number[] = [];
  /** bindings of one overload trial over arguments without type parameters */
  private scratch: SmallBindings | undefined;
  /** bindings of one overload trial layered over `subst` (reset for each) */
  private trialSubst: TrialSubstitution | undefined;
  /** the overload tables, with their resolution info, of the registry of `env` */
  private tables: TableCache = { registry: undefined, version: -1, byName: new Map() };
  /** local variables in scope (comprehension variables, block slots), innermost last */
  private readonly localNames: string[] = [];
  private readonly localTypes: CelType[] = [];
  private localCount = 0;
  private fresh = 0;

  /** Begins a check of one expression in `env`. */
  start(env: CheckerEnv, source: SourceInfo): void {
    this.env = env;
    this.source = source;
    this.types = new IdMap<CelType>(source.idCount);
    this.refs = new IdMap<Reference>(source.idCount);
    const fns = env.functions;
    if (this.tables.registry !== fns || this.tables.version !== fns.version) this.tables = tableCache(fns);
  }

  /** Lets go of the expression and empties the bindings, scopes and issues for the next check. */
  finish(): void {
    this.env = NO_ENV;
    this.source = NO_SOURCE;
    if (this.issues.length !== 0) this.issues = [];
    if (this.subst.size !== 0) this.subst.clear();
    if (this.paramIds.length !== 0) this.paramIds = [];
    this.localCount = 0;
    this.fresh = 0;
  }

  private error(e: Expr, message: string): CelType {
    this.issues.push({ message, exprId: e.id, offset: this.source.positions.get(e.id) ?? 0 });
    return T.error;
  }

  /** Records the type of node `id`. Callers read the id where the node's kind is known: a read shared by every kind of node is slow. */
  private set(id: number, t: CelType): CelType {
    this.types.set(id, t);
    if (this.fresh !== 0 && mayMentionParam(t)) this.paramIds.push(id);
    return t;
  }

  /** A trial over `subst` with no bindings of its own. */
  private trial(): TrialSubstitution {
    const t = (this.trialSubst ??= new TrialSubstitution(this.subst));
    t.reset();
    return t;
  }

  /** The overloads of `fn` of this arity and form, with what resolution derives from them. */
  private table(fn: string, member: boolean, arity: number): TableInfo {
    const cache = this.tables.byName;
    let forms = cache.get(fn);
    if (forms === undefined) cache.set(fn, (forms = []));
    const k = arity * 2 + (member ? 1 : 0);
    return (forms[k] ??= tableInfo(fn, this.env.functions.overloads(fn, member, arity)));
  }

  private lookupLocal(name: string): CelType | undefined {
    const names = this.localNames;
    for (let i = this.localCount - 1; i >= 0; i--) if (names[i] === name) return this.localTypes[i];
    return undefined;
  }

  private declareLocal(name: string, t: CelType): void {
    this.localNames[this.localCount] = name;
    this.localTypes[this.localCount++] = t;
  }

  /** Drops the locals declared since the stack held `depth` of them (the arrays keep their length). */
  private dropLocals(depth: number): void {
    this.localCount = depth;
  }

  isVariable(name: string): boolean {
    return this.lookupLocal(name) !== undefined || this.env.variables.has(name);
  }

  /** whether any type parameter was created (otherwise no type needs substituting) */
  get usedParams(): boolean {
    return this.fresh > 0;
  }

  private freshParam(): CelType {
    const n = this.fresh++;
    return T.param(n < PARAM_NAMES.length ? PARAM_NAMES[n]! : `_var${n}`);
  }

  private instantiate(o: OverloadDecl): { params: CelType[]; result: CelType } {
    const names = new SmallBindings();
    const params: CelType[] = [];
    for (const p of o.sig.params) params.push(this.inst(p, names));
    return { params, result: this.inst(o.sig.result, names) };
  }

  /** A declared type with each of its type parameters replaced by a fresh one (the same one per name). */
  private inst(t: CelType, names: SmallBindings): CelType {
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
    // nothing bound yet (most expressions): every type is already final; so are the shared primitive types
    return this.subst.size === 0 || primitiveCode(t) !== 0 ? t : substitute(t, this.subst);
  }

  check(e: Expr): CelType {
    switch (e.kind) {
      case 'const':
        return this.set(e.id, constType(e.value));
      case 'ident':
        return this.set(e.id, this.checkIdent(e, e.name));
      case 'select':
        return this.set(e.id, this.checkSelect(e, false));
      case 'call':
        return this.set(e.id, this.checkCall(e));
      case 'list': {
        let elem: CelType | undefined;
        const els = e.elements;
        for (let i = 0; i < els.length; i++) {
          const el = els[i]!;
          let t = this.check(el);
          if (e.optionalIndices.length !== 0 && e.optionalIndices.includes(i)) {
            const rt = this.resolved(t);
            if (rt.kind === 'opaque' && rt.name === 'optional_type') t = rt.params[0]!;
            else if (!isDynOrError(rt)) t = this.error(el, `expected type 'optional_type' but found '${typeToString(rt)}'`);
          }
          elem = this.joinElem(el, elem, t);
        }
        return this.set(e.id, elem === T.dyn ? LIST_OF_DYN : T.list(elem ?? this.freshParam()));
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
        return this.set(e.id, T.map(kt ?? this.freshParam(), vt ?? this.freshParam()));
      }
      case 'struct': {
        for (const f of e.fields) this.check(f.value);
        return this.set(e.id, this.error(e, `undeclared reference to '${e.typeName}' (in container '')`));
      }
      case 'comprehension':
        return this.set(e.id, this.checkComprehension(e));
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

  /** `rootPlain`: the chain's root is known to start no dotted name, so no part of it is a qualified name. */
  private checkSelect(e: Expr & { kind: 'select' }, rootPlain: boolean): CelType {
    // qualified identifiers: a.b.c where a is not a variable
    const q = e.testOnly || rootPlain ? undefined : qualifiedName(e, this.env.qualifiedRoots);
    if (q !== undefined) {
      const root = chainRoot(e)!;
      if (this.env.variables.has(q) || (!this.isVariable(root) && this.env.typeIdents.has(q))) {
        return this.checkIdent(e, q);
      }
    }
    const op = e.operand;
    // qualifiedName answered without a name: the operand's chain has the same root
    const plain = q === undefined && !e.testOnly && this.env.qualifiedRoots !== undefined;
    const ot = this.resolved(plain && op.kind === 'select' && !op.testOnly ? this.set(op.id, this.checkSelect(op, true)) : this.check(op));
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
    const argTypes = this.checkArgs(target, args);
    const member = target !== undefined;
    const info = this.table(fn, member, argTypes.length);
    const decls = info.decls;
    if (decls.length === 0 && !this.env.functions.has(fn)) {
      return this.error(e, `undeclared reference to '${fn}' (in container '')`);
    }
    let argsHaveParams = false;
    let resolvedArgs = argTypes;
    if (this.subst.size !== 0) {
      resolvedArgs = argTypes.slice();
      for (let i = 0; i < resolvedArgs.length; i++) resolvedArgs[i] = this.resolved(resolvedArgs[i]!);
    }
    for (let i = 0; i < resolvedArgs.length; i++) if (hasParam(resolvedArgs[i]!)) argsHaveParams = true;
    // calls on the shared primitive types resolve the same way every time: answered from the table's memo
    const memoKey = argsHaveParams ? -1 : primitivesKey(resolvedArgs);
    if (memoKey >= 0) {
      const hit = info.memo[memoKey];
      if (hit !== undefined) {
        this.refs.set(e.id, info.reference(hit.matched));
        return hit.result;
      }
    }
    let pure = true;
    const candidates = info.candidates(resolvedArgs);
    // matches are recorded as a bit set over the table (tables hold few overloads), the ids built once per set
    let matched = 0;
    let overflow: OverloadDecl[] | undefined;
    let result: CelType | undefined;
    // only the candidates' bits are visited, lowest first (tables such as _+_'s hold many overloads)
    const n = decls.length;
    const some = candidates >= 0;
    for (let i = some ? nextCandidate(candidates, -1, n) : 0; i < n; i = some ? nextCandidate(candidates, i, n) : i + 1) {
      const o = decls[i]!;
      if (!some && !kindsMayMatch(o.sig.params, resolvedArgs)) continue;
      const generic = info.generic[i]!;
      let rt: CelType | undefined;
      if (generic && !argsHaveParams) {
        // arguments without type parameters: the signature's own parameter names can be bound in a
        // scratch table, with no fresh names and nothing to commit, unless the result keeps one unbound
        const local = (this.scratch ??= new SmallBindings());
        local.clear();
        if (!allAssignable(o.sig.params, resolvedArgs, local)) continue;
        rt = substitute(o.sig.result, local);
        if (hasParam(rt)) rt = undefined;
      } else if (generic) {
        // arguments with type parameters (a macro's accumulator): the signature's own names (one capital
        // letter) cannot clash with the checker's (_var0, ...), so they are bound in the trial without
        // instantiating the signature and only the checker's bindings are committed, unless a result or
        // a binding keeps a signature name (then the signature is instantiated below)
        pure = false;
        const trial = this.trial();
        if (!allAssignable(o.sig.params, argTypes, trial)) continue;
        rt = substitute(o.sig.result, trial);
        if (mentionsSignatureParam(rt) || trial.freshBoundToSignature()) rt = undefined;
        else if (matched === 0 && overflow === undefined) trial.commitFresh();
      }
      if (rt === undefined) {
        // fresh type parameters or bindings may be made: the outcome is this call's own
        if (generic || argsHaveParams) pure = false;
        const inst = generic ? this.instantiate(o) : o.sig;
        // bindings are only made when a type parameter is involved; otherwise check in place
        const trial = generic || argsHaveParams ? this.trial() : this.subst;
        if (!allAssignable(inst.params, argTypes, trial)) continue;
        // commit the bindings of the first match; later matches only widen the result
        if (matched === 0 && overflow === undefined && trial instanceof TrialSubstitution) trial.commit();
        rt = substitute(inst.result, trial);
      }
      if (i < 31) matched |= 1 << i;
      else (overflow ??= []).push(o);
      result = result === undefined ? rt : typeEquals(result, rt) ? result : T.dyn;
    }
    if (matched === 0 && overflow === undefined) {
      const shown = argTypes.map((t) => typeToString(substitute(t, this.subst, true)));
      const applied = member ? `${shown[0]}.(${shown.slice(1).join(', ')})` : `(${shown.join(', ')})`;
      return this.error(e, `found no matching overload for '${fn}' applied to '${applied}'`);
    }
    if (memoKey >= 0 && pure && overflow === undefined) info.memo[memoKey] = { matched, result: result! };
    this.refs.set(e.id, overflow === undefined ? info.reference(matched) : matchedReference(fn, decls, matched, overflow));
    return result!;
  }

  /** The types of a call's receiver and arguments, in an array made at its length (up to three, most calls) rather than grown. */
  private checkArgs(target: Expr | undefined, args: readonly Expr[]): CelType[] {
    const n = args.length;
    if (target === undefined) {
      if (n === 1) return [this.check(args[0]!)];
      if (n === 2) {
        const a = this.check(args[0]!);
        return [a, this.check(args[1]!)];
      }
      if (n === 3) {
        const a = this.check(args[0]!);
        const b = this.check(args[1]!);
        return [a, b, this.check(args[2]!)];
      }
    } else {
      const r = this.check(target);
      if (n === 0) return [r];
      if (n === 1) return [r, this.check(args[0]!)];
      if (n === 2) {
        const a = this.check(args[0]!);
        return [r, a, this.check(args[1]!)];
      }
    }
    const types: CelType[] = [];
    if (target) types.push(this.check(target));
    for (let i = 0; i < n; i++) types.push(this.check(args[i]!));
    return types;
  }

  /** Slot i sees slots 0..i-1; the result sees them all. The slot list itself is not a value. */
  private checkBlock(slots: Expr & { kind: 'list' }, result: Expr): CelType {
    const depth = this.localCount;
    slots.elements.forEach((el, i) => {
      let t = this.check(el);
      if (slots.optionalIndices.includes(i)) {
        const rt = this.resolved(t);
        t = rt.kind === 'opaque' && rt.name === 'optional_type' ? rt.params[0]! : T.dyn;
      }
      this.declareLocal(blockIndexName(i), t);
    });
    this.set(slots.id, T.list(T.dyn));
    const t = this.check(result);
    this.dropLocals(depth);
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
    const depth = this.localCount;
    this.declareLocal(e.accuVar, accuType);
    this.declareLocal(e.iterVar, it1);
    if (e.iterVar2 !== undefined) this.declareLocal(e.iterVar2, it2 ?? T.dyn);
    const ct = this.check(e.loopCondition);
    if (!isAssignable(T.bool, ct, this.subst)) this.error(e.loopCondition, `expected type 'bool' but found '${typeToString(this.resolved(ct))}'`);
    const st = this.check(e.loopStep);
    if (!isAssignable(accuType, st, this.subst)) {
      this.error(e.loopStep, `expected type '${typeToString(this.resolved(accuType))}' but found '${typeToString(this.resolved(st))}'`);
    }
    // the result sees the accumulator, not the iteration variables
    this.dropLocals(depth + 1);
    const res = this.check(e.result);
    this.dropLocals(depth);
    return res;
  }
}

function allAssignable(params: readonly CelType[], args: readonly CelType[], s: Substitution): boolean {
  for (let i = 0; i < params.length; i++) if (!isAssignable(params[i]!, args[i]!, s)) return false;
  return true;
}

/** The index of the lowest bit of `mask` above bit `i` (-1: the lowest of all), `end` when there is none. */
function nextCandidate(mask: number, i: number, end: number): number {
  const m = i < 0 ? mask : mask & ~((2 << i) - 1);
  return m === 0 ? end : 31 - Math.clz32(m & -m);
}

/** Whether a type mentions any type parameter. */
function hasParam(t: CelType): boolean {
  switch (t.kind) {
    case 'param':
      return true;
    case 'list':
      return hasParam(t.elem);
    case 'map':
      return hasParam(t.key) || hasParam(t.value);
    case 'type':
      return t.param !== undefined && hasParam(t.param);
    case 'opaque':
      for (let i = 0; i < t.params.length; i++) if (hasParam(t.params[i]!)) return true;
      return false;
    default:
      return false;
  }
}

function sigHasParams(o: OverloadDecl): boolean {
  return o.sig.params.some(hasParam) || hasParam(o.sig.result);
}

/**
 * What overload resolution needs of one overload table (a function's overloads of one
 * arity and form), derived once per table: which overloads are generic, and the
 * reference recorded for each set of matches (most calls match the same one or few).
 */
class TableInfo {
  readonly generic: boolean[];
  /** the reference of each single match, by overload index */
  private readonly single: (Reference | undefined)[] = [];
  private readonly multiple = new Map<number, Reference>();
  /** overloads whose parameter kinds can take arguments of given kinds (see kindsKey), as bit sets: by key up to two arguments (+1, 0 when not yet known), else in the map */
  private byKinds2: Int32Array | undefined;
  private readonly byKinds = new Map<number, number>();
  /** matches and result type by argument types, for arguments of the shared primitive types (see primitivesKey: the keys of one and two arguments are below 156) */
  readonly memo: ({ matched: number; result: CelType } | undefined)[] = [];
  constructor(
    readonly fn: string,
    readonly decls: readonly OverloadDecl[],
  ) {
    this.generic = decls.map(sigHasParams);
  }
  /** The overloads worth trying for these argument types, as a bit set (every overload when there are more than 31). */
  candidates(args: readonly CelType[]): number {
    const decls = this.decls;
    const key = decls.length <= 31 ? kindsKey(args) : -1;
    if (key < 0) return -1;
    if (key < KINDS_KEYS_2) {
      const known = (this.byKinds2 ??= new Int32Array(KINDS_KEYS_2));
      const m = known[key]!;
      if (m !== 0) return m - 1;
      const mask = this.kindsMask(args);
      known[key] = mask + 1;
      return mask;
    }
    let mask = this.byKinds.get(key);
    if (mask === undefined) this.byKinds.set(key, (mask = this.kindsMask(args)));
    return mask;
  }
  private kindsMask(args: readonly CelType[]): number {
    const decls = this.decls;
    let mask = 0;
    for (let i = 0; i < decls.length; i++) if (kindsMayMatch(decls[i]!.sig.params, args)) mask |= 1 << i;
    return mask;
  }
  /** The reference for the overloads whose bits are set in `matched` (shared: read-only). */
  reference(matched: number): Reference {
    if ((matched & (matched - 1)) === 0) {
      const i = 31 - Math.clz32(matched);
      return (this.single[i] ??= matchedReference(this.fn, this.decls, matched, undefined));
    }
    let r = this.multiple.get(matched);
    if (r === undefined) this.multiple.set(matched, (r = matchedReference(this.fn, this.decls, matched, undefined)));
    return r;
  }
}

/** Codes of the argument kinds overload pre-selection tells apart; the other kinds (dyn, null, type, params, errors) are 0. */
function kindCode(kind: CelType['kind']): number {
  switch (kind) {
    case 'int':
      return 1;
    case 'uint':
      return 2;
    case 'double':
      return 3;
    case 'string':
      return 4;
    case 'bytes':
      return 5;
    case 'bool':
      return 6;
    case 'timestamp':
      return 7;
    case 'duration':
      return 8;
    case 'list':
      return 9;
    case 'map':
      return 10;
    case 'object':
      return 11;
    case 'opaque':
      return 12;
    default:
      return 0;
  }
}

/**
 * The code of a shared primitive type or list(dyn) (by identity: types from schemas carry metadata and are never these), 0 for any other type.
 * Compared by identity alone, the most common first: reading `kind` from types of many shapes is slower than ten comparisons.
 */
function primitiveCode(t: CelType): number {
  if (t === T.string) return 4;
  if (t === T.int) return 1;
  if (t === T.bool) return 6;
  if (t === T.dyn) return 10;
  if (t === T.double) return 3;
  if (t === T.uint) return 2;
  if (t === T.bytes) return 5;
  if (t === T.null) return 7;
  if (t === T.timestamp) return 8;
  if (t === T.duration) return 9;
  if (t === LIST_OF_DYN) return 11;
  return 0;
}

/** The argument types as one number when each is a shared primitive type and there are at most four, else -1. */
function primitivesKey(args: readonly CelType[]): number {
  if (args.length > 4) return -1;
  let key = 0;
  for (let i = 0; i < args.length; i++) {
    const c = primitiveCode(args[i]!);
    if (c === 0) return -1;
    key = key * 12 + c;
  }
  return key;
}

/** Keys of up to two arguments are below this (13 × 13). */
const KINDS_KEYS_2 = 169;

/** The argument kinds as one number, or -1 beyond four arguments. */
function kindsKey(args: readonly CelType[]): number {
  if (args.length > 4) return -1;
  let key = 0;
  for (let i = 0; i < args.length; i++) key = key * 13 + kindCode(args[i]!.kind);
  return key;
}

function matchedReference(fn: string, decls: readonly OverloadDecl[], matched: number, overflow: OverloadDecl[] | undefined): Reference {
  const ds: OverloadDecl[] = [];
  for (let i = 0; i < decls.length && i < 31; i++) if (matched & (1 << i)) ds.push(decls[i]!);
  if (overflow) ds.push(...overflow);
  // shared by every call with these matches: read-only by contract (frozen arrays iterate more slowly)
  return { name: fn, overloads: ds.map((d) => d.id), decls: ds, table: decls };
}

/** Whether a type can mention a type parameter (primitives, objects and errors never do). */
function mayMentionParam(t: CelType): boolean {
  switch (t.kind) {
    case 'param':
    case 'list':
    case 'map':
    case 'opaque':
    case 'type':
      return true;
    default:
      return false;
  }
}

/** A registry's overload tables by function name, then arity × 2 + member, with their info; dropped when the registry changes. */
interface TableCache {
  registry: FunctionRegistry | undefined;
  version: number;
  byName: Map<string, (TableInfo | undefined)[]>;
}
const tableCaches = new WeakMap<FunctionRegistry, TableCache>();
function tableCache(fns: FunctionRegistry): TableCache {
  let c = tableCaches.get(fns);
  if (c === undefined || c.version !== fns.version) tableCaches.set(fns, (c = { registry: fns, version: fns.version, byName: new Map() }));
  return c;
}

/** Overload tables are immutable once built (see FunctionRegistry.overloads): their info is kept beside them. */
const tableInfos = new WeakMap<readonly OverloadDecl[], TableInfo>();
function tableInfo(fn: string, decls: readonly OverloadDecl[]): TableInfo {
  let info = tableInfos.get(decls);
  if (info === undefined) tableInfos.set(decls, (info = new TableInfo(fn, decls)));
  return info;
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

// A CEL environment: declared variables, function libraries and language
// options. compile() parses, checks and plans once; the resulting program
// evaluates many times and returns values or errors (never throws for CEL
// errors), with the runtime cost of each evaluation.

import { formatIssues, type CelIssue, type Expr, type SourceInfo } from './ast';
import { check, type CheckedAst, type CheckerEnv } from './checker/checker';
import { NameSet } from './common/names';
import { T, type CelType } from './common/types';
import { CelError, CelTypeValue, fromJson, type CelValue } from './common/values';
import { FunctionRegistry, type Library, type OverloadDecl } from './interpreter/functions';
import { CostLimitExceeded, Frame, plan, type Interpretable, type PlanOptions } from './interpreter/planner';
import { walk } from './interpreter/walk';
import { TYPE_IDENTS, optionalLibrary, standardLibrary } from './library/stdlib';
import { parse } from './parser/parser';

export interface EnvOptions {
  variables?: Record<string, CelType>;
  /** a frozen list is declared once and its registry shared by every environment built from it */
  libraries?: readonly Library[];
  /** reject mixed-type list and map literals (Kubernetes enables this) */
  homogeneousLiterals?: boolean;
  /** cel.bind macro (not part of the Kubernetes environments) */
  enableBind?: boolean;
  /** cel-go PresenceTestHasCost; Kubernetes uses false */
  presenceTestHasCost?: boolean;
  /** skip type checking (variables are dynamic) */
  disableCheck?: boolean;
  /** plan without fused attribute chains and literal comparisons (to cross-check them) */
  unspecialized?: boolean;
  /**
   * evaluate a program's first run by walking its AST and plan it on its second (default true);
   * false plans when compiling
   */
  tiered?: boolean;
  /** how many compile results to keep by source text (default 256; 0 disables the cache) */
  compileCacheSize?: number;
  /** cel-go's OptOptimize, as the API server's programs run: constant literals and conversions built once, free at runtime */
  optimize?: boolean;
  /** reprices an overload of a function (the API server's library cost estimator) */
  pricing?: (name: string, o: OverloadDecl) => OverloadDecl;
}

export const DEFAULT_COMPILE_CACHE_SIZE = 256;

const BIND_ENABLED = Object.freeze({ enableBind: true });
const BIND_DISABLED = Object.freeze({ enableBind: false });

type Pricing = NonNullable<EnvOptions['pricing']>;

/** The standard and optional libraries every environment declares, built once: libraries are immutable. */
let builtins: Library[] | undefined;

/**
 * Registries by library list and pricing. A registry is never changed once its
 * environment is built, so environments made from the same list (the API
 * server builds one per CRD schema and per policy) share one registry and the
 * overload tables derived from it, instead of re-declaring every library.
 */
const sharedRegistries = new WeakMap<readonly Library[], Map<Pricing | undefined, FunctionRegistry>>();

function registryFor(libraries: readonly Library[] | undefined, pricing: Pricing | undefined): FunctionRegistry {
  const build = (): FunctionRegistry => {
    const r = new FunctionRegistry();
    for (const lib of (builtins ??= [standardLibrary(), optionalLibrary()])) r.add(lib);
    for (const lib of libraries ?? []) r.add(lib);
    r.pricing = pricing;
    return r;
  };
  if (libraries === undefined || !Object.isFrozen(libraries)) return build();
  let byPricing = sharedRegistries.get(libraries);
  if (byPricing === undefined) sharedRegistries.set(libraries, (byPricing = new Map()));
  let r = byPricing.get(pricing);
  if (r === undefined) byPricing.set(pricing, (r = build()));
  return r;
}

export interface CompileOptions {
  /** false compiles afresh and leaves the cache alone (default true) */
  cache?: boolean;
}

/** An evaluation error with its position in the source. */
export interface CelEvalError {
  message: string;
  exprId: number;
  /** 1-based line and column of the failing sub-expression, when known */
  line?: number;
  column?: number;
  /** the failing sub-expression's source text */
  subExpression?: string;
  /** cel-go style display: `ERROR: <input>:1:5: msg` with a caret snippet */
  display?: string;
  /** true when evaluation stopped because the cost limit was exceeded */
  costLimitExceeded?: boolean;
}

export type CelResult =
  | { ok: true; value: CelValue; cost: number }
  | { ok: false; error: CelEvalError; cost: number };

export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

export interface CompileResult {
  program?: CelProgram;
  issues: CelIssue[];
  /** formatted issues, cel-go style */
  message?: string;
  ast?: CheckedAst;
  parsed?: Expr;
  source: SourceInfo;
}

/** Declarations (variables, type names, libraries) are fixed once the environment is built: compile results and the tables derived from them are cached. */
export class CelEnv {
  /** shared with every environment built from the same frozen library list: do not change */
  readonly functions: FunctionRegistry;
  readonly variables: Map<string, CelType>;
  readonly typeIdents = new Map<string, CelType>([
    ['int', T.int],
    ['uint', T.uint],
    ['double', T.double],
    ['bool', T.bool],
    ['string', T.string],
    ['bytes', T.bytes],
    ['null_type', T.null],
    ['list', T.list(T.dyn)],
    ['map', T.map(T.dyn, T.dyn)],
    ['type', T.type()],
    ['optional_type', T.optional(T.dyn)],
    ['google.protobuf.Timestamp', T.timestamp],
    ['google.protobuf.Duration', T.duration],
  ]);

  /**
   * Compile results by source text, least recently used first. The API server
   * compiles each rule once, the workbench recompiles as the user types: both
   * ask for the same texts again and again.
   */
  private readonly cache = new Map<string, CompileResult>();
  private readonly cacheSize: number;
  /** runtime values of the library type identifiers */
  readonly libraryTypes = new Map<string, CelTypeValue>();
  /** derived once from the declarations, on first compile */
  private variableNames: Set<string> | undefined;
  private checkerEnv: CheckerEnv | undefined;
  private roots: NameSet | undefined;

  constructor(readonly options: EnvOptions = {}) {
    this.variables = new Map(Object.entries(options.variables ?? {}));
    this.functions = registryFor(options.libraries, options.pricing);
    for (const lib of options.libraries ?? []) {
      for (const name of lib.types ?? []) {
        this.typeIdents.set(name, T.opaque(name));
        this.libraryTypes.set(name, new CelTypeValue(name));
      }
    }
    this.cacheSize = Math.max(0, options.compileCacheSize ?? DEFAULT_COMPILE_CACHE_SIZE);
  }

  /** A new environment with more variables (libraries and options shared). */
  extend(variables: Record<string, CelType>): CelEnv {
    return new CelEnv({ ...this.options, variables: { ...Object.fromEntries(this.variables), ...variables } });
  }

  /** Number of compile results held by the cache. */
  get cachedPrograms(): number {
    return this.cache.size;
  }

  /**
   * Parses, checks and plans `text`. Results (programs and errors alike) are
   * cached by text, so a repeated compile returns the same result object:
   * treat it as read-only. A program may be evaluated by any number of callers.
   */
  compile(text: string, opts: CompileOptions = {}): CompileResult {
    if (this.cacheSize === 0 || opts.cache === false) return this.compileUncached(text);
    const hit = this.cache.get(text);
    if (hit !== undefined) {
      // refresh: Map iteration order is insertion order, so the first key is the least recently used
      this.cache.delete(text);
      this.cache.set(text, hit);
      return hit;
    }
    const r = this.compileUncached(text);
    if (this.cache.size >= this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(text, r);
    return r;
  }

  /** First segments of dotted variable, type and function names: only chains rooted there may be qualified names. */
  private qualifiedRoots(): NameSet {
    if (this.roots === undefined) {
      const roots = NameSet.of(this.functions.qualifiedRoots());
      const add = (name: string): void => {
        const dot = name.indexOf('.');
        if (dot > 0) roots.add(name.slice(0, dot));
      };
      for (const name of this.variables.keys()) add(name);
      for (const name of this.typeIdents.keys()) add(name);
      for (const name of Object.keys(TYPE_IDENTS)) add(name);
      this.roots = roots;
    }
    return this.roots;
  }

  private compileUncached(text: string): CompileResult {
    const parsed = parse(text, this.options.enableBind ? BIND_ENABLED : BIND_DISABLED);
    if (!parsed.expr) {
      return { issues: parsed.issues, message: formatIssues(parsed.issues, parsed.source), source: parsed.source };
    }
    let checked: CheckedAst | undefined;
    if (!this.options.disableCheck) {
      const r = check(
        parsed.expr,
        parsed.source,
        (this.checkerEnv ??= {
          variables: this.variables,
          functions: this.functions,
          homogeneousLiterals: this.options.homogeneousLiterals,
          typeIdents: this.typeIdents,
          qualifiedRoots: this.qualifiedRoots(),
        }),
      );
      if (!r.ast) return { issues: r.issues, message: formatIssues(r.issues, parsed.source), source: parsed.source, parsed: parsed.expr };
      checked = r.ast;
    }
    const planOptions: PlanOptions = {
      functions: this.functions,
      checked,
      variables: (this.variableNames ??= new Set(this.variables.keys())),
      presenceTestHasCost: this.options.presenceTestHasCost ?? false,
      specialize: !this.options.unspecialized,
      qualifiedRoots: this.qualifiedRoots(),
      libraryTypes: this.libraryTypes,
      optimize: this.options.optimize ?? false,
    };
    const program = new CelProgram(planOptions, parsed.source, parsed.expr);
    if (this.options.tiered === false) program.plan();
    return { program, issues: [], ast: checked, parsed: parsed.expr, source: parsed.source };
  }
}

export interface EvalOptions {
  /** per-call cost limit; exceeding it stops evaluation */
  costLimit?: number;
}

const NO_VARS: Record<string, CelValue | undefined> = {};

function costLimitResult(e: CostLimitExceeded): CelResult {
  return { ok: false, cost: e.cost, error: { message: COST_LIMIT_MESSAGE, exprId: 0, costLimitExceeded: true } };
}

/**
 * A compiled expression. Its first evaluation walks the AST (walk.ts), so an
 * expression evaluated once is never planned; the second plans it into
 * closures that every later evaluation runs.
 */
export class CelProgram {
  constructor(
    private readonly planOptions: PlanOptions,
    readonly source: SourceInfo,
    readonly expr: Expr,
  ) {}

  private root: Interpretable | undefined;
  private slotCount = 0;
  private walked = false;
  /** a frame kept between evaluations; a nested or concurrent evaluation gets its own */
  private spare: Frame | undefined;

  /** whether the plan is built (evaluations after the first run it) */
  get planned(): boolean {
    return this.root !== undefined;
  }

  /** Plans the program now (its evaluations then all run the plan). */
  plan(): void {
    if (this.root !== undefined) return;
    const p = plan(this.expr, this.planOptions);
    this.slotCount = p.slotCount;
    this.root = p.root;
  }

  /** Evaluates with variables that are already CEL values. */
  eval(vars: Record<string, CelValue | undefined>, opts: EvalOptions = {}): CelResult {
    const limit = opts.costLimit ?? Infinity;
    if (this.root === undefined) {
      if (!this.walked) {
        this.walked = true;
        const r = this.walk(vars, limit);
        if (r !== undefined) return r;
      }
      this.plan();
    }
    let f = this.spare;
    if (f === undefined) f = new Frame(vars, limit, this.slotCount);
    else {
      this.spare = undefined;
      f.vars = vars;
      f.limit = limit;
      f.cost = 0;
    }
    let v: CelValue;
    try {
      v = this.root!(f);
    } catch (e) {
      if (e instanceof CostLimitExceeded) return costLimitResult(e);
      // a fault of the engine itself (deep recursion included) is still an evaluation error, never a crash of the caller
      return { ok: false, cost: f.cost, error: this.describe(new CelError(e instanceof RangeError ? 'max recursion depth exceeded' : `internal error: ${String(e)}`)) };
    }
    const cost = f.cost;
    f.vars = NO_VARS;
    f.alt = null;
    if (this.slotCount !== 0) f.slots.fill(null);
    this.spare = f;
    return this.result(v, cost);
  }

  /** The first evaluation, over the AST; undefined when the walk leaves the expression (or a fault of its own) to the plan. */
  private walk(vars: Record<string, CelValue | undefined>, limit: number): CelResult | undefined {
    const f = new Frame(vars, limit, 0);
    let v: CelValue;
    try {
      v = walk(this.expr, this.planOptions, f);
    } catch (e) {
      if (e instanceof CostLimitExceeded) return costLimitResult(e);
      // NotInterpreted, or a fault (deep recursion): the plan evaluates afresh and answers as it always does
      return undefined;
    }
    return this.result(v, f.cost);
  }

  private result(v: CelValue, cost: number): CelResult {
    if (v instanceof CelError) return { ok: false, cost, error: this.describe(v) };
    return { ok: true, value: v, cost };
  }

  /** Evaluates with JSON variables (as decoded from a request body). */
  evalJson(vars: Record<string, unknown>, opts: EvalOptions = {}): CelResult {
    const adapted: Record<string, CelValue> = {};
    for (const k of Object.keys(vars)) adapted[k] = fromJson(vars[k]);
    return this.eval(adapted, opts);
  }

  private describe(e: CelError): CelEvalError {
    const out: CelEvalError = { message: e.message, exprId: e.exprId };
    const offset = this.source.positions.get(e.exprId);
    if (offset !== undefined) {
      const loc = this.source.location(offset);
      out.line = loc.line;
      out.column = loc.column + 1;
      out.display = formatIssues([{ message: e.message, exprId: e.exprId, offset }], this.source);
      out.subExpression = subExpressionText(this.expr, e.exprId, this.source);
    }
    return out;
  }
}

/** Source text of the node with the given id (from its first to its last offset). */
function subExpressionText(root: Expr, id: number, source: SourceInfo): string | undefined {
  let found: Expr | undefined;
  const walk = (e: Expr): void => {
    if (found) return;
    if (e.id === id) {
      found = e;
      return;
    }
    switch (e.kind) {
      case 'select':
        walk(e.operand);
        break;
      case 'call':
        if (e.target) walk(e.target);
        e.args.forEach(walk);
        break;
      case 'list':
        e.elements.forEach(walk);
        break;
      case 'map':
        e.entries.forEach((x) => (walk(x.key), walk(x.value)));
        break;
      case 'comprehension':
        [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result].forEach(walk);
        break;
      default:
    }
  };
  walk(root);
  if (!found) return undefined;
  let lo = Infinity;
  let hi = -Infinity;
  const span = (e: Expr): void => {
    const o = source.positions.get(e.id);
    if (o !== undefined) {
      lo = Math.min(lo, o);
      hi = Math.max(hi, o);
    }
    switch (e.kind) {
      case 'select':
        span(e.operand);
        break;
      case 'call':
        if (e.target) span(e.target);
        e.args.forEach(span);
        break;
      default:
    }
  };
  span(found);
  if (!Number.isFinite(lo)) return undefined;
  // extend over the last token, then close the brackets opened inside the span
  const text = source.text;
  // a global call is positioned at its parenthesis: take in the function name
  while (lo > 0 && /[\w.]/.test(text[lo - 1]!) && text[lo] === '(') {
    lo--;
    while (lo > 0 && /[\w.]/.test(text[lo - 1]!)) lo--;
  }
  let end = skipToken(text, hi);
  const open: string[] = [];
  for (let i = lo; i < end; i = skipToken(text, i) > i + 1 && isQuoteStart(text, i) ? skipToken(text, i) : i + 1) {
    const c = text[i]!;
    if (c === '(' || c === '[' || c === '{') open.push(c);
    else if (c === ')' || c === ']' || c === '}') open.pop();
  }
  while (open.length > 0 && end < text.length) {
    if (isQuoteStart(text, end)) {
      end = skipToken(text, end);
      continue;
    }
    const c = text[end]!;
    if (c === '(' || c === '[' || c === '{') open.push(c);
    else if (c === ')' || c === ']' || c === '}') open.pop();
    end++;
  }
  return text.slice(lo, end).trim();
}

/** Does a string or bytes literal (with its r/b prefixes) start at i? */
function isQuoteStart(text: string, i: number): boolean {
  let j = i;
  while (j < i + 2 && /[rRbB]/.test(text[j] ?? '')) j++;
  return (text[j] === '"' || text[j] === "'") && (j === i || !/\w/.test(text[i - 1] ?? ''));
}

/** End of the token at i: a whole string literal (escapes, triple quotes), else identifier and number characters. */
function skipToken(text: string, i: number): number {
  if (isQuoteStart(text, i)) {
    let j = i;
    while (/[rRbB]/.test(text[j]!)) j++;
    const raw = /[rR]/.test(text.slice(i, j));
    const q = text[j]!;
    const triple = text.startsWith(q.repeat(3), j);
    const close = triple ? q.repeat(3) : q;
    j += close.length;
    while (j < text.length && !text.startsWith(close, j)) j += !raw && text[j] === '\\' ? 2 : 1;
    return Math.min(text.length, j + close.length);
  }
  let j = i;
  while (j < text.length && /[\w.]/.test(text[j]!)) j++;
  return j === i ? i + 1 : j;
}

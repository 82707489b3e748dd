// Macro expansion into comprehensions, matching cel-go's expansions so that
// runtime cost (which charges every evaluated node) matches the API server.

import { ACCU_VAR, callExpr, comprehensionExpr, constExpr, identExpr, listExpr, mapExpr, selectExpr, type ComprehensionExpr, type Expr } from '../ast';

export interface MacroHelper {
  id(offset: number): number;
  report(message: string, offset: number): Expr;
  bindEnabled(): boolean;
  sourceOffset(e: Expr): number;
  readonly source: { recordMacro(id: number, fn: string, target: Expr | undefined, args: Expr[]): void };
}

type Builder = (h: MacroHelper, offset: number, target: Expr | undefined, args: Expr[]) => Expr | undefined;

function ident(h: MacroHelper, name: string, offset: number): Expr {
  return identExpr(h.id(offset), name);
}
function call(h: MacroHelper, fn: string, offset: number, args: Expr[], target?: Expr): Expr {
  // one shape for every call node (see Parser.call)
  return callExpr(h.id(offset), fn, target, args);
}
/** A fresh reference to the accumulator. */
function accu(h: MacroHelper, offset: number): Expr {
  return ident(h, ACCU_VAR, offset);
}
function lit(h: MacroHelper, value: boolean | bigint, offset: number): Expr {
  return constExpr(h.id(offset), value);
}
function list(h: MacroHelper, offset: number, elements: Expr[]): Expr {
  return listExpr(h.id(offset), elements, []);
}

function varName(h: MacroHelper, e: Expr): string | Expr {
  if (e.kind !== 'ident') return h.report('argument must be a simple name', h.sourceOffset(e));
  if (e.name === ACCU_VAR || e.name === '__result__') {
    return h.report('iteration variable overwrites accumulator variable', h.sourceOffset(e));
  }
  return e.name;
}

function comprehension(
  h: MacroHelper,
  offset: number,
  iterRange: Expr,
  iterVar: string,
  iterVar2: string | undefined,
  accuInit: Expr,
  loopCondition: Expr,
  loopStep: Expr,
  result: Expr,
  accuVar = ACCU_VAR,
): ComprehensionExpr {
  return comprehensionExpr(h.id(offset), iterVar, iterVar2, iterRange, accuVar, accuInit, loopCondition, loopStep, result);
}

type Quantifier = 'all' | 'exists' | 'exists_one';

function quantifier(kind: Quantifier, twoVar: boolean): Builder {
  return (h, offset, target, args) => {
    if (!target) return undefined;
    const v1 = varName(h, args[0]!);
    if (typeof v1 !== 'string') return v1;
    let v2: string | undefined;
    if (twoVar) {
      const v = varName(h, args[1]!);
      if (typeof v !== 'string') return v;
      if (v === v1) return h.report(`duplicate variable name: ${v}`, h.sourceOffset(args[1]!));
      v2 = v;
    }
    const pred = args[args.length - 1]!;
    switch (kind) {
      case 'all':
        return comprehension(h, offset, target, v1, v2, lit(h, true, offset),
          call(h, '@not_strictly_false', offset, [accu(h, offset)]),
          call(h, '_&&_', offset, [accu(h, offset), pred]), accu(h, offset));
      case 'exists':
        return comprehension(h, offset, target, v1, v2, lit(h, false, offset),
          call(h, '@not_strictly_false', offset, [call(h, '!_', offset, [accu(h, offset)])]),
          call(h, '_||_', offset, [accu(h, offset), pred]), accu(h, offset));
      case 'exists_one':
        return comprehension(h, offset, target, v1, v2, lit(h, 0n, offset), lit(h, true, offset),
          call(h, '_?_:_', offset, [pred, call(h, '_+_', offset, [accu(h, offset), lit(h, 1n, offset)]), accu(h, offset)]),
          call(h, '_==_', offset, [accu(h, offset), lit(h, 1n, offset)]));
    }
  };
}

const mapMacro: Builder = (h, offset, target, args) => {
  if (!target) return undefined;
  const v = varName(h, args[0]!);
  if (typeof v !== 'string') return v;
  const fnExpr = args[args.length - 1]!;
  const append = call(h, '_+_', offset, [accu(h, offset), list(h, offset, [fnExpr])]);
  const step = args.length === 3 ? call(h, '_?_:_', offset, [args[1]!, append, accu(h, offset)]) : append;
  return comprehension(h, offset, target, v, undefined, list(h, offset, []), lit(h, true, offset), step, accu(h, offset));
};

const filterMacro: Builder = (h, offset, target, args) => {
  if (!target) return undefined;
  const v = varName(h, args[0]!);
  if (typeof v !== 'string') return v;
  const append = call(h, '_+_', offset, [accu(h, offset), list(h, offset, [ident(h, v, offset)])]);
  const step = call(h, '_?_:_', offset, [args[1]!, append, accu(h, offset)]);
  return comprehension(h, offset, target, v, undefined, list(h, offset, []), lit(h, true, offset), step, accu(h, offset));
};

function transform(kind: 'list' | 'map' | 'entry'): Builder {
  return (h, offset, target, args) => {
    if (!target) return undefined;
    const v1 = varName(h, args[0]!);
    if (typeof v1 !== 'string') return v1;
    const v2 = varName(h, args[1]!);
    if (typeof v2 !== 'string') return v2;
    if (v1 === v2) return h.report(`duplicate variable name: ${v2}`, h.sourceOffset(args[1]!));
    const fnExpr = args[args.length - 1]!;
    let step: Expr;
    let init: Expr;
    if (kind === 'list') {
      init = list(h, offset, []);
      step = call(h, '_+_', offset, [accu(h, offset), list(h, offset, [fnExpr])]);
    } else {
      init = mapExpr(h.id(offset), []);
      step =
        kind === 'map'
          ? call(h, 'cel.@mapInsert', offset, [accu(h, offset), ident(h, v1, offset), fnExpr])
          : call(h, 'cel.@mapInsert', offset, [accu(h, offset), fnExpr]);
    }
    if (args.length === 4) step = call(h, '_?_:_', offset, [args[2]!, step, accu(h, offset)]);
    return comprehension(h, offset, target, v1, v2, init, lit(h, true, offset), step, accu(h, offset));
  };
}

const hasMacro: Builder = (h, offset, target, args) => {
  if (target) return undefined;
  const a = args[0]!;
  if (a.kind !== 'select' || a.testOnly) return h.report('invalid argument to has() macro', offset);
  return selectExpr(h.id(offset), a.operand, a.field, true);
};

const bindMacro: Builder = (h, offset, target, args) => {
  if (!target || target.kind !== 'ident' || target.name !== 'cel' || !h.bindEnabled()) return undefined;
  const v = varName(h, args[0]!);
  if (typeof v !== 'string') return v;
  return comprehension(h, offset, list(h, offset, []), '#unused', undefined, args[1]!, lit(h, false, offset),
    ident(h, v, offset), args[2]!, v);
};

/** cel.@block: a list of shared sub-expressions (slots) and the expression using them. */
export const BLOCK_FN = 'cel.@block';
/** Identifier of block slot n, as cel-go names it. */
export const blockIndexName = (n: number): string => `@index${n}`;

function isCelNamespace(target: Expr | undefined): boolean {
  return target !== undefined && target.kind === 'ident' && target.name === 'cel';
}

function nonNegativeInt(e: Expr | undefined): number | undefined {
  return e && e.kind === 'const' && typeof e.value === 'bigint' && e.value >= 0n && e.value <= 0xffffffn ? Number(e.value) : undefined;
}

// cel.block([e0, e1, ...], result) with cel.index(n) naming slot n, and
// cel.iterVar(depth, n) / cel.accuVar(depth, n) naming comprehension
// variables: the form cel-go's common-subexpression optimizer emits.
const blockMacro: Builder = (h, offset, target, args) => {
  if (!isCelNamespace(target) || !h.bindEnabled()) return undefined;
  if (args[0]!.kind !== 'list') return h.report('cel.block requires the first arg to be a list literal', h.sourceOffset(args[0]!));
  return call(h, BLOCK_FN, offset, args);
};

const indexMacro: Builder = (h, offset, target, args) => {
  if (!isCelNamespace(target) || !h.bindEnabled()) return undefined;
  const n = nonNegativeInt(args[0]);
  if (n === undefined) return h.report('cel.index requires a single non-negative int constant arg', h.sourceOffset(args[0]!));
  return ident(h, blockIndexName(n), offset);
};

function blockVarMacro(prefix: '@it' | '@ac', name: string): Builder {
  return (h, offset, target, args) => {
    if (!isCelNamespace(target) || !h.bindEnabled()) return undefined;
    const depth = nonNegativeInt(args[0]);
    const n = nonNegativeInt(args[1]);
    if (depth === undefined || n === undefined) return h.report(`${name} requires two non-negative int constant args`, h.sourceOffset(args[0]!));
    return ident(h, `${prefix}:${depth}:${n}`, offset);
  };
}

function optMapMacro(flat: boolean): Builder {
  return (h, offset, target, args) => {
    if (!target) return undefined;
    const v = varName(h, args[0]!);
    if (typeof v !== 'string') return v;
    const bind = comprehension(h, offset, list(h, offset, []), '#unused', undefined,
      call(h, 'value', offset, [], target), lit(h, false, offset), ident(h, v, offset), args[1]!, v);
    const some = flat ? bind : call(h, 'optional.of', offset, [bind]);
    return call(h, '_?_:_', offset, [call(h, 'hasValue', offset, [], target), some, call(h, 'optional.none', offset, [])]);
  };
}

/** math.greatest/least(a, b, c...) -> math.@max/@min over a list when given three or more arguments. */
function mathMacro(internal: string): Builder {
  return (h, offset, target, args) => {
    if (!target || target.kind !== 'ident' || target.name !== 'math' || args.length === 0) return undefined;
    const a = args.length >= 3 ? [list(h, offset, args)] : args;
    return call(h, internal, offset, a);
  };
}

const sortByMacro: Builder = (h, offset, target, args) => {
  if (!target) return undefined;
  const v = varName(h, args[0]!);
  if (typeof v !== 'string') return v;
  const input = '@__sortBy_input__';
  const keys = mapMacro(h, offset, ident(h, input, offset), [args[0]!, args[1]!])!;
  const sorted = call(h, '@sortByAssociatedKeys', offset, [keys], ident(h, input, offset));
  return comprehension(h, offset, list(h, offset, []), '#unused', undefined, target, lit(h, false, offset), ident(h, input, offset), sorted, input);
};

const MACROS: Record<string, Builder | undefined> = {
  'greatest/1': mathMacro('math.@max'),
  'greatest/2': mathMacro('math.@max'),
  'least/1': mathMacro('math.@min'),
  'least/2': mathMacro('math.@min'),
  'sortBy/2': sortByMacro,
  'has/1': hasMacro,
  'all/2': quantifier('all', false),
  'exists/2': quantifier('exists', false),
  'exists_one/2': quantifier('exists_one', false),
  'all/3': quantifier('all', true),
  'exists/3': quantifier('exists', true),
  'exists_one/3': quantifier('exists_one', true),
  'existsOne/3': quantifier('exists_one', true),
  'map/2': mapMacro,
  'map/3': mapMacro,
  'filter/2': filterMacro,
  'transformList/3': transform('list'),
  'transformList/4': transform('list'),
  'transformMap/3': transform('map'),
  'transformMap/4': transform('map'),
  'transformMapEntry/3': transform('entry'),
  'transformMapEntry/4': transform('entry'),
  'bind/3': bindMacro,
  'block/2': blockMacro,
  'index/1': indexMacro,
  'iterVar/2': blockVarMacro('@it', 'cel.iterVar'),
  'accuVar/2': blockVarMacro('@ac', 'cel.accuVar'),
  'optMap/2': optMapMacro(false),
  'optFlatMap/2': optMapMacro(true),
};

/** Macros by name, then by argument count (greatest and least take any count from one up). */
const MACROS_BY_NAME = new Map<string, (Builder | undefined)[]>();
for (const [key, b] of Object.entries(MACROS)) {
  const slash = key.lastIndexOf('/');
  const name = key.slice(0, slash);
  let byArity = MACROS_BY_NAME.get(name);
  if (byArity === undefined) MACROS_BY_NAME.set(name, (byArity = []));
  byArity[Number(key.slice(slash + 1))] = b;
}

/**
 * Macro names by length, as bit sets of their first letters (a, b, c, ... from bit 0): most
 * calls name no macro, and two array reads say so without hashing the name.
 */
const MACRO_INITIALS: number[] = [];
for (const name of MACROS_BY_NAME.keys()) MACRO_INITIALS[name.length] = (MACRO_INITIALS[name.length] ?? 0) | initialBit(name);

function initialBit(name: string): number {
  return 1 << ((name.charCodeAt(0) - 97) & 31);
}

export function expandMacro(h: MacroHelper, fn: string, offset: number, target: Expr | undefined, args: Expr[]): Expr | undefined {
  if (((MACRO_INITIALS[fn.length] ?? 0) & initialBit(fn)) === 0) return undefined;
  const byArity = MACROS_BY_NAME.get(fn);
  if (byArity === undefined) return undefined;
  const b = byArity[args.length] ?? (fn === 'greatest' || fn === 'least' ? byArity[1] : undefined);
  if (!b) return undefined;
  const out = b(h, offset, target, args);
  if (out && out.kind === 'comprehension') h.source.recordMacro(out.id, fn, target, args);
  return out;
}

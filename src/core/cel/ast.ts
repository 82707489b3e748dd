// The CEL abstract syntax tree. Every node carries a numeric id; source
// offsets live in SourceInfo keyed by id, and the checker's results live in
// side tables (type map, reference map) keyed by id too: nodes stay untouched.

import type { CelValue } from './common/values';

export type Expr =
  | ConstExpr
  | IdentExpr
  | SelectExpr
  | CallExpr
  | ListExpr
  | MapExpr
  | StructExpr
  | ComprehensionExpr;

export interface ConstExpr {
  kind: 'const';
  id: number;
  value: CelValue;
}
export interface IdentExpr {
  kind: 'ident';
  id: number;
  name: string;
}
export interface SelectExpr {
  kind: 'select';
  id: number;
  operand: Expr;
  field: string;
  /** has() presence test */
  testOnly: boolean;
}
export interface CallExpr {
  kind: 'call';
  id: number;
  fn: string;
  target?: Expr;
  args: Expr[];
}
export interface ListExpr {
  kind: 'list';
  id: number;
  elements: Expr[];
  /** indices of `?elem` optional entries */
  optionalIndices: number[];
}
export interface MapEntry {
  id: number;
  key: Expr;
  value: Expr;
  optional: boolean;
}
export interface MapExpr {
  kind: 'map';
  id: number;
  entries: MapEntry[];
}
export interface StructField {
  id: number;
  name: string;
  value: Expr;
  optional: boolean;
}
export interface StructExpr {
  kind: 'struct';
  id: number;
  typeName: string;
  fields: StructField[];
}
export interface ComprehensionExpr {
  kind: 'comprehension';
  id: number;
  iterVar: string;
  /** second iteration variable of two-variable comprehensions */
  iterVar2?: string;
  iterRange: Expr;
  accuVar: string;
  accuInit: Expr;
  loopCondition: Expr;
  loopStep: Expr;
  result: Expr;
}

/* Node constructors: each kind is made in one place, so each has one hidden class. */
export function constExpr(id: number, value: CelValue): ConstExpr {
  return { kind: 'const', id, value } as ConstExpr;
}
export function identExpr(id: number, name: string): IdentExpr {
  return { kind: 'ident', id, name } as IdentExpr;
}
export function selectExpr(id: number, operand: Expr, field: string, testOnly: boolean): SelectExpr {
  return { kind: 'select', id, operand, field, testOnly } as SelectExpr;
}
export function callExpr(id: number, fn: string, target: Expr | undefined, args: Expr[]): CallExpr {
  return { kind: 'call', id, fn, target, args } as CallExpr;
}
export function listExpr(id: number, elements: Expr[], optionalIndices: number[]): ListExpr {
  return { kind: 'list', id, elements, optionalIndices } as ListExpr;
}
export function mapExpr(id: number, entries: MapEntry[]): MapExpr {
  return { kind: 'map', id, entries } as MapExpr;
}
export function structExpr(id: number, typeName: string, fields: StructField[]): StructExpr {
  return { kind: 'struct', id, typeName, fields } as StructExpr;
}
export function comprehensionExpr(id: number, iterVar: string, iterVar2: string | undefined, iterRange: Expr, accuVar: string, accuInit: Expr, loopCondition: Expr, loopStep: Expr, result: Expr): ComprehensionExpr {
  return { kind: 'comprehension', id, iterVar, iterVar2, iterRange, accuVar, accuInit, loopCondition, loopStep, result } as ComprehensionExpr;
}

/** Accumulator variable name used by macro expansions (cel-go's). */
export const ACCU_VAR = '@result';

/** A packed array of undefined that side tables start as a copy of. */
const UNSET: undefined[] = Array.from({ length: 512 }, () => undefined);

/**
 * A side table keyed by node id. Ids are small integers handed out in order
 * by the parser, so an array indexed by id replaces a hash map: every compile
 * fills several of these, one entry per node.
 */
export class IdMap<V> {
  private readonly vals: (V | undefined)[];
  /** `capacity`: the highest id expected plus one (the array is made at that length rather than grown id by id) */
  constructor(capacity = 0) {
    // copied from a packed array of undefined: cheaper than new Array(n), and every table's array has
    // the same elements kind from the start, so the stores all tables share see one array shape
    this.vals = capacity <= UNSET.length ? UNSET.slice(0, capacity) : new Array<V | undefined>(capacity);
  }
  get(id: number): V | undefined {
    return id >= 0 && id < this.vals.length ? this.vals[id] : undefined;
  }
  has(id: number): boolean {
    return this.get(id) !== undefined;
  }
  set(id: number, v: V): this {
    this.vals[id] = v;
    return this;
  }
  /** the number of ids set (counted when asked: compiling never asks) */
  get size(): number {
    let n = 0;
    for (const v of this.vals) if (v !== undefined) n++;
    return n;
  }
  *entries(): IterableIterator<[number, V]> {
    for (let i = 0; i < this.vals.length; i++) {
      const v = this.vals[i];
      if (v !== undefined) yield [i, v];
    }
  }
  [Symbol.iterator](): IterableIterator<[number, V]> {
    return this.entries();
  }
  /** Replaces every value by f(value), in place. */
  update(f: (v: V) => V): void {
    const vals = this.vals;
    for (let i = 0; i < vals.length; i++) {
      const v = vals[i];
      if (v !== undefined) vals[i] = f(v);
    }
  }
}

/** Maps node ids to source offsets and offsets to line:column. */
export class SourceInfo {
  /** filled in id order by the parser */
  readonly positions: IdMap<number>;
  private offsets: number[] | undefined;
  /** offsets where each line after the first starts (made on first use: only errors are located) */
  get lineOffsets(): readonly number[] {
    if (this.offsets === undefined) {
      const offsets: number[] = (this.offsets = []);
      const text = this.text;
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) offsets.push(i + 1);
    }
    return this.offsets;
  }
  /** one more than the highest node id the parser handed out */
  idCount = 0;
  private calls: Map<number, Expr> | undefined;
  /** macro calls not yet in `calls`: comprehension id, function, target and arguments, four entries each */
  private pendingMacros: unknown[] | undefined;
  /** macro call nodes by the id of the comprehension they expanded to (built on first use: compiling never reads them) */
  get macroCalls(): Map<number, Expr> {
    const calls = (this.calls ??= new Map());
    const p = this.pendingMacros;
    if (p !== undefined) {
      for (let i = 0; i < p.length; i += 4) calls.set(p[i] as number, callExpr(0, p[i + 1] as string, p[i + 2] as Expr | undefined, p[i + 3] as Expr[]));
      this.pendingMacros = undefined;
    }
    return calls;
  }
  /** Records the call a macro expanded to the comprehension `id`. */
  recordMacro(id: number, fn: string, target: Expr | undefined, args: Expr[]): void {
    (this.pendingMacros ??= []).push(id, fn, target, args);
  }
  constructor(readonly text: string) {
    // ids come about one per two characters of text (macros add a few): most texts never grow the table
    this.positions = new IdMap<number>(Math.min(text.length >> 1, 512) + 16);
  }
  /** 1-based line, 0-based column (cel-go's display adds 1 to the column). */
  location(offset: number): { line: number; column: number } {
    let line = 1;
    let start = 0;
    for (const lo of this.lineOffsets) {
      if (lo > offset) break;
      line++;
      start = lo;
    }
    return { line, column: offset - start };
  }
  lineText(line: number): string {
    const offsets = this.lineOffsets;
    const start = line === 1 ? 0 : offsets[line - 2]!;
    const end = line - 1 < offsets.length ? offsets[line - 1]! - 1 : this.text.length;
    return this.text.slice(start, end);
  }
}

/** One compile-time issue with its location. */
export interface CelIssue {
  message: string;
  exprId: number;
  offset: number;
}

/** Formats issues like cel-go: `ERROR: <input>:1:5: msg\n | src\n | ....^`. */
export function formatIssues(issues: CelIssue[], source: SourceInfo): string {
  return issues
    .map((e) => {
      const { line, column } = source.location(Math.max(0, e.offset));
      let out = `ERROR: <input>:${line}:${column + 1}: ${e.message}`;
      const text = source.lineText(line);
      if (text.length > 0 || source.text.length === 0) {
        // cel-go prints tabs/spaces of the line as dots up to the caret column
        let indicator = '';
        for (let i = 0; i < column; i++) indicator += '.';
        out += `\n | ${text.replace(/\t/g, ' ')}\n | ${indicator}^`;
      }
      return out;
    })
    .join('\n');
}

/** Walks all sub-expressions, pre-order. */
export function visit(e: Expr, f: (e: Expr) => void): void {
  f(e);
  switch (e.kind) {
    case 'select':
      visit(e.operand, f);
      break;
    case 'call':
      if (e.target) visit(e.target, f);
      for (const a of e.args) visit(a, f);
      break;
    case 'list':
      for (const a of e.elements) visit(a, f);
      break;
    case 'map':
      for (const en of e.entries) {
        visit(en.key, f);
        visit(en.value, f);
      }
      break;
    case 'struct':
      for (const fl of e.fields) visit(fl.value, f);
      break;
    case 'comprehension':
      visit(e.iterRange, f);
      visit(e.accuInit, f);
      visit(e.loopCondition, f);
      visit(e.loopStep, f);
      visit(e.result, f);
      break;
  }
}

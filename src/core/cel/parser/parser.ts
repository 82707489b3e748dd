// Recursive-descent CEL parser: tokens -> AST with ids and source offsets.
// Macros (has, all, exists, exists_one, map, filter, cel.bind, optMap,
// optFlatMap and the two-variable comprehensions) expand here, as in cel-go.

import { SourceInfo, callExpr, constExpr, identExpr, listExpr, mapExpr, selectExpr, structExpr, type CelIssue, type Expr, type MapEntry, type StructField } from '../ast';
import { CelError } from '../common/values';
import { Scanner, TK_BYTES, TK_DOUBLE, TK_EOF, TK_ERROR, TK_IDENT, TK_INT, TK_OP, TK_STRING, TK_UINT, codeAt, intLiteral, isIdentPart, isIdentStart, isLiteralPrefix } from './lexer';
import { expandMacro, type MacroHelper } from './macros';

export interface ParseResult {
  expr?: Expr;
  source: SourceInfo;
  issues: CelIssue[];
  /** highest id used, so later passes can allocate fresh ids */
  maxId: number;
}

export interface ParseOptions {
  /** maximum nesting depth of the expression (cel-go default 250; Kubernetes 1.36 uses 250 too) */
  maxRecursionDepth?: number;
  /** names of macros to disable */
  disableMacros?: boolean;
  /** Kubernetes does not enable cel.bind; the plain environment does */
  enableBind?: boolean;
}

/**
 * CEL's reserved words, by length then text: a fresh identifier is compared
 * with at most three words rather than hashed for a set lookup (field names
 * are never looked up by hash anywhere else while compiling), and only with
 * those starting with its first letter.
 */
const RESERVED_BY_LENGTH: readonly (readonly string[] | undefined)[] = (() => {
  const byLength: string[][] = [];
  for (const w of ['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']) {
    (byLength[w.length] ??= []).push(w);
  }
  return byLength;
})();

/** First letters of the reserved words by length, as bit sets (a = bit 0): most names are told apart without a comparison. */
const RESERVED_INITIALS: readonly number[] = Array.from(RESERVED_BY_LENGTH, (words) => (words ?? []).reduce((bits, w) => bits | (1 << ((w.charCodeAt(0) - 97) & 31)), 0));

function isReserved(name: string): boolean {
  const n = name.length;
  if (n >= RESERVED_INITIALS.length || (RESERVED_INITIALS[n]! & (1 << ((name.charCodeAt(0) - 97) & 31))) === 0) return false;
  const words = RESERVED_BY_LENGTH[n]!;
  for (let i = 0; i < words.length; i++) if (words[i] === name) return true;
  return false;
}

const EXPECT_PRIMARY =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

const PREC_RELATION = 1;
const PREC_ADDITION = 2;
const PREC_MULTIPLICATION = 3;

/** The function of a binary operator below the unary level (see binaryPrecedence). */
function binaryFunction(op: string): string | undefined {
  switch (op) {
    case '==':
      return '_==_';
    case '!=':
      return '_!=_';
    case '<':
      return '_<_';
    case '<=':
      return '_<=_';
    case '>':
      return '_>_';
    case '>=':
      return '_>=_';
    case '+':
      return '_+_';
    case '-':
      return '_-_';
    case '*':
      return '_*_';
    case '/':
      return '_/_';
    case '%':
      return '_%_';
    default:
      return undefined;
  }
}
/** Precedence of a binary operator below the unary level, 0 for other tokens (most tokens ending an operand). */
function binaryPrecedence(op: string): number {
  switch (op) {
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return PREC_RELATION;
    case '+':
    case '-':
      return PREC_ADDITION;
    case '*':
    case '/':
    case '%':
      return PREC_MULTIPLICATION;
    default:
      return 0;
  }
}

class ParseError extends Error {}

export function parse(text: string, opts: ParseOptions = {}): ParseResult {
  // a parser per parse: its scanner's fields take a new string per token, which in an object kept
  // between parses (old, for the garbage collector) would cost a write barrier each time
  const p = new Parser(text, opts);
  return p.run();
}

class Parser implements MacroHelper {
  readonly source: SourceInfo;
  readonly issues: CelIssue[] = [];
  /** the current token */
  private readonly tok: Scanner;
  /** the first token the scanner could not read: reported instead of any syntax error */
  private lexError: CelIssue | undefined;
  private nextId = 1;
  /** offset of the next `{` at or after the last struct look-ahead (0xffffffff: none) */
  private nextBrace = -1;
  private depth = 0;
  private readonly maxDepth: number;

  constructor(
    text: string,
    readonly opts: ParseOptions,
  ) {
    this.source = new SourceInfo(text);
    this.tok = new Scanner(text);
    this.maxDepth = opts.maxRecursionDepth ?? 250;
  }

  run(): ParseResult {
    let expr: Expr | undefined;
    try {
      this.advance();
      expr = this.expr();
      if (this.tok.kind !== TK_EOF) this.fail(`Syntax error: extraneous input '${this.tok.shown()}' expecting <EOF>`);
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      expr = undefined;
      // a token the scanner cannot read anywhere in the text is reported before any syntax error
      if (this.lexError === undefined) for (const t = this.tok; t.kind !== TK_EOF && t.kind !== TK_ERROR; ) t.scan();
      if (this.tok.kind === TK_ERROR) this.lexError ??= { message: this.tok.error, exprId: 0, offset: this.tok.offset };
    } finally {
      this.tok.release();
    }
    this.source.idCount = this.nextId;
    if (this.lexError !== undefined) return { expr: undefined, source: this.source, issues: [this.lexError], maxId: this.nextId - 1 };
    if (this.issues.length > 0) expr = undefined;
    return { expr, source: this.source, issues: this.issues, maxId: this.nextId - 1 };
  }

  // ---- MacroHelper ----
  id(offset: number): number {
    const id = this.nextId++;
    this.source.positions.set(id, offset);
    return id;
  }
  report(message: string, offset: number): Expr {
    this.issues.push({ message, exprId: 0, offset });
    return constExpr(this.id(offset), new CelError(message));
  }
  sourceOffset(e: Expr): number {
    return this.source.positions.get(e.id) ?? 0;
  }
  bindEnabled(): boolean {
    return this.opts.enableBind !== false;
  }

  /** Moves to the next token; one the scanner cannot read stops parsing. */
  private advance(): void {
    const t = this.tok;
    t.scan();
    if (t.kind === TK_ERROR) {
      this.lexError = { message: t.error, exprId: 0, offset: t.offset };
      throw new ParseError(t.error);
    }
  }
  private isOp(text: string): boolean {
    return this.tok.kind === TK_OP && this.tok.text === text;
  }
  private accept(text: string): boolean {
    if (!this.isOp(text)) return false;
    this.advance();
    return true;
  }
  /** Consumes the operator `text`, returning its offset. */
  private expect(text: string): number {
    const t = this.tok;
    if (t.kind !== TK_OP || t.text !== text) this.fail(`Syntax error: mismatched input '${t.shown()}' expecting '${text}'`);
    const offset = t.offset;
    this.advance();
    return offset;
  }
  /** Reports a syntax error at the current token. */
  private fail(message: string, offset = this.tok.offset): never {
    this.issues.push({ message, exprId: 0, offset });
    throw new ParseError(message);
  }
  private enter(offset: number): void {
    if (++this.depth > this.maxDepth) {
      this.fail(`expression recursion limit exceeded: ${this.maxDepth}`, offset);
    }
  }
  private leave(): void {
    this.depth--;
  }

  private call(fn: string, offset: number, args: Expr[], target?: Expr): Expr {
    // every call node has the same shape (target present, possibly undefined), so code reading nodes sees one shape per kind
    return callExpr(this.id(offset), fn, target, args);
  }

  // Expr = ConditionalOr ["?" ConditionalOr ":" Expr]
  private expr(): Expr {
    this.enter(this.tok.offset);
    const cond = this.or();
    let out = cond;
    if (this.isOp('?')) {
      const q = this.tok.offset;
      this.advance();
      const a = this.or();
      this.expect(':');
      const b = this.expr();
      out = this.call('_?_:_', q, [cond, a, b]);
    }
    this.leave();
    return out;
  }

  private or(): Expr {
    const first = this.and();
    if (!this.isOp('||')) return first;
    const op = this.tok.offset;
    this.advance();
    const second = this.and();
    // two terms (most chains) need no arrays
    if (!this.isOp('||')) return this.call('_||_', op, [first, second]);
    const terms = [first, second];
    const ops = [op];
    while (this.isOp('||')) {
      ops.push(this.tok.offset);
      this.advance();
      terms.push(this.and());
    }
    return this.balance('_||_', terms, ops);
  }

  private and(): Expr {
    const first = this.binary(PREC_RELATION);
    if (!this.isOp('&&')) return first;
    const op = this.tok.offset;
    this.advance();
    const second = this.binary(PREC_RELATION);
    if (!this.isOp('&&')) return this.call('_&&_', op, [first, second]);
    const terms = [first, second];
    const ops = [op];
    while (this.isOp('&&')) {
      ops.push(this.tok.offset);
      this.advance();
      terms.push(this.binary(PREC_RELATION));
    }
    return this.balance('_&&_', terms, ops);
  }

  /** cel-go builds balanced trees for chains of && and || to bound depth. */
  private balance(fn: string, terms: Expr[], ops: number[], lo = 0, hi = terms.length - 1): Expr {
    if (lo === hi) return terms[lo]!;
    const mid = Math.floor((lo + hi + 1) / 2);
    const left = this.balance(fn, terms, ops, lo, mid - 1);
    const right = this.balance(fn, terms, ops, mid, hi);
    return this.call(fn, ops[mid - 1]!, [left, right]);
  }

  /**
   * Relations, additions and multiplications by precedence climbing: one loop
   * for the three left-associative levels instead of a call per level for
   * every operand. Each right operand is one level of nesting, as before.
   */
  private binary(minPrec: number): Expr {
    let left = this.unary();
    const t = this.tok;
    for (;;) {
      let fn: string | undefined;
      let prec = 0;
      if (t.kind === TK_OP) {
        prec = binaryPrecedence(t.text);
        if (prec !== 0) fn = binaryFunction(t.text);
      } else if (t.kind === TK_IDENT && t.text === 'in' && !t.quoted) {
        fn = '@in';
        prec = PREC_RELATION;
      }
      if (fn === undefined || prec < minPrec) return left;
      const offset = t.offset;
      this.advance();
      this.enter(offset);
      const right = this.binary(prec + 1);
      this.leave();
      left = this.call(fn, offset, [left, right]);
    }
  }

  private unary(): Expr {
    const t = this.tok;
    // most operands start with no unary operator: one look at the token decides
    if (t.kind !== TK_OP || (t.text !== '!' && t.text !== '-')) return this.member();
    const offset = t.offset;
    if (t.text === '!') {
      let count = 0;
      while (this.isOp('!')) {
        this.advance();
        count++;
      }
      const e = this.member();
      if (count % 2 === 0) return e; // cel-go drops even runs of !
      return this.call('!_', offset, [e]);
    }
    let count = 0;
    while (this.isOp('-')) {
      this.advance();
      count++;
    }
    if (count % 2 === 1 && ((t.kind as number) === TK_INT || (t.kind as number) === TK_DOUBLE) && !this.memberFollows()) {
      // a minus directly before a numeric literal is part of the literal
      const kind = t.kind;
      const raw = t.raw;
      const value = t.value;
      this.advance();
      if (kind === (TK_INT as number)) {
        const v = intLiteral(raw, true);
        if (v === undefined) return this.report('invalid int literal', offset);
        return constExpr(this.id(offset), v);
      }
      return constExpr(this.id(offset), -(value as number));
    }
    const e = this.member();
    if (count % 2 === 0) return e;
    return this.call('-_', offset, [e]);
  }

  /** Does a selection or index follow the current token? -1.foo() negates the result of the call, not the literal. */
  private memberFollows(): boolean {
    const src = this.source.text;
    const i = this.tok.skipSpace(this.tok.pos);
    const c = codeAt(src, i);
    // `.` (or `.?`) not starting a number, or `[`
    return (c === 46 && !(codeAt(src, i + 1) >= 48 && codeAt(src, i + 1) <= 57)) || c === 91;
  }

  private member(): Expr {
    let e = this.primary();
    const t = this.tok;
    for (;;) {
      if (t.kind !== TK_OP) return e;
      const offset = t.offset;
      if (t.text === '.' || t.text === '.?') {
        const opt = t.text === '.?';
        this.advance();
        if ((t.kind as number) !== TK_IDENT) this.fail(`Syntax error: mismatched input '${t.shown()}' expecting IDENTIFIER`);
        const name = t.text;
        const nameOffset = t.offset;
        this.advance();
        if (opt) {
          if (this.isOp('(')) this.fail(`Syntax error: mismatched input '(' expecting <EOF>`);
          e = this.call('_?._', offset, [e, constExpr(this.id(nameOffset), name)]);
          continue;
        }
        if (this.isOp('(')) {
          const open = t.offset;
          this.advance();
          const args = this.exprList();
          e = this.globalOrMember(name, open, args, e);
          continue;
        }
        e = selectExpr(this.id(offset), e, name, false);
        continue;
      }
      if (t.text === '[') {
        this.advance();
        const opt = this.accept('?');
        this.enter(offset);
        const idx = this.expr();
        this.leave();
        this.expect(']');
        e = this.call(opt ? '_[?_]' : '_[_]', offset, [e, idx]);
        continue;
      }
      return e;
    }
  }

  private globalOrMember(fn: string, offset: number, args: Expr[], target?: Expr): Expr {
    if (!this.opts.disableMacros) {
      const m = expandMacro(this, fn, offset, target, args);
      if (m) return m;
    }
    return this.call(fn, offset, args, target);
  }

  /** Arguments up to the closing parenthesis (the opening one consumed). */
  private exprList(): Expr[] {
    if (this.accept(')')) return [];
    // up to two arguments (most calls) in an array made at its length rather than grown
    const a = this.expr();
    if (this.accept(')')) return [a];
    this.argumentSeparator();
    const b = this.expr();
    if (this.accept(')')) return [a, b];
    const args = [a, b];
    for (;;) {
      this.argumentSeparator();
      args.push(this.expr());
      if (this.accept(')')) return args;
    }
  }

  private argumentSeparator(): void {
    if (!this.accept(',')) this.fail(`Syntax error: mismatched input '${this.tok.shown()}' expecting {')', ','}`);
  }

  private primary(): Expr {
    const t = this.tok;
    const offset = t.offset;
    switch (t.kind) {
      case TK_INT: {
        const v = intLiteral(t.raw, false);
        this.advance();
        if (v === undefined) return this.report('invalid int literal', offset);
        return constExpr(this.id(offset), v);
      }
      case TK_UINT:
      case TK_DOUBLE:
      case TK_STRING:
      case TK_BYTES: {
        const value = t.value!;
        this.advance();
        return constExpr(this.id(offset), value);
      }
      case TK_IDENT:
        return this.identOrCall('');
      case TK_OP:
        break;
      default:
        this.fail(`Syntax error: mismatched input '${t.shown()}' expecting ${EXPECT_PRIMARY}`);
    }
    switch (t.text) {
      case '(': {
        this.advance();
        this.enter(offset);
        const e = this.expr();
        this.leave();
        this.expect(')');
        return e;
      }
      case '[': {
        this.advance();
        this.enter(offset);
        const elements: Expr[] = [];
        const optionalIndices: number[] = [];
        while (!this.isOp(']')) {
          if (this.accept('?')) optionalIndices.push(elements.length);
          elements.push(this.expr());
          if (!this.accept(',')) break;
        }
        this.expect(']');
        this.leave();
        return listExpr(this.id(offset), elements, optionalIndices);
      }
      case '{': {
        this.advance();
        this.enter(offset);
        const id = this.id(offset);
        const entries: MapEntry[] = [];
        while (!this.isOp('}')) {
          const optional = this.accept('?');
          const key = this.expr();
          const colon = this.expect(':');
          const value = this.expr();
          entries.push({ id: this.id(colon), key, value, optional });
          if (!this.accept(',')) break;
        }
        this.expect('}');
        this.leave();
        return mapExpr(id, entries);
      }
      case '.': {
        // leading dot: fully qualified name from the root scope
        this.advance();
        if ((t.kind as number) !== TK_IDENT) this.fail(`Syntax error: mismatched input '${t.shown()}' expecting IDENTIFIER`);
        return this.identOrCall('.');
      }
    }
    this.fail(`Syntax error: mismatched input '${t.shown()}' expecting ${EXPECT_PRIMARY}`);
  }

  private identOrCall(prefix: string): Expr {
    const t = this.tok;
    const text = t.text;
    const offset = t.offset;
    if (t.quoted) this.fail(`Syntax error: mismatched input '${text}' expecting ${EXPECT_PRIMARY}`);
    switch (text) {
      case 'true':
        this.advance();
        return constExpr(this.id(offset), true);
      case 'false':
        this.advance();
        return constExpr(this.id(offset), false);
      case 'null':
        this.advance();
        return constExpr(this.id(offset), null);
      case 'in':
        this.fail(`Syntax error: mismatched input 'in' expecting ${EXPECT_PRIMARY}`);
    }
    if (isReserved(text)) this.fail(`reserved identifier: ${text}`);
    this.advance();
    const name = prefix === '' ? text : prefix + text;
    if (t.kind !== TK_OP) return identExpr(this.id(offset), name);
    if (t.text === '(') {
      const open = t.offset;
      this.advance();
      const args = this.exprList();
      return this.globalOrMember(name, open, args);
    }
    // message construction: Name{...} or a.b.C{...}
    if (t.text === '{') return this.struct(name);
    if (t.text === '.' && this.qualifiedStructFollows()) {
      let qn = name;
      while (this.isOp('.')) {
        this.advance();
        qn += '.' + t.text;
        this.advance();
      }
      return this.struct(qn);
    }
    return identExpr(this.id(offset), name);
  }

  /**
   * At a `.`: do `.IDENT` repeats and then `{` follow (a.b.C{...})? Read from
   * the text by character, without scanning tokens: most chains are selections.
   */
  private qualifiedStructFollows(): boolean {
    const src = this.source.text;
    const sc = this.tok;
    let i = sc.offset;
    // most texts hold no brace past here: one native search answers them
    if (this.nextBrace < i) this.nextBrace = src.indexOf('{', i) >>> 0;
    if (this.nextBrace === 0xffffffff) return false;
    let names = 0;
    for (;;) {
      // at a `.` that is an operator of its own (not `.?`, not the start of a number)
      const d = codeAt(src, i + 1);
      if (codeAt(src, i) !== 46 || d === 63 || (d >= 48 && d <= 57)) break;
      i = sc.skipSpace(i + 1);
      const c = codeAt(src, i);
      if (c === 96) {
        const end = src.indexOf('`', i + 1);
        if (end < 0) return false;
        i = end + 1;
      } else if (isIdentStart(c) && !isLiteralPrefix(src, i)) {
        i++;
        while (i < src.length && isIdentPart(src.charCodeAt(i))) i++;
      } else break;
      names++;
      i = sc.skipSpace(i);
    }
    return names > 0 && codeAt(src, i) === 123;
  }

  private struct(typeName: string): Expr {
    const open = this.expect('{');
    const id = this.id(open);
    const t = this.tok;
    const fields: StructField[] = [];
    while (!this.isOp('}')) {
      const optional = this.accept('?');
      if (t.kind !== TK_IDENT) this.fail(`Syntax error: mismatched input '${t.shown()}' expecting IDENTIFIER`);
      const name = t.text;
      this.advance();
      const colon = this.expect(':');
      const value = this.expr();
      fields.push({ id: this.id(colon), name, value, optional });
      if (!this.accept(',')) break;
    }
    this.expect('}');
    return structExpr(id, typeName, fields);
  }
}

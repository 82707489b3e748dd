// Recursive-descent CEL parser: tokens -> AST with ids and source offsets.
// Macros (has, all, exists, exists_one, map, filter, cel.bind, optMap,
// optFlatMap and the two-variable comprehensions) expand here, as in cel-go.

import { SourceInfo, type CelIssue, type Expr, type MapEntry, type StructField } from '../ast';
import { CelError } from '../common/values';
import { intLiteral, tokenize, type Token } from './lexer';
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
 * are never looked up by hash anywhere else while compiling).
 */
const RESERVED_BY_LENGTH: readonly (readonly string[] | undefined)[] = (() => {
  const byLength: string[][] = [];
  for (const w of ['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']) {
    (byLength[w.length] ??= []).push(w);
  }
  return byLength;
})();

function isReserved(name: string): boolean {
  const words = RESERVED_BY_LENGTH[name.length];
  if (words === undefined) return false;
  for (const w of words) if (w === name) return true;
  return false;
}

const EXPECT_PRIMARY =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

const PREC_RELATION = 1;
const PREC_ADDITION = 2;
const PREC_MULTIPLICATION = 3;

/** Binary operators below the unary level: their functions and precedences. */
const BINARY_FN = new Map([
  ['<', '_<_'],
  ['<=', '_<=_'],
  ['>', '_>_'],
  ['>=', '_>=_'],
  ['==', '_==_'],
  ['!=', '_!=_'],
  ['+', '_+_'],
  ['-', '_-_'],
  ['*', '_*_'],
  ['/', '_/_'],
  ['%', '_%_'],
]);
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
  const p = new Parser(text, opts);
  return p.run();
}

class Parser implements MacroHelper {
  readonly source: SourceInfo;
  readonly issues: CelIssue[] = [];
  private toks: Token[];
  private readonly lexError: Token | undefined;
  private pos = 0;
  private nextId = 1;
  private depth = 0;
  private readonly maxDepth: number;

  constructor(
    text: string,
    readonly opts: ParseOptions,
  ) {
    this.source = new SourceInfo(text);
    const lexed = tokenize(text);
    this.toks = lexed.tokens;
    this.lexError = lexed.error;
    this.maxDepth = opts.maxRecursionDepth ?? 250;
  }

  run(): ParseResult {
    let expr: Expr | undefined;
    const lexErr = this.lexError;
    if (lexErr) {
      this.issues.push({ message: lexErr.error!, exprId: 0, offset: lexErr.offset });
    } else {
      try {
        expr = this.expr();
        if (this.peek().kind !== 'eof') {
          const t = this.peek();
          this.fail(t, `Syntax error: extraneous input '${t.text}' expecting <EOF>`);
        }
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        expr = undefined;
      }
    }
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
    return { kind: 'const', id: this.id(offset), value: new CelError(message) };
  }
  sourceOffset(e: Expr): number {
    return this.source.positions.get(e.id) ?? 0;
  }
  bindEnabled(): boolean {
    return this.opts.enableBind !== false;
  }

  private peek(k = 0): Token {
    // past the end reads the final <EOF> token
    return this.toks[this.pos + k] ?? this.toks[this.toks.length - 1]!;
  }
  private next(): Token {
    return this.toks[this.pos++]!;
  }
  private isOp(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'op' && t.text === text;
  }
  private accept(text: string): Token | undefined {
    if (this.isOp(text)) return this.next();
    return undefined;
  }
  private expect(text: string): Token {
    const t = this.peek();
    if (t.kind === 'op' && t.text === text) return this.next();
    this.fail(t, `Syntax error: mismatched input '${t.text}' expecting '${text}'`);
  }
  private fail(t: Token, message: string): never {
    this.issues.push({ message, exprId: 0, offset: t.offset });
    throw new ParseError(message);
  }
  private enter(t: Token): void {
    if (++this.depth > this.maxDepth) {
      this.fail(t, `expression recursion limit exceeded: ${this.maxDepth}`);
    }
  }
  private leave(): void {
    this.depth--;
  }

  private call(fn: string, offset: number, args: Expr[], target?: Expr): Expr {
    // every call node has the same shape (target present, possibly undefined), so code reading nodes sees one shape per kind
    return { kind: 'call', id: this.id(offset), fn, target, args };
  }

  // Expr = ConditionalOr ["?" ConditionalOr ":" Expr]
  private expr(): Expr {
    const t = this.peek();
    this.enter(t);
    const cond = this.or();
    let out = cond;
    if (this.isOp('?')) {
      const q = this.next();
      const a = this.or();
      this.expect(':');
      const b = this.expr();
      out = this.call('_?_:_', q.offset, [cond, a, b]);
    }
    this.leave();
    return out;
  }

  private or(): Expr {
    const first = this.and();
    if (!this.isOp('||')) return first;
    const terms = [first];
    const ops: Token[] = [];
    while (this.isOp('||')) {
      ops.push(this.next());
      terms.push(this.and());
    }
    return this.balance('_||_', terms, ops);
  }

  private and(): Expr {
    const first = this.relation();
    if (!this.isOp('&&')) return first;
    const terms = [first];
    const ops: Token[] = [];
    while (this.isOp('&&')) {
      ops.push(this.next());
      terms.push(this.relation());
    }
    return this.balance('_&&_', terms, ops);
  }

  /** cel-go builds balanced trees for chains of && and || to bound depth. */
  private balance(fn: string, terms: Expr[], ops: Token[], lo = 0, hi = terms.length - 1): Expr {
    if (lo === hi) return terms[lo]!;
    const mid = Math.floor((lo + hi + 1) / 2);
    const left = this.balance(fn, terms, ops, lo, mid - 1);
    const right = this.balance(fn, terms, ops, mid, hi);
    return this.call(fn, ops[mid - 1]!.offset, [left, right]);
  }

  private relation(): Expr {
    return this.binary(PREC_RELATION);
  }

  /**
   * Relations, additions and multiplications by precedence climbing: one loop
   * for the three left-associative levels instead of a call per level for
   * every operand. Each right operand is one level of nesting, as before.
   */
  private binary(minPrec: number): Expr {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      let fn: string | undefined;
      let prec = 0;
      if (t.kind === 'op') {
        prec = binaryPrecedence(t.text);
        if (prec !== 0) fn = BINARY_FN.get(t.text);
      } else if (t.kind === 'ident' && t.text === 'in' && t.raw !== 'quoted') {
        fn = '@in';
        prec = PREC_RELATION;
      }
      if (fn === undefined || prec < minPrec) return left;
      this.next();
      this.enter(t);
      const right = this.binary(prec + 1);
      this.leave();
      left = this.call(fn, t.offset, [left, right]);
    }
  }

  private unary(): Expr {
    const t = this.peek();
    // most operands start with no unary operator: one look at the token decides
    if (t.kind !== 'op' || (t.text !== '!' && t.text !== '-')) return this.member();
    if (t.text === '!') {
      const ops: Token[] = [];
      while (this.isOp('!')) ops.push(this.next());
      let e = this.member();
      if (ops.length % 2 === 0) return e; // cel-go drops even runs of !
      e = this.call('!_', ops[0]!.offset, [e]);
      return e;
    }
    if (this.isOp('-')) {
      let count = 0;
      while (this.isOp('-')) {
        this.next();
        count++;
      }
      const nt = this.peek();
      if (count % 2 === 1 && (nt.kind === 'int' || nt.kind === 'double') && !this.isMemberAfter(1)) {
        // a minus directly before a numeric literal is part of the literal
        this.next();
        if (nt.kind === 'int') {
          const v = intLiteral(nt.raw!, true);
          if (v === undefined) return this.report('invalid int literal', t.offset);
          return { kind: 'const', id: this.id(t.offset), value: v };
        }
        return { kind: 'const', id: this.id(t.offset), value: -(nt.value as number) };
      }
      const e = this.member();
      if (count % 2 === 0) return e;
      return this.call('-_', t.offset, [e]);
    }
    return this.member();
  }

  private isMemberAfter(k: number): boolean {
    // -1.foo() negates the result of the call, not the literal
    return this.isOp('.', k) || this.isOp('.?', k) || this.isOp('[', k);
  }

  private member(): Expr {
    let e = this.primary();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op') return e;
      if (t.text === '.' || t.text === '.?') {
        const opt = t.text === '.?';
        this.next();
        const id = this.peek();
        if (id.kind !== 'ident') this.fail(id, `Syntax error: mismatched input '${id.text}' expecting IDENTIFIER`);
        this.next();
        if (opt) {
          if (this.isOp('(')) this.fail(this.peek(), `Syntax error: mismatched input '(' expecting <EOF>`);
          e = this.call('_?._', t.offset, [e, { kind: 'const', id: this.id(id.offset), value: id.text }]);
          continue;
        }
        if (this.isOp('(')) {
          const open = this.next();
          const args = this.exprList(')');
          e = this.globalOrMember(id.text, open.offset, args, e);
          continue;
        }
        e = { kind: 'select', id: this.id(t.offset), operand: e, field: id.text, testOnly: false };
        continue;
      }
      if (t.text === '[') {
        this.next();
        const opt = !!this.accept('?');
        this.enter(t);
        const idx = this.expr();
        this.leave();
        this.expect(']');
        e = this.call(opt ? '_[?_]' : '_[_]', t.offset, [e, idx]);
        continue;
      }
      return e;
    }
  }

  private reserved(t: Token): never {
    this.fail(t, `reserved identifier: ${t.text}`);
  }

  private globalOrMember(fn: string, offset: number, args: Expr[], target?: Expr): Expr {
    if (!this.opts.disableMacros) {
      const m = expandMacro(this, fn, offset, target, args);
      if (m) return m;
    }
    return this.call(fn, offset, args, target);
  }

  private exprList(close: string): Expr[] {
    const args: Expr[] = [];
    if (this.accept(close)) return args;
    for (;;) {
      args.push(this.expr());
      if (this.accept(close)) return args;
      const t = this.peek();
      if (!this.accept(',')) this.fail(t, `Syntax error: mismatched input '${t.text}' expecting {')', ','}`);
    }
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'int': {
        this.next();
        const v = intLiteral(t.raw!, false);
        if (v === undefined) return this.report('invalid int literal', t.offset);
        return { kind: 'const', id: this.id(t.offset), value: v };
      }
      case 'uint':
      case 'double':
      case 'string':
      case 'bytes':
        this.next();
        return { kind: 'const', id: this.id(t.offset), value: t.value! };
      case 'ident':
        return this.identOrCall();
      case 'op':
        break;
      default:
        this.fail(t, `Syntax error: mismatched input '${t.text}' expecting ${EXPECT_PRIMARY}`);
    }
    switch (t.text) {
      case '(': {
        this.next();
        this.enter(t);
        const e = this.expr();
        this.leave();
        this.expect(')');
        return e;
      }
      case '[': {
        this.next();
        this.enter(t);
        const elements: Expr[] = [];
        const optionalIndices: number[] = [];
        while (!this.isOp(']')) {
          if (this.accept('?')) optionalIndices.push(elements.length);
          elements.push(this.expr());
          if (!this.accept(',')) break;
        }
        this.expect(']');
        this.leave();
        return { kind: 'list', id: this.id(t.offset), elements, optionalIndices };
      }
      case '{': {
        this.next();
        this.enter(t);
        const id = this.id(t.offset);
        const entries: MapEntry[] = [];
        while (!this.isOp('}')) {
          const optional = !!this.accept('?');
          const key = this.expr();
          const colon = this.expect(':');
          const value = this.expr();
          entries.push({ id: this.id(colon.offset), key, value, optional });
          if (!this.accept(',')) break;
        }
        this.expect('}');
        this.leave();
        return { kind: 'map', id, entries };
      }
      case '.': {
        // leading dot: fully qualified name from the root scope
        this.next();
        const nt = this.peek();
        if (nt.kind !== 'ident') this.fail(nt, `Syntax error: mismatched input '${nt.text}' expecting IDENTIFIER`);
        return this.identOrCall('.');
      }
    }
    this.fail(t, `Syntax error: mismatched input '${t.text}' expecting ${EXPECT_PRIMARY}`);
  }

  private identOrCall(prefix = ''): Expr {
    const t = this.next();
    if (t.raw === 'quoted') this.fail(t, `Syntax error: mismatched input '${t.text}' expecting ${EXPECT_PRIMARY}`);
    switch (t.text) {
      case 'true':
        return { kind: 'const', id: this.id(t.offset), value: true };
      case 'false':
        return { kind: 'const', id: this.id(t.offset), value: false };
      case 'null':
        return { kind: 'const', id: this.id(t.offset), value: null };
      case 'in':
        this.fail(t, `Syntax error: mismatched input 'in' expecting ${EXPECT_PRIMARY}`);
    }
    if (isReserved(t.text)) this.reserved(t);
    const name = prefix === '' ? t.text : prefix + t.text;
    const nt = this.peek();
    if (nt.kind !== 'op') return { kind: 'ident', id: this.id(t.offset), name };
    if (nt.text === '(') {
      const open = this.next();
      const args = this.exprList(')');
      return this.globalOrMember(name, open.offset, args);
    }
    // message construction: Name{...} or a.b.C{...}
    if (nt.text === '{') return this.struct(name, t.offset);
    if (nt.text === '.' && this.looksLikeQualifiedStruct()) {
      let qn = name;
      while (this.isOp('.')) {
        this.next();
        qn += '.' + this.next().text;
      }
      return this.struct(qn, t.offset);
    }
    return { kind: 'ident', id: this.id(t.offset), name };
  }

  private looksLikeQualifiedStruct(): boolean {
    let k = 0;
    while (this.isOp('.', k) && this.peek(k + 1).kind === 'ident') k += 2;
    return k > 0 && this.isOp('{', k);
  }

  private struct(typeName: string, offset: number): Expr {
    const open = this.expect('{');
    const id = this.id(open.offset);
    void offset;
    const fields: StructField[] = [];
    while (!this.isOp('}')) {
      const optional = !!this.accept('?');
      const f = this.next();
      if (f.kind !== 'ident') this.fail(f, `Syntax error: mismatched input '${f.text}' expecting IDENTIFIER`);
      const colon = this.expect(':');
      const value = this.expr();
      fields.push({ id: this.id(colon.offset), name: f.text, value, optional });
      if (!this.accept(',')) break;
    }
    this.expect('}');
    return { kind: 'struct', id, typeName, fields };
  }
}

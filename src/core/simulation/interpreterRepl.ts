/**
 * The python and node images' interpreters run with no script: on a
 * terminal their REPL (banner, prompt, the value of each expression), else
 * the program read from stdin, run at its end. Only what is cheap to get
 * exactly right is evaluated: integer and string literals, arithmetic on
 * them, `print(...)` / `console.log(...)`, and the ways out (`exit()`,
 * `.exit`, end of input). A name that is not defined fails as the real one
 * does (NameError, ReferenceError); anything else is said to be not
 * simulated, on stderr.
 */
import type { Run } from './containerTools';

/** What an interpreter sees of its process: its stdin a line at a time, its output, and whether stdin is a terminal. */
export interface InterpreterIo {
  tty: boolean;
  read(): Run<string | undefined>;
  out(text: string): void;
  err(text: string): void;
}

// ---- expressions

type Token = { kind: 'num'; text: string } | { kind: 'str'; value: string } | { kind: 'name'; text: string } | { kind: 'op'; text: string };

class NotSimulated extends Error {}

const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

function tokenize(code: string, ops: readonly string[]): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < code.length) {
    const c = code[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    const num = /^\d+/.exec(code.slice(i));
    if (num) {
      if (/^[\w.]/.test(code.slice(i + num[0].length))) throw new NotSimulated();
      tokens.push({ kind: 'num', text: num[0] });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_$][\w$]*/.exec(code.slice(i));
    if (name) {
      tokens.push({ kind: 'name', text: name[0] });
      i += name[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      let value = '';
      let j = i + 1;
      for (; j < code.length && code[j] !== c; j++) {
        if (code[j] !== '\\') value += code[j];
        else {
          const e = escapes[code[++j] ?? ''];
          if (e === undefined) throw new NotSimulated();
          value += e;
        }
      }
      if (j >= code.length) throw new NotSimulated();
      tokens.push({ kind: 'str', value });
      i = j + 1;
      continue;
    }
    const op = ops.find((o) => code.startsWith(o, i));
    if (!op) throw new NotSimulated();
    tokens.push({ kind: 'op', text: op });
    i += op.length;
  }
  return tokens;
}

/** An expression tree: literals, names, calls of a name, unary and binary operators. */
type Expr = { kind: 'num'; text: string } | { kind: 'str'; value: string } | { kind: 'name'; name: string } | { kind: 'call'; callee: string; args: Expr[] } | { kind: 'unary'; op: string; arg: Expr } | { kind: 'binary'; op: string; left: Expr; right: Expr };

/** Precedence climbing over + - (1), * / // % (2), unary (3), ** (4, right-assoc, binding tighter than a unary on its left). */
function parse(tokens: Token[]): Expr {
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (t: Token | undefined, ...ops: string[]): t is Token & { kind: 'op' } => t?.kind === 'op' && ops.includes(t.text);
  const binary = (level: number): Expr => {
    let left = level === 1 ? binary(2) : unary();
    const ops = level === 1 ? ['+', '-'] : ['*', '/', '//', '%'];
    for (let t = peek(); isOp(t, ...ops); t = peek()) {
      pos++;
      left = { kind: 'binary', op: t.text, left, right: level === 1 ? binary(2) : unary() };
    }
    return left;
  };
  const unary = (): Expr => {
    const t = peek();
    if (isOp(t, '-', '+')) {
      pos++;
      return { kind: 'unary', op: t.text, arg: unary() };
    }
    return power();
  };
  const power = (): Expr => {
    const base = primary();
    if (isOp(peek(), '**')) {
      pos++;
      return { kind: 'binary', op: '**', left: base, right: unary() };
    }
    return base;
  };
  const primary = (): Expr => {
    const t = tokens[pos++];
    if (!t) throw new NotSimulated();
    if (t.kind === 'num') return { kind: 'num', text: t.text };
    if (t.kind === 'str') return { kind: 'str', value: t.value };
    if (isOp(t, '(')) {
      const e = binary(1);
      if (!isOp(tokens[pos++], ')')) throw new NotSimulated();
      return e;
    }
    if (t.kind === 'name') {
      // A dotted name (console.log, process.exit) is one callee.
      let name = t.text;
      while (isOp(peek(), '.') && tokens[pos + 1]?.kind === 'name') {
        name += '.' + (tokens[pos + 1] as { text: string }).text;
        pos += 2;
      }
      if (!isOp(peek(), '(')) return { kind: 'name', name };
      pos++;
      const args: Expr[] = [];
      if (!isOp(peek(), ')')) {
        for (;;) {
          args.push(binary(1));
          if (isOp(peek(), ',')) pos++;
          else break;
        }
      }
      if (!isOp(tokens[pos++], ')')) throw new NotSimulated();
      return { kind: 'call', callee: name, args };
    }
    throw new NotSimulated();
  };
  const e = binary(1);
  if (pos !== tokens.length) throw new NotSimulated();
  return e;
}

class UndefinedName extends Error {
  constructor(readonly name: string) {
    super(name);
  }
}

// ---- python

type PyValue = { kind: 'int'; v: bigint } | { kind: 'float'; v: number } | { kind: 'str'; v: string };

/** repr() of a float: the shortest digits that read back, in exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, exponent] = x.toExponential().split('e') as [string, string];
  const exp = Number(exponent);
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const fixed = String(x);
  return fixed.includes('.') ? fixed : `${fixed}.0`;
}

/** A string literal in quote q: backslash, q, \n, \t and \r escaped, other control characters as \xNN (hex in the case given). */
function quoted(s: string, q: string, upperHex: boolean): string {
  let r = '';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (c === '\\') r += '\\\\';
    else if (c === q) r += '\\' + c;
    else if (c === '\n') r += '\\n';
    else if (c === '\t') r += '\\t';
    else if (c === '\r') r += '\\r';
    else if (code < 0x20 || code === 0x7f) {
      const hex = code.toString(16).padStart(2, '0');
      r += '\\x' + (upperHex ? hex.toUpperCase() : hex);
    } else r += c;
  }
  return q + r + q;
}

/** repr() of a str: single quotes unless it holds one and no double quote. */
export function pyStrRepr(s: string): string {
  return quoted(s, s.includes("'") && !s.includes('"') ? '"' : "'", false);
}

const pyRepr = (v: PyValue) => (v.kind === 'int' ? String(v.v) : v.kind === 'float' ? pyFloatRepr(v.v) : pyStrRepr(v.v));
const pyStr = (v: PyValue) => (v.kind === 'str' ? v.v : pyRepr(v));

function pyEval(e: Expr): PyValue {
  switch (e.kind) {
    case 'num':
      return { kind: 'int', v: BigInt(e.text) };
    case 'str':
      return { kind: 'str', v: e.value };
    case 'name':
      throw pyUnknown(e.name);
    case 'unary': {
      const a = pyEval(e.arg);
      if (a.kind === 'str') throw new NotSimulated();
      if (e.op === '+') return a;
      return a.kind === 'int' ? { kind: 'int', v: -a.v } : { kind: 'float', v: -a.v };
    }
    case 'binary': {
      const a = pyEval(e.left);
      const b = pyEval(e.right);
      if (a.kind === 'str' || b.kind === 'str') {
        if (e.op === '+' && a.kind === 'str' && b.kind === 'str') return { kind: 'str', v: a.v + b.v };
        throw new NotSimulated();
      }
      if (a.kind === 'int' && b.kind === 'int') {
        switch (e.op) {
          case '+':
            return { kind: 'int', v: a.v + b.v };
          case '-':
            return { kind: 'int', v: a.v - b.v };
          case '*':
            return { kind: 'int', v: a.v * b.v };
          case '//':
          case '%': {
            if (b.v === 0n) throw new NotSimulated();
            // Floor division: the quotient rounds toward minus infinity, the remainder takes the divisor's sign.
            let q = a.v / b.v;
            if (a.v % b.v !== 0n && a.v < 0n !== b.v < 0n) q -= 1n;
            return { kind: 'int', v: e.op === '//' ? q : a.v - q * b.v };
          }
          case '/':
            if (b.v === 0n) throw new NotSimulated();
            return { kind: 'float', v: Number(a.v) / Number(b.v) };
          case '**':
            if (b.v < 0n || b.v > 10_000n) throw new NotSimulated();
            return { kind: 'int', v: a.v ** b.v };
        }
      }
      const x = Number(a.v);
      const y = Number(b.v);
      switch (e.op) {
        case '+':
          return { kind: 'float', v: x + y };
        case '-':
          return { kind: 'float', v: x - y };
        case '*':
          return { kind: 'float', v: x * y };
        case '/':
          if (y === 0) throw new NotSimulated();
          return { kind: 'float', v: x / y };
      }
      throw new NotSimulated();
    }
    case 'call':
      // The callee is looked up first.
      throw pyUnknown(e.callee);
  }
}

/** A name the REPL has (a builtin, a keyword) is not simulated; one it lacks is a NameError, unless Python would suggest a near name, which is not simulated either. */
function pyUnknown(name: string): Error {
  if (name.includes('.') || pyBuiltins.has(name) || pyKeywords.has(name) || /(Error|Exception|Warning)$/.test(name) || pyModules.has(name)) return new NotSimulated();
  if ([...pyBuiltins].some((known) => suggests(name, known))) return new NotSimulated();
  return new UndefinedName(name);
}

const pyBuiltins = new Set(
  ('abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex copyright credits delattr dict dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len license list locals map max memoryview min next object oct open ord pow print property quit range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip ' +
    '__import__ __build_class__ __debug__ __doc__ __name__ __package__ __loader__ __spec__ __builtins__ __annotations__ None True False Ellipsis NotImplemented StopIteration StopAsyncIteration GeneratorExit KeyboardInterrupt SystemExit').split(' '),
);
/** Keywords: no NameError, but no suggestion either. */
const pyKeywords = new Set('and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case _'.split(' '));
/** Modules Python 3.12+ answers a NameError for with "Did you forget to import ...?". */
const pyModules = new Set('os sys re json math time random datetime collections itertools functools subprocess pathlib socket string typing shutil glob logging argparse io copy pickle csv hashlib base64 struct threading asyncio http urllib uuid decimal fractions statistics platform signal select errno tempfile textwrap pprint enum dataclasses abc contextlib operator heapq bisect array queue secrets zlib gzip tarfile zipfile sqlite3 unittest traceback inspect types weakref gc atexit getpass locale calendar'.split(' '));

/** CPython's suggestion rule (traceback._compute_suggestion_error): a candidate within its Levenshtein budget, case changes costing half. */
function suggests(wrong: string, candidate: string): boolean {
  if (wrong === candidate) return false;
  // A candidate must also beat the name's own length.
  const budget = Math.min(Math.floor(((candidate.length + wrong.length + 3) * 2) / 6), wrong.length - 1);
  return budget > 0 && wrong.length <= 40 && levenshtein(wrong, candidate, budget) <= budget;
}

function levenshtein(a: string, b: string, max: number): number {
  const cost = (x: string, y: string) => (x === y ? 0 : x.toLowerCase() === y.toLowerCase() ? 1 : 2);
  if ((Math.abs(a.length - b.length)) * 2 > max) return max + 1;
  let row = Array.from({ length: a.length + 1 }, (_, i) => i * 2);
  for (let j = 1; j <= b.length; j++) {
    const next = [j * 2];
    for (let i = 1; i <= a.length; i++) next[i] = Math.min(row[i]! + 2, next[i - 1]! + 2, row[i - 1]! + cost(a[i - 1]!, b[j - 1]!));
    row = next;
  }
  return row[a.length]!;
}

const pyOps = ['**', '//', '+', '-', '*', '/', '%', '(', ')', ','];

type Statement = { kind: 'empty' } | { kind: 'exit'; code: number } | { kind: 'print'; text: string } | { kind: 'value'; value: PyValue | undefined };

/** One line of Python: what it does, or why it fails. */
function pyStatement(line: string): Statement {
  const code = line.replace(/\s+$/, '');
  if (!code || /^\s*#/.test(code)) return { kind: 'empty' };
  if (/^\s/.test(code)) throw new NotSimulated();
  const e = parse(tokenize(code, pyOps));
  if (e.kind === 'call' && (e.callee === 'exit' || e.callee === 'quit') && e.args.length <= 1) {
    const arg = e.args[0] ? pyEval(e.args[0]) : undefined;
    if (arg && arg.kind !== 'int') throw new NotSimulated();
    return { kind: 'exit', code: arg ? Number(BigInt.asUintN(8, arg.v)) : 0 };
  }
  if (e.kind === 'call' && e.callee === 'print') return { kind: 'print', text: e.args.map((a) => pyStr(pyEval(a))).join(' ') + '\n' };
  return { kind: 'value', value: pyEval(e) };
}

/** The interpreter's build, as its banner shows it (the official image's for its default tag). */
const pythonBuilds: Record<string, string> = { '3.13.1': 'main, Dec  4 2024, 20:40:27' };

const notSimulated = (what: string, line: string) => `kubesim: ${what}: not simulated: ${line.trim()}\n`;

/** python3 with no script: the REPL on a terminal, else the program on stdin run at its end. */
export function* python(version: string, compiler: string, io: InterpreterIo): Run<number> {
  const newRepl = compareVersions(version, '3.13.0') >= 0;
  if (!io.tty) {
    const lines: string[] = [];
    for (let l = yield* io.read(); l !== undefined; l = yield* io.read()) lines.push(l);
    // The whole program is compiled before it runs: a line kubesim cannot read stops it all.
    const statements: (Statement | UndefinedName)[] = [];
    for (const l of lines) {
      try {
        statements.push(pyStatement(l));
      } catch (e) {
        if (!(e instanceof UndefinedName)) {
          io.err(notSimulated('python3', l));
          return 1;
        }
        statements.push(e);
      }
    }
    for (const [i, s] of statements.entries()) {
      if (s instanceof UndefinedName) {
        io.err(`Traceback (most recent call last):\n  File "<stdin>", line ${i + 1}, in <module>\nNameError: name '${s.name}' is not defined\n`);
        return 1;
      }
      if (s.kind === 'print') io.out(s.text);
      if (s.kind === 'exit') return s.code;
    }
    return 0;
  }
  io.err(`Python ${version} (${pythonBuilds[version] ?? 'main'}) [${compiler}] on linux\nType "help", "copyright", "credits" or "license" for more information.\n`);
  let input = 0;
  for (;;) {
    io.err('>>> ');
    const line = yield* io.read();
    if (line === undefined) {
      io.err('\n');
      return 0;
    }
    // 3.13's REPL takes `exit` and `quit` as commands; before, they answer how to leave.
    if (/^\s*(exit|quit)\s*$/.test(line)) {
      if (newRepl) return 0;
      io.out(`Use ${line.trim()}() or Ctrl-D (i.e. EOF) to exit\n`);
      continue;
    }
    // 3.13 names each input it runs (REPL commands aside) `<python-input-N>`, from 0.
    const n = input++;
    try {
      const s = pyStatement(line);
      if (s.kind === 'exit') return s.code;
      if (s.kind === 'print') io.out(s.text);
      if (s.kind === 'value' && s.value) io.out(pyRepr(s.value) + '\n');
    } catch (e) {
      if (!(e instanceof UndefinedName)) {
        io.err(notSimulated('python3', line));
        continue;
      }
      const where = newRepl ? `  File "<python-input-${n}>", line 1, in <module>\n    ${line.trim()}\n` : '  File "<stdin>", line 1, in <module>\n';
      io.err(`Traceback (most recent call last):\n${where}NameError: name '${e.name}' is not defined\n`);
    }
  }
}

function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

// ---- node

type JsValue = number | string | undefined;

/** util.inspect of a string: single quotes, else double, else backticks. */
export function jsStrInspect(s: string): string {
  return quoted(s, !s.includes("'") ? "'" : !s.includes('"') ? '"' : !s.includes('`') && !s.includes('${') ? '`' : "'", true);
}

const jsNumber = (n: number) => (Object.is(n, -0) ? '-0' : String(n));
/** util.inspect, coloured as the REPL does on a colour terminal (numbers yellow, strings green, undefined grey). */
const jsInspect = (v: JsValue, colors = false) => {
  const [text, color] = v === undefined ? ['undefined', 90] : typeof v === 'number' ? [jsNumber(v), 33] : [jsStrInspect(v), 32];
  return colors ? `\x1b[${color}m${text}\x1b[39m` : text;
};
const jsLog = (v: JsValue) => (typeof v === 'string' ? v : jsInspect(v));

function jsEval(e: Expr, log: (text: string) => void): JsValue {
  switch (e.kind) {
    case 'num':
      return Number(e.text);
    case 'str':
      return e.value;
    case 'name':
      if (e.name === 'undefined') return undefined;
      throw jsUnknown(e.name);
    case 'unary': {
      const a = jsEval(e.arg, log);
      if (typeof a !== 'number') throw new NotSimulated();
      return e.op === '-' ? -a : a;
    }
    case 'binary': {
      const a = jsEval(e.left, log);
      const b = jsEval(e.right, log);
      if (e.op === '+' && (typeof a === 'string' || typeof b === 'string')) return typeof a === 'number' ? jsNumber(a) + String(b) : String(a) + (typeof b === 'number' ? jsNumber(b) : String(b));
      if (typeof a !== 'number' || typeof b !== 'number') throw new NotSimulated();
      switch (e.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          return a / b;
        case '%':
          return a % b;
        case '**':
          // `-2 ** 2` is a SyntaxError in JavaScript.
          if (e.left.kind === 'unary') throw new NotSimulated();
          return a ** b;
      }
      throw new NotSimulated();
    }
    case 'call':
      if (e.callee === 'console.log') {
        log(e.args.map((a) => jsLog(jsEval(a, log))).join(' ') + '\n');
        return undefined;
      }
      throw jsUnknown(e.callee);
  }
}

/** A global the REPL has (or a keyword) is not simulated; any other name is a ReferenceError. */
function jsUnknown(name: string): Error {
  return name.includes('.') || jsGlobals.has(name) ? new NotSimulated() : new UndefinedName(name);
}

const jsGlobals = new Set(
  ('globalThis console process require module exports Buffer URL URLSearchParams TextEncoder TextDecoder AbortController fetch queueMicrotask structuredClone setTimeout setInterval setImmediate clearTimeout clearInterval clearImmediate atob btoa performance crypto navigator ' +
    'Object Function Array Number String Boolean Symbol BigInt Math JSON Date RegExp Error TypeError RangeError SyntaxError ReferenceError EvalError URIError AggregateError Promise Proxy Reflect Map Set WeakMap WeakSet WeakRef ArrayBuffer SharedArrayBuffer DataView Atomics Intl ' +
    'Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float32Array Float64Array BigInt64Array BigUint64Array parseInt parseFloat isNaN isFinite eval encodeURI decodeURI encodeURIComponent decodeURIComponent escape unescape NaN Infinity ' +
    'assert async_hooks buffer child_process cluster constants dgram diagnostics_channel dns domain events fs http http2 https inspector net os path perf_hooks punycode querystring readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib _ _error ' +
    'break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof let new null return static super switch this throw true try typeof var void while with yield await of').split(' '),
);

const jsOps = ['**', '+', '-', '*', '/', '%', '(', ')', ',', '.'];

type JsStatement = { kind: 'empty' } | { kind: 'exit'; code: number } | { kind: 'value'; value: JsValue; logged: string };

function jsStatement(line: string): JsStatement {
  const code = line.trim().replace(/;$/, '');
  if (!code || code.startsWith('//')) return { kind: 'empty' };
  const e = parse(tokenize(code, jsOps));
  if (e.kind === 'call' && e.callee === 'process.exit' && e.args.length <= 1) {
    const arg = e.args[0] ? jsEval(e.args[0], () => {}) : 0;
    if (typeof arg !== 'number' || !Number.isInteger(arg)) throw new NotSimulated();
    return { kind: 'exit', code: arg & 255 };
  }
  let logged = '';
  const value = jsEval(e, (t) => (logged += t));
  return { kind: 'value', value, logged };
}

/** node with no script: the REPL on a terminal, else the program on stdin run at its end. */
export function* node(version: string, io: InterpreterIo): Run<number> {
  if (!io.tty) {
    const lines: string[] = [];
    for (let l = yield* io.read(); l !== undefined; l = yield* io.read()) lines.push(l);
    const statements: JsStatement[] = [];
    for (const l of lines) {
      try {
        statements.push(jsStatement(l));
      } catch {
        // A thrown error's report names node's internal frames, which kubesim does not know.
        io.err(notSimulated('node', l));
        return 1;
      }
    }
    for (const s of statements) {
      if (s.kind === 'exit') return s.code;
      if (s.kind === 'value') io.out(s.logged);
    }
    return 0;
  }
  io.out(`Welcome to Node.js v${version}.\nType ".help" for more information.\n`);
  for (;;) {
    io.out('> ');
    const line = yield* io.read();
    if (line === undefined) {
      io.out('\n');
      return 0;
    }
    if (line.trim() === '.exit') return 0;
    try {
      const s = jsStatement(line);
      if (s.kind === 'exit') return s.code;
      if (s.kind === 'value') io.out(s.logged + jsInspect(s.value, true) + '\n');
    } catch (e) {
      if (e instanceof UndefinedName) io.err(`Uncaught ReferenceError: ${e.name} is not defined\n`);
      else io.err(notSimulated('node', line));
    }
  }
}

/** The text an interpreter's REPL answers the terminal's ^C with, before its next prompt; undefined: argv is no REPL. */
export function replInterrupt(argv: readonly string[]): string | undefined {
  if (argv.length > 1) return undefined;
  const name = argv[0]?.slice(argv[0].lastIndexOf('/') + 1) ?? '';
  if (/^python(3(\.\d+)?)?$/.test(name)) return '\nKeyboardInterrupt\n';
  if (name === 'node') return '\n(To exit, press Ctrl+C again or Ctrl+D or type .exit)\n';
  return undefined;
}

/**
 * `$(( ))`: the shell's arithmetic, 64-bit signed integers with C's
 * operators and precedence, variables by name (an unset or empty one is 0,
 * a set one is read as an expression), assignments (`i=i+1`, `+=`, `++`).
 * Errors carry busybox's math wording (`divide by zero`).
 */

export class ArithError extends Error {}

export interface ArithVars {
  get(name: string): string | undefined;
  set(name: string, value: string): void;
}

const wrap = (v: bigint) => BigInt.asIntN(64, v);

type Tok = { k: 'num'; v: bigint } | { k: 'name'; v: string } | { k: 'op'; v: string };

const ops = ['<<=', '>>=', '**', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '^=', '|=', '+', '-', '*', '/', '%', '<', '>', '=', '!', '~', '&', '^', '|', '?', ':', '(', ')', ','];

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(?![0-9A-Za-z_])/.exec(src.slice(i));
    if (/[0-9]/.test(c)) {
      if (!num) throw new ArithError('arithmetic syntax error');
      const t = num[1]!;
      out.push({ k: 'num', v: t.length > 1 && t[0] === '0' && !/[xX]/.test(t) ? BigInt('0o' + t.slice(1)) : BigInt(t) });
      i += t.length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (name) {
      out.push({ k: 'name', v: name[0] });
      i += name[0].length;
      continue;
    }
    const op = ops.find((o) => src.startsWith(o, i));
    if (!op) throw new ArithError('arithmetic syntax error');
    out.push({ k: 'op', v: op });
    i += op.length;
  }
  return out;
}

const binaryLevels: string[][] = [['||'], ['&&'], ['|'], ['^'], ['&'], ['==', '!='], ['<', '<=', '>', '>='], ['<<', '>>'], ['+', '-'], ['*', '/', '%']];

/** Evaluates an arithmetic expression (already expanded by the shell). */
export function evaluateArith(src: string, vars: ArithVars, depth = 0): bigint {
  if (depth > 32) throw new ArithError('expression recursion loop detected');
  const toks = tokenize(src);
  if (!toks.length) return 0n;
  let i = 0;
  /** Inside a branch that is not taken: no assignments, no errors. */
  let skip = 0;
  const peek = () => toks[i];
  const isOp = (v: string) => toks[i]?.k === 'op' && toks[i]!.v === v;
  const syntax = (): never => {
    throw new ArithError('arithmetic syntax error');
  };
  const value = (name: string): bigint => {
    const v = vars.get(name);
    if (v === undefined || v.trim() === '') return 0n;
    return evaluateArith(v, vars, depth + 1);
  };
  const assign = (name: string, v: bigint): bigint => {
    if (!skip) vars.set(name, String(v));
    return v;
  };
  const apply = (op: string, a: bigint, b: bigint): bigint => {
    switch (op) {
      case '+': return wrap(a + b);
      case '-': return wrap(a - b);
      case '*': return wrap(a * b);
      case '/':
      case '%':
        if (b === 0n) {
          if (skip) return 0n;
          throw new ArithError('divide by zero');
        }
        return op === '/' ? wrap(a / b) : a % b;
      case '**':
        if (b < 0n) throw new ArithError('exponent less than 0');
        return wrap(a ** b);
      case '<<': return wrap(a << b);
      case '>>': return a >> b;
      case '<': return a < b ? 1n : 0n;
      case '<=': return a <= b ? 1n : 0n;
      case '>': return a > b ? 1n : 0n;
      case '>=': return a >= b ? 1n : 0n;
      case '==': return a === b ? 1n : 0n;
      case '!=': return a !== b ? 1n : 0n;
      case '&': return a & b;
      case '^': return a ^ b;
      case '|': return a | b;
      default: return syntax();
    }
  };
  const primary = (): bigint => {
    const t = toks[i++];
    if (!t) return syntax();
    if (t.k === 'num') return t.v;
    if (t.k === 'name') {
      if (isOp('++') || isOp('--')) {
        const op = toks[i++]!.v;
        const old = value(t.v);
        assign(t.v, wrap(old + (op === '++' ? 1n : -1n)));
        return old;
      }
      return value(t.v);
    }
    if (t.v === '(') {
      const v = comma();
      if (!isOp(')')) syntax();
      i++;
      return v;
    }
    i--;
    return syntax();
  };
  const unary = (): bigint => {
    const t = peek();
    if (t?.k === 'op') {
      if (t.v === '++' || t.v === '--') {
        i++;
        const n = toks[i++];
        if (n?.k !== 'name') return syntax();
        return assign(n.v, wrap(value(n.v) + (t.v === '++' ? 1n : -1n)));
      }
      if (t.v === '-' || t.v === '+' || t.v === '!' || t.v === '~') {
        i++;
        const v = unary();
        return t.v === '-' ? wrap(-v) : t.v === '+' ? v : t.v === '!' ? (v === 0n ? 1n : 0n) : ~v;
      }
    }
    return power();
  };
  const power = (): bigint => {
    const base = primary();
    if (isOp('**')) {
      i++;
      return apply('**', base, unary());
    }
    return base;
  };
  const binary = (level: number): bigint => {
    if (level >= binaryLevels.length) return unary();
    const names = binaryLevels[level]!;
    let v = binary(level + 1);
    for (;;) {
      const t = peek();
      if (t?.k !== 'op' || !names.includes(t.v)) return v;
      i++;
      if (t.v === '&&' || t.v === '||') {
        const short = t.v === '&&' ? v === 0n : v !== 0n;
        if (short) skip++;
        const r = binary(level + 1);
        if (short) skip--;
        v = short ? (t.v === '||' ? 1n : 0n) : r !== 0n ? 1n : 0n;
      } else v = apply(t.v, v, binary(level + 1));
    }
  };
  const ternary = (): bigint => {
    const c = binary(0);
    if (!isOp('?')) return c;
    i++;
    if (c === 0n) skip++;
    const a = assignment();
    if (c === 0n) skip--;
    if (!isOp(':')) syntax();
    i++;
    if (c !== 0n) skip++;
    const b = assignment();
    if (c !== 0n) skip--;
    return c !== 0n ? a : b;
  };
  const assignment = (): bigint => {
    const t = peek();
    const next = toks[i + 1];
    if (t?.k === 'name' && next?.k === 'op' && /^([-+*/%&^|]|<<|>>)?=$/.test(next.v)) {
      i += 2;
      const r = assignment();
      const v = next.v === '=' ? r : apply(next.v.slice(0, -1), value(t.v), r);
      return assign(t.v, v);
    }
    return ternary();
  };
  const comma = (): bigint => {
    let v = assignment();
    while (isOp(',')) {
      i++;
      v = assignment();
    }
    return v;
  };
  const result = comma();
  if (i < toks.length) syntax();
  return result;
}

// Static CEL types used by the checker, the function declarations and the
// schema mapping. A small signature syntax ("string.contains(string) -> bool")
// keeps library declarations short.

export type CelType =
  | { kind: 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'bool' | 'null' | 'timestamp' | 'duration' | 'dyn' | 'error' }
  | { kind: 'list'; elem: CelType }
  | { kind: 'map'; key: CelType; value: CelType }
  | { kind: 'type'; param?: CelType }
  | { kind: 'opaque'; name: string; params: CelType[] }
  | { kind: 'param'; name: string }
  | ObjectType;

/** A message-like type with named fields (objects typed from OpenAPI schemas). */
export interface ObjectType {
  kind: 'object';
  name: string;
  fields: Map<string, CelType>;
  /** schema metadata for cost estimation and list semantics (opaque to the checker) */
  meta?: unknown;
}

const prim = <K extends 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'bool' | 'null' | 'timestamp' | 'duration' | 'dyn' | 'error'>(kind: K) => ({ kind }) as CelType;

export const T = {
  int: prim('int'),
  uint: prim('uint'),
  double: prim('double'),
  string: prim('string'),
  bytes: prim('bytes'),
  bool: prim('bool'),
  null: prim('null'),
  timestamp: prim('timestamp'),
  duration: prim('duration'),
  dyn: prim('dyn'),
  error: prim('error'),
  list: (elem: CelType): CelType => ({ kind: 'list', elem }),
  map: (key: CelType, value: CelType): CelType => ({ kind: 'map', key, value }),
  type: (param?: CelType): CelType => (param ? { kind: 'type', param } : { kind: 'type' }),
  opaque: (name: string, ...params: CelType[]): CelType => ({ kind: 'opaque', name, params }),
  optional: (t: CelType): CelType => ({ kind: 'opaque', name: 'optional_type', params: [t] }),
  param: (name: string): CelType => ({ kind: 'param', name }),
};

/**
 * list(dyn) as the checker makes it (a `map()` result, a literal of dynamic elements): shared, so that
 * overload resolution can recognize it by identity (types from schemas are never this object).
 */
export const LIST_OF_DYN: CelType = T.list(T.dyn);

export function typeToString(t: CelType): string {
  switch (t.kind) {
    case 'null':
      return 'null_type';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'error':
      return '*error*';
    case 'list':
      return `list(${typeToString(t.elem)})`;
    case 'map':
      return `map(${typeToString(t.key)}, ${typeToString(t.value)})`;
    case 'type':
      return t.param ? `type(${typeToString(t.param)})` : 'type';
    case 'opaque':
      return t.params.length ? `${t.name}(${t.params.map(typeToString).join(', ')})` : t.name;
    case 'param':
      return t.name;
    case 'object':
      return t.name;
    default:
      return t.kind;
  }
}

/** The runtime type name a value of this static type reports from type(). */
export function runtimeTypeName(t: CelType): string {
  switch (t.kind) {
    case 'list':
    case 'map':
      return t.kind;
    case 'object':
      return 'map';
    case 'opaque':
      return t.name;
    default:
      return typeToString(t);
  }
}

// ---- signature parsing: "A.name(B, list(C)) -> D" ----

const NAMED: Record<string, CelType> = {
  int: T.int,
  uint: T.uint,
  double: T.double,
  string: T.string,
  bytes: T.bytes,
  bool: T.bool,
  null_type: T.null,
  timestamp: T.timestamp,
  duration: T.duration,
  dyn: T.dyn,
  type: T.type(),
};

export function parseType(src: string): CelType {
  let i = 0;
  const ws = (): void => {
    while (src[i] === ' ') i++;
  };
  const ident = (): string => {
    ws();
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(src.slice(i));
    if (!m) throw new Error(`bad type: ${src}`);
    i += m[0].length;
    return m[0];
  };
  const one = (): CelType => {
    const name = ident();
    ws();
    const params: CelType[] = [];
    if (src[i] === '(') {
      i++;
      for (;;) {
        params.push(one());
        ws();
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === ')') {
          i++;
          break;
        }
        throw new Error(`bad type: ${src}`);
      }
    }
    if (name === 'list') return T.list(params[0]!);
    if (name === 'map') return T.map(params[0]!, params[1]!);
    if (name === 'type') return T.type(params[0]);
    if (name === 'optional') return T.optional(params[0]!);
    if (params.length === 0 && NAMED[name]) return NAMED[name]!;
    if (/^[A-Z]$/.test(name)) return T.param(name);
    return T.opaque(name, ...params);
  };
  const t = one();
  return t;
}

export interface Signature {
  name: string;
  member: boolean;
  params: CelType[];
  result: CelType;
}

/** Parses "recv.name(a, b) -> r" (member) or "name(a, b) -> r" (global). */
export function parseSignature(sig: string): Signature {
  const arrow = sig.lastIndexOf('->');
  const result = parseType(sig.slice(arrow + 2).trim());
  const head = sig.slice(0, arrow).trim();
  // find the '(' that starts the parameter list: the last top-level one
  let depth = 0;
  let paramStart = -1;
  for (let k = head.length - 1; k >= 0; k--) {
    if (head[k] === ')') depth++;
    else if (head[k] === '(') {
      depth--;
      if (depth === 0) {
        paramStart = k;
        break;
      }
    }
  }
  const callee = head.slice(0, paramStart);
  const paramsSrc = head.slice(paramStart + 1, -1);
  const params = splitTop(paramsSrc).map(parseType);
  // member form: "<receiver type>.<name>"; namespaced globals keep their dotted name
  const dot = callee.lastIndexOf('.');
  if (dot > 0 && !/^_.*_$/.test(callee)) {
    const prefix = callee.slice(0, dot);
    if (!GLOBAL_NAMESPACES.has(prefix)) {
      return { name: callee.slice(dot + 1), member: true, params: [parseType(prefix), ...params], result };
    }
  }
  return { name: callee, member: false, params, result };
}

/** Prefixes of namespaced global functions (optional.of, math.greatest, ...). */
const GLOBAL_NAMESPACES = new Set(['optional', 'math', 'strings', 'sets', 'lists', 'base64', 'cel', 'format', 'ip', 'jsonpatch']);

function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

// ---- assignability and unification ----

const nullable = new WeakSet<CelType>();
/** Marks a type (from a schema with nullable: true) as accepting null. */
export function markNullable(t: CelType): CelType {
  nullable.add(t);
  return t;
}

/** Type parameter bindings (a Map, or a trial layered over one). */
export interface Substitution {
  get(name: string): CelType | undefined;
  has(name: string): boolean;
  set(name: string, t: CelType): unknown;
}

/**
 * A few bindings in two parallel arrays: overload trials bind one to three
 * names, where a linear scan beats a Map and clearing is a store.
 */
export class SmallBindings implements Substitution {
  private readonly names: string[] = [];
  private readonly types: CelType[] = [];
  private n = 0;
  get(name: string): CelType | undefined {
    for (let i = 0; i < this.n; i++) if (this.names[i] === name) return this.types[i];
    return undefined;
  }
  has(name: string): boolean {
    return this.get(name) !== undefined;
  }
  set(name: string, t: CelType): this {
    for (let i = 0; i < this.n; i++) {
      if (this.names[i] === name) {
        this.types[i] = t;
        return this;
      }
    }
    this.names[this.n] = name;
    this.types[this.n++] = t;
    return this;
  }
  clear(): void {
    this.n = 0;
  }
  get size(): number {
    return this.n;
  }
  /** Writes every binding into `s`. */
  copyTo(s: Substitution): void {
    for (let i = 0; i < this.n; i++) s.set(this.names[i]!, this.types[i]!);
  }
  /** Whether a binding of a name that is not a signature's parameter refers to a signature's parameter. */
  freshBoundToSignature(): boolean {
    for (let i = 0; i < this.n; i++) if (!isSignatureParam(this.names[i]!) && mentionsSignatureParam(this.types[i]!)) return true;
    return false;
  }
  /** Writes the bindings of names that are not a signature's parameters into `s`. */
  copyFreshTo(s: Substitution): void {
    for (let i = 0; i < this.n; i++) if (!isSignatureParam(this.names[i]!)) s.set(this.names[i]!, this.types[i]!);
  }
}

/** Declared signatures name their type parameters with one capital letter (A, K, V); the checker's fresh ones are _var0, _var1, ... */
export function isSignatureParam(name: string): boolean {
  return name.length === 1;
}

/** Whether a type mentions a type parameter whose name passes `test`. */
export function mentionsParam(t: CelType, test: (name: string) => boolean): boolean {
  switch (t.kind) {
    case 'param':
      return test(t.name);
    case 'list':
      return mentionsParam(t.elem, test);
    case 'map':
      return mentionsParam(t.key, test) || mentionsParam(t.value, test);
    case 'type':
      return t.param ? mentionsParam(t.param, test) : false;
    case 'opaque':
      for (const p of t.params) if (mentionsParam(p, test)) return true;
      return false;
    default:
      return false;
  }
}

/** Whether a type mentions a signature's type parameter. */
export function mentionsSignatureParam(t: CelType): boolean {
  return mentionsParam(t, isSignatureParam);
}

/**
 * Bindings tried on top of a base substitution without copying it: reads
 * fall through to the base, writes stay here until commit(). Overload
 * resolution tries one of these per candidate overload.
 */
export class TrialSubstitution implements Substitution {
  private readonly own = new SmallBindings();
  constructor(private readonly base: Substitution) {}
  get(name: string): CelType | undefined {
    return this.own.get(name) ?? this.base.get(name);
  }
  has(name: string): boolean {
    return this.own.has(name) || this.base.has(name);
  }
  set(name: string, t: CelType): this {
    this.own.set(name, t);
    return this;
  }
  /** Drops the trial's bindings. */
  reset(): void {
    this.own.clear();
  }
  /** Writes the trial's bindings into the base. */
  commit(): void {
    this.own.copyTo(this.base);
  }
  /** Whether a binding of one of the checker's own parameters refers to a signature's parameter (see isSignatureParam). */
  freshBoundToSignature(): boolean {
    return this.own.freshBoundToSignature();
  }
  /** Writes the trial's bindings of the checker's own parameters into the base, leaving those of the signature's. */
  commitFresh(): void {
    this.own.copyFreshTo(this.base);
  }
}

/** Applies bindings; returns the same object when nothing changes (schema metadata is keyed by type identity). */
export function substitute(t: CelType, s: Substitution, toDyn = false): CelType {
  switch (t.kind) {
    case 'param': {
      const b = s.get(t.name);
      if (b) return substitute(b, s, toDyn);
      return toDyn ? T.dyn : t;
    }
    case 'list': {
      const e = substitute(t.elem, s, toDyn);
      return e === t.elem ? t : e === T.dyn ? LIST_OF_DYN : T.list(e);
    }
    case 'map': {
      const k = substitute(t.key, s, toDyn);
      const v = substitute(t.value, s, toDyn);
      return k === t.key && v === t.value ? t : T.map(k, v);
    }
    case 'type': {
      if (!t.param) return t;
      const p = substitute(t.param, s, toDyn);
      return p === t.param ? t : T.type(p);
    }
    case 'opaque': {
      if (!t.params.length) return t;
      const ps = t.params.map((p) => substitute(p, s, toDyn));
      return ps.every((p, i) => p === t.params[i]) ? t : T.opaque(t.name, ...ps);
    }
    default:
      return t;
  }
}

function occurs(name: string, t: CelType, s: Substitution): boolean {
  const r = t.kind === 'param' && s.has(t.name) ? s.get(t.name)! : t;
  switch (r.kind) {
    case 'param':
      return r.name === name;
    case 'list':
      return occurs(name, r.elem, s);
    case 'map':
      return occurs(name, r.key, s) || occurs(name, r.value, s);
    case 'opaque':
      return r.params.some((p) => occurs(name, p, s));
    case 'type':
      return r.param ? occurs(name, r.param, s) : false;
    default:
      return false;
  }
}

/**
 * Is a value of type `actual` acceptable where `expected` is declared? Binds
 * type parameters in `s` as a side effect. dyn is compatible with everything.
 */
export function isAssignable(expected: CelType, actual: CelType, s: Substitution): boolean {
  // every type is assignable to itself, binding nothing (a parameter to itself binds nothing either)
  if (expected === actual) return true;
  if (expected.kind === 'param') {
    const b = s.get(expected.name);
    if (b) {
      if (isAssignable(b, actual, s)) return true;
      // widen the binding when the actual is more general (e.g. dyn)
      if (isAssignable(actual, b, s)) {
        s.set(expected.name, mostGeneral(b, actual));
        return true;
      }
      return false;
    }
    if (actual.kind === 'param' && actual.name === expected.name) return true;
    if (occurs(expected.name, actual, s)) return false;
    s.set(expected.name, actual);
    return true;
  }
  if (actual.kind === 'param') {
    const b = s.get(actual.name);
    if (b) return isAssignable(expected, b, s);
    s.set(actual.name, expected);
    return true;
  }
  if (expected.kind === 'dyn' || actual.kind === 'dyn' || expected.kind === 'error' || actual.kind === 'error') return true;
  if (expected.kind === 'null') return actual.kind === 'null';
  // null is assignable to messages/objects, wrappers, timestamps, durations, optionals, any
  if (actual.kind === 'null') {
    return expected.kind === 'object' || expected.kind === 'timestamp' || expected.kind === 'duration' || expected.kind === 'opaque' || nullable.has(expected);
  }
  if (expected.kind !== actual.kind) return false;
  switch (expected.kind) {
    case 'list':
      return isAssignable(expected.elem, (actual as { elem: CelType }).elem, s);
    case 'map': {
      const a = actual as { key: CelType; value: CelType };
      return isAssignable(expected.key, a.key, s) && isAssignable(expected.value, a.value, s);
    }
    case 'type':
      // type values of any type compare with each other
      return true;
    case 'opaque': {
      const a = actual as { name: string; params: CelType[] };
      if (expected.name !== a.name || expected.params.length !== a.params.length) return false;
      return expected.params.every((p, i) => isAssignable(p, a.params[i]!, s));
    }
    case 'object': {
      // objects typed from different schema nodes with the same shape are interchangeable
      const a = actual as ObjectType;
      if (expected.name === a.name) return true;
      if (expected.fields.size !== a.fields.size) return false;
      for (const [k, t] of expected.fields) {
        const at = a.fields.get(k);
        if (!at || !isAssignable(t, at, s)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

export function isDynOrError(t: CelType): boolean {
  return t.kind === 'dyn' || t.kind === 'error';
}

/** The more general of two compatible types (dyn wins). */
export function mostGeneral(a: CelType, b: CelType): CelType {
  if (isDynOrError(a) || b.kind === 'param') return a;
  if (isDynOrError(b) || a.kind === 'param') return b;
  if (a.kind === 'list' && b.kind === 'list') return T.list(mostGeneral(a.elem, b.elem));
  if (a.kind === 'map' && b.kind === 'map') return T.map(mostGeneral(a.key, b.key), mostGeneral(a.value, b.value));
  if (a.kind === 'opaque' && b.kind === 'opaque' && a.params.length === b.params.length && a.name === b.name) {
    return T.opaque(a.name, ...a.params.map((p, i) => mostGeneral(p, b.params[i]!)));
  }
  return a;
}

/** Whether two types print the same, compared structurally without building the strings. */
export function typeEquals(a: CelType, b: CelType): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'list':
      return typeEquals(a.elem, (b as { elem: CelType }).elem);
    case 'map': {
      const m = b as { key: CelType; value: CelType };
      return typeEquals(a.key, m.key) && typeEquals(a.value, m.value);
    }
    case 'type': {
      const p = (b as { param?: CelType }).param;
      return a.param === undefined ? p === undefined : p !== undefined && typeEquals(a.param, p);
    }
    case 'opaque': {
      const o = b as { name: string; params: CelType[] };
      if (a.name !== o.name || a.params.length !== o.params.length) return false;
      for (let i = 0; i < a.params.length; i++) if (!typeEquals(a.params[i]!, o.params[i]!)) return false;
      return true;
    }
    case 'param':
    case 'object':
      return a.name === (b as { name: string }).name;
    default:
      return true;
  }
}

/** Whether a type mentions dyn anywhere (such calls need runtime overload checks). */
export function hasDyn(t: CelType): boolean {
  switch (t.kind) {
    case 'dyn':
    case 'error':
    case 'param':
      return true;
    case 'list':
      return hasDyn(t.elem);
    case 'map':
      return hasDyn(t.key) || hasDyn(t.value);
    case 'opaque':
      return t.params.some(hasDyn);
    default:
      return false;
  }
}

/**
 * Walks a JSON tree with the Go type it is decoded into, the way
 * kube-apiserver's decoders do, and reports what they report:
 *
 * - `json` mode is sigs.k8s.io/json's strict Unmarshal (create, update, and
 *   the re-decode of a JSON/merge-patched object): strict errors (`unknown
 *   field "spec.foo"`, `duplicate field "metadata.name"`) in the order the
 *   decoder meets them, de-duplicated and capped at 100; and the first fatal
 *   error with encoding/json's exact text (`json: cannot unmarshal string into
 *   Go struct field DeploymentSpec.spec.replicas of type int32`).
 * - `unstructured` mode is runtime.DefaultUnstructuredConverter
 *   (FromUnstructuredWithValidation, used after a strategic merge patch):
 *   unknown fields sorted by message, and its own fatal texts (`unrecognized
 *   type: int32`, `cannot restore struct from: string`).
 *
 * A fatal error makes the strict errors moot: upstream reports only it.
 */
import type { GoType } from './goTypes';
import { goBase64Error, goQuantityParseError, goTimeParseError } from './goValues';
import type { JsonNode } from './jsonTree';

/** sigs.k8s.io/json stops collecting strict errors after this many. */
export const maxStrictErrors = 100;

/** Strict decoding errors in reporting order, without repeats (same rule as sigs.k8s.io/json). */
export class StrictErrors {
  readonly messages: string[] = [];
  private readonly seen = new Set<string>();

  add(kind: 'unknown' | 'duplicate', path: string, prefix = ''): void {
    const msg = `${prefix}${kind} field ${JSON.stringify(path)}`;
    if (this.messages.length >= maxStrictErrors || this.seen.has(msg)) return;
    this.seen.add(msg);
    this.messages.push(msg);
  }

  addMessage(msg: string): void {
    if (this.seen.has(msg)) return;
    this.seen.add(msg);
    this.messages.push(msg);
  }
}

export const childPath = (path: string, key: string) => (path ? `${path}.${key}` : key);

export interface DecodeResult {
  strict: string[];
  fatal?: string;
}

/** Go's errorContext: the struct being filled and the JSON names of the struct fields entered (no indexes, no map keys). */
interface ErrorContext {
  struct: string | undefined;
  stack: string[];
}

/** An error a custom UnmarshalJSON returned: it aborts decoding and wins over any saved error. */
class ReturnedError {
  constructor(readonly message: string) {}
}

const jsonKind = (n: JsonNode): string => (n.t === 'bool' ? 'bool' : n.t);

/**
 * Decodes `node` into `type` as sigs.k8s.io/json does. `strict` false skips
 * strict errors (fieldValidation=Ignore uses the non-strict decoder).
 */
export function decodeJson(node: JsonNode, type: GoType, strict: boolean, basePath = ''): DecodeResult {
  const errs = new StrictErrors();
  let saved: string | undefined;
  const ctx: ErrorContext = { struct: undefined, stack: [] };

  const typeError = (value: string, t: GoType, c: ErrorContext, goType = t.goName()) =>
    c.struct !== undefined || c.stack.length > 0
      ? `json: cannot unmarshal ${value} into Go struct field ${c.struct ?? ''}.${c.stack.join('.')} of type ${goType}`
      : `json: cannot unmarshal ${value} into Go value of type ${goType}`;
  const save = (msg: string) => {
    saved ??= msg;
  };

  const intError = (raw: string, bits: 32 | 64): boolean => {
    if (!/^-?\d+$/.test(raw)) return true;
    const n = BigInt(raw);
    const max = bits === 32 ? 2n ** 31n : 2n ** 63n;
    return n >= max || n < -max;
  };

  const value = (n: JsonNode, t: GoType, path: string): void => {
    switch (t.k) {
      case 'any':
        return;
      case 'intOrString':
        if (n.t === 'null' || n.t === 'string') return;
        if (n.t === 'number' && !intError(n.raw, 32)) return;
        throw new ReturnedError(typeError(n.t === 'number' ? `number ${n.raw}` : jsonKind(n), t, ctx, 'int32'));
      case 'quantity': {
        if (n.t === 'null') return;
        const text = n.t === 'string' ? n.v : n.t === 'number' ? n.raw : n.t === 'bool' ? String(n.v) : '{';
        const err = goQuantityParseError(text);
        if (err) throw new ReturnedError(err);
        return;
      }
      case 'time':
      case 'microTime': {
        if (n.t === 'null') return;
        if (n.t !== 'string') throw new ReturnedError(typeError(n.t === 'number' ? 'number' : jsonKind(n), t, ctx, 'string'));
        const err = goTimeParseError(n.v, t.k === 'microTime');
        if (err) throw new ReturnedError(err);
        return;
      }
      default:
        break;
    }
    switch (n.t) {
      case 'null':
        return;
      case 'object':
        if (t.k === 'struct') {
          const seen = new Set<string>();
          for (const [key, child] of n.entries) {
            const ft = t.field(key);
            if (!ft) {
              if (strict && !t.preserve) errs.add('unknown', childPath(path, key));
              continue;
            }
            if (strict) {
              if (seen.has(key)) errs.add('duplicate', childPath(path, key));
              else seen.add(key);
            }
            const saveStruct = ctx.struct;
            ctx.stack.push(key);
            ctx.struct = t.name;
            value(child, ft, childPath(path, key));
            ctx.stack.pop();
            ctx.struct = saveStruct;
          }
          return;
        }
        if (t.k === 'map') {
          const seen = new Set<string>();
          const elem = t.elem();
          for (const [key, child] of n.entries) {
            if (strict) {
              if (seen.has(key)) errs.add('duplicate', childPath(path, key));
              else seen.add(key);
            }
            value(child, elem, childPath(path, key));
          }
          return;
        }
        save(typeError('object', t, ctx));
        return;
      case 'array':
        if (t.k === 'bytes') return;
        if (t.k === 'slice') {
          const elem = t.elem();
          n.items.forEach((item, i) => value(item, elem, `${path}[${i}]`));
          return;
        }
        save(typeError('array', t, ctx));
        return;
      case 'string':
        if (t.k === 'string') return;
        if (t.k === 'bytes') {
          const err = goBase64Error(n.v);
          if (err) save(err);
          return;
        }
        save(typeError('string', t, ctx));
        return;
      case 'bool':
        if (t.k !== 'bool') save(typeError('bool', t, ctx));
        return;
      case 'number':
        switch (t.k) {
          case 'int32':
            if (intError(n.raw, 32)) save(typeError(`number ${n.raw}`, t, ctx));
            return;
          case 'int64':
          case 'int':
            if (intError(n.raw, 64)) save(typeError(`number ${n.raw}`, t, ctx));
            return;
          case 'float64':
            if (!Number.isFinite(Number(n.raw))) save(typeError(`number ${n.raw}`, t, ctx));
            return;
          default:
            save(typeError('number', t, ctx));
            return;
        }
    }
  };

  try {
    value(node, type, basePath);
  } catch (e) {
    if (!(e instanceof ReturnedError)) throw e;
    return { strict: [], fatal: e.message };
  }
  if (saved) return { strict: [], fatal: saved };
  return { strict: errs.messages };
}

/** Go's reflect kind/type of a value decoded into interface{} with PreserveInts. */
function unstructuredGoType(n: JsonNode): string {
  switch (n.t) {
    case 'string':
      return 'string';
    case 'bool':
      return 'bool';
    case 'number':
      return /^-?\d+$/.test(n.raw) && BigInt(n.raw) < 2n ** 63n && BigInt(n.raw) >= -(2n ** 63n) ? 'int64' : 'float64';
    case 'object':
      return 'map';
    case 'array':
      return 'slice';
    case 'null':
      return 'invalid';
  }
}

/**
 * Converts a decoded map into `type` as runtime.DefaultUnstructuredConverter
 * does after a strategic merge patch. Unknown fields come back sorted by
 * message, as FromUnstructuredWithValidation sorts them.
 */
export function decodeUnstructured(node: JsonNode, type: GoType, strict: boolean): DecodeResult {
  const unknown: string[] = [];
  const fail = (msg: string): never => {
    throw new ReturnedError(msg);
  };
  // Custom unmarshalers receive the value re-encoded as JSON, with no struct context.
  const viaJson = (n: JsonNode, t: GoType) => {
    const r = decodeJson(n, t, false);
    if (r.fatal) fail(r.fatal);
  };

  const value = (n: JsonNode, t: GoType, path: string): void => {
    if (n.t === 'null' || t.k === 'any') return;
    const st = unstructuredGoType(n);
    switch (t.k) {
      case 'intOrString':
      case 'quantity':
      case 'time':
      case 'microTime':
        return viaJson(n, t);
      case 'string':
      case 'bool':
      case 'int32':
      case 'int64':
      case 'int':
      case 'float64': {
        const dt = t.goName();
        const intKinds = ['int32', 'int64', 'int'];
        if (st === 'string') return t.k === 'string' ? undefined : fail(`unrecognized type: ${dt}`);
        if (st === 'bool') return t.k === 'bool' ? undefined : fail(`unrecognized type: ${dt}`);
        if (st === 'int64') {
          if (intKinds.includes(t.k) || t.k === 'float64') return;
          return t.k === 'string' ? fail(`cannot convert int64 to ${dt}`) : fail(`unrecognized type: ${dt}`);
        }
        if (st === 'float64') {
          if (t.k === 'float64') return;
          if (intKinds.includes(t.k)) return Number.isInteger(Number((n as { raw: string }).raw)) ? undefined : fail(`cannot convert float64 to ${dt}`);
          return fail(`unrecognized type: ${dt}`);
        }
        return fail(`unrecognized type: ${dt}`);
      }
      case 'bytes':
        if (n.t === 'string') {
          const err = goBase64Error(n.v);
          return err ? fail(`error decoding from json: ${err}`) : undefined;
        }
        if (n.t !== 'array') fail(`cannot restore slice from ${st}`);
        return;
      case 'slice': {
        if (n.t !== 'array') return fail(`cannot restore slice from ${st}`);
        const elem = t.elem();
        n.items.forEach((item, i) => value(item, elem, `${path}[${i}]`));
        return;
      }
      case 'map': {
        if (n.t !== 'object') return fail(`cannot restore map from ${st}`);
        const elem = t.elem();
        for (const [k, child] of n.entries) value(child, elem, childPath(path, k));
        return;
      }
      case 'struct': {
        if (n.t !== 'object') return fail(`cannot restore struct from: ${st}`);
        for (const [k, child] of n.entries) {
          const ft = t.field(k);
          if (!ft) {
            if (strict && !t.preserve) unknown.push(`unknown field ${JSON.stringify(childPath(path, k))}`);
            continue;
          }
          value(child, ft, childPath(path, k));
        }
        return;
      }
    }
  };

  try {
    value(node, type, '');
  } catch (e) {
    if (!(e instanceof ReturnedError)) throw e;
    return { strict: [], fatal: e.message };
  }
  unknown.sort();
  return { strict: unknown.slice(0, maxStrictErrors) };
}

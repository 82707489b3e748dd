// Runs cel-spec conformance tests (as shipped by @bufbuild/cel-spec) through
// the engine. Tests that need protobuf messages are out of scope and are not
// run at all; the rest pass or are listed in skips.ts as expected failures.

import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import { T, typeToString, type CelType } from '../common/types';
import {
  CelError,
  CelMap,
  CelOptional,
  CelTypeValue,
  CelUint,
  typeOfValue,
  type CelValue,
} from '../common/values';
import { CelEnv } from '../env';
import { parseDuration, parseTimestamp } from '../common/time';
import { celEquals, mapGet, mapKeys, mapSize } from '../common/ops';
import { extensionLibraries } from '../library';
import type { OverloadDecl } from '../interpreter/functions';

/* eslint-disable @typescript-eslint/no-explicit-any */
type J = any;

export interface ConformanceCase {
  path: string;
  file: string;
  original: J;
}

const PROTO_FILES = new Set(['proto2', 'proto3', 'proto2_ext', 'enums']);
const PROTO_RE =
  /\b(TestAllTypes|NestedTestAllTypes|NestedMessage|NestedEnum|GlobalEnum|TestRequired\w*|google\.protobuf\.(Any|Struct|Value|ListValue|BoolValue|BytesValue|DoubleValue|FloatValue|Int32Value|Int64Value|StringValue|UInt32Value|UInt64Value|NullValue|Empty|FieldMask)|cel\.expr\.conformance)\b/;

/** Whether a test depends on protobuf message types (out of scope for kubesim). */
export function needsProtobuf(c: ConformanceCase): boolean {
  if (PROTO_FILES.has(c.file)) return true;
  const o = c.original;
  if (o.container) return true;
  // the expression is tested unescaped too: in JSON text `\tTestAllTypes` has no word boundary before the name
  const text = JSON.stringify(o);
  return PROTO_RE.test(text) || PROTO_RE.test(String(o.expr ?? '')) || /"@type":"type\.googleapis\.com\/(?!google\.protobuf\.(Timestamp|Duration)")/.test(text);
}

export function allCases(): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  for (const f of (conformance as J).suites as J[]) {
    for (const s of (f.suites ?? []) as J[]) {
      for (const t of s.tests as J[]) out.push({ path: `${f.name}/${s.name}/${t.original.name}`, file: f.name, original: t.original });
    }
  }
  return out;
}

function toType(t: J): CelType {
  if (t.primitive) {
    return (
      { INT64: T.int, UINT64: T.uint, DOUBLE: T.double, BOOL: T.bool, STRING: T.string, BYTES: T.bytes } as Record<string, CelType>
    )[t.primitive]!;
  }
  if (t.listType) return T.list(toType(t.listType.elemType));
  if (t.mapType) return T.map(toType(t.mapType.keyType), toType(t.mapType.valueType));
  if ('null' in t) return T.null;
  if (t.wellKnown === 'TIMESTAMP' || t.messageType === 'google.protobuf.Timestamp') return T.timestamp;
  if (t.wellKnown === 'DURATION' || t.messageType === 'google.protobuf.Duration') return T.duration;
  if (t.typeParam) return T.param(t.typeParam);
  if (t.abstractType) return T.opaque(t.abstractType.name, ...(t.abstractType.parameterTypes ?? []).map(toType));
  if (t.type) return T.type(toType(t.type));
  return T.dyn;
}

function b64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function toValue(v: J): CelValue {
  if ('int64Value' in v) return BigInt(v.int64Value);
  if ('uint64Value' in v) return new CelUint(BigInt(v.uint64Value));
  if ('doubleValue' in v) return typeof v.doubleValue === 'string' ? Number(v.doubleValue) : v.doubleValue;
  if ('stringValue' in v) return v.stringValue;
  if ('bytesValue' in v) return b64(v.bytesValue);
  if ('boolValue' in v) return v.boolValue;
  if ('nullValue' in v) return null;
  if ('listValue' in v) return (v.listValue.values ?? []).map(toValue);
  if ('mapValue' in v) {
    const m = new CelMap();
    for (const e of v.mapValue.entries ?? []) m.set(toValue(e.key), toValue(e.value));
    return m;
  }
  if ('typeValue' in v) return new CelTypeValue(v.typeValue);
  if ('objectValue' in v) {
    const t = v.objectValue['@type'];
    if (t === 'type.googleapis.com/google.protobuf.Duration') return parseDuration(v.objectValue.value) as CelValue;
    if (t === 'type.googleapis.com/google.protobuf.Timestamp') return parseTimestamp(v.objectValue.value) as CelValue;
  }
  throw new Error(`unsupported expected value ${JSON.stringify(v)}`);
}

/** Strict equality for test expectations: kinds must match, NaN equals NaN. */
export function sameValue(a: CelValue, b: CelValue): boolean {
  if (typeOfValue(a).name !== typeOfValue(b).name) return false;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) ? Number.isNaN(b) : a === b || celEquals(a, b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]!));
  if ((a instanceof CelMap || typeof a === 'object') && typeOfValue(a).name === 'map') {
    const ma = a as CelMap;
    const mb = b as CelMap;
    if (mapSize(ma) !== mapSize(mb)) return false;
    return mapKeys(ma).every((k) => {
      const vb = mapGet(mb, k);
      return vb !== undefined && sameValue(mapGet(ma, k)!, vb);
    });
  }
  if (a instanceof CelOptional && b instanceof CelOptional) {
    return a.value === undefined ? b.value === undefined : b.value !== undefined && sameValue(a.value, b.value);
  }
  return celEquals(a, b);
}

export interface CaseOutcome {
  pass: boolean;
  detail: string;
}

let sharedEnv: CelEnv | undefined;
function baseEnv(): CelEnv {
  sharedEnv ??= new CelEnv({ libraries: extensionLibraries(), enableBind: true, presenceTestHasCost: true });
  return sharedEnv;
}

export function runCase(c: ConformanceCase): CaseOutcome {
  const o = c.original;
  const vars: Record<string, CelType> = {};
  for (const d of o.typeEnv ?? []) if (d.ident) vars[d.name] = toType(d.ident.type);
  const fnDecls: OverloadDecl[] = [];
  for (const d of o.typeEnv ?? []) {
    for (const ov of d.function?.overloads ?? []) {
      const params = (ov.params ?? []).map(toType);
      fnDecls.push({
        id: ov.overloadId,
        sig: { name: d.name, member: !!ov.isInstanceFunction, params, result: toType(ov.resultType) },
        impl: () => new CelError('unbound function'),
      });
    }
  }
  let env = baseEnv();
  if (Object.keys(vars).length || o.disableCheck || fnDecls.length) {
    env = new CelEnv({
      libraries: [...extensionLibraries(), { name: 'test', overloads: fnDecls }],
      enableBind: true,
      variables: vars,
      disableCheck: !!o.disableCheck,
      presenceTestHasCost: true,
    });
  }
  const compiled = env.compile(o.expr);
  const expectError = !!o.evalError || !!o.anyEvalErrors;
  if (!compiled.program) {
    return { pass: false, detail: `compile: ${compiled.message}` };
  }
  if (o.typedResult?.deducedType && compiled.ast) {
    const want = typeToString(toType(o.typedResult.deducedType));
    const got = typeToString(compiled.ast.type);
    if (want !== got) return { pass: false, detail: `type: want ${want}, got ${got}` };
  }
  if (o.checkOnly) return { pass: true, detail: '' };
  const bindings: Record<string, CelValue> = {};
  for (const [k, v] of Object.entries((o.bindings ?? {}) as Record<string, J>)) bindings[k] = toValue(v.value);
  let r;
  try {
    r = compiled.program.eval(bindings);
  } catch (e) {
    return { pass: false, detail: `threw: ${(e as Error).stack}` };
  }
  if (expectError) {
    return r.ok ? { pass: false, detail: `want error, got ${show(r.value)}` } : { pass: true, detail: '' };
  }
  if (!r.ok) return { pass: false, detail: `error: ${r.error.message}` };
  const wantV = o.value ?? o.typedResult?.result;
  if (wantV === undefined) return { pass: true, detail: '' };
  let want: CelValue;
  try {
    want = toValue(wantV);
  } catch (e) {
    return { pass: false, detail: String(e) };
  }
  return sameValue(r.value, want) ? { pass: true, detail: '' } : { pass: false, detail: `want ${show(want)}, got ${show(r.value)}` };
}

export function show(v: CelValue): string {
  if (typeof v === 'bigint') return `${v}`;
  if (v instanceof CelUint) return `${v.v}u`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (v instanceof CelMap) return `{${[...v.keys()].map((k) => `${show(k)}: ${show(v.get(k)!)}`).join(', ')}}`;
  if (v instanceof CelTypeValue) return `type(${v.name})`;
  if (v instanceof CelError) return `error(${v.message})`;
  if (v instanceof CelOptional) return v.value === undefined ? 'optional.none()' : `optional.of(${show(v.value)})`;
  if (v instanceof Uint8Array) return `b${JSON.stringify(new TextDecoder().decode(v))}`;
  return String(v);
}

// OpenAPI / structural schema -> CEL types and values, as the API server maps
// them for CRD validation rules: objects with properties are message-like
// objects (escaped field names), additionalProperties maps, list-type set/map
// lists keep their semantics, formats byte/date/date-time/duration map to
// bytes/timestamp/duration, int-or-string and schemaless fields are dyn.

import type { SchemaObject } from '../../registry/types';
import { T, markNullable, type CelType, type ObjectType } from '../common/types';
import { parseDuration, parseTimestamp } from '../common/time';
import { CelError, CelMap, LIST_TYPE, fromJson, type CelValue, type TypedList } from '../common/values';
import { escapePropertyName } from './escaping';

/** Schema fields read beyond the registry's SchemaObject. */
export type CelSchema = SchemaObject & {
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  nullable?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
};

/** Size bounds recorded per type for static cost estimation. */
export interface SizeBounds {
  min: number;
  max: number;
}

/** The API server's request size limit bounds unbounded strings, lists and maps. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

const bounds = new WeakMap<CelType, SizeBounds>();
const schemas = new WeakMap<CelType, CelSchema>();

export function boundsOf(t: CelType): SizeBounds | undefined {
  return bounds.get(t);
}
export function schemaOf(t: CelType): CelSchema | undefined {
  return schemas.get(t);
}

// Minimal JSON sizes of formatted strings, with their quotes (the API server's
// MinDurationSizeJSON, JSONDateSize, MinDatetimeSizeJSON): "0s" parses as a
// duration, a date is "YYYY-MM-DD", a date-time at least "YYYY-MM-DDTHH:MM:SS".
export const MIN_DURATION_SIZE_JSON = 3;
export const DATE_SIZE_JSON = 12;
export const MIN_DATETIME_SIZE_JSON = 21;

/**
 * Longest JSON string of a format (the API server's MaxDurationSizeJSON,
 * JSONDateSize, MaxDatetimeSizeJSON: 9999-12-31T23:59:59.999999999Z quoted).
 */
function maxFormattedLength(format: string | undefined): number | undefined {
  switch (format) {
    case 'duration':
      return 32;
    case 'date':
      return DATE_SIZE_JSON;
    case 'date-time':
    case 'datetime':
      return 32;
    default:
      return undefined;
  }
}

/**
 * Smallest JSON serialization of a value of the schema (the API server's
 * DeclType.MinSerializedSize): formatted strings by format, objects `{}` plus
 * every required property without a default (name, quotes, colon, comma and
 * its own minimal value). Bounds the element counts of unbounded lists and
 * maps, and the cardinality of CRD rules.
 */
export function minSerializedSize(s: CelSchema): number {
  if (s['x-kubernetes-int-or-string']) return 1;
  switch (s.type) {
    case 'string':
      switch (s.format) {
        case 'duration':
          return MIN_DURATION_SIZE_JSON;
        case 'date':
          return DATE_SIZE_JSON;
        case 'date-time':
        case 'datetime':
          return MIN_DATETIME_SIZE_JSON;
      }
      return 2;
    case 'boolean':
      return 4;
    case 'integer':
    case 'number':
      return 1;
    case 'array':
      return 2;
    case 'object': {
      if (s.additionalProperties && typeof s.additionalProperties === 'object') return 2;
      let size = 2;
      for (const name of s.required ?? []) {
        const ps = s.properties?.[name] as CelSchema | undefined;
        if (!ps || ps.default !== undefined) continue;
        size += name.length + minSerializedSize(ps) + 4;
      }
      return size;
    }
    default:
      return 1;
  }
}

/**
 * The schema as rules at the root of a resource (a custom resource or an
 * embedded one) see it: `apiVersion`, `kind`, `metadata.name` and
 * `metadata.generateName` are always there, as the API server's
 * WithTypeAndObjectMeta declares them (it replaces a metadata schema that
 * lacks one of them).
 */
export function withTypeAndObjectMeta(s: CelSchema): CelSchema {
  const props = (s.properties ?? {}) as Record<string, CelSchema>;
  const meta = props.metadata;
  const metaProps = (meta?.properties ?? {}) as Record<string, CelSchema>;
  if (
    s.properties &&
    props.kind?.type === 'string' &&
    props.apiVersion?.type === 'string' &&
    meta?.type === 'object' &&
    meta.properties &&
    metaProps.name?.type === 'string' &&
    metaProps.generateName?.type === 'string'
  ) {
    return s;
  }
  const str = { type: 'string' } as CelSchema;
  return {
    ...s,
    properties: {
      ...props,
      kind: str,
      apiVersion: str,
      metadata: { type: 'object', properties: { name: str, generateName: str } } as CelSchema,
    },
  } as CelSchema;
}

function record(t: CelType, s: CelSchema): CelType {
  schemas.set(t, s);
  if (s.nullable) markNullable(t);
  const unbounded = MAX_REQUEST_SIZE_BYTES - 2;
  if (s.type === 'string' && !s['x-kubernetes-int-or-string']) {
    // formatted strings are as long as their format allows, whatever maxLength says
    const formatted = maxFormattedLength(s.format);
    bounds.set(t, { min: 0, max: formatted ?? s.maxLength ?? unbounded });
  } else if (s.type === 'array') {
    const item = s.items ? minSerializedSize(s.items as CelSchema) : 1;
    bounds.set(t, { min: 0, max: s.maxItems ?? Math.floor(unbounded / (item + 1)) });
  } else if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') {
    // key with quotes, colon and comma around the smallest value
    const v = minSerializedSize(s.additionalProperties as CelSchema);
    bounds.set(t, { min: 0, max: s.maxProperties ?? Math.floor(unbounded / (v + 6)) });
  } else if (s.type === 'integer' || s.type === 'number' || s.type === 'boolean') {
    // the API server's declaration of a scalar has no elements: its size estimate is 0, so comparing it costs nothing
    bounds.set(t, { min: 0, max: 0 });
  }
  return t;
}

function objectType(name: string, s: CelSchema): ObjectType {
  const fields = new Map<string, CelType>();
  for (const [prop, ps] of Object.entries(s.properties ?? {})) {
    const esc = escapePropertyName(prop);
    if (esc !== undefined) fields.set(esc, schemaToType(ps as CelSchema, `${name}.${esc}`));
  }
  return { kind: 'object', name, fields, meta: s };
}

/**
 * Objects under list items and map values keep the declaration name `object`:
 * the API server names only the root and, through properties, its nested
 * objects (`selfType123.spec`).
 */
const ELEMENT_OBJECT = 'object';

/**
 * A name for the type of self, as the API server generates one per CRD
 * compilation (`selfType` and the clock's nanoseconds) so that rules cannot
 * depend on it.
 */
export function generateSelfTypeName(nowNanos: number = Math.floor((performance.timeOrigin + performance.now()) * 1e6) % 1e9): string {
  return `selfType${nowNanos}`;
}

/**
 * The CEL type of values described by a structural schema; object types are
 * named from `name` down. `resourceRoot` declares the fields the API server
 * adds at the root of a resource (see withTypeAndObjectMeta); embedded
 * resources get them too.
 */
export function schemaToType(s: CelSchema, name = 'object', resourceRoot = false): CelType {
  if (s['x-kubernetes-int-or-string']) return record({ kind: 'dyn' }, s);
  if (resourceRoot || s['x-kubernetes-embedded-resource']) {
    const typed = withTypeAndObjectMeta(s);
    if (typed !== s) {
      // the declared type carries the completed schema; size bounds stay those of the user's schema
      const t = schemaToType({ ...typed, 'x-kubernetes-embedded-resource': false } as CelSchema, name);
      schemas.set(t, s);
      return t;
    }
  }
  switch (s.type) {
    case 'object': {
      if (s.properties || s['x-kubernetes-embedded-resource']) return record(objectType(name, s), s);
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        return record(T.map(T.string, schemaToType(s.additionalProperties as CelSchema, ELEMENT_OBJECT)), s);
      }
      if (s['x-kubernetes-preserve-unknown-fields']) return record({ kind: 'dyn' }, s);
      return record(objectType(name, s), s);
    }
    case 'array':
      return record(T.list(s.items ? schemaToType(s.items as CelSchema, ELEMENT_OBJECT) : T.dyn), s);
    case 'string':
      switch (s.format) {
        case 'byte':
          return record({ kind: 'bytes' }, s);
        case 'date':
        case 'date-time':
        case 'datetime':
          return record({ kind: 'timestamp' }, s);
        case 'duration':
          return record({ kind: 'duration' }, s);
      }
      return record({ kind: 'string' }, s);
    case 'integer':
      return record({ kind: 'int' }, s);
    case 'number':
      return record({ kind: 'double' }, s);
    case 'boolean':
      return record({ kind: 'bool' }, s);
    default:
      return record({ kind: 'dyn' }, s);
  }
}

function b64(s: string): Uint8Array | CelError {
  try {
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return new CelError(`illegal base64 data`);
  }
}

/** Converts a JSON value to the CEL value its schema describes. */
export function schemaValue(v: unknown, s: CelSchema | undefined): CelValue {
  if (v === null || v === undefined) return null;
  if (!s || s['x-kubernetes-int-or-string']) return fromJson(v);
  switch (s.type) {
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) return fromJson(v);
      const obj = v as Record<string, unknown>;
      if (s.properties || s['x-kubernetes-embedded-resource']) {
        const m = new CelMap();
        for (const [k, raw] of Object.entries(obj)) {
          const ps = s.properties?.[k] as CelSchema | undefined;
          const esc = escapePropertyName(k);
          if (esc === undefined) continue;
          if (!ps && !s['x-kubernetes-embedded-resource'] && !s['x-kubernetes-preserve-unknown-fields']) continue;
          m.set(esc, schemaValue(raw, ps));
        }
        return m;
      }
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const m = new CelMap();
        for (const [k, raw] of Object.entries(obj)) m.set(k, schemaValue(raw, s.additionalProperties as CelSchema));
        return m;
      }
      return fromJson(v);
    }
    case 'array': {
      if (!Array.isArray(v)) return fromJson(v);
      const out: TypedList = v.map((x) => schemaValue(x, s.items as CelSchema | undefined));
      const lt = s['x-kubernetes-list-type'];
      if (lt === 'set') out[LIST_TYPE] = { type: 'set' };
      if (lt === 'map') out[LIST_TYPE] = { type: 'map', keys: (s['x-kubernetes-list-map-keys'] ?? []).map((k) => escapePropertyName(k) ?? k) };
      return out;
    }
    case 'integer':
      return typeof v === 'number' ? BigInt(Math.trunc(v)) : fromJson(v);
    case 'number':
      return typeof v === 'number' ? v : fromJson(v);
    case 'string':
      if (typeof v !== 'string') return fromJson(v);
      switch (s.format) {
        case 'byte':
          return b64(v);
        case 'date':
          return parseTimestamp(`${v}T00:00:00Z`);
        case 'date-time':
        case 'datetime':
          return parseTimestamp(v);
        case 'duration':
          return parseDuration(v);
      }
      return v;
    default:
      return fromJson(v);
  }
}

/**
 * Custom objects against their structural schema, as apiextensions-apiserver
 * runs kube-openapi's validator and converts its errors to field errors
 * (`spec.size: Invalid value: "string": spec.size in body must be of type
 * integer: "string"`), plus defaulting (`default`) and the list-type
 * uniqueness of x-kubernetes-list-type set and map.
 */
import { invalid, notSupported, required, tooLong, duplicate, type FieldError } from '../errors';
import type { JSONSchemaProps } from './types';

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const resourceKeys = new Set(['apiVersion', 'kind', 'metadata']);

/** The JSON type name kube-openapi reports for a value. */
function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

function matchesType(v: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return isPlainObject(v);
    case 'array':
      return Array.isArray(v);
    default:
      return true;
  }
}

const formatChecks: Record<string, (s: string) => boolean> = {
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  'date-time': (s) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s),
  email: (s) => /^[^\s@]+@[^\s@]+$/.test(s),
  hostname: (s) => s.length <= 255 && /^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*\.?$/.test(s),
  ipv4: (s) => /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(s),
  ipv6: (s) => s.includes(':') && /^[0-9A-Fa-f:.]+$/.test(s),
  uri: (s) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s),
  uuid: (s) => /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/.test(s),
  byte: (s) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0,
  duration: (s) => /^-?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(s) || s === '0',
};

const childPath = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** Validates a custom object; metadata, apiVersion and kind at the root are validated elsewhere. */
export function validateAgainstSchema(schema: JSONSchemaProps, obj: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const visit = (s: JSONSchemaProps, v: unknown, path: string, root: boolean): void => {
    if (v === null) {
      if (s.nullable || (!s.type && !s['x-kubernetes-int-or-string'])) return;
      errs.push(invalid(path, 'null', `${path} in body must be of type ${s['x-kubernetes-int-or-string'] ? 'integer,string' : s.type}: "null"`));
      return;
    }
    if (s['x-kubernetes-int-or-string']) {
      if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) {
        errs.push(invalid(path, typeOf(v), `${path} in body must be of type integer,string: "${typeOf(v)}"`));
        return;
      }
    } else if (s.type && !matchesType(v, s.type)) {
      errs.push(invalid(path, typeOf(v), `${path} in body must be of type ${s.type}: "${typeOf(v)}"`));
      return;
    }
    if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
      errs.push(notSupported(path, v, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
    }
    if (typeof v === 'string') {
      const len = [...v].length;
      if (s.maxLength !== undefined && len > s.maxLength) errs.push(tooLong(path, v, s.maxLength));
      if (s.minLength !== undefined && len < s.minLength) errs.push(invalid(path, v, `${path} in body should be at least ${s.minLength} chars long`));
      if (s.pattern !== undefined) {
        let re: RegExp | undefined;
        try {
          re = new RegExp(s.pattern, 'u');
        } catch {
          re = undefined;
        }
        if (re && !re.test(v)) errs.push(invalid(path, v, `${path} in body should match '${s.pattern}'`));
      }
      const check = s.format ? formatChecks[s.format] : undefined;
      if (check && !check(v)) errs.push(invalid(path, v, `${path} in body must be of type ${s.format}: ${JSON.stringify(v)}`));
    }
    if (typeof v === 'number') {
      if (s.maximum !== undefined) {
        if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum) {
          errs.push(invalid(path, v, `${path} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`));
        }
      }
      if (s.minimum !== undefined) {
        if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum) {
          errs.push(invalid(path, v, `${path} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`));
        }
      }
      if (s.multipleOf !== undefined && s.multipleOf !== 0 && Math.abs(v / s.multipleOf - Math.round(v / s.multipleOf)) > 1e-9) {
        errs.push(invalid(path, v, `${path} in body should be a multiple of ${s.multipleOf}`));
      }
    }
    if (Array.isArray(v)) {
      if (s.maxItems !== undefined && v.length > s.maxItems) errs.push({ type: 'FieldValueTooMany', field: path, value: v.length, detail: `must have at most ${s.maxItems} items`, showValue: true });
      if (s.minItems !== undefined && v.length < s.minItems) errs.push(invalid(path, v.length, `${path} in body should have at least ${s.minItems} items`));
      const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
      if (items) v.forEach((item, i) => visit(items, item, `${path}[${i}]`, false));
      const lt = s['x-kubernetes-list-type'];
      if (lt === 'set') {
        const seen = new Set<string>();
        v.forEach((item, i) => {
          const k = JSON.stringify(item);
          if (seen.has(k)) errs.push(duplicate(`${path}[${i}]`, item));
          seen.add(k);
        });
      } else if (lt === 'map') {
        const keys = s['x-kubernetes-list-map-keys'] ?? [];
        const seen = new Set<string>();
        v.forEach((item, i) => {
          if (!isPlainObject(item)) return;
          const keyValue: Record<string, unknown> = {};
          for (const k of keys) if (item[k] !== undefined) keyValue[k] = item[k];
          const k = JSON.stringify(keys.map((x) => item[x]));
          if (seen.has(k)) errs.push({ ...duplicate(`${path}[${i}]`, keyValue), valueText: goMapText(keyValue) });
          seen.add(k);
        });
      }
    }
    if (isPlainObject(v)) {
      const n = Object.keys(v).length;
      if (s.maxProperties !== undefined && n > s.maxProperties) errs.push({ type: 'FieldValueTooMany', field: path, value: n, detail: `must have at most ${s.maxProperties} items`, showValue: true });
      if (s.minProperties !== undefined && n < s.minProperties) errs.push(invalid(path, n, `${path} in body should have at least ${s.minProperties} properties`));
      for (const r of s.required ?? []) {
        if (root && resourceKeys.has(r)) continue;
        if (!(r in v)) errs.push(required(childPath(path, r)));
      }
      if (s['x-kubernetes-embedded-resource'] && !root) {
        if (typeof v['apiVersion'] !== 'string' || !v['apiVersion']) errs.push(required(childPath(path, 'apiVersion'), 'must not be empty'));
        if (typeof v['kind'] !== 'string' || !v['kind']) errs.push(required(childPath(path, 'kind'), 'must not be empty'));
      }
      const props = s.properties ?? {};
      const ap = s.additionalProperties;
      for (const [k, child] of Object.entries(v)) {
        if (root && resourceKeys.has(k)) continue;
        const ps = props[k];
        if (ps) visit(ps, child, childPath(path, k), false);
        else if (ap && typeof ap === 'object') visit(ap, child, `${path}[${k}]`, false);
      }
    }
  };
  visit(schema, obj, '', true);
  return errs;
}

/** Go's %#v of a map[string]interface{} key set. */
function goMapText(m: Record<string, unknown>): string {
  const parts = Object.keys(m).sort().map((k) => `${JSON.stringify(k)}:${typeof m[k] === 'string' ? JSON.stringify(m[k]) : String(m[k])}`);
  return `map[string]interface {}{${parts.join(', ')}}`;
}

/** Applies schema defaults in place (structural defaulting): missing fields, and nulls of non-nullable fields. */
export function applyDefaults(schema: JSONSchemaProps, obj: unknown): void {
  const visit = (s: JSONSchemaProps, v: unknown): void => {
    if (isPlainObject(v)) {
      for (const [k, ps] of Object.entries(s.properties ?? {})) {
        if (ps.default === undefined) continue;
        if (!(k in v) || (v[k] === null && !ps.nullable)) v[k] = structuredClone(ps.default);
      }
      for (const [k, child] of Object.entries(v)) {
        const ps = s.properties?.[k];
        if (ps) visit(ps, child);
        else if (s.additionalProperties && typeof s.additionalProperties === 'object') visit(s.additionalProperties, child);
      }
    } else if (Array.isArray(v) && s.items && !Array.isArray(s.items)) {
      for (const item of v) visit(s.items, item);
    }
  };
  visit(schema, obj);
}

/** Whether the schema declares any default (skip the walk otherwise). */
const hasDefaultsCache = new WeakMap<JSONSchemaProps, boolean>();
export function schemaHasDefaults(s: JSONSchemaProps): boolean {
  let v = hasDefaultsCache.get(s);
  if (v === undefined) {
    v = Object.values(s.properties ?? {}).some((p) => p.default !== undefined || schemaHasDefaults(p)) ||
      (!!s.items && !Array.isArray(s.items) && schemaHasDefaults(s.items)) ||
      (!!s.additionalProperties && typeof s.additionalProperties === 'object' && schemaHasDefaults(s.additionalProperties));
    hasDefaultsCache.set(s, v);
  }
  return v;
}

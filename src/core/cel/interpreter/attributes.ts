// Fused attribute chains: `object.spec.replicas` plans as one interpretable
// that reads the variable and walks the field names over plain JSON objects
// without converting the intermediate values, charging the chain's cost
// (1 for the identifier, 1 per selection) with one counter update. Values
// that are not plain JSON (maps built from schemas, optionals, errors) take
// the general selection path, so results and errors stay those of a
// node-by-node evaluation.

import { CelError, CelFault, fromJson, type CelValue, type JsonObject } from '../common/values';
import { chargeN, selectFieldWithId, type Frame, type Interpretable } from './frame';

/** Returned by a raw reader when the leaf is not a JSON value; the CEL value is then in `frame.alt`. */
export const NOT_RAW: unique symbol = Symbol('notRaw');

/**
 * Reads the chain's leaf: the raw JSON value when the last step read a field
 * of a plain JSON object (a JSON number is then an int when integral), else
 * NOT_RAW with the CEL value left in `frame.alt`.
 */
export type RawReader = (f: Frame) => unknown;

export interface AttributeChain {
  /** root: a declared variable or a comprehension slot */
  variable?: { name: string; id: number };
  slot?: number;
  fields: string[];
  /** ids of the select nodes, in order */
  ids: number[];
}

/**
 * Field names that plain objects inherit (`toString`, `__proto__`, ...) need an own-property check.
 * Kept by length and compared as text: a field name is then never hashed while planning.
 */
const INHERITED_BY_LENGTH: readonly (readonly string[] | undefined)[] = (() => {
  const byLength: string[][] = [];
  for (const name of Object.getOwnPropertyNames(Object.prototype)) (byLength[name.length] ??= []).push(name);
  return byLength;
})();
function inherited(field: string): boolean {
  const names = INHERITED_BY_LENGTH[field.length];
  if (names === undefined) return false;
  for (let i = 0; i < names.length; i++) if (names[i] === field) return true;
  return false;
}

/**
 * Walks the chain's fields from `start`. Module-level, and the closures
 * below are returned without being bound to a name, so planning creates as
 * few function objects as it can (builds that keep function names would
 * otherwise name each one).
 */
function walk(f: Frame, start: CelValue, fields: string[], ids: number[]): unknown {
  let v: unknown = start;
  let raw = false;
  for (let i = 0; i < fields.length; i++) {
    if (typeof v === 'object' && v !== null && (v as { constructor?: unknown }).constructor === Object && !Array.isArray(v)) {
      const next = (v as JsonObject)[fields[i]!];
      if (next !== undefined) {
        v = next;
        raw = true;
        continue;
      }
      f.alt = new CelError(`no such key: ${fields[i]}`, ids[i]);
      return NOT_RAW;
    }
    const cv: CelValue = raw ? fromJson(v) : (v as CelValue);
    if (cv instanceof CelFault) {
      f.alt = cv;
      return NOT_RAW;
    }
    v = selectFieldWithId(cv, fields[i]!, ids[i]!);
    raw = false;
  }
  if (raw) return v;
  f.alt = v as CelValue;
  return NOT_RAW;
}

function slotReader(slot: number, fields: string[], ids: number[]): RawReader {
  const cost = 1 + fields.length;
  return (f) => {
    chargeN(f, cost);
    return walk(f, f.slots[slot]!, fields, ids);
  };
}

function variableReader(name: string, id: number, fields: string[], ids: number[]): RawReader {
  const cost = 1 + fields.length;
  return (f) => {
    chargeN(f, cost);
    const v = f.vars[name];
    if (v === undefined) {
      f.alt = new CelError(`undeclared reference to '${name}' (in container '')`, id);
      return NOT_RAW;
    }
    return walk(f, v, fields, ids);
  };
}

function valueReader(raw: RawReader): Interpretable {
  return (f) => {
    const r = raw(f);
    return r === NOT_RAW ? f.alt : fromJson(r);
  };
}

/** A chain's raw reader, and its value reader made when first asked for (comparisons with a literal read the raw JSON only). */
class ChainReaders {
  private valueFn: Interpretable | undefined;
  constructor(readonly raw: RawReader) {}
  get value(): Interpretable {
    return (this.valueFn ??= valueReader(this.raw));
  }
}

export function chainReaders(chain: AttributeChain): { raw: RawReader; value: Interpretable } | undefined {
  const { fields, ids } = chain;
  for (const field of fields) if (inherited(field)) return undefined;
  const raw = chain.slot !== undefined ? slotReader(chain.slot, fields, ids) : variableReader(chain.variable!.name, chain.variable!.id, fields, ids);
  return new ChainReaders(raw);
}

/**
 * The fast path of request field validation: most bodies have nothing to
 * report (no unknown or duplicate field, no value of the wrong type), and
 * proving that needs neither the syntax tree nor error paths. A body that is
 * clean here gets exactly what decodeJson reports for it (nothing); anything
 * else, or anything this check cannot vouch for, goes the full way.
 *
 * What JSON.parse hides is read off the raw text in one scan: how many
 * object members it has (equal to the parsed value's key count exactly when
 * no key repeats) and whether every number is a plain integer of at most 15
 * digits (then the parsed number says what the literal said, so integer
 * widths can be checked on it).
 */
import { goBase64Error, goQuantityParseError, goTimeParseError } from './goValues';
import type { GoType } from './goTypes';

/** The longest integer literal whose value a double holds exactly whatever its digits. */
const maxPlainDigits = 15;

export interface JsonTextScan {
  /** Object members in the text (repeated keys included). */
  members: number;
  /** Every number is an integer literal of at most 15 digits. */
  plainNumbers: boolean;
}

/** Scans a JSON text that JSON.parse accepted. */
export function scanJsonText(text: string): JsonTextScan {
  let members = 0;
  let digits = 0;
  let plainNumbers = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: its end is the next quote not escaped (after an even run of backslashes).
      const start = i;
      let end = text.indexOf('"', i + 1);
      while (end > 0 && escaped(text, start, end)) end = text.indexOf('"', end + 1);
      i = end < 0 ? text.length : end;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++digits > maxPlainDigits) plainNumbers = false;
    } else {
      // Outside strings '.' and exponents only occur in numbers ('e' after a digit; true/false have letters before it).
      if (c === 0x2e || ((c === 0x65 || c === 0x45) && digits > 0)) plainNumbers = false;
      else if (c === 0x3a) members++;
      digits = 0;
    }
  }
  return { members, plainNumbers };
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it, within the string opened at `open`. */
function escaped(text: string, open: number, at: number): boolean {
  let n = 0;
  for (let k = at - 1; k > open && text.charCodeAt(k) === 0x5c; k--) n++;
  return n % 2 === 1;
}

/** Whether a JSON text repeats no key, given the value JSON.parse made of it. */
export function repeatsNoKey(scan: JsonTextScan, parsed: unknown): boolean {
  return scan.members === jsonKeyCount(parsed);
}

/** Keys of every object in a parsed JSON value. */
export function jsonKeyCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += jsonKeyCount(item);
    return n;
  }
  for (const key in value) {
    n++;
    n += jsonKeyCount((value as Record<string, unknown>)[key]);
  }
  return n;
}

const int32Min = -(2 ** 31);
const int32Max = 2 ** 31 - 1;

/**
 * Whether decoding a parsed body (plain integers only, no repeated key) into
 * `type` reports nothing at all: no unknown field, no type error. False means
 * "not proven", never "wrong".
 */
export function decodesCleanly(value: unknown, type: GoType): boolean {
  return cleanMembers(value, type) >= 0;
}

/**
 * decodesCleanly and jsonKeyCount in one walk: the parsed body's object
 * members when it decodes cleanly into `type`, -1 when that is not proven.
 */
export function cleanMembers(value: unknown, type: GoType): number {
  switch (type.k) {
    case 'any':
      return jsonKeyCount(value);
    case 'intOrString':
      return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value) && value >= int32Min && value <= int32Max) ? 0 : -1;
    case 'quantity':
      if (value === null) return 0;
      if (typeof value === 'string') return goQuantityParseError(value) ? -1 : 0;
      return ((typeof value === 'number' && !Object.is(value, -0)) || typeof value === 'boolean') && !goQuantityParseError(String(value)) ? 0 : -1;
    case 'time':
    case 'microTime':
      return value === null || (typeof value === 'string' && !goTimeParseError(value, type.k === 'microTime')) ? 0 : -1;
    default:
      break;
  }
  if (value === null) return 0;
  switch (typeof value) {
    case 'string':
      return type.k === 'string' || (type.k === 'bytes' && !goBase64Error(value)) ? 0 : -1;
    case 'boolean':
      return type.k === 'bool' ? 0 : -1;
    case 'number':
      if (type.k === 'int32') return value >= int32Min && value <= int32Max ? 0 : -1;
      return type.k === 'int64' || type.k === 'int' || type.k === 'float64' ? 0 : -1;
    case 'object':
      break;
    default:
      return -1;
  }
  let n = 0;
  if (Array.isArray(value)) {
    if (type.k === 'bytes') return jsonKeyCount(value);
    if (type.k !== 'slice') return -1;
    const elem = type.elem();
    for (const item of value) {
      const m = cleanMembers(item, elem);
      if (m < 0) return -1;
      n += m;
    }
    return n;
  }
  const obj = value as Record<string, unknown>;
  if (type.k === 'struct') {
    for (const key in obj) {
      const field = type.field(key);
      if (!field) {
        if (type.preserve) {
          n += 1 + jsonKeyCount(obj[key]);
          continue;
        }
        return -1;
      }
      const m = cleanMembers(obj[key], field);
      if (m < 0) return -1;
      n += 1 + m;
    }
    return n;
  }
  if (type.k === 'map') {
    const elem = type.elem();
    for (const key in obj) {
      const m = cleanMembers(obj[key], elem);
      if (m < 0) return -1;
      n += 1 + m;
    }
    return n;
  }
  return -1;
}

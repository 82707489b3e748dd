import type { JsonObject, JsonValue } from './index';

/**
 * Go's fmt verbs applied to a decoded JSON value (what encoding/json gives
 * Go: map[string]interface {}, []interface {}, float64, string, bool, nil),
 * so error texts the server builds with them read the same here.
 */

/** `%v` of a float64: shortest digits, exponent form below 1e-4 and from 1e6 up (`1e+06`). */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, expText] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  // JavaScript prints this range without an exponent, digit for digit as Go.
  return String(n);
}

const ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };

/** `%q` of a string (strconv.Quote): Go escapes, printable Unicode kept. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ESCAPES[ch] !== undefined) out += ESCAPES[ch];
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c === 0x2028 || c === 0x2029 || (c >= 0xd800 && c <= 0xdfff)) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

// fmt prints map entries in key order.
const sortedKeys = (o: JsonObject) => Object.keys(o).sort();

/** `%#v` of the value held in an interface{} (`"x"`, `5`, `map[string]interface {}{"a":1}`). */
export function goSharpV(v: JsonValue): string {
  if (v === null) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  return `map[string]interface {}{${sortedKeys(v)
    .map((k) => `${goQuote(k)}:${goSharpV(v[k])}`)
    .join(', ')}}`;
}

/** `%v` of the value held in an interface{} (`x`, `5`, `map[a:1]`, `[a b]`, `<nil>`). */
export function goV(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  return `map[${sortedKeys(v)
    .map((k) => `${k}:${goV(v[k])}`)
    .join(' ')}]`;
}

/** `%T` of the value held in an interface{}. */
export function goType(v: JsonValue): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

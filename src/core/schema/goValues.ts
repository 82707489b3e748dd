/**
 * The few Go value parsers whose error text reaches API clients when a body
 * is decoded: metav1.Time and MicroTime (time.Parse), resource.Quantity
 * (ParseQuantity), []byte fields (base64), and Go's `%v` rendering of a
 * decoded patch, which strategic-merge-patch errors quote.
 */

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339Micro = '2006-01-02T15:04:05.000000Z07:00';

type Elem = { lit: string } | { std: '2006' | '01' | '02' | '15' | '04' | '05' | '.000000' | 'Z07:00' };

const rfc3339Elems: Elem[] = [
  { std: '2006' }, { lit: '-' }, { std: '01' }, { lit: '-' }, { std: '02' }, { lit: 'T' },
  { std: '15' }, { lit: ':' }, { std: '04' }, { lit: ':' }, { std: '05' }, { std: 'Z07:00' },
];
const rfc3339MicroElems: Elem[] = [...rfc3339Elems.slice(0, 11), { std: '.000000' }, { std: 'Z07:00' }];

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;
const goQuote = (s: string) => JSON.stringify(s);

/** Go's getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * time.Parse(layout, value) for the RFC 3339 layouts metav1 uses; returns
 * Go's error text, or undefined when the value parses.
 */
export function goTimeParseError(value: string, micro = false): string | undefined {
  const layout = micro ? RFC3339Micro : RFC3339;
  const elems = micro ? rfc3339MicroElems : rfc3339Elems;
  const cannot = (rest: string, elem: string) => `parsing time ${goQuote(value)} as ${goQuote(layout)}: cannot parse ${goQuote(rest)} as ${goQuote(elem)}`;
  const outOfRange = (what: string) => `parsing time ${goQuote(value)}: ${what} out of range`;
  let v = value;
  let year = 0;
  let month = 0;
  let day = 0;
  for (let e = 0; e < elems.length; e++) {
    const el = elems[e]!;
    if ('lit' in el) {
      if (!v.startsWith(el.lit)) return cannot(v, el.lit);
      v = v.slice(el.lit.length);
      continue;
    }
    const hold = v;
    let range = '';
    switch (el.std) {
      case '2006': {
        const p = v.slice(0, 4);
        if (v.length < 4 || !/^[+-]?\d+$/.test(p)) return cannot(hold, el.std);
        year = Number(p);
        v = v.slice(4);
        break;
      }
      case '01':
      case '02':
      case '15':
      case '04':
      case '05': {
        const r = getnum(v, el.std !== '15');
        if (!r) return cannot(hold, el.std);
        const [num, rest] = r;
        v = rest;
        if (el.std === '01') {
          month = num;
          if (num <= 0 || num > 12) range = 'month';
        } else if (el.std === '02') day = num;
        else if (el.std === '15' && num >= 24) range = 'hour';
        else if (el.std === '04' && num >= 60) range = 'minute';
        else if (el.std === '05') {
          if (num >= 60) range = 'second';
          // Go accepts fractional seconds after "05" unless the layout spells them out.
          else if (!micro && v.length >= 2 && (v[0] === '.' || v[0] === ',') && isDigit(v, 1)) {
            let k = 2;
            while (isDigit(v, k)) k++;
            v = v.slice(k);
          }
        }
        break;
      }
      case '.000000': {
        if (v.length < 7 || (v[0] !== '.' && v[0] !== ',') || !/^\d{6}$/.test(v.slice(1, 7))) return cannot(hold, el.std);
        v = v.slice(7);
        break;
      }
      case 'Z07:00': {
        if (v.startsWith('Z')) {
          v = v.slice(1);
          break;
        }
        if (v.length < 6 || v[3] !== ':' || (v[0] !== '+' && v[0] !== '-') || !/^\d\d$/.test(v.slice(1, 3)) || !/^\d\d$/.test(v.slice(4, 6))) {
          return cannot(hold, el.std);
        }
        const hr = Number(v.slice(1, 3));
        const mm = Number(v.slice(4, 6));
        v = v.slice(6);
        if (hr > 24) range = 'time zone offset hour';
        else if (mm > 60) range = 'time zone offset minute';
        break;
      }
    }
    if (range) return outOfRange(range);
  }
  if (v !== '') return `parsing time ${goQuote(value)}: extra text: ${goQuote(v)}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange('day');
  return undefined;
}

export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const quantitySuffixError = "unable to parse quantity's suffix";
const quantityNumericError = 'unable to parse numeric part of quantity';
const plainQuantity = /^\d+(?:\.\d+)?(?:[numkMGTPE]|[KMGTPE]i)?$/;
const quantitySuffixes = new Set(['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E']);

/** resource.ParseQuantity's error for a Quantity's JSON text (quotes already stripped), or undefined. */
export function goQuantityParseError(text: string): string | undefined {
  // The usual spellings (`100m`, `1.5Gi`, `2`) need no closer look.
  if (plainQuantity.test(text)) return undefined;
  const s = text.trim();
  const m = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(s);
  if (!m) return quantityFormatError;
  const [, num, suffix] = m as unknown as [string, string, string];
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(num)) return quantityNumericError;
  if (quantitySuffixes.has(suffix)) return undefined;
  if (/^[eE][-+]?\d+$/.test(suffix)) return undefined;
  return quantitySuffixError;
}

/** encoding/base64 StdEncoding: the error for a []byte field's string, or undefined. */
export function goBase64Error(s: string): string | undefined {
  // Go ignores \r and \n anywhere in the input.
  const clean: number[] = [];
  for (let i = 0; i < s.length; i++) if (s[i] !== '\r' && s[i] !== '\n') clean.push(i);
  const chars = clean.map((i) => s[i]!);
  const alphabet = /[A-Za-z0-9+/]/;
  let i = 0;
  for (; i < chars.length; i++) {
    if (chars[i] === '=') break;
    if (!alphabet.test(chars[i]!)) return `illegal base64 data at input byte ${i}`;
  }
  const dataLen = i;
  if (i === chars.length) {
    // An unfinished quantum without padding is reported at its start.
    return dataLen % 4 === 0 ? undefined : `illegal base64 data at input byte ${dataLen - (dataLen % 4)}`;
  }
  // Padding must complete the final quantum and end the input.
  const rem = dataLen % 4;
  const pad = rem === 2 ? 2 : rem === 3 ? 1 : 0;
  if (pad === 0) return `illegal base64 data at input byte ${dataLen}`;
  for (let k = 0; k < pad; k++) if (chars[dataLen + k] !== '=') return `illegal base64 data at input byte ${dataLen + k}`;
  if (chars.length > dataLen + pad) return `illegal base64 data at input byte ${dataLen + pad}`;
  return undefined;
}

/** Go's `%v`/`%+v` of a value decoded into interface{} (maps print sorted: `map[a:1 b:[x y]]`). */
export function goFormatValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFormatFloat(v);
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return `[${v.map(goFormatValue).join(' ')}]`;
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  return `map[${keys.map((k) => `${k}:${goFormatValue(obj[k])}`).join(' ')}]`;
}

/** Integers print as int64 (the patch was decoded with PreserveInts); other numbers as %v of a float64. */
function goFormatFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return String(BigInt(n));
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21) {
    const [mant, e] = n.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[+-]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  return String(n);
}

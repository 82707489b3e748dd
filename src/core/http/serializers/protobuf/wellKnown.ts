/**
 * apimachinery types whose JSON form differs from their message: timestamps
 * (RFC 3339 strings), durations (Go duration strings), IntOrString (number or
 * string), Quantity (string), RawExtension and FieldsV1 (embedded JSON).
 * Each pair writes or reads the body of the message, the way Go's hand-written
 * marshallers in k8s.io/apimachinery do.
 */
import { ProtobufDecodeError, ProtobufEncodeError, mismatch } from './errors';
import { formatGoDuration, parseGoDuration } from './goDuration';
import type { WellKnownType } from './schema';
import { bigIntToLong, readInt64, readInt64Big, type Reader, type Writer } from './wire';

// Civil-date arithmetic (proleptic Gregorian, as Go's time package) without Date
// objects: timestamps are on every object, so this is on the hot path.

/** Days since 1970-01-01 of a calendar date. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Calendar date of a day number since 1970-01-01. */
function civilFromDays(days: number): [year: number, month: number, day: number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 text -> Unix seconds and nanoseconds, like time.Parse(time.RFC3339, ...). */
export function parseRfc3339(text: string): { seconds: number; nanos: number } {
  const m = RFC3339.exec(text);
  if (!m) throw new Error(`invalid RFC 3339 time ${JSON.stringify(text)}`);
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number);
  const days = daysFromCivil(year, month, day);
  const [y2, m2, d2] = civilFromDays(days);
  if (y2 !== year || m2 !== month || d2 !== day || hour > 23 || minute > 59 || second > 59) {
    throw new Error(`time ${JSON.stringify(text)} is out of range`);
  }
  let seconds = days * 86400 + hour * 3600 + minute * 60 + second;
  if (m[8]) seconds -= (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 3600 + Number(m[10]) * 60);
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** Unix seconds (+ microseconds) -> "2006-01-02T15:04:05Z" or "2006-01-02T15:04:05.000000Z", in UTC. */
export function formatRfc3339(seconds: number, micros?: number): string {
  const days = Math.floor(seconds / 86400);
  const [year, month, day] = civilFromDays(days);
  if (!Number.isSafeInteger(seconds) || year < 0 || year > 9999) {
    throw new ProtobufDecodeError('Malformed', `timestamp ${seconds}s is outside the range of RFC 3339`);
  }
  const rest = seconds - days * 86400;
  const base = `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}T${pad2(Math.floor(rest / 3600))}:${pad2(Math.floor(rest / 60) % 60)}:${pad2(rest % 60)}`;
  return micros === undefined ? `${base}Z` : `${base}.${String(micros).padStart(6, '0')}Z`;
}

function expectString(v: unknown, what: string): string {
  if (typeof v !== 'string') throw mismatch(what, v);
  return v;
}

/** Writes the body of a well-known message from its JSON value (never null: callers skip those). */
export function encodeWellKnown(w: Writer, type: WellKnownType, value: unknown): void {
  switch (type) {
    case 'time':
    case 'microTime': {
      let t: { seconds: number; nanos: number };
      try {
        t = parseRfc3339(expectString(value, 'an RFC 3339 time'));
      } catch (err) {
        throw err instanceof ProtobufEncodeError ? err : new ProtobufEncodeError((err as Error).message);
      }
      // Timestamp{seconds=1, nanos=2}: Go writes both fields.
      w.uint32(0x08).int64(t.seconds).uint32(0x10).int32(t.nanos);
      return;
    }
    case 'duration': {
      let ns: bigint;
      try {
        ns = parseGoDuration(expectString(value, 'a duration'));
      } catch (err) {
        throw err instanceof ProtobufEncodeError ? err : new ProtobufEncodeError((err as Error).message);
      }
      w.uint32(0x08).int64(bigIntToLong(ns));
      return;
    }
    case 'intOrString': {
      // IntOrString{type=1, intVal=2, strVal=3}: Go writes all three.
      if (typeof value === 'number' && Number.isInteger(value)) {
        w.uint32(0x08).int64(0).uint32(0x10).int32(value).uint32(0x1a).string('');
      } else if (typeof value === 'string') {
        w.uint32(0x08).int64(1).uint32(0x10).int32(0).uint32(0x1a).string(value);
      } else {
        throw mismatch('an integer or a string', value);
      }
      return;
    }
    case 'quantity':
      // Go's Quantity accepts a bare JSON number too.
      if (typeof value !== 'string' && typeof value !== 'number') throw mismatch('a quantity', value);
      w.uint32(0x0a).string(String(value));
      return;
    case 'rawExtension':
    case 'fieldsV1':
      // raw=1 (RawExtension) and Raw=1 (FieldsV1) hold the JSON text.
      w.uint32(0x0a).string(JSON.stringify(value));
      return;
  }
}

const utf8 = new TextDecoder();
const NO_BYTES: Uint8Array = new Uint8Array(0);

/** Parses the JSON held by a RawExtension or FieldsV1; embedded protobuf goes to `decodeEmbedded`. */
function decodeRawJson(bytes: Uint8Array, decodeEmbedded: (bytes: Uint8Array) => unknown): unknown {
  if (bytes.length === 0) return null;
  if (bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00) return decodeEmbedded(bytes);
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    throw new ProtobufDecodeError('Malformed', 'embedded object is neither JSON nor a protobuf envelope');
  }
}

/**
 * Reads the body of a well-known message (up to `end`) as its JSON value. A zero
 * timestamp (an empty message, as Go writes it) reads as null, like Go's JSON.
 */
export function decodeWellKnown(
  r: Reader,
  end: number,
  type: WellKnownType,
  decodeEmbedded: (bytes: Uint8Array) => unknown,
): unknown {
  const empty = r.pos === end;
  let int1 = 0;
  let int2 = 0;
  let big1 = 0n;
  let str1 = '';
  let str3 = '';
  let bytes1 = NO_BYTES;
  while (r.pos < end) {
    const tag = r.uint32();
    const id = tag >>> 3;
    const wire = tag & 7;
    if (type === 'quantity') {
      if (id === 1 && wire === 2) str1 = r.string();
      else r.skipType(wire);
    } else if (type === 'rawExtension' || type === 'fieldsV1') {
      if (id === 1 && wire === 2) bytes1 = r.bytes();
      else r.skipType(wire);
    } else if (id === 1 && wire === 0) {
      if (type === 'duration') big1 = readInt64Big(r);
      else int1 = readInt64(r);
    } else if (id === 2 && wire === 0) {
      int2 = r.int32();
    } else if (id === 3 && wire === 2 && type === 'intOrString') {
      str3 = r.string();
    } else {
      r.skipType(wire);
    }
  }
  if (r.pos !== end) throw new ProtobufDecodeError('Malformed', 'message runs past its length');
  switch (type) {
    case 'time':
      return empty ? null : formatRfc3339(int1);
    case 'microTime':
      return empty ? null : formatRfc3339(int1, Math.floor(int2 / 1000));
    case 'duration':
      return formatGoDuration(big1);
    case 'intOrString':
      return int1 === 1 ? str3 : int2;
    case 'quantity':
      return str1 || '0'; // an empty Quantity is Go's zero quantity
    case 'rawExtension':
    case 'fieldsV1':
      return decodeRawJson(bytes1, decodeEmbedded);
  }
}

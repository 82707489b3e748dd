/**
 * JSON -> protobuf: walks a Kubernetes object in its JSON form along a message
 * plan and writes the fields in field-number order, as Go's generated marshallers
 * do. Absent and null JSON values are not written (Go reads them back as zero),
 * except a null timestamp, which is Go's zero time. On a value of the wrong type
 * the ProtobufEncodeError collects its field path while it unwinds, so the happy
 * path builds no path strings.
 */
import { ProtobufEncodeError, mismatch } from './errors';
import type { FieldPlan, MessagePlan, ValuePlan } from './schema';
import { encodeWellKnown } from './wellKnown';
import { writeScalar, type Writer } from './wire';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isTimestamp(plan: MessagePlan): boolean {
  return plan.wellKnown === 'time' || plan.wellKnown === 'microTime';
}

/** Prefixes the path of an encode error with `segment`, then rethrows it. */
function rethrowWithin(err: unknown, segment: string): never {
  if (err instanceof ProtobufEncodeError) err.within(segment);
  throw err;
}

/** Writes the body of `plan` (no tag, no length) from its JSON value. */
export function encodeMessage(w: Writer, plan: MessagePlan, value: unknown): void {
  if (plan.wellKnown) {
    encodeWellKnown(w, plan.wellKnown, value);
    return;
  }
  if (plan.listWrapper) {
    if (!Array.isArray(value)) throw mismatch('an array', value);
    encodeRepeated(w, plan.listWrapper, value);
    return;
  }
  if (!isObject(value)) throw mismatch('an object', value);
  const fields = plan.fields;
  for (let i = 0; i < fields.length; i++) encodeField(w, fields[i], value);
}

function encodeField(w: Writer, field: FieldPlan, obj: Record<string, unknown>): void {
  if (field.inline && field.value.kind === 'message') {
    // An embedded Go struct is always written, read from the same JSON object.
    w.uint32(field.tag).fork();
    encodeMessage(w, field.value.message(), obj);
    w.ldelim();
    return;
  }
  const v = obj[field.json];
  if (v === undefined) return;
  if (v === null) {
    // A zero metav1.Time shows as null in JSON and travels as an empty message.
    if (field.value.kind === 'message' && !field.repeated && isTimestamp(field.value.message())) {
      w.uint32(field.tag).uint32(0);
    }
    return;
  }
  try {
    if (field.mapKey) encodeMap(w, field, v);
    else if (field.repeated) {
      if (!Array.isArray(v)) throw mismatch('an array', v);
      encodeRepeated(w, field, v);
    } else encodeValue(w, field.tag, field.value, v);
  } catch (err) {
    rethrowWithin(err, `.${field.json}`);
  }
}

function encodeValue(w: Writer, tag: number, plan: ValuePlan, v: unknown): void {
  w.uint32(tag);
  if (plan.kind === 'scalar') {
    writeScalar(w, plan.scalar, v);
  } else {
    w.fork();
    encodeMessage(w, plan.message(), v);
    w.ldelim();
  }
}

/** Repeated fields are written unpacked, one tag per element, as proto2 does. */
function encodeRepeated(w: Writer, field: FieldPlan, items: unknown[]): void {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === null && field.value.kind === 'message') {
      w.uint32(field.tag).uint32(0); // a null element reads back as a zero element
      continue;
    }
    try {
      encodeValue(w, field.tag, field.value, item);
    } catch (err) {
      rethrowWithin(err, `[${i}]`);
    }
  }
}

/** Map entries are messages {key=1, value=2}, sorted by key as Go writes them. */
function encodeMap(w: Writer, field: FieldPlan, v: unknown): void {
  if (!isObject(v)) throw mismatch('an object', v);
  const keyType = field.mapKey ?? 'string';
  const keyTag = keyType === 'string' ? 0x0a : 0x08;
  const valueTag = (2 << 3) | (field.value.kind === 'scalar' ? field.value.wireType : 2);
  for (const key of Object.keys(v).sort()) {
    const entry = v[key];
    try {
      w.uint32(field.tag).fork();
      w.uint32(keyTag);
      if (keyType === 'string') w.string(key);
      else writeScalar(w, keyType, Number(key));
      if (entry !== null && entry !== undefined) encodeValue(w, valueTag, field.value, entry);
      w.ldelim();
    } catch (err) {
      rethrowWithin(err, `[${key}]`);
    }
  }
}

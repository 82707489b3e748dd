/**
 * JSON -> protobuf: walks a Kubernetes object in its JSON form along a message
 * plan and writes the fields in field-number order, as Go's generated marshallers
 * do. Absent and null JSON values are not written (Go reads them back as zero),
 * except a null timestamp, which is Go's zero time.
 */
import { ProtobufEncodeError } from './errors';
import type { FieldPlan, MessagePlan, ValuePlan } from './schema';
import { encodeWellKnown } from './wellKnown';
import { writeScalar, type Writer } from './wire';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isTimestamp(plan: MessagePlan): boolean {
  return plan.wellKnown === 'time' || plan.wellKnown === 'microTime';
}

/** Writes the body of `plan` (no tag, no length) from its JSON value. */
export function encodeMessage(w: Writer, plan: MessagePlan, value: unknown, path: string): void {
  if (plan.wellKnown) {
    encodeWellKnown(w, plan.wellKnown, value, path);
    return;
  }
  if (plan.listWrapper) {
    if (!Array.isArray(value)) throw new ProtobufEncodeError(`${path}: expected an array, got ${JSON.stringify(value)}`);
    encodeRepeated(w, plan.listWrapper, value, path);
    return;
  }
  if (!isObject(value)) throw new ProtobufEncodeError(`${path}: expected an object, got ${JSON.stringify(value)}`);
  for (const field of plan.fields) encodeField(w, field, value, path);
}

function encodeField(w: Writer, field: FieldPlan, obj: Record<string, unknown>, path: string): void {
  if (field.inline && field.value.kind === 'message') {
    // An embedded Go struct is always written, read from the same JSON object.
    w.uint32(field.tag).fork();
    encodeMessage(w, field.value.message(), obj, path);
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
  const fieldPath = `${path}.${field.json}`;
  if (field.mapKey) encodeMap(w, field, v, fieldPath);
  else if (field.repeated) {
    if (!Array.isArray(v)) throw new ProtobufEncodeError(`${fieldPath}: expected an array, got ${JSON.stringify(v)}`);
    encodeRepeated(w, field, v, fieldPath);
  } else encodeValue(w, field.tag, field.value, v, fieldPath);
}

function encodeValue(w: Writer, tag: number, plan: ValuePlan, v: unknown, path: string): void {
  w.uint32(tag);
  if (plan.kind === 'scalar') {
    writeScalar(w, plan.scalar, v, path);
  } else {
    w.fork();
    encodeMessage(w, plan.message(), v, path);
    w.ldelim();
  }
}

/** Repeated fields are written unpacked, one tag per element, as proto2 does. */
function encodeRepeated(w: Writer, field: FieldPlan, items: unknown[], path: string): void {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === null && field.value.kind === 'message') {
      w.uint32(field.tag).uint32(0); // a null element reads back as a zero element
      continue;
    }
    encodeValue(w, field.tag, field.value, item, `${path}[${i}]`);
  }
}

/** Map entries are messages {key=1, value=2}, sorted by key as Go writes them. */
function encodeMap(w: Writer, field: FieldPlan, v: unknown, path: string): void {
  if (!isObject(v)) throw new ProtobufEncodeError(`${path}: expected an object, got ${JSON.stringify(v)}`);
  const keyTag = field.mapKey === 'string' ? 0x0a : 0x08;
  const valueTag = (2 << 3) | (field.value.kind === 'scalar' ? field.value.wireType : 2);
  for (const key of Object.keys(v).sort()) {
    const entry = v[key];
    w.uint32(field.tag).fork();
    w.uint32(keyTag);
    if (field.mapKey === 'string') w.string(key);
    else writeScalar(w, field.mapKey ?? 'string', Number(key), `${path}[${key}]`);
    if (entry !== null && entry !== undefined) encodeValue(w, valueTag, field.value, entry, `${path}[${key}]`);
    w.ldelim();
  }
}

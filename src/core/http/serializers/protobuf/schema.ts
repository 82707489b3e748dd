/**
 * Message plans: the bundled descriptor (a protobufjs JSON descriptor whose message
 * references are fully qualified) compiled lazily into flat per-message tables the
 * encoder and decoder walk. Building protobufjs reflection objects for all of it
 * would cost a cold start hundreds of milliseconds; a plan is built only for the
 * messages a request touches. A plan says,
 * for each field, its wire tag, its JSON name, how its value is shaped (scalar,
 * message, map, repeated, embedded) and whether a zero value shows in JSON.
 */
import type { IField, IMapField, INamespace, IType } from 'protobufjs/light.js';
import { protoDescriptor } from './generated';
import { messageNameFor } from './messageNames';

export { messageNameFor };

export type ScalarType =
  | 'string' | 'bytes' | 'bool'
  | 'int32' | 'uint32' | 'sint32' | 'fixed32' | 'sfixed32'
  | 'int64' | 'uint64' | 'sint64' | 'fixed64' | 'sfixed64'
  | 'double' | 'float';

/** Messages whose JSON form is not an object of their fields (see wellKnown.ts). */
export type WellKnownType =
  | 'time' | 'microTime' | 'duration' | 'intOrString' | 'quantity' | 'rawExtension' | 'fieldsV1';

const WELL_KNOWN: Record<string, WellKnownType> = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'microTime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'duration',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'fieldsV1',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.api.resource.QuantityValue': 'quantity',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawExtension',
};

/** The value a field (or a map entry, or a list element) holds. */
export type ValuePlan =
  | { readonly kind: 'scalar'; readonly scalar: ScalarType; readonly wireType: number }
  | { readonly kind: 'message'; readonly message: () => MessagePlan };

export interface FieldPlan {
  readonly id: number;
  /** Key in the JSON object (the proto name unless the descriptor says otherwise). */
  readonly json: string;
  /** Precomputed tag (id << 3 | wire type) for writing. */
  readonly tag: number;
  readonly value: ValuePlan;
  readonly repeated: boolean;
  /** Map key type, for `map<,>` fields. */
  readonly mapKey?: ScalarType;
  /** An embedded Go struct: its fields are read from and written to the parent's object. */
  readonly inline: boolean;
  /** A zero scalar (Go pointer or non-omitempty field) stays in the JSON. */
  readonly keepZero: boolean;
}

export interface MessagePlan {
  readonly fullName: string;
  readonly wellKnown?: WellKnownType;
  /** A named Go slice (ExtraValue, Verbs): the JSON form is the array of this field. */
  readonly listWrapper?: FieldPlan;
  /** In field-number order, as Go writes them. */
  readonly fields: readonly FieldPlan[];
  readonly byId: ReadonlyMap<number, FieldPlan>;
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH = 2;
export const WIRE_FIXED32 = 5;

const SCALAR_WIRE: Record<ScalarType, number> = {
  string: WIRE_LENGTH, bytes: WIRE_LENGTH, bool: WIRE_VARINT,
  int32: WIRE_VARINT, uint32: WIRE_VARINT, sint32: WIRE_VARINT, fixed32: WIRE_FIXED32, sfixed32: WIRE_FIXED32,
  int64: WIRE_VARINT, uint64: WIRE_VARINT, sint64: WIRE_VARINT, fixed64: WIRE_FIXED64, sfixed64: WIRE_FIXED64,
  double: WIRE_FIXED64, float: WIRE_FIXED32,
};

const plans = new Map<string, MessagePlan>();

/** The descriptor entry of a message, by full name without the leading dot. */
function lookupType(fullName: string): IType {
  let node: INamespace | IType | undefined = protoDescriptor.loaded;
  for (const part of fullName.split('.')) node = node?.nested?.[part] as INamespace | IType | undefined;
  if (!node || !('fields' in node)) throw new Error(`protobuf message ${fullName} is not in the descriptor`);
  return node;
}

function valuePlan(typeName: string): ValuePlan {
  if (typeName in SCALAR_WIRE) {
    const scalar = typeName as ScalarType;
    return { kind: 'scalar', scalar, wireType: SCALAR_WIRE[scalar] };
  }
  const name = typeName.replace(/^\./, '');
  let plan: MessagePlan | undefined;
  return { kind: 'message', message: () => (plan ??= messagePlan(name)) };
}

function fieldPlan(name: string, field: IField & Partial<IMapField>): FieldPlan {
  const options = field.options ?? {};
  const value = valuePlan(field.type);
  const wireType = field.keyType || value.kind === 'message' ? WIRE_LENGTH : value.wireType;
  return {
    id: field.id,
    json: typeof options.json === 'string' ? options.json : name,
    tag: ((field.id << 3) | wireType) >>> 0,
    value,
    repeated: field.rule === 'repeated',
    mapKey: field.keyType as ScalarType | undefined,
    inline: options.inline === true,
    keepZero: options.keepZero === true,
  };
}

/** The plan of a message by full name (no leading dot), compiled on first use. */
export function messagePlan(fullName: string): MessagePlan {
  const cached = plans.get(fullName);
  if (cached) return cached;
  const type = lookupType(fullName);
  const fields = Object.entries(type.fields)
    .map(([name, field]) => fieldPlan(name, field))
    .sort((a, b) => a.id - b.id);
  const plan: MessagePlan = {
    fullName,
    wellKnown: WELL_KNOWN[fullName],
    listWrapper: type.options?.listWrapper === true ? fields[0] : undefined,
    fields,
    byId: new Map(fields.map((f) => [f.id, f])),
  };
  plans.set(fullName, plan);
  return plan;
}


/**
 * Every kind with a message round-trips an object in which every property of its
 * OpenAPI schema is set (to a non-zero value): this checks JSON names, embedded
 * structs, list wrappers, maps and well-known types against the whole API.
 */
import { describe, expect, it } from 'vitest';
import { registryBundle, type SchemaObject } from '../../../registry';
import { kindMessages } from './generated';
import { plain, readCbor } from '../cbor/cborReader.test-data';
import { decodeCbor, encodeCbor } from '../cbor';
import { decodeProtobuf, encodeProtobuf } from './index';
import { decodeEnvelope, protoFilesAvailable, protoType } from './protoFiles.test-data';

const definitions = registryBundle.definitions;
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Sample JSON values for types with a JSON form of their own. */
const WELL_KNOWN_SAMPLES: Record<string, () => unknown> = {
  [`${META}.Time`]: () => '2024-01-02T03:04:05Z',
  [`${META}.MicroTime`]: () => '2024-01-02T03:04:05.123456Z',
  [`${META}.Duration`]: () => '1m30s',
  [`${META}.FieldsV1`]: () => ({ 'f:metadata': { 'f:labels': {} } }),
  'io.k8s.apimachinery.pkg.runtime.RawExtension': () => ({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } }),
  'io.k8s.apimachinery.pkg.api.resource.Quantity': () => '250m',
};

let intOrStringTurn = 0;

function sample(schema: SchemaObject, depth: number, nested: boolean): unknown {
  const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
  if (ref) {
    const name = ref.replace('#/definitions/', '');
    if (WELL_KNOWN_SAMPLES[name]) return WELL_KNOWN_SAMPLES[name]();
    if (name === 'io.k8s.apimachinery.pkg.util.intstr.IntOrString') return intOrStringTurn++ % 2 ? '25%' : 8;
    const def = definitions[name];
    if (!def) throw new Error(`no definition ${name}`);
    return sample(def, depth + 1, true);
  }
  if (schema.format === 'int-or-string') return intOrStringTurn++ % 2 ? '25%' : 8;
  switch (schema.type) {
    case 'string':
      if (schema.format === 'byte') return 'eA==';
      if (schema.format === 'date-time') return '2024-01-02T03:04:05Z';
      return 'x';
    case 'integer':
      return 1;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    case 'array': {
      // Empty lists and maps do not exist on the wire: past the depth limit, leave them out.
      const item = sample(schema.items ?? {}, depth + 1, true);
      return item === undefined ? undefined : [item];
    }
    default: {
      if (depth > 14) return undefined;
      const out: Record<string, unknown> = {};
      if (typeof schema.additionalProperties === 'object') {
        const value = sample(schema.additionalProperties, depth + 1, true);
        return value === undefined ? undefined : { k: value };
      }
      // A nested top-level kind (a List's items) has no TypeMeta on the wire, nor in Go's JSON.
      const embeddedKind = nested && schema['x-kubernetes-group-version-kind'];
      for (const [prop, propSchema] of Object.entries(schema.properties ?? {})) {
        if (embeddedKind && (prop === 'apiVersion' || prop === 'kind')) continue;
        const value = sample(propSchema, depth + 1, true);
        if (value !== undefined) out[prop] = value;
      }
      return out;
    }
  }
}

const kinds = Object.entries(kindMessages)
  .map(([key, message]) => {
    const cut = key.lastIndexOf('/');
    return { apiVersion: key.slice(0, cut), kind: key.slice(cut + 1), definition: message.replace(/^k8s\.io\./, 'io.k8s.') };
  })
  .filter((k) => definitions[k.definition]);

/** Each kind's sample as JSON text, the form a client sends and kube-apiserver serves. */
function jsonSample(apiVersion: string, kind: string, definition: string): Record<string, unknown> {
  const obj = { ...(sample(definitions[definition], 0, false) as Record<string, unknown>), apiVersion, kind };
  return JSON.parse(JSON.stringify(obj)) as Record<string, unknown>;
}

describe('every built-in kind round-trips through protobuf', () => {
  it('covers the kinds the bundled registry describes', () => {
    expect(kinds.length).toBeGreaterThan(250);
  });

  it.each(kinds)('$apiVersion $kind', ({ apiVersion, kind, definition }) => {
    const obj = { ...(sample(definitions[definition], 0, false) as Record<string, unknown>), apiVersion, kind };
    expect(decodeProtobuf(encodeProtobuf(obj)).object).toEqual(obj);
  });
});

describe('[API-ENC-002] every built-in kind: JSON -> protobuf -> JSON, read independently by protobufjs', () => {
  it.skipIf(!protoFilesAvailable).each(kinds)('$apiVersion $kind', ({ apiVersion, kind, definition }) => {
    const obj = jsonSample(apiVersion, kind, definition);
    const bytes = encodeProtobuf(obj);
    expect(decodeProtobuf(bytes).object).toEqual(obj);
    // The upstream .proto files read the same bytes: envelope, then the kind's message without a wire error.
    const env = decodeEnvelope(bytes);
    expect([env.apiVersion, env.kind]).toEqual([apiVersion, kind]);
    const message = protoType(kindMessages[`${apiVersion}/${kind}`]!).decode(env.raw) as unknown as { metadata?: { name?: string } };
    if ((obj['metadata'] as { name?: string } | undefined)?.name) expect(message.metadata?.name).toBe('x');
  });
});


describe('[API-ENC-023] every built-in kind: JSON -> CBOR -> JSON, read independently by cborg', () => {
  it.each(kinds)('$apiVersion $kind', ({ apiVersion, kind, definition }) => {
    const obj = jsonSample(apiVersion, kind, definition);
    const bytes = encodeCbor(obj);
    expect(decodeCbor(bytes)).toEqual(obj);
    expect(plain(readCbor(bytes))).toEqual(obj);
  });
});

/**
 * Swagger 2.0 definitions (as bundled) to OpenAPI 3.0 component schemas, the
 * way kube-apiserver publishes them under /openapi/v3: refs point into
 * #/components/schemas, a ref with sibling keywords (a described field) is
 * wrapped in allOf, and IntOrString and Quantity become oneOf.
 */
import type { SchemaObject } from '../registry/types';

const DEFINITIONS = '#/definitions/';
export const COMPONENTS = '#/components/schemas/';

/** Keywords whose value is one schema. */
const SCHEMA_KEYS = new Set(['items', 'additionalProperties', 'not']);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYS = new Set(['allOf', 'oneOf', 'anyOf']);

/** v3 spells these two as unions; Swagger 2.0 could only say "string" with a format. */
const ONE_OF: Record<string, SchemaObject[]> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': [{ type: 'integer' }, { type: 'string' }],
  'io.k8s.apimachinery.pkg.api.resource.Quantity': [{ type: 'string' }, { type: 'number' }],
};

/** Definition name a $ref points to, whether written for Swagger 2.0 or OpenAPI 3.0. */
export function refName(ref: string): string {
  if (ref.startsWith(DEFINITIONS)) return ref.slice(DEFINITIONS.length);
  if (ref.startsWith(COMPONENTS)) return ref.slice(COMPONENTS.length);
  return ref;
}

function convert(schema: SchemaObject): SchemaObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      const props: Record<string, SchemaObject> = {};
      for (const [name, prop] of Object.entries(value as Record<string, SchemaObject>)) props[name] = convert(prop);
      out[key] = props;
    } else if (SCHEMA_KEYS.has(key) && value && typeof value === 'object') {
      out[key] = convert(value as SchemaObject);
    } else if (SCHEMA_LIST_KEYS.has(key) && Array.isArray(value)) {
      out[key] = (value as SchemaObject[]).map(convert);
    } else {
      out[key] = value;
    }
  }
  if (typeof schema.$ref === 'string') {
    const ref = { $ref: COMPONENTS + refName(schema.$ref) };
    if (Object.keys(out).length === 0) return ref;
    // A $ref's siblings are ignored in OpenAPI 3.0; allOf keeps the field's own description.
    return { allOf: [ref], ...out } as SchemaObject;
  }
  return out as SchemaObject;
}

/** One bundled definition as an OpenAPI 3.0 component schema. */
export function toV3Schema(name: string, schema: SchemaObject): SchemaObject {
  const converted = convert(schema);
  const oneOf = ONE_OF[name];
  if (!oneOf) return converted;
  const { type: _type, ...rest } = converted;
  return { ...rest, oneOf };
}

/** Names of the definitions a schema refers to directly. */
export function collectRefs(schema: unknown, out: Set<string>): void {
  if (Array.isArray(schema)) {
    for (const item of schema) collectRefs(item, out);
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') out.add(refName(value));
    else if (key === 'properties' && value && typeof value === 'object') {
      // Property names are data: JSONSchemaProps has a property called "$ref".
      for (const prop of Object.values(value)) collectRefs(prop, out);
    } else collectRefs(value, out);
  }
}

/** The given definitions plus everything they reach, sorted by name. */
export function definitionClosure(roots: Iterable<string>, lookup: (name: string) => SchemaObject | undefined): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    const schema = lookup(name);
    if (!schema) continue;
    seen.add(name);
    const refs = new Set<string>();
    collectRefs(schema, refs);
    for (const ref of refs) if (!seen.has(ref)) queue.push(ref);
  }
  return [...seen].sort();
}

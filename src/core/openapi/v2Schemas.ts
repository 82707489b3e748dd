/**
 * A custom resource's schema as apiextensions-apiserver publishes it in
 * /openapi/v2 (ToStructuralOpenAPIV2 and buildKubeNative with V2 set): what
 * Swagger 2.0 cannot say is dropped, and so is what would make kubectl's
 * client-side validation reject valid objects. Built-in definitions are
 * bundled in Swagger 2.0 form already and are published as they are.
 */
import type { SchemaObject } from '../registry/types';

/** Keywords of a Swagger 2.0 schema (gnostic's openapi.v2.Schema); x- extensions are kept too. */
const SWAGGER_KEYWORDS = new Set([
  '$ref', 'format', 'title', 'description', 'default', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties',
  'minProperties', 'required', 'enum', 'additionalProperties', 'type', 'items', 'allOf', 'properties', 'discriminator',
  'readOnly', 'xml', 'externalDocs', 'example',
]);

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

function prune(input: Node): Node {
  const s: Node = {};
  for (const [key, value] of Object.entries(input)) {
    // allOf, oneOf, anyOf and not are value validations only: all four go.
    if (key === 'allOf' || !(SWAGGER_KEYWORDS.has(key) || key.startsWith('x-'))) continue;
    s[key] = value;
  }
  if (input.nullable === true) {
    // An untyped value with items or properties breaks kubectl.
    delete s.type;
    delete s.items;
    delete s.properties;
  }
  if (input['x-kubernetes-preserve-unknown-fields'] === true) {
    // Declared properties would make kubectl reject the unknown ones.
    delete s.items;
    delete s.properties;
  }
  if (s.items === undefined && s.type === 'array') delete s.type;
  if (isNode(s.properties)) {
    const props = s.properties;
    if (Array.isArray(s.required)) {
      // A nullable field may be sent as null, which kubectl would count as missing.
      const required = (s.required as string[]).filter((f) => !(isNode(props[f]) && props[f].nullable === true));
      if (required.length > 0) s.required = required;
      else delete s.required;
    }
    s.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, isNode(v) ? prune(v) : v]));
  }
  if (isNode(s.additionalProperties)) {
    if (s.additionalProperties.nullable === true) delete s.required;
    s.additionalProperties = prune(s.additionalProperties);
  }
  if (isNode(s.items)) s.items = prune(s.items);
  return s;
}

/**
 * A custom kind's definition in v2 form. A kind that keeps unknown fields at
 * its root is published as a bare object (not even apiVersion, kind and
 * metadata), so kubectl validates none of its fields.
 */
export function toV2CustomResourceSchema(schema: SchemaObject): SchemaObject {
  const gvk = schema['x-kubernetes-group-version-kind'];
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) {
    return { type: 'object', ...(gvk ? { 'x-kubernetes-group-version-kind': gvk } : {}) };
  }
  return prune(schema as Node) as SchemaObject;
}

/**
 * The /openapi/v2 document as gnostic's `openapi.v2.Document` protobuf
 * (openapiv2/OpenAPIv2.proto, proto3), the form kube-openapi serves for
 * `application/com.github.proto-openapi.spec.v2.v1.0+protobuf` and the only
 * one client-go's OpenAPISchema() reads. Written the way kube-openapi's
 * ToProtoBinary gets it: the JSON document walked in key order (gnostic's
 * ParseDocument), fields written in field-number order, proto3 zero values
 * left out. Values gnostic keeps as `Any` (extensions, default, enum,
 * example) carry their YAML text, which readers yaml.Unmarshal; JSON is YAML.
 *
 * Field numbers are written out here rather than loaded as a descriptor:
 * protobufjs' reflection runtime would weigh more than the few messages used.
 */
import { Writer } from 'protobufjs/minimal.js';
import type { SwaggerDocument } from './v2Document';
import type { SwaggerOperation, SwaggerParameter, SwaggerPathItem } from './v2Paths';

type Node = Record<string, unknown>;

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const tag = (field: number, wire: number) => (field << 3) | wire;

function string(w: Writer, field: number, v: unknown): void {
  if (typeof v === 'string' && v !== '') w.uint32(tag(field, BYTES)).string(v);
}
function strings(w: Writer, field: number, v: unknown): void {
  if (Array.isArray(v)) for (const s of v) w.uint32(tag(field, BYTES)).string(String(s));
}
function bool(w: Writer, field: number, v: unknown): void {
  if (v === true) w.uint32(tag(field, VARINT)).bool(true);
}
function double(w: Writer, field: number, v: unknown): void {
  if (typeof v === 'number' && v !== 0) w.uint32(tag(field, FIXED64)).double(v);
}
function int64(w: Writer, field: number, v: unknown): void {
  if (typeof v === 'number' && v !== 0) w.uint32(tag(field, VARINT)).int64(v);
}
/** A message field: written even when empty, as Go writes a set message. */
function message(w: Writer, field: number, body: () => void): void {
  w.uint32(tag(field, BYTES)).fork();
  body();
  w.ldelim();
}

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Any { google.protobuf.Any value = 1; string yaml = 2; } */
function any(w: Writer, field: number, value: unknown): void {
  message(w, field, () => string(w, 2, `${JSON.stringify(value)}\n`));
}

/** repeated NamedAny vendor_extension: the x- keys in document order. NamedAny { string name = 1; Any value = 2; } */
function vendorExtensions(w: Writer, field: number, node: object): void {
  for (const [key, value] of Object.entries(node)) {
    if (!key.startsWith('x-')) continue;
    message(w, field, () => {
      string(w, 1, key);
      any(w, 2, value);
    });
  }
}

/** Schema (fields 1-31). */
function schema(w: Writer, s: Node): void {
  string(w, 1, s.$ref); // _ref
  string(w, 2, s.format);
  string(w, 3, s.title);
  string(w, 4, s.description);
  if ('default' in s) any(w, 5, s.default);
  double(w, 6, s.multipleOf);
  double(w, 7, s.maximum);
  bool(w, 8, s.exclusiveMaximum);
  double(w, 9, s.minimum);
  bool(w, 10, s.exclusiveMinimum);
  int64(w, 11, s.maxLength);
  int64(w, 12, s.minLength);
  string(w, 13, s.pattern);
  int64(w, 14, s.maxItems);
  int64(w, 15, s.minItems);
  bool(w, 16, s.uniqueItems);
  int64(w, 17, s.maxProperties);
  int64(w, 18, s.minProperties);
  strings(w, 19, s.required);
  if (Array.isArray(s.enum)) for (const v of s.enum) any(w, 20, v);
  const additional = s.additionalProperties;
  // AdditionalPropertiesItem { oneof { Schema schema = 1; bool boolean = 2; } }: a oneof member is written even when false.
  if (typeof additional === 'boolean') message(w, 21, () => w.uint32(tag(2, VARINT)).bool(additional));
  else if (isNode(additional)) message(w, 21, () => message(w, 1, () => schema(w, additional)));
  // TypeItem { repeated string value = 1; }
  if (s.type !== undefined) message(w, 22, () => strings(w, 1, Array.isArray(s.type) ? s.type : [s.type]));
  // ItemsItem { repeated Schema schema = 1; }: one schema, or a tuple's list.
  const items = s.items;
  if (isNode(items) || Array.isArray(items)) {
    message(w, 23, () => {
      for (const item of Array.isArray(items) ? items : [items]) if (isNode(item)) message(w, 1, () => schema(w, item));
    });
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) if (isNode(sub)) message(w, 24, () => schema(w, sub));
  // Properties { repeated NamedSchema additional_properties = 1; }: an empty object still says "no fields".
  const properties = s.properties;
  if (isNode(properties)) message(w, 25, () => namedSchemas(w, 1, properties));
  string(w, 26, s.discriminator);
  bool(w, 27, s.readOnly);
  if (isNode(s.externalDocs)) {
    const docs = s.externalDocs;
    message(w, 29, () => { string(w, 1, docs.description); string(w, 2, docs.url); });
  }
  if ('example' in s) any(w, 30, s.example);
  vendorExtensions(w, 31, s);
}

/** repeated NamedSchema { string name = 1; Schema value = 2; } */
function namedSchemas(w: Writer, field: number, map: Node): void {
  for (const [name, value] of Object.entries(map)) {
    message(w, field, () => {
      string(w, 1, name);
      if (isNode(value)) message(w, 2, () => schema(w, value));
    });
  }
}

/**
 * ParametersItem { oneof { Parameter parameter = 1; JsonReference json_reference = 2; } }
 * Parameter { oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
 */
function parameter(w: Writer, field: number, p: SwaggerParameter): void {
  message(w, field, () => message(w, 1, () => {
    if (p.in === 'body') {
      // BodyParameter { description = 1; name = 2; in = 3; required = 4; schema = 5; }
      message(w, 1, () => {
        string(w, 1, p.description);
        string(w, 2, p.name);
        string(w, 3, p.in);
        bool(w, 4, p.required);
        if (p.schema) message(w, 5, () => schema(w, p.schema!));
      });
      return;
    }
    // NonBodyParameter { oneof { header = 1; form_data = 2; QueryParameterSubSchema = 3; PathParameterSubSchema = 4; } }
    const query = p.in === 'query';
    message(w, 2, () => message(w, query ? 3 : 4, () => {
      // Both start required = 1, in = 2, description = 3, name = 4; the query one has allow_empty_value = 5 next.
      bool(w, 1, p.required);
      string(w, 2, p.in);
      string(w, 3, p.description);
      string(w, 4, p.name);
      string(w, query ? 6 : 5, p.type);
      bool(w, query ? 20 : 19, p.uniqueItems);
    }));
  }));
}

/** Operation { tags = 1; description = 3; operation_id = 5; produces = 6; consumes = 7; parameters = 8; responses = 9; schemes = 10; vendor_extension = 13; } */
function operation(w: Writer, op: SwaggerOperation): void {
  strings(w, 1, op.tags);
  string(w, 3, op.description);
  string(w, 5, op.operationId);
  strings(w, 6, op.produces);
  strings(w, 7, op.consumes);
  for (const p of op.parameters ?? []) parameter(w, 8, p);
  // Responses { repeated NamedResponseValue response_code = 1; }
  message(w, 9, () => {
    for (const [code, r] of Object.entries(op.responses)) {
      message(w, 1, () => {
        string(w, 1, code);
        // ResponseValue { oneof { Response response = 1; ... } }; Response { description = 1; SchemaItem schema = 2; }
        message(w, 2, () => message(w, 1, () => {
          string(w, 1, r.description);
          // SchemaItem { oneof { Schema schema = 1; FileSchema file_schema = 2; } }
          if (r.schema) message(w, 2, () => message(w, 1, () => schema(w, r.schema!)));
        }));
      });
    }
  });
  strings(w, 10, op.schemes);
  vendorExtensions(w, 13, op);
}

/** PathItem { get = 2; put = 3; post = 4; delete = 5; options = 6; head = 7; patch = 8; parameters = 9; } */
const METHOD_FIELDS = [['get', 2], ['put', 3], ['post', 4], ['delete', 5], ['options', 6], ['head', 7], ['patch', 8]] as const;

function pathItem(w: Writer, item: SwaggerPathItem): void {
  for (const [method, field] of METHOD_FIELDS) {
    const op = item[method];
    if (op) message(w, field, () => operation(w, op));
  }
  for (const p of item.parameters ?? []) parameter(w, 9, p);
}

/** Document { swagger = 1; info = 2; paths = 8; definitions = 9; security = 12; security_definitions = 13; } */
export function encodeGnosticDocument(doc: SwaggerDocument): Uint8Array {
  const w = Writer.create();
  string(w, 1, doc.swagger);
  // Info { title = 1; version = 2; }
  message(w, 2, () => { string(w, 1, doc.info.title); string(w, 2, doc.info.version); });
  // Paths { repeated NamedPathItem path = 2; }; NamedPathItem { name = 1; PathItem value = 2; }
  message(w, 8, () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      message(w, 2, () => { string(w, 1, path); message(w, 2, () => pathItem(w, item)); });
    }
  });
  // Definitions { repeated NamedSchema additional_properties = 1; }
  message(w, 9, () => namedSchemas(w, 1, doc.definitions as Node));
  // SecurityRequirement { repeated NamedStringArray additional_properties = 1; }; NamedStringArray { name = 1; StringArray value = 2; }
  for (const requirement of doc.security) {
    message(w, 12, () => {
      for (const [name, scopes] of Object.entries(requirement)) {
        message(w, 1, () => { string(w, 1, name); message(w, 2, () => strings(w, 1, scopes)); });
      }
    });
  }
  // SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
  message(w, 13, () => {
    for (const [name, def] of Object.entries(doc.securityDefinitions)) {
      message(w, 1, () => {
        string(w, 1, name);
        // SecurityDefinitionsItem { oneof { ...; ApiKeySecurity api_key_security = 2; ... } }; ApiKeySecurity { type = 1; name = 2; in = 3; description = 4; }
        message(w, 2, () => message(w, 2, () => {
          string(w, 1, def.type);
          string(w, 2, def.name);
          string(w, 3, def.in);
          string(w, 4, def.description);
        }));
      });
    }
  });
  return w.finish();
}

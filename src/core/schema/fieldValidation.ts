/**
 * Request field validation (fieldValidation=Strict|Warn|Ignore) for create,
 * update and patch, with kube-apiserver's messages:
 *
 * - Strict: one 400 listing every unknown and duplicate field,
 *   `Deployment in version "v1" cannot be handled as a Deployment: strict
 *   decoding error: unknown field "spec.foo", duplicate field "metadata.name"`.
 * - Warn (the default): success, one warning per field (`unknown field
 *   "spec.foo"`), unknown fields dropped.
 * - Ignore: success, unknown fields dropped silently.
 * - A fatal decoding error (string where an integer belongs) is a 400 at
 *   every level, naming only that error.
 *
 * Patches: a Strict violation is a 400 BadRequest whose message is the
 * strict decoding error (the spec's Errors table; upstream's patcher wraps it
 * in a 422 on the field `patch`), while a patched object that does not decode
 * at all stays the patcher's 422 Invalid on `patch`. Duplicates are looked
 * for in the patch body, unknown fields in the patched object.
 */
import type { SchemaObject } from '../registry';
import { newBadRequest, newInvalid, notSupported, type FieldError, type StatusError } from '../errors';
import { cleanMembers, decodesCleanly, repeatsNoKey, scanJsonText } from './cleanJson';
import { decodeJson, decodeUnstructured, StrictErrors, type DecodeResult } from './decoding';
import { jsonTreeDuplicates, yamlDuplicateKeyErrors } from './duplicates';
import { goTypesFor, type GoType, type SchemaResolver, type StructType } from './goTypes';
import { goFormatValue } from './goValues';
import { JsonSyntaxError, parseJsonTree, treeOf, type JsonNode } from './jsonTree';
import { customResourceUnknownFields, pruneUnknown } from './structural';

export type FieldValidationDirective = 'Strict' | 'Warn' | 'Ignore';

const supportedDirectives = ['', 'Ignore', 'Strict', 'Warn'];

/** The field errors ValidateFieldValidation gives for a `fieldValidation` value (none when valid or absent). */
export function fieldValidationErrors(value: string | null): FieldError[] {
  if (value === null || supportedDirectives.includes(value)) return [];
  return [notSupported('fieldValidation', value, supportedDirectives)];
}

/**
 * The validation level of a request: `fieldValidation` from the query, Warn
 * when absent or empty. Any other value is 422 `CreateOptions.meta.k8s.io ""
 * is invalid: fieldValidation: Unsupported value: "Foo": supported values:
 * "", "Ignore", "Strict", "Warn"` (UpdateOptions/PatchOptions for PUT/PATCH).
 */
export function fieldValidationDirective(
  url: URL,
  optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' = 'CreateOptions',
): FieldValidationDirective {
  // URL.searchParams builds its object on first use: a URL without a query (most writes) needs none.
  const value = url.search === '' ? null : url.searchParams.get('fieldValidation');
  const errs = fieldValidationErrors(value);
  if (errs.length) throw newInvalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
  return value === 'Strict' || value === 'Ignore' ? value : 'Warn';
}

export interface ValidateFieldsOptions {
  /** Custom resource: structural-schema semantics (no type errors; duplicates and unknowns everywhere). */
  custom?: boolean;
}

/**
 * Unknown field paths of a decoded object (keys walked in sorted order, as
 * Go decodes a map) and the first fatal type error, with upstream's text.
 */
export function validateFields(
  value: unknown,
  schema: SchemaObject,
  resolve: SchemaResolver,
  options: ValidateFieldsOptions = {},
): { unknown: string[]; fatal?: string } {
  if (options.custom) {
    const u = customResourceUnknownFields(value, schema, resolve);
    return { unknown: [...u.metadata, ...u.pruned, ...u.embeddedMetadata] };
  }
  const r = decodeJson(treeOf(value), goTypesFor(resolve).root(schema), true);
  const prefix = 'unknown field ';
  const unknown = r.strict.filter((m) => m.startsWith(prefix)).map((m) => JSON.parse(m.slice(prefix.length)) as string);
  return r.fatal ? { unknown: [], fatal: r.fatal } : { unknown };
}

export interface CheckRequestFieldsInput {
  /** The raw request body. */
  body: Uint8Array | string;
  /** Body format; protobuf and CBOR bodies are returned untouched (their decoders have no strict mode here). */
  mediaType: 'json' | 'yaml' | 'protobuf' | 'cbor';
  /** The body as the handler decoded it (JSON.parse / YAML). */
  decoded: unknown;
  /**
   * A JSON body exactly as JSON.parse returned it (before any defaulting),
   * when the handler has it: a body with nothing to report is then proven
   * clean without building its syntax tree.
   */
  parsed?: unknown;
  /** The kind's schema (registry.schemaFor(gvk)). */
  schema: SchemaObject;
  resolve: SchemaResolver;
  directive: FieldValidationDirective;
  /** Custom resource (structural schema semantics). */
  custom?: boolean;
  /** Kind and version the body declared, for the error prefix; default from the body, then the schema's GVK. */
  kind?: string;
  version?: string;
}

export interface CheckedRequest<T = unknown> {
  /** The object to continue with: unknown fields dropped (Warn, Ignore). */
  object: T;
  /** Texts for `Warning: 299 - "<text>"` headers, in order. */
  warnings: string[];
}

const textOf = (body: Uint8Array | string) => (typeof body === 'string' ? body : new TextDecoder().decode(body));

function treeOfBody(text: string, decoded: unknown): JsonNode {
  try {
    return parseJsonTree(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return treeOf(decoded);
    throw e;
  }
}

function schemaGvk(schema: SchemaObject, resolve: SchemaResolver) {
  const s = schema.$ref ? resolve(schema.$ref) ?? schema : schema;
  return s['x-kubernetes-group-version-kind']?.[0];
}

/** transformDecodeError's prefix: `Deployment in version "v1" cannot be handled as a Deployment: `. */
function decodeErrorPrefix(input: CheckRequestFieldsInput): string {
  const gvk = schemaGvk(input.schema, input.resolve);
  const obj = (typeof input.decoded === 'object' && input.decoded !== null ? input.decoded : {}) as Record<string, unknown>;
  const bodyApiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : undefined;
  const kind = input.kind ?? (typeof obj['kind'] === 'string' && obj['kind'] ? obj['kind'] : gvk?.kind ?? '');
  const version = input.version ?? (bodyApiVersion ? bodyApiVersion.slice(bodyApiVersion.indexOf('/') + 1) : gvk?.version ?? '');
  const target = gvk?.kind ?? kind;
  return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${target}: `;
}

/** `yaml: unmarshal errors:\n  line 5: ...`, go-yaml's TypeError text. */
const yamlErrorsText = (lines: string[]) => `yaml: unmarshal errors:\n${lines.map((l) => `  ${l}`).join('\n')}`;

/**
 * Field validation of a create or update body, after the handler decoded it.
 * Throws a 400 StatusError for a fatal decoding error (any level) and for
 * Strict violations; returns the object (pruned for Warn/Ignore) and the
 * warnings to send.
 */
export function checkRequestFields<T = unknown>(input: CheckRequestFieldsInput): CheckedRequest<T> {
  const { mediaType, decoded, schema, resolve, directive } = input;
  if (mediaType !== 'json' && mediaType !== 'yaml') return { object: decoded as T, warnings: [] };
  const strict = directive !== 'Ignore';
  const text = textOf(input.body);
  const yamlDupes = strict && mediaType === 'yaml' ? yamlDuplicateKeyErrors(text) : [];
  const { parsed } = input;
  const scan = mediaType === 'json' && parsed !== undefined ? scanJsonText(text) : undefined;
  let result: DecodeResult;
  // The common case, proven in one walk of the parsed body: no repeated key (as many members as the text has), nothing unknown, no type error.
  if (scan && !input.custom && directive !== 'Ignore' && scan.plainNumbers && cleanMembers(parsed, goTypesFor(resolve).root(schema)) === scan.members) {
    return { object: decoded as T, warnings: [] };
  }
  const noRepeatedKey = scan !== undefined && repeatsNoKey(scan, parsed);
  if (input.custom) {
    const errs = new StrictErrors();
    if (strict && mediaType === 'json' && !noRepeatedKey) jsonTreeDuplicates(treeOfBody(text, decoded), errs);
    if (strict) {
      const u = customResourceUnknownFields(decoded, schema, resolve);
      for (const p of [...u.metadata, ...u.pruned, ...u.embeddedMetadata]) errs.add('unknown', p);
    }
    result = { strict: errs.messages };
  } else if (noRepeatedKey && scan.plainNumbers && decodesCleanly(parsed, goTypesFor(resolve).root(schema))) {
    result = { strict: [] };
  } else {
    // JSON is decoded in document order; YAML goes through a map first, so Go meets its keys sorted.
    const tree = mediaType === 'json' ? treeOfBody(text, decoded) : treeOf(decoded);
    result = decodeJson(tree, goTypesFor(resolve).root(schema), strict);
  }
  if (result.fatal) throw newBadRequest(decodeErrorPrefix(input) + result.fatal);
  if (directive === 'Strict' && (yamlDupes.length || result.strict.length)) {
    const all = yamlDupes.length ? [yamlErrorsText(yamlDupes), ...result.strict] : result.strict;
    throw newBadRequest(`${decodeErrorPrefix(input)}strict decoding error: ${all.join(', ')}`);
  }
  const warnings = directive === 'Warn' ? [...yamlDupes, ...result.strict] : [];
  const unchanged = directive === 'Strict' || (result.strict.length === 0 && directive === 'Warn');
  const object = unchanged ? (decoded as T) : pruneUnknown(decoded as T, schema, resolve, { custom: input.custom });
  return { object, warnings };
}

export type PatchKind = 'json' | 'merge' | 'strategic' | 'apply';

export interface CheckPatchFieldsInput {
  patchType: PatchKind;
  /** The raw patch body. */
  patchBody: Uint8Array | string;
  /** The object after the patch was applied (before defaulting and admission). */
  patched: unknown;
  schema: SchemaObject;
  resolve: SchemaResolver;
  directive: FieldValidationDirective;
  custom?: boolean;
  /** apply: `patched` is JSON.parse of the body, unchanged (duplicate keys are then found by counting) */
  patchedFromJson?: boolean;
}

/** handlers.jsonPatchOp: what a JSON patch operation may carry. */
const jsonPatchOpType: StructType = (() => {
  const str: GoType = { k: 'string', goName: () => 'string' };
  const any: GoType = { k: 'any', goName: () => 'interface {}' };
  const fields: Record<string, GoType> = { op: str, path: str, from: str, value: any };
  return {
    k: 'struct',
    name: 'jsonPatchOp',
    goName: () => 'handlers.jsonPatchOp',
    field: (n: string) => (Object.prototype.hasOwnProperty.call(fields, n) ? fields[n] : undefined),
    preserve: false,
    embedded: false,
    schema: {},
  };
})();
const jsonPatchType: GoType = { k: 'slice', elem: () => jsonPatchOpType, goName: () => '[]handlers.jsonPatchOp' };

/** 422 `"" is invalid: patch: Invalid value: "<value>": <detail>`, the patch handler's error shape. */
function invalidPatch(valueText: string, detail: string): StatusError {
  return newInvalid({ group: '', kind: '' }, '', [{ type: 'FieldValueInvalid', field: 'patch', value: valueText, detail }]);
}

/** Go's json.Marshal of a decoded map: keys sorted, compact. */
function goJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const obj = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(obj).sort().map((k) => [k, obj[k]]));
  });
}

/**
 * Field validation of a PATCH. Call it on the patched object, before
 * defaulting and admission. JSON and merge patches: duplicates of the patch
 * body (or the JSON patch operations' own unknown/duplicate fields) plus the
 * patched object's unknown fields; strategic merge: the same with the
 * unstructured converter's messages; apply: only duplicate keys of the YAML
 * body (400 `error strict decoding YAML: ...`; unknown fields are the field
 * manager's to report).
 */
/**
 * True when the body is JSON (as kubectl and client-node send apply bodies)
 * with no repeated key: then the YAML pass that would word duplicate-key
 * errors is not needed at all.
 */
function jsonWithoutDuplicates(text: string, parsed?: unknown): boolean {
  if (text.trimStart()[0] !== '{') return false;
  // valid JSON has one ':' outside strings per member: as many as the parsed body has keys means no key was repeated
  if (parsed !== undefined && repeatsNoKey(scanJsonText(text), parsed)) return true;
  let tree: JsonNode;
  try {
    tree = parseJsonTree(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return false;
    throw e;
  }
  const errs = new StrictErrors();
  jsonTreeDuplicates(tree, errs);
  return errs.messages.length === 0;
}

export function checkPatchFields<T = unknown>(input: CheckPatchFieldsInput): CheckedRequest<T> {
  const { patchType, patched, schema, resolve, directive } = input;
  const strict = directive !== 'Ignore';
  const text = textOf(input.patchBody);

  if (patchType === 'apply') {
    const lines = strict && !jsonWithoutDuplicates(text, input.patchedFromJson ? patched : undefined) ? yamlDuplicateKeyErrors(text) : [];
    if (lines.length && directive === 'Strict') {
      throw newBadRequest(`error strict decoding YAML: error converting YAML to JSON: ${yamlErrorsText(lines)}`);
    }
    return { object: patched as T, warnings: directive === 'Warn' ? lines : [] };
  }

  // Errors of the patch body itself come first.
  const bodyErrs = new StrictErrors();
  if (strict) {
    let tree: JsonNode | undefined;
    try {
      tree = parseJsonTree(text);
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
    }
    if (tree && patchType === 'json') {
      const r = decodeJson(tree, jsonPatchType, true);
      if (r.fatal) throw newBadRequest(`error decoding patch: ${r.fatal}`);
      for (const m of r.strict) bodyErrs.addMessage(`json patch ${m}`);
    } else if (tree) jsonTreeDuplicates(tree, bodyErrs);
  }

  let objectResult: DecodeResult;
  if (input.custom) {
    const errs = new StrictErrors();
    if (strict) {
      const u = customResourceUnknownFields(patched, schema, resolve);
      for (const p of [...u.metadata, ...u.pruned, ...u.embeddedMetadata]) errs.add('unknown', p);
    }
    objectResult = { strict: errs.messages };
  } else if (patchType === 'strategic') {
    objectResult = decodeUnstructured(treeOf(patched), goTypesFor(resolve).root(schema), strict);
  } else {
    objectResult = decodeJson(treeOf(patched), goTypesFor(resolve).root(schema), strict);
  }

  const shown = () => {
    if (patchType !== 'strategic') return goJson(patched);
    try {
      return goFormatValue(JSON.parse(text) as unknown);
    } catch {
      return text;
    }
  };
  if (objectResult.fatal) throw invalidPatch(shown(), objectResult.fatal);
  const all = [...bodyErrs.messages, ...objectResult.strict];
  if (directive === 'Strict' && all.length) throw newBadRequest(`strict decoding error: ${all.join(', ')}`);
  const warnings = directive === 'Warn' ? all : [];
  const unchanged = directive === 'Strict' || (objectResult.strict.length === 0 && directive === 'Warn');
  const object = unchanged ? (patched as T) : pruneUnknown(patched as T, schema, resolve, { custom: input.custom });
  return { object, warnings };
}

/**
 * Request field validation (`fieldValidation=Strict|Warn|Ignore`) in the
 * handlers: unknown and duplicate fields against the kind's schema, fatal
 * decoding errors always, warnings into the response's Warning headers.
 */
import type { KubeObject } from '../../api/types';
import { checkPatchFields, checkRequestFields, type FieldValidationDirective, type PatchKind } from '../../schema';
import type { Serializer } from '../serializers/types';
import type { DecodedBody } from './common';
import type { RequestScope } from './scope';

export function bodyFormat(serializer: Serializer): 'json' | 'yaml' | 'protobuf' | 'cbor' {
  if (serializer.mediaType === 'application/yaml') return 'yaml';
  if (serializer.mediaType === 'application/json') return 'json';
  return serializer.mediaType.includes('cbor') ? 'cbor' : 'protobuf';
}

/** Checks a create or update body; returns the object to continue with (unknown fields dropped unless Strict failed). */
export function validateBodyFields(scope: RequestScope, directive: FieldValidationDirective, serializer: Serializer, body: Uint8Array, decoded: DecodedBody): KubeObject {
  const schema = scope.store.schema.root;
  if (!schema) return decoded.object;
  const mediaType = bodyFormat(serializer);
  const r = checkRequestFields<KubeObject>({
    body: decoded.text ?? body,
    mediaType,
    decoded: decoded.object,
    parsed: mediaType === 'json' ? decoded.parsed : undefined,
    schema,
    resolve: scope.store.resolveSchema,
    directive,
    custom: !!scope.type.custom,
  });
  scope.warnings.push(...r.warnings);
  return r.object;
}

/** Checks a patched object (and the patch body) as the apiserver's patcher does. */
export function validatePatchedFields(scope: RequestScope, directive: FieldValidationDirective, patchType: PatchKind, body: Uint8Array | string, patched: KubeObject, patchedFromJson = false): KubeObject {
  const schema = scope.store.schema.root;
  if (!schema) return patched;
  const r = checkPatchFields<KubeObject>({ patchType, patchBody: body, patched, schema, resolve: scope.store.resolveSchema, directive, custom: !!scope.type.custom, patchedFromJson });
  // A retried compare-and-swap runs this again: keep each warning once.
  for (const w of r.warnings) if (!scope.warnings.includes(w)) scope.warnings.push(w);
  return r.object;
}

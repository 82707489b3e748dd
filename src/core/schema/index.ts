/**
 * Schemas as decoders see them: the Go types behind the bundled OpenAPI
 * definitions (goTypes), decoding a body against them with
 * kube-apiserver's strict-decoding and fatal-error texts (decoding), raw
 * bodies' duplicate keys (duplicates), custom resources' structural pruning
 * (structural), and request field validation for create, update and patch
 * (fieldValidation: fieldValidation=Strict|Warn|Ignore).
 */
export {
  checkPatchFields,
  checkRequestFields,
  fieldValidationDirective,
  fieldValidationErrors,
  validateFields,
  type CheckedRequest,
  type CheckPatchFieldsInput,
  type CheckRequestFieldsInput,
  type FieldValidationDirective,
  type PatchKind,
  type ValidateFieldsOptions,
} from './fieldValidation';
export { findDuplicateFields, yamlDuplicateKeyErrors, yamlDuplicateKeys, type DuplicateKey } from './duplicates';
export { customResourceUnknownFields, pruneUnknown, type CustomResourceUnknownFields, type PruneOptions } from './structural';
export { decodeJson, decodeUnstructured, maxStrictErrors, type DecodeResult } from './decoding';
export { GoTypes, goTypesFor, goNameOfDefinition, type GoType, type SchemaResolver } from './goTypes';
export { parseJsonTree, treeOf, JsonSyntaxError, type JsonNode } from './jsonTree';
export { goTimeParseError, goQuantityParseError, goBase64Error, goFormatValue } from './goValues';

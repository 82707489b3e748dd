/**
 * /openapi/v3: the root index of group version documents and one OpenAPI 3.0
 * document per served group version (paths with operations carrying
 * x-kubernetes-group-version-kind, x-kubernetes-action and fieldValidation,
 * and components.schemas for kubectl explain), generated from the registry at
 * first use and cached until the group version changes; and /openapi/v2: one
 * Swagger 2.0 document derived from those, in JSON and as gnostic protobuf.
 */
export {
  groupVersionPath,
  openApiV3Document,
  openApiV3Hash,
  openApiV3Root,
  parseGroupVersionPath,
  type OpenAPIV3Document,
  type OpenAPIV3Root,
} from './document';
export { groupVersionTag, type OperationObject, type ParameterObject, type PathItemObject } from './paths';
export { definitionClosure, toV3Schema } from './schemas';
export { buildSwaggerDocument, openApiV2Spec, type OpenAPIV2Spec, type SwaggerDocument } from './v2Document';
export type { SwaggerOperation, SwaggerParameter, SwaggerPathItem } from './v2Paths';

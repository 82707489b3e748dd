/**
 * Swagger 2.0 path items from the OpenAPI 3.0 ones of paths.ts, the way
 * kube-openapi writes the same routes for /openapi/v2: a request body becomes
 * the `body` parameter and the operation's `consumes`, response media types
 * become `produces`, parameters carry their type inline (no schema), and refs
 * point into #/definitions. Every operation is served over https only.
 */
import type { GroupVersionKind } from '../registry/types';
import { groupVersionTag, type HttpMethod, type OperationObject, type ParameterObject, type PathItemObject } from './paths';
import { COMPONENTS } from './schemas';

export const DEFINITIONS = '#/definitions/';

export interface SwaggerParameter {
  uniqueItems?: boolean;
  type?: string;
  description?: string;
  name: string;
  in: 'query' | 'path' | 'body';
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface SwaggerResponse {
  description: string;
  schema?: Record<string, unknown>;
}

/** Keys in the order kube-openapi's spec.Operation marshals them, extensions last. */
export interface SwaggerOperation {
  description: string;
  consumes?: string[];
  produces?: string[];
  schemes: string[];
  tags: string[];
  operationId: string;
  parameters?: SwaggerParameter[];
  responses: Record<string, SwaggerResponse>;
  'x-kubernetes-action'?: string;
  'x-kubernetes-group-version-kind'?: GroupVersionKind;
}

export type SwaggerPathItem = Partial<Record<HttpMethod, SwaggerOperation>> & { parameters?: SwaggerParameter[] };

/** spec.PathItem's field order. */
const METHODS: HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
const DISCOVERY_MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** An operation's schema (a $ref or an inline string) with its ref moved to #/definitions. */
function v2Schema(schema: Record<string, unknown>): Record<string, unknown> {
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith(COMPONENTS)) return { ...schema, $ref: DEFINITIONS + ref.slice(COMPONENTS.length) };
  return schema;
}

function parameter(p: ParameterObject): SwaggerParameter {
  return {
    ...(p.schema.uniqueItems ? { uniqueItems: true } : {}),
    type: p.schema.type,
    ...(p.description ? { description: p.description } : {}),
    name: p.name,
    in: p.in,
    ...(p.required ? { required: true } : {}),
  };
}

const byName = (a: SwaggerParameter, b: SwaggerParameter) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function operation(op: OperationObject): SwaggerOperation {
  const parameters = (op.parameters ?? []).map(parameter);
  let consumes: string[] | undefined;
  if (op.requestBody) {
    const media = Object.entries(op.requestBody.content);
    consumes = media.map(([type]) => type);
    const body: SwaggerParameter = { name: 'body', in: 'body', ...(op.requestBody.required ? { required: true } : {}) };
    body.schema = v2Schema(media[0][1].schema);
    parameters.push(body);
    parameters.sort(byName);
  }
  const produces = new Set<string>();
  const responses: Record<string, SwaggerResponse> = {};
  for (const [code, r] of Object.entries(op.responses)) {
    const media = Object.entries(r.content ?? {});
    for (const [type] of media) produces.add(type);
    responses[code] = media.length > 0 ? { description: r.description, schema: v2Schema(media[0][1].schema) } : { description: r.description };
  }
  const out: SwaggerOperation = {
    description: op.description,
    ...(consumes ? { consumes } : {}),
    ...(produces.size > 0 ? { produces: [...produces] } : {}),
    schemes: ['https'],
    tags: op.tags,
    operationId: op.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
  };
  if (op['x-kubernetes-action']) out['x-kubernetes-action'] = op['x-kubernetes-action'];
  if (op['x-kubernetes-group-version-kind']) out['x-kubernetes-group-version-kind'] = op['x-kubernetes-group-version-kind'];
  return out;
}

/** One OpenAPI 3.0 path item in Swagger 2.0 form. */
export function toV2PathItem(item: PathItemObject): SwaggerPathItem {
  const out: SwaggerPathItem = {};
  for (const method of METHODS) {
    const op = item[method];
    if (op) out[method] = operation(op);
  }
  if (item.parameters) out.parameters = item.parameters.map(parameter);
  return out;
}

function discoveryPath(description: string, tag: string, operationId: string, definition: string): SwaggerPathItem {
  return {
    get: {
      description,
      consumes: DISCOVERY_MEDIA,
      produces: DISCOVERY_MEDIA,
      schemes: ['https'],
      tags: [tag],
      operationId,
      responses: { '200': { description: 'OK', schema: { $ref: DEFINITIONS + META + definition } }, '401': { description: 'Unauthorized' } },
    },
  };
}

/** /api/, /apis/ and /apis/<group>/ for each named group: the discovery documents the v2 document also lists. */
export function discoveryPaths(groups: { name: string; versions: string[] }[]): { paths: Record<string, SwaggerPathItem>; definitions: string[] } {
  const paths: Record<string, SwaggerPathItem> = {
    '/api/': discoveryPath('get available API versions', 'core', 'getCoreAPIVersions', 'APIVersions'),
    '/apis/': discoveryPath('get available API versions', 'apis', 'getAPIVersions', 'APIGroupList'),
  };
  for (const g of groups) {
    if (g.name === '' || g.versions.length === 0) continue;
    // The group's tag is its group version tag without the version: rbacAuthorization, flowcontrolApiserver.
    const tag = groupVersionTag(g.name, g.versions[0]).replace(/_[^_]*$/, '');
    const id = `get${tag[0].toUpperCase()}${tag.slice(1)}APIGroup`;
    paths[`/apis/${g.name}/`] = discoveryPath('get information of a group', tag, id, 'APIGroup');
  }
  return { paths, definitions: [META + 'APIVersions', META + 'APIGroupList', META + 'APIGroup'] };
}

/**
 * The paths of one group version's OpenAPI 3.0 document, derived from the
 * registry the way kube-apiserver's installer registers routes: collection and
 * item paths (namespaced, all-namespaces and cluster-scoped), the deprecated
 * /watch/ paths, and subresources (connect ones per HTTP method). Every
 * operation carries x-kubernetes-group-version-kind and x-kubernetes-action;
 * parameters shared by all operations of a path are hoisted to the path item,
 * so writes keep dryRun, fieldManager and fieldValidation on the operation,
 * where kubectl looks for fieldValidation.
 */
import type { ResourceRegistry } from '../registry/registry';
import type { GroupVersionKind, QueryParameter, ResourceType, SubresourceInfo } from '../registry/types';
import { COMPONENTS } from './schemas';

export interface ParameterObject {
  name: string;
  in: 'path' | 'query';
  description?: string;
  required?: boolean;
  schema: { type: string; uniqueItems?: boolean };
}

export type MediaContent = Record<string, { schema: Record<string, unknown> }>;

export interface OperationObject {
  description: string;
  operationId: string;
  parameters?: ParameterObject[];
  requestBody?: { content: MediaContent; required?: boolean };
  responses: Record<string, { description: string; content?: MediaContent }>;
  tags: string[];
  'x-kubernetes-action'?: string;
  'x-kubernetes-group-version-kind'?: GroupVersionKind;
}

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';

export type PathItemObject = Partial<Record<HttpMethod, OperationObject>> & { parameters?: ParameterObject[] };

const MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor'];
const STREAM_MEDIA = ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/cbor-seq'];
const PATCH_MEDIA = [
  'application/apply-patch+cbor',
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** "rbac.authorization.k8s.io" -> ["rbac", "authorization"]; "" -> ["core"]. */
function groupWords(group: string): string[] {
  return group === '' ? ['core'] : group.replace(/\.k8s\.io$/, '').split('.');
}
const title = (s: string) => (s === '' ? s : s[0].toUpperCase() + s.slice(1));

/** The tag kube uses for a group version: core_v1, apps_v1, rbacAuthorization_v1. */
export function groupVersionTag(group: string, version: string): string {
  const [first, ...rest] = groupWords(group);
  return `${first}${rest.map(title).join('')}_${version}`;
}

/** CoreV1, AppsV1, RbacAuthorizationV1: inserted after the verb of every operationId. */
function operationInfix(group: string, version: string): string {
  return groupWords(group).map(title).join('') + title(version);
}

/** kube's GetArticleForNoun: plural-looking nouns (Endpoints) take none. */
function article(noun: string): string {
  if (!noun.endsWith('ss') && noun.endsWith('s')) return ' ';
  return /^[aeiou]/i.test(noun) ? ' an ' : ' a ';
}

function ref(definition: string): Record<string, unknown> {
  return { $ref: COMPONENTS + definition };
}

function content(types: string[], schema: Record<string, unknown>): MediaContent {
  const out: MediaContent = {};
  for (const t of [...types].sort()) out[t] = { schema };
  return out;
}

function toParameter(q: QueryParameter): ParameterObject {
  const p: ParameterObject = { name: q.name, in: 'query', schema: { type: q.type } };
  if (q.description) p.description = q.description;
  if (q.required) p.required = true;
  if (q.uniqueItems) p.schema.uniqueItems = true;
  // Key order as kube serializes: description, in, name, required, schema.
  return sortedKeys(p);
}

function pathParameter(name: string, description: string): ParameterObject {
  return { description, in: 'path', name, required: true, schema: { type: 'string', uniqueItems: true } };
}

function sortedKeys<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))) as T;
}

interface Context {
  registry: ResourceRegistry;
  group: string;
  version: string;
  prefix: string;
  tag: string;
  infix: string;
  /** Media types the resources answer in (custom resources have no protobuf). */
  media: string[];
  streamMedia: string[];
  paths: Record<string, PathItemObject>;
  /** Definitions the operations refer to, for components.schemas. */
  refs: Set<string>;
}

interface OperationSpec {
  method: HttpMethod;
  /** The kube verb in the operationId (read, list, create, replace, patch, delete, deletecollection, watch, connect). */
  opVerb: string;
  action: string;
  description: string;
  parameters: ParameterObject[];
  requestBody?: OperationObject['requestBody'];
  responses: OperationObject['responses'];
  gvk: GroupVersionKind;
  /** Rest of the operationId after verb and group version: NamespacedPodStatus, PodForAllNamespaces. */
  idSuffix: string;
}

function operationId(ctx: Context, spec: OperationSpec): string {
  if (spec.opVerb === 'deletecollection') return `delete${ctx.infix}Collection${spec.idSuffix}`;
  return `${spec.opVerb}${ctx.infix}${spec.idSuffix}`;
}

function addPath(ctx: Context, path: string, pathParams: ParameterObject[], specs: OperationSpec[]): void {
  if (specs.length === 0) return;
  const item: PathItemObject = {};
  const ops = specs.map((spec) => {
    const params = [...pathParams, ...spec.parameters];
    const op: OperationObject = {
      description: spec.description,
      operationId: operationId(ctx, spec),
      parameters: params,
      responses: spec.responses,
      tags: [ctx.tag],
      'x-kubernetes-action': spec.action,
      'x-kubernetes-group-version-kind': spec.gvk,
    };
    if (spec.requestBody) op.requestBody = spec.requestBody;
    item[spec.method] = op;
    return op;
  });
  // Hoist the parameters every operation shares (path parameters, pretty).
  const key = (p: ParameterObject) => `${p.in}:${p.name}`;
  const shared = ops[0].parameters!.filter((p) => ops.every((op) => op.parameters!.some((q) => key(q) === key(p))));
  const sharedKeys = new Set(shared.map(key));
  for (const op of ops) {
    const own = op.parameters!.filter((p) => !sharedKeys.has(key(p))).sort((a, b) => (a.name < b.name ? -1 : 1));
    if (own.length > 0) op.parameters = own;
    else delete op.parameters;
  }
  if (shared.length > 0) item.parameters = [...shared].sort((a, b) => (a.name < b.name ? -1 : 1));
  ctx.paths[path] = sortedKeys(item);
}

function okResponse(types: string[], schema: Record<string, unknown>, codes: string[]): OperationObject['responses'] {
  const responses: OperationObject['responses'] = {};
  const names: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };
  for (const code of codes) responses[code] = { content: content(types, schema), description: names[code] };
  responses['401'] = { description: 'Unauthorized' };
  return responses;
}

function params(list: QueryParameter[] | undefined): ParameterObject[] {
  return (list ?? []).map(toParameter);
}

/** Definition of a kind, or undefined (connect option kinds have no schema). */
function definitionOf(ctx: Context, gvk: GroupVersionKind): string | undefined {
  const name = ctx.registry.definitionNameFor(gvk);
  return name && ctx.registry.definition(name) ? name : undefined;
}

function addResourcePaths(ctx: Context, r: ResourceType): void {
  const reg = ctx.registry;
  const opParams = reg.operationParameters;
  const pretty = params(opParams?.common);
  const gvk: GroupVersionKind = { group: r.group, version: r.version, kind: r.kind };
  const namespaced = r.scope === 'Namespaced';
  const ns = namespaced ? 'Namespaced' : '';
  const has = (verb: string) => r.verbs.includes(verb);
  const nsParam = pathParameter('namespace', 'object name and auth scope, such as for teams and projects');
  const nameParam = pathParameter('name', `name of the ${r.kind}`);
  const collectionPath = namespaced ? `${ctx.prefix}/namespaces/{namespace}/${r.resource}` : `${ctx.prefix}/${r.resource}`;
  const itemPath = `${collectionPath}/{name}`;
  const collectionParams = namespaced ? [nsParam, ...pretty] : [...pretty];
  const itemParams = [nameParam, ...(namespaced ? [nsParam] : []), ...pretty];

  ctx.refs.add(r.definition);
  const kindSchema = ref(r.definition);
  const listDef = r.listKind ? definitionOf(ctx, { ...gvk, kind: r.listKind }) : undefined;
  if (listDef) ctx.refs.add(listDef);
  const status = `${META}Status`;
  const watchEvent = `${META}WatchEvent`;
  const listKindSchema = listDef ? ref(listDef) : kindSchema;
  const deleteBody = { content: content(['*/*'], ref(`${META}DeleteOptions`)) };
  const patchBody = { content: content(PATCH_MEDIA, ref(`${META}Patch`)), required: true };
  for (const d of ['DeleteOptions', 'Patch', 'Status', 'WatchEvent']) ctx.refs.add(META + d);

  const collectionOps: OperationSpec[] = [];
  if (has('list')) {
    collectionOps.push({
      method: 'get', opVerb: 'list', action: 'list', gvk,
      description: has('watch') ? `list or watch objects of kind ${r.kind}` : `list objects of kind ${r.kind}`,
      parameters: params(opParams?.list),
      responses: okResponse([...ctx.media, ...ctx.streamMedia], listKindSchema, ['200']),
      idSuffix: `${ns}${r.kind}`,
    });
  }
  if (has('create')) {
    collectionOps.push({
      method: 'post', opVerb: 'create', action: 'post', gvk,
      description: `create${article(r.kind)}${r.kind}`,
      parameters: params(opParams?.create),
      requestBody: { content: content(['*/*'], kindSchema), required: true },
      responses: okResponse(ctx.media, kindSchema, ['200', '201', '202']),
      idSuffix: `${ns}${r.kind}`,
    });
  }
  if (has('deletecollection')) {
    collectionOps.push({
      method: 'delete', opVerb: 'deletecollection', action: 'deletecollection', gvk,
      description: `delete collection of ${r.kind}`,
      parameters: params(opParams?.deletecollection),
      requestBody: deleteBody,
      responses: okResponse(ctx.media, ref(status), ['200']),
      idSuffix: `${ns}${r.kind}`,
    });
  }
  addPath(ctx, collectionPath, collectionParams, collectionOps);

  const itemOps: OperationSpec[] = [];
  if (has('get')) {
    itemOps.push({
      method: 'get', opVerb: 'read', action: 'get', gvk,
      description: `read the specified ${r.kind}`, parameters: [],
      responses: okResponse(ctx.media, kindSchema, ['200']),
      idSuffix: `${ns}${r.kind}`,
    });
  }
  if (has('update')) {
    itemOps.push({
      method: 'put', opVerb: 'replace', action: 'put', gvk,
      description: `replace the specified ${r.kind}`,
      parameters: params(opParams?.update),
      requestBody: { content: content(['*/*'], kindSchema), required: true },
      responses: okResponse(ctx.media, kindSchema, ['200', '201']),
      idSuffix: `${ns}${r.kind}`,
    });
  }
  if (has('patch')) {
    itemOps.push({
      method: 'patch', opVerb: 'patch', action: 'patch', gvk,
      description: `partially update the specified ${r.kind}`,
      parameters: params(opParams?.patch),
      requestBody: patchBody,
      responses: okResponse(ctx.media, kindSchema, ['200', '201']),
      idSuffix: `${ns}${r.kind}`,
    });
  }
  if (has('delete')) {
    itemOps.push({
      method: 'delete', opVerb: 'delete', action: 'delete', gvk,
      description: `delete${article(r.kind)}${r.kind}`,
      parameters: params(opParams?.delete),
      requestBody: deleteBody,
      // Some storages (pods, namespaces, ...) answer a delete with the object itself.
      responses: okResponse(ctx.media, r.deleteReturnsObject ? kindSchema : ref(status), ['200', '202']),
      idSuffix: `${ns}${r.kind}`,
    });
  }
  addPath(ctx, itemPath, itemParams, itemOps);

  if (has('watch')) {
    const watchParams = params(opParams?.watch);
    const watchResponses = okResponse([...ctx.media, ...ctx.streamMedia], ref(watchEvent), ['200']);
    const watchCollection = namespaced
      ? `${ctx.prefix}/watch/namespaces/{namespace}/${r.resource}`
      : `${ctx.prefix}/watch/${r.resource}`;
    if (has('list')) {
      addPath(ctx, watchCollection, collectionParams, [{
        method: 'get', opVerb: 'watch', action: 'watchlist', gvk,
        description: `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
        parameters: watchParams, responses: watchResponses, idSuffix: `${ns}${r.kind}List`,
      }]);
    }
    addPath(ctx, `${watchCollection}/{name}`, itemParams, [{
      method: 'get', opVerb: 'watch', action: 'watch', gvk,
      description: `watch changes to an object of kind ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
      parameters: watchParams, responses: watchResponses, idSuffix: `${ns}${r.kind}`,
    }]);
    if (namespaced && has('list')) {
      addPath(ctx, `${ctx.prefix}/watch/${r.resource}`, [...pretty], [{
        method: 'get', opVerb: 'watch', action: 'watchlist', gvk,
        description: `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
        parameters: watchParams, responses: watchResponses, idSuffix: `${r.kind}ListForAllNamespaces`,
      }]);
    }
  }
  if (namespaced && has('list')) {
    addPath(ctx, `${ctx.prefix}/${r.resource}`, [...pretty], [{
      method: 'get', opVerb: 'list', action: 'list', gvk,
      description: has('watch') ? `list or watch objects of kind ${r.kind}` : `list objects of kind ${r.kind}`,
      parameters: params(opParams?.list),
      responses: okResponse([...ctx.media, ...ctx.streamMedia], listKindSchema, ['200']),
      idSuffix: `${r.kind}ForAllNamespaces`,
    }]);
  }

  for (const sub of r.subresources) addSubresourcePaths(ctx, r, sub, itemPath, itemParams);
}

/** Subresources whose storage is a connecter (streams, proxies): one operation per HTTP method. */
const CONNECT = new Set(['attach', 'exec', 'portforward', 'proxy']);

function addSubresourcePaths(ctx: Context, r: ResourceType, sub: SubresourceInfo, itemPath: string, itemParams: ParameterObject[]): void {
  const opParams = ctx.registry.operationParameters;
  const ns = r.scope === 'Namespaced' ? 'Namespaced' : '';
  const Sub = title(sub.name);
  const path = `${itemPath}/${sub.name}`;
  const gvk = sub.kind;
  const has = (verb: string) => sub.verbs.includes(verb);
  // The name parameter is described with the subresource's own kind (name of the Scale).
  const pathNameParam = pathParameter('name', `name of the ${gvk.kind}`);
  itemParams = itemParams.map((p) => (p.name === 'name' ? pathNameParam : p));

  if (CONNECT.has(sub.name)) {
    const methodFor: Record<string, HttpMethod> = { create: 'post', delete: 'delete', get: 'get', patch: 'patch', update: 'put' };
    const methods = sub.verbs.map((v) => methodFor[v]).filter((m): m is HttpMethod => m !== undefined);
    // Proxies also answer HEAD and OPTIONS, which discovery cannot name.
    if (sub.name === 'proxy') methods.push('head', 'options');
    const connectParams = itemParams.filter((p) => p.name !== 'pretty').concat(params(sub.options));
    const specs = (suffix: string): OperationSpec[] =>
      methods.map((method) => ({
        method, opVerb: 'connect', action: 'connect', gvk,
        description: `connect ${method.toUpperCase()} requests to ${sub.name} of ${r.kind}`,
        parameters: [],
        responses: { '200': { content: content(['*/*'], { type: 'string' }), description: 'OK' }, '401': { description: 'Unauthorized' } },
        idSuffix: `${title(method)}${ns}${r.kind}${Sub}${suffix}`,
      }));
    addPath(ctx, path, connectParams, specs(''));
    if (sub.name === 'proxy') {
      addPath(ctx, `${path}/{path}`, [...connectParams, pathParameter('path', 'path to the resource')], specs('WithPath'));
    }
    return;
  }

  const def = sub.name === 'log' ? undefined : definitionOf(ctx, gvk);
  if (def) ctx.refs.add(def);
  const schema = def ? ref(def) : { type: 'string' };
  const media = sub.name === 'log' ? ['text/plain', ...ctx.media] : ctx.media;
  const specs: OperationSpec[] = [];
  if (has('get')) {
    specs.push({
      method: 'get', opVerb: 'read', action: 'get', gvk,
      description: `read ${sub.name} of the specified ${r.kind}`, parameters: params(sub.options),
      responses: okResponse(media, schema, ['200']), idSuffix: `${ns}${r.kind}${Sub}`,
    });
  }
  if (has('create')) {
    specs.push({
      method: 'post', opVerb: 'create', action: 'post', gvk,
      description: `create ${sub.name} of${article(r.kind)}${r.kind}`,
      parameters: params(opParams?.create),
      requestBody: { content: content(['*/*'], schema), required: true },
      responses: okResponse(ctx.media, schema, ['200', '201', '202']), idSuffix: `${ns}${r.kind}${Sub}`,
    });
  }
  if (has('update')) {
    specs.push({
      method: 'put', opVerb: 'replace', action: 'put', gvk,
      description: `replace ${sub.name} of the specified ${r.kind}`,
      parameters: params(opParams?.update),
      requestBody: { content: content(['*/*'], schema), required: true },
      responses: okResponse(ctx.media, schema, ['200', '201']), idSuffix: `${ns}${r.kind}${Sub}`,
    });
  }
  if (has('patch')) {
    specs.push({
      method: 'patch', opVerb: 'patch', action: 'patch', gvk,
      description: `partially update ${sub.name} of the specified ${r.kind}`,
      parameters: params(opParams?.patch),
      requestBody: { content: content(PATCH_MEDIA, ref(`${META}Patch`)), required: true },
      responses: okResponse(ctx.media, schema, ['200', '201']), idSuffix: `${ns}${r.kind}${Sub}`,
    });
  }
  addPath(ctx, path, itemParams, specs);
}

/** Paths of one served group version; `refs` receives the definitions they use. */
export function groupVersionPaths(
  registry: ResourceRegistry,
  group: string,
  version: string,
  options: { protobuf: boolean },
  refs: Set<string>,
): Record<string, PathItemObject> {
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const media = options.protobuf ? MEDIA : MEDIA.filter((m) => !m.includes('protobuf'));
  const streamMedia = options.protobuf ? STREAM_MEDIA : STREAM_MEDIA.filter((m) => !m.includes('protobuf'));
  const ctx: Context = {
    registry, group, version, prefix, refs, media, streamMedia, paths: {},
    tag: groupVersionTag(group, version),
    infix: operationInfix(group, version),
  };
  refs.add(`${META}APIResourceList`);
  ctx.paths[`${prefix}/`] = {
    get: {
      description: 'get available resources',
      operationId: `get${ctx.infix}APIResources`,
      responses: okResponse(MEDIA, ref(`${META}APIResourceList`), ['200']),
      tags: [ctx.tag],
    },
  };
  for (const r of registry.resourcesIn(group, version)) addResourcePaths(ctx, r);
  return Object.fromEntries(Object.keys(ctx.paths).sort().map((p) => [p, ctx.paths[p]]));
}

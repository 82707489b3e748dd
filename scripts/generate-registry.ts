/**
 * Generates the bundled resource registry (src/core/registry/generated/) from the
 * upstream Kubernetes 1.36 Swagger document in ../shared/data/openapi.
 *
 * Run: npx tsx scripts/generate-registry.ts
 *
 * What comes from the Swagger: every group/version/kind with its resource name,
 * scope (from the path shape), verbs (from x-kubernetes-action), subresources,
 * list kind and schema, plus the query parameters of the standard operations.
 * What the Swagger does not say is kept in the tables below, with the values a
 * real kube-apiserver serves: short names, categories, group priorities and
 * which versions are enabled by default.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type {
  ApiGroup,
  GroupVersionKind,
  OperationParameters,
  QueryParameter,
  RegistryBundle,
  ResourceType,
  SchemaObject,
  SubresourceInfo,
} from '../src/core/registry/types';
import { compareVersionPriority } from '../src/core/registry/versionPriority';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const swaggerPath = join(repo, '../shared/data/openapi/swagger-1.36.json');
/** The /openapi/v3 documents of the release before: they mark Go value-struct fields, which Swagger 2.0 cannot say. */
const v3Dir = join(repo, '../shared/data/openapi/v3-1.35');
const outDir = join(repo, 'src/core/registry/generated');

/** Release the Swagger was taken from (see ../shared/data/openapi/PROVENANCE.md). */
const KUBERNETES_VERSION = '1.36.0';

// ---------------------------------------------------------------------------
// Facts kube-apiserver serves that the Swagger does not carry.

/** rest.ShortNamesProvider values of the built-in storages, keyed "group/resource". */
const SHORT_NAMES: Record<string, string[]> = {
  '/componentstatuses': ['cs'],
  '/configmaps': ['cm'],
  '/endpoints': ['ep'],
  '/events': ['ev'],
  '/limitranges': ['limits'],
  '/namespaces': ['ns'],
  '/nodes': ['no'],
  '/persistentvolumeclaims': ['pvc'],
  '/persistentvolumes': ['pv'],
  '/pods': ['po'],
  '/replicationcontrollers': ['rc'],
  '/resourcequotas': ['quota'],
  '/serviceaccounts': ['sa'],
  '/services': ['svc'],
  'apiextensions.k8s.io/customresourcedefinitions': ['crd', 'crds'],
  'apps/daemonsets': ['ds'],
  'apps/deployments': ['deploy'],
  'apps/replicasets': ['rs'],
  'apps/statefulsets': ['sts'],
  'autoscaling/horizontalpodautoscalers': ['hpa'],
  'batch/cronjobs': ['cj'],
  'certificates.k8s.io/certificatesigningrequests': ['csr'],
  'events.k8s.io/events': ['ev'],
  'networking.k8s.io/ingresses': ['ing'],
  'networking.k8s.io/ipaddresses': ['ip'],
  'networking.k8s.io/networkpolicies': ['netpol'],
  'policy/poddisruptionbudgets': ['pdb'],
  'scheduling.k8s.io/priorityclasses': ['pc'],
  'storage.k8s.io/storageclasses': ['sc'],
  'storage.k8s.io/volumeattributesclasses': ['vac'],
};

/** rest.CategoriesProvider values, keyed "group/resource". */
const CATEGORIES: Record<string, string[]> = {
  '/pods': ['all'],
  '/replicationcontrollers': ['all'],
  '/services': ['all'],
  'apps/daemonsets': ['all'],
  'apps/deployments': ['all'],
  'apps/replicasets': ['all'],
  'apps/statefulsets': ['all'],
  'autoscaling/horizontalpodautoscalers': ['all'],
  'batch/cronjobs': ['all'],
  'batch/jobs': ['all'],
  'admissionregistration.k8s.io/mutatingadmissionpolicies': ['api-extensions'],
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': ['api-extensions'],
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': ['api-extensions'],
  'admissionregistration.k8s.io/validatingadmissionpolicies': ['api-extensions'],
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': ['api-extensions'],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': ['api-extensions'],
  'apiextensions.k8s.io/customresourcedefinitions': ['api-extensions'],
  'apiregistration.k8s.io/apiservices': ['api-extensions'],
};

/**
 * GroupPriorityMinimum of the auto-registered APIServices (kube-apiserver's
 * apiVersionPriorities); /apis lists groups by it, highest first, ties by name.
 */
const GROUP_PRIORITY: Record<string, number> = {
  '': 18000,
  'apiregistration.k8s.io': 18000,
  apps: 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  autoscaling: 17500,
  batch: 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'resource.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'internal.apiserver.k8s.io': 16000,
  'storagemigration.k8s.io': 15800,
};

/**
 * Since 1.24 (KEP-3136) new beta APIs are off by default, and every beta
 * version still in 1.36 was introduced after that; alpha is always off. So a
 * default 1.36 server serves exactly the GA versions.
 */
function enabledByDefault(version: string): boolean {
  return /^v[0-9]+$/.test(version);
}

/** Definitions every /openapi/v3 document needs besides the kinds themselves. */
const OPERATION_DEFINITIONS = [
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions',
  'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
  'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
];

// ---------------------------------------------------------------------------
// Swagger input shapes (only what is read).

interface SwaggerParameter {
  $ref?: string;
  name?: string;
  in?: string;
  description?: string;
  type?: string;
  uniqueItems?: boolean;
  required?: boolean;
}

interface SwaggerOperation {
  parameters?: SwaggerParameter[];
  responses?: Record<string, { schema?: { $ref?: string } }>;
  'x-kubernetes-action'?: string;
  'x-kubernetes-group-version-kind'?: GroupVersionKind;
}

export interface Swagger {
  definitions: Record<string, SchemaObject>;
  parameters: Record<string, SwaggerParameter>;
  paths: Record<string, Record<string, SwaggerOperation | SwaggerParameter[]>>;
}

/**
 * Fields of each struct definition that are Go structs held by value (not
 * pointers): /openapi/v3 gives them `default: {}`, since their zero value is
 * an empty object, where Swagger 2.0 has only the `$ref`.
 */
export type ValueStructFields = Map<string, Set<string>>;

/** ValueStructFields from /openapi/v3 documents (`components.schemas`). */
export function valueStructFieldsOf(documents: unknown[]): ValueStructFields {
  const out: ValueStructFields = new Map();
  for (const doc of documents) {
    const schemas = (doc as { components?: { schemas?: Record<string, SchemaObject> } }).components?.schemas ?? {};
    for (const [name, schema] of Object.entries(schemas)) {
      for (const [field, prop] of Object.entries(schema.properties ?? {})) {
        const d = (prop as { default?: unknown }).default;
        if (d !== null && typeof d === 'object' && !Array.isArray(d) && Object.keys(d).length === 0) {
          if (!out.has(name)) out.set(name, new Set());
          out.get(name)!.add(field);
        }
      }
    }
  }
  return out;
}

/** Builds the registry bundle from the upstream Swagger document (and, for zero objects, the value-struct fields of /openapi/v3). */
export function buildRegistryBundle(swagger: Swagger, valueStructs: ValueStructFields = new Map()): RegistryBundle {
  // ---------------------------------------------------------------------------
  // Resources from the paths.

  interface ResourceAccumulator {
    group: string;
    version: string;
    resource: string;
    kind?: string;
    namespaced: boolean;
    verbs: Set<string>;
    /** Definition name the item DELETE answers with. */
    deleteResponse?: string;
    subresources: Map<string, { kind: GroupVersionKind; verbs: Set<string>; options: Map<string, QueryParameter> }>;
  }

  const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

  /** x-kubernetes-action (or, for connect, the HTTP method) to the discovery verb. */
  function discoveryVerb(method: string, action: string): string | undefined {
    switch (action) {
      case 'get':
      case 'list':
      case 'patch':
      case 'delete':
      case 'deletecollection':
        return action;
      case 'post':
        return 'create';
      case 'put':
        return 'update';
      case 'watch':
      case 'watchlist':
        return 'watch';
      case 'connect':
        // kube lists a connecter's HTTP methods as verbs; HEAD and OPTIONS map to none.
        return { get: 'get', post: 'create', put: 'update', patch: 'patch', delete: 'delete' }[method];
      default:
        return undefined;
    }
  }

  const pathShape = /^\/(?:api|apis\/([^/]+))\/([^/]+)\/(.+)$/;

  const accumulators = new Map<string, ResourceAccumulator>();

  for (const [path, item] of Object.entries(swagger.paths)) {
    const m = pathShape.exec(path);
    if (!m) continue;
    const group = m[1] ?? '';
    const version = m[2];
    let rest = m[3];
    if (rest.startsWith('watch/')) rest = rest.slice('watch/'.length);
    let namespaced = false;
    if (rest.startsWith('namespaces/{namespace}/')) {
      namespaced = true;
      rest = rest.slice('namespaces/{namespace}/'.length);
    }
    const segments = rest.split('/');
    const resource = segments[0];
    if (resource === '' || resource.includes('{')) continue;
    const subresource = segments.length >= 3 && segments[1] === '{name}' ? segments[2] : undefined;
    if (segments.length >= 2 && segments[1] !== '{name}') continue;

    const key = `${group}/${version}/${resource}`;
    let acc = accumulators.get(key);
    if (!acc) {
      acc = { group, version, resource, namespaced: false, verbs: new Set(), subresources: new Map() };
      accumulators.set(key, acc);
    }
    // A namespaced resource also has the all-namespaces list path; any namespaced path decides.
    if (namespaced) acc.namespaced = true;

    for (const method of HTTP_METHODS) {
      const op = item[method] as SwaggerOperation | undefined;
      if (!op) continue;
      const action = op['x-kubernetes-action'];
      const gvk = op['x-kubernetes-group-version-kind'];
      if (!action || !gvk) continue;
      const verb = discoveryVerb(method, action);
      if (subresource === undefined) {
        acc.kind ??= gvk.kind;
        if (verb) acc.verbs.add(verb);
        if (action === 'delete') acc.deleteResponse = op.responses?.['200']?.schema?.$ref?.replace('#/definitions/', '');
      } else {
        let sub = acc.subresources.get(subresource);
        if (!sub) {
          sub = { kind: { group: gvk.group, version: gvk.version, kind: gvk.kind }, verbs: new Set(), options: new Map() };
          acc.subresources.set(subresource, sub);
        }
        if (verb) sub.verbs.add(verb);
        // Reads and connects take the options kind's fields as query parameters (log's container, exec's command).
        if (action === 'connect' || action === 'get') {
          const pathLevel = (item.parameters as SwaggerParameter[] | undefined) ?? [];
          for (const q of toQueryParameters([...pathLevel, ...(op.parameters ?? [])])) {
            if (!sub.options.has(q.name)) sub.options.set(q.name, q);
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------------------
  // Definitions: which schema describes which kind.

  const definitionByGvk = new Map<string, string>();
  const gvkKey = (g: string, v: string, k: string) => `${g}/${v}/${k}`;
  for (const [name, schema] of Object.entries(swagger.definitions)) {
    const gvks = schema['x-kubernetes-group-version-kind'] ?? [];
    for (const gvk of gvks) {
      const key = gvkKey(gvk.group, gvk.version, gvk.kind);
      // Shared option kinds (DeleteOptions, WatchEvent) carry many GVKs; a kind's own schema carries one.
      if (gvks.length === 1 || !definitionByGvk.has(key)) definitionByGvk.set(key, name);
    }
  }

  /**
   * The kind's Go zero value as the field manager sees it (converted to
   * unstructured): value structs are empty objects, recursively (omitempty
   * does not drop a struct), and fields without omitempty (the required ones)
   * that hold a slice, map or pointer are null. Scalars are left out: a
   * scalar an object sets is owned whether it was added or modified.
   */
  function zeroObject(def: string, seen: Set<string>): Record<string, unknown> {
    const schema = swagger.definitions[def]!;
    const required = new Set(schema.required ?? []);
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const ref = prop.$ref?.replace('#/definitions/', '');
      const target = ref ? swagger.definitions[ref] : undefined;
      if (ref && target?.properties && valueStructs.get(def)?.has(name) && !seen.has(ref)) out[name] = zeroObject(ref, new Set([...seen, ref]));
      else if (required.has(name) && (prop.type === 'array' || prop.type === 'object' || target?.properties)) out[name] = null;
    }
    return out;
  }

  const storedKinds = new Map<string, { version: string; kind: string }>();

  const resources: ResourceType[] = [];
  for (const acc of [...accumulators.values()]) {
    if (!acc.kind) {
      if (acc.subresources.size > 0) throw new Error(`no kind for ${acc.group}/${acc.version}/${acc.resource}`);
      continue;
    }
    const definition = definitionByGvk.get(gvkKey(acc.group, acc.version, acc.kind));
    if (!definition) throw new Error(`no definition for ${acc.group}/${acc.version} ${acc.kind}`);
    const listDefinition = definitionByGvk.get(gvkKey(acc.group, acc.version, `${acc.kind}List`));
    const verbs = [...acc.verbs].sort();
    const subresources: SubresourceInfo[] = [...acc.subresources.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, sub]) => {
        const info: SubresourceInfo = { name, kind: sub.kind, verbs: [...sub.verbs].sort() };
        const options = [...sub.options.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
        if (options.length > 0) info.options = options;
        return info;
      });
    const groupResource = `${acc.group}/${acc.resource}`;
    const resource: ResourceType = {
      group: acc.group,
      version: acc.version,
      kind: acc.kind,
      resource: acc.resource,
      singular: acc.kind.toLowerCase(),
      scope: acc.namespaced ? 'Namespaced' : 'Cluster',
      verbs,
      subresources,
      definition,
      enabledByDefault: enabledByDefault(acc.version),
    };
    if (SHORT_NAMES[groupResource]) resource.shortNames = SHORT_NAMES[groupResource];
    if (CATEGORIES[groupResource]) resource.categories = CATEGORIES[groupResource];
    if (verbs.includes('list') && listDefinition) resource.listKind = `${acc.kind}List`;
    if (verbs.length === 1 && verbs[0] === 'create') resource.createOnly = true;
    if (acc.deleteResponse === definition) resource.deleteReturnsObject = true;
    if (verbs.includes('create') && valueStructs.size > 0) resource.zero = zeroObject(definition, new Set([definition]));
    resources.push(resource);
  }

  // Storage version: the highest-priority default-enabled version serving the resource.
  for (const r of [...resources].sort((a, b) => {
    if (a.enabledByDefault !== b.enabledByDefault) return a.enabledByDefault ? -1 : 1;
    return compareVersionPriority(a.version, b.version);
  })) {
    const key = `${r.group}/${r.resource}`;
    if (!storedKinds.has(key)) storedKinds.set(key, { version: r.version, kind: r.kind });
  }
  for (const r of resources) {
    // Only persisted resources carry a hash: virtual ones (reviews, bindings) and
    // computed ones (componentstatuses) cannot be both created and read.
    if (!(r.verbs.includes('create') && r.verbs.includes('get'))) continue;
    const stored = storedKinds.get(`${r.group}/${r.resource}`);
    if (!stored) continue;
    const digest = createHash('sha256').update(`${r.group}/${stored.version}/${stored.kind}`).digest();
    r.storageVersionHash = digest.subarray(0, 8).toString('base64');
  }

  resources.sort((a, b) => {
    if (a.group !== b.group) return a.group < b.group ? -1 : 1;
    if (a.version !== b.version) return compareVersionPriority(a.version, b.version);
    return a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0;
  });

  // ---------------------------------------------------------------------------
  // Groups.

  const versionsByGroup = new Map<string, Set<string>>();
  for (const r of resources) {
    if (!versionsByGroup.has(r.group)) versionsByGroup.set(r.group, new Set());
    versionsByGroup.get(r.group)!.add(r.version);
  }
  const groups: ApiGroup[] = [...versionsByGroup.entries()]
    .map(([name, set]) => {
      const versions = [...set].sort(compareVersionPriority);
      const enabled = versions.filter(enabledByDefault);
      const priority = GROUP_PRIORITY[name];
      if (priority === undefined) throw new Error(`no group priority for ${name || 'core'}`);
      return { name, versions, preferredVersion: enabled[0] ?? versions[0], enabledByDefault: enabled, priority };
    })
    .sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  // ---------------------------------------------------------------------------
  // Definitions closure.

  function collectRefs(schema: unknown, out: Set<string>): void {
    if (Array.isArray(schema)) {
      for (const item of schema) collectRefs(item, out);
      return;
    }
    if (schema === null || typeof schema !== 'object') return;
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') {
        out.add(value.replace('#/definitions/', ''));
      } else if (key === 'properties' && value && typeof value === 'object') {
        // Property names are data, not keywords (JSONSchemaProps has a property named "$ref").
        for (const prop of Object.values(value)) collectRefs(prop, out);
      } else {
        collectRefs(value, out);
      }
    }
  }

  const wanted = new Set<string>(OPERATION_DEFINITIONS);
  for (const r of resources) {
    wanted.add(r.definition);
    if (r.listKind) wanted.add(definitionByGvk.get(gvkKey(r.group, r.version, r.listKind))!);
    for (const sub of r.subresources) {
      const def = definitionByGvk.get(gvkKey(sub.kind.group, sub.kind.version, sub.kind.kind));
      if (def) wanted.add(def);
    }
  }
  const definitions: Record<string, SchemaObject> = {};
  const queue = [...wanted];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (definitions[name]) continue;
    const schema = swagger.definitions[name];
    if (!schema) throw new Error(`missing definition ${name}`);
    definitions[name] = schema;
    const refs = new Set<string>();
    collectRefs(schema, refs);
    for (const ref of refs) if (!definitions[ref]) queue.push(ref);
  }

  /** Recursively sorts object keys so the output does not depend on input order. */
  function sortKeys<T>(value: T): T {
    if (Array.isArray(value)) return value.map(sortKeys) as T;
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out as T;
  }

  // ---------------------------------------------------------------------------
  // Query parameters of the standard operations, read from the pods operations.

  function resolveParameter(p: SwaggerParameter): SwaggerParameter {
    if (!p.$ref) return p;
    const resolved = swagger.parameters[p.$ref.replace('#/parameters/', '')];
    if (!resolved) throw new Error(`missing parameter ${p.$ref}`);
    return resolved;
  }

  function toQueryParameters(list: SwaggerParameter[]): QueryParameter[] {
    return list
      .map(resolveParameter)
      .filter((p) => p.in === 'query' && p.name !== 'pretty')
      .map((p) => {
        const q: QueryParameter = { name: p.name!, in: 'query', type: p.type ?? 'string' };
        if (p.description) q.description = p.description;
        if (p.uniqueItems) q.uniqueItems = true;
        if (p.required) q.required = true;
        return q;
      })
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  function queryParameters(path: string, method: string): QueryParameter[] {
    const item = swagger.paths[path];
    const op = item?.[method] as SwaggerOperation | undefined;
    if (!op) throw new Error(`missing operation ${method} ${path}`);
    const pathLevel = (item.parameters as SwaggerParameter[] | undefined) ?? [];
    return toQueryParameters([...pathLevel, ...(op.parameters ?? [])]);
  }

  const pods = '/api/v1/namespaces/{namespace}/pods';
  const pretty = resolveParameter(
    ((swagger.paths[pods].parameters as SwaggerParameter[]) ?? []).find(
      (p) => resolveParameter(p).name === 'pretty',
    )!,
  );
  const operationParameters: OperationParameters = {
    common: [{ name: 'pretty', in: 'query', type: 'string', description: pretty.description, uniqueItems: true }],
    list: queryParameters(pods, 'get'),
    watch: queryParameters('/api/v1/watch/namespaces/{namespace}/pods', 'get'),
    create: queryParameters(pods, 'post'),
    update: queryParameters(`${pods}/{name}`, 'put'),
    patch: queryParameters(`${pods}/{name}`, 'patch'),
    delete: queryParameters(`${pods}/{name}`, 'delete'),
    deletecollection: queryParameters(pods, 'delete'),
  };


  const bundle: RegistryBundle = {
    kubernetesVersion: KUBERNETES_VERSION,
    groups,
    resources,
    definitions: sortKeys(
      Object.fromEntries(Object.keys(definitions).sort().map((name) => [name, definitions[name]])),
    ),
    operationParameters,
  };

  return bundle;
}

const NOTICE = `registry.json is derived from the Kubernetes OpenAPI (Swagger 2.0) specification of
Kubernetes release-1.36 (api/openapi-spec/swagger.json of kubernetes/kubernetes,
as redistributed unmodified by kubernetes-client/python at commit
024658493d124f046fc0a9827a2a3165cf2aee28, file kubernetes/swagger.json.unprocessed).

Copyright The Kubernetes Authors.
Licensed under the Apache License, Version 2.0
(http://www.apache.org/licenses/LICENSE-2.0).

Changes: resources, verbs, scopes and subresources were extracted from the paths;
schemas not reachable from any built-in kind were dropped; short names,
categories, group priorities and default enablement were added from
kube-apiserver's behaviour; each kind's zero object was derived from the schemas
and the value-struct defaults of the release-1.35 /openapi/v3 documents.
Generated by scripts/generate-registry.ts.
`;

// ---------------------------------------------------------------------------
// Output (only when run as a script, not when a test imports the builder).

/** ValueStructFields of every /openapi/v3 document in v3Dir (none when it is absent). */
export function readValueStructFields(): ValueStructFields {
  if (!existsSync(v3Dir)) return new Map();
  const files = readdirSync(v3Dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json')).sort();
  return valueStructFieldsOf(files.map((f) => JSON.parse(readFileSync(join(v3Dir, f), 'utf8')) as unknown));
}

function main(): void {
  const swagger = JSON.parse(readFileSync(swaggerPath, 'utf8')) as Swagger;
  const bundle = buildRegistryBundle(swagger, readValueStructFields());
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'registry.json'), `${JSON.stringify(bundle, null, 1)}\n`);
  writeFileSync(join(outDir, 'NOTICE'), NOTICE);

  const size = JSON.stringify(bundle).length;
  console.log(
    `wrote ${bundle.resources.length} resources in ${bundle.groups.length} groups, ${Object.keys(bundle.definitions).length} definitions (${Math.round(size / 1024)} KiB minified)`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

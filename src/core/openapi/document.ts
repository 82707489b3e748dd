/**
 * /openapi/v3 documents, generated from the registry on first request and
 * cached per group version until that group version changes (a CRD added or
 * removed). Built at runtime rather than bundled: the registry already carries
 * every schema, and per-group-version documents would repeat them (the 1.35
 * upstream set is ~11 MB against the ~1.3 MB registry).
 */
import type { ResourceRegistry } from '../registry/registry';
import type { SchemaObject } from '../registry/types';
import { digestHex } from './hash';
import { groupVersionPaths, type PathItemObject } from './paths';
import { definitionClosure, toV3Schema } from './schemas';

export interface OpenAPIV3Document {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, SchemaObject>;
    securitySchemes: Record<string, unknown>;
  };
}

export interface OpenAPIV3Root {
  paths: Record<string, { serverRelativeURL: string }>;
}

interface CachedDocument {
  revision: number;
  document: OpenAPIV3Document;
  hash: string;
}

const caches = new WeakMap<ResourceRegistry, Map<string, CachedDocument>>();

/** "api/v1" -> core v1; "apis/apps/v1" -> apps v1; anything else is not a group version path. */
export function parseGroupVersionPath(gvPath: string): { group: string; version: string } | undefined {
  const parts = gvPath.replace(/^\/+|\/+$/g, '').split('/');
  if (parts.length === 2 && parts[0] === 'api' && parts[1]) return { group: '', version: parts[1] };
  if (parts.length === 3 && parts[0] === 'apis' && parts[1] && parts[2]) return { group: parts[1], version: parts[2] };
  return undefined;
}

export const groupVersionPath = (group: string, version: string) =>
  group === '' ? `api/${version}` : `apis/${group}/${version}`;

function buildDocument(registry: ResourceRegistry, group: string, version: string): OpenAPIV3Document {
  const refs = new Set<string>();
  // Built-in groups are served in protobuf too; custom resources only in JSON, YAML and CBOR.
  const protobuf = registry.isBuiltinGroup(group);
  const paths = groupVersionPaths(registry, group, version, { protobuf }, refs);
  const schemas: Record<string, SchemaObject> = {};
  for (const name of definitionClosure(refs, (n) => registry.definition(n))) {
    schemas[name] = toV3Schema(name, registry.definition(name)!);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: `v${registry.kubernetesVersion}` },
    paths,
    components: {
      schemas,
      securitySchemes: {
        BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' },
      },
    },
  };
}

function cached(registry: ResourceRegistry, group: string, version: string): CachedDocument | undefined {
  if (!registry.isServed(group, version)) return undefined;
  let cache = caches.get(registry);
  if (!cache) {
    cache = new Map();
    caches.set(registry, cache);
  }
  const key = groupVersionPath(group, version);
  const revision = registry.groupVersionRevision(group, version);
  const hit = cache.get(key);
  if (hit && hit.revision === revision) return hit;
  const document = buildDocument(registry, group, version);
  const entry = { revision, document, hash: digestHex(JSON.stringify(document)) };
  cache.set(key, entry);
  return entry;
}

/** GET /openapi/v3: every served group version with a URL carrying its document's hash. */
export function openApiV3Root(registry: ResourceRegistry): OpenAPIV3Root {
  const entries: [string, { serverRelativeURL: string }][] = [];
  for (const g of registry.groups()) {
    for (const v of g.versions) {
      const doc = cached(registry, g.name, v);
      if (!doc) continue;
      const key = groupVersionPath(g.name, v);
      entries.push([key, { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` }]);
    }
  }
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { paths: Object.fromEntries(entries) };
}

/** GET /openapi/v3/{api/v1 | apis/<group>/<version>}, or undefined when that group version is not served. */
export function openApiV3Document(registry: ResourceRegistry, gvPath: string): OpenAPIV3Document | undefined {
  const gv = parseGroupVersionPath(gvPath);
  return gv ? cached(registry, gv.group, gv.version)?.document : undefined;
}

/** The hash the root advertises for a document (clients may send it back as ?hash=). */
export function openApiV3Hash(registry: ResourceRegistry, gvPath: string): string | undefined {
  const gv = parseGroupVersionPath(gvPath);
  return gv ? cached(registry, gv.group, gv.version)?.hash : undefined;
}

/**
 * The /openapi/v2 document: one Swagger 2.0 document for every served group
 * version, derived from the /openapi/v3 ones (their paths in v2 form, and
 * the union of their component schemas taken from the registry's Swagger 2.0
 * definitions; custom kinds pruned as apiextensions-apiserver prunes them).
 * Built on first request and kept until the registry changes, with the
 * JSON, the ETag kube-openapi computes (SHA-512 of that JSON) and, once
 * asked for, the gnostic protobuf that kubectl's legacy validation reads.
 */
import type { ResourceRegistry } from '../registry/registry';
import type { SchemaObject } from '../registry/types';
import { groupVersionPath, openApiV3Document } from './document';
import { definitionClosure } from './schemas';
import { encodeGnosticDocument } from './gnostic';
import { discoveryPaths, toV2PathItem, type SwaggerPathItem } from './v2Paths';
import { toV2CustomResourceSchema } from './v2Schemas';
import { digestHex } from '../util/hex';

export interface SwaggerDocument {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, SwaggerPathItem>;
  definitions: Record<string, SchemaObject>;
  securityDefinitions: Record<string, { description: string; in: string; name: string; type: string }>;
  security: Record<string, string[]>[];
}

/** One build of the document, as served. */
export interface OpenAPIV2Spec {
  document: SwaggerDocument;
  json: Uint8Array;
  /** Quoted upper-case hex SHA-512 of the JSON; the protobuf form shares it (responses vary by Accept). */
  etag: string;
  lastModified: Date;
  /** The document as gnostic's openapi.v2.Document, encoded on first use. */
  protobuf(): Uint8Array;
}

const caches = new WeakMap<ResourceRegistry, { generation: number; spec: Promise<OpenAPIV2Spec> }>();

const byKey = <T>(entries: [string, T][]) => Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export function buildSwaggerDocument(registry: ResourceRegistry): SwaggerDocument {
  const groups = registry.groups();
  const discovery = discoveryPaths(groups);
  const paths: [string, SwaggerPathItem][] = Object.entries(discovery.paths);
  const names = new Set(discovery.definitions);
  const custom = new Set<string>();
  for (const g of groups) {
    for (const v of g.versions) {
      const v3 = openApiV3Document(registry, groupVersionPath(g.name, v));
      if (!v3) continue;
      for (const [path, item] of Object.entries(v3.paths)) paths.push([path, toV2PathItem(item)]);
      for (const name of Object.keys(v3.components.schemas)) names.add(name);
      for (const r of registry.resourcesIn(g.name, v)) if (r.custom) custom.add(r.definition);
    }
  }
  const definitions: [string, SchemaObject][] = [];
  for (const name of definitionClosure(names, (n) => registry.definition(n))) {
    const schema = registry.definition(name)!;
    definitions.push([name, custom.has(name) ? toV2CustomResourceSchema(schema) : schema]);
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: `v${registry.kubernetesVersion}` },
    paths: byKey(paths),
    definitions: byKey(definitions),
    securityDefinitions: {
      BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' },
    },
    security: [{ BearerToken: [] }],
  };
}

async function sha512Hex(bytes: Uint8Array): Promise<string> {
  return (await digestHex('SHA-512', bytes)).toUpperCase();
}

async function build(registry: ResourceRegistry): Promise<OpenAPIV2Spec> {
  const document = buildSwaggerDocument(registry);
  const json = new TextEncoder().encode(JSON.stringify(document));
  const etag = `"${await sha512Hex(json)}"`;
  let protobuf: Uint8Array | undefined;
  // HTTP dates have whole seconds: If-Modified-Since compares against this.
  const lastModified = new Date(Math.floor(Date.now() / 1000) * 1000);
  return { document, json, etag, lastModified, protobuf: () => (protobuf ??= encodeGnosticDocument(document)) };
}

/** The current /openapi/v2 document, rebuilt after a resource type is added or removed. */
export function openApiV2Spec(registry: ResourceRegistry): Promise<OpenAPIV2Spec> {
  const hit = caches.get(registry);
  if (hit && hit.generation === registry.generation) return hit.spec;
  const spec = build(registry);
  caches.set(registry, { generation: registry.generation, spec });
  // A failed build is not kept: the next request tries again.
  spec.catch(() => caches.get(registry)?.spec === spec && caches.delete(registry));
  return spec;
}

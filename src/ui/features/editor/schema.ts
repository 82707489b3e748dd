/**
 * From the served OpenAPI v3 to the JSON schema the YAML editor checks a
 * manifest against: the document of the manifest's group/version, the
 * schema of its kind (found by x-kubernetes-group-version-kind), and the
 * document's components beside it so every $ref resolves locally. Closed
 * objects (properties, no preserve-unknown-fields) reject unknown fields,
 * as fieldValidation=Strict does on the server.
 */
import type { JSONSchema } from 'monaco-yaml';
import { parseApiVersion } from '../../api';

export interface OpenApiRoot {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenApiDocument {
  components?: { schemas?: Record<string, JSONSchema & Record<string, unknown>> };
}

/** The key of a group/version in /openapi/v3's paths: `api/v1`, `apis/apps/v1`. */
export function openApiPathKey(apiVersion: string): string {
  const { group, version } = parseApiVersion(apiVersion);
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** The schema of one kind, with the document's components for its refs, or undefined when the document lacks the kind. */
export function kindSchema(document: OpenApiDocument, apiVersion: string, kind: string): JSONSchema | undefined {
  const { group, version } = parseApiVersion(apiVersion);
  const schemas = document.components?.schemas ?? {};
  const entry = Object.values(schemas).find((schema) =>
    ((schema['x-kubernetes-group-version-kind'] as GroupVersionKind[] | undefined) ?? []).some((gvk) => gvk.group === group && gvk.version === version && gvk.kind === kind),
  );
  if (!entry) return undefined;
  const closed = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, closeObjects(schema)]));
  return { ...closeObjects(entry), components: { schemas: closed } } as JSONSchema;
}

/** Copies a schema, marking objects with known properties closed (additionalProperties: false) unless they keep unknown fields. */
function closeObjects(schema: JSONSchema & Record<string, unknown>): JSONSchema & Record<string, unknown> {
  const copy: JSONSchema & Record<string, unknown> = { ...schema };
  if (copy.properties) {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties).map(([name, property]) => [name, typeof property === 'object' ? closeObjects(property as JSONSchema & Record<string, unknown>) : property]),
    );
    if (copy.additionalProperties === undefined && copy['x-kubernetes-preserve-unknown-fields'] !== true) copy.additionalProperties = false;
  }
  if (typeof copy.items === 'object' && !Array.isArray(copy.items)) copy.items = closeObjects(copy.items as JSONSchema & Record<string, unknown>);
  if (typeof copy.additionalProperties === 'object') copy.additionalProperties = closeObjects(copy.additionalProperties as JSONSchema & Record<string, unknown>);
  return copy;
}

/** apiVersion and kind read off the manifest's top-level lines, cheap enough for every keystroke. */
export function manifestType(text: string): { apiVersion: string; kind: string } | undefined {
  const apiVersion = /^apiVersion:\s*["']?([^\s"'#]+)/m.exec(text)?.[1];
  const kind = /^kind:\s*["']?([^\s"'#]+)/m.exec(text)?.[1];
  return apiVersion && kind ? { apiVersion, kind } : undefined;
}

/**
 * Unknown fields of custom resources, the way apiextensions-apiserver finds
 * them: ObjectMeta is checked like a typed object (`metadata.foo`), the rest
 * is pruned against the structural schema (x-kubernetes-preserve-unknown-fields
 * keeps extra keys, x-kubernetes-embedded-resource implies apiVersion, kind
 * and metadata, x-kubernetes-int-or-string is a leaf), and embedded resources'
 * metadata is checked last. Also prunes built-in objects by their Go types.
 */
import type { SchemaObject } from '../registry';
import { childPath, decodeJson } from './decoding';
import { goTypesFor, objectMetaDefinition, type GoType, type SchemaResolver } from './goTypes';
import { compareGoStrings, treeOf } from './jsonTree';

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const resourceKeys = new Set(['apiVersion', 'kind', 'metadata']);
const objectMetaRef = `#/definitions/${objectMetaDefinition}`;
const objectMetaSchema: SchemaObject = { $ref: objectMetaRef };

export interface CustomResourceUnknownFields {
  /** Unknown fields of the object's own metadata (`metadata.foo`), reported first. */
  metadata: string[];
  /** Fields the structural schema prunes, sorted. */
  pruned: string[];
  /** Unknown fields of embedded resources' metadata, reported last. */
  embeddedMetadata: string[];
}

function deref(schema: SchemaObject, resolve: SchemaResolver): SchemaObject {
  let s = schema;
  for (let i = 0; i < 32 && s.$ref; i++) {
    const next = resolve(s.$ref);
    if (!next) break;
    s = next;
  }
  if (!s.type && s.allOf?.length === 1) return deref(s.allOf[0]!, resolve);
  return s;
}

function metadataUnknown(meta: unknown, path: string, resolve: SchemaResolver): string[] {
  if (!isPlainObject(meta)) return [];
  if (!resolve(objectMetaRef)) return [];
  const r = decodeJson(treeOf(meta), goTypesFor(resolve).of(objectMetaSchema), true, path);
  const prefix = 'unknown field ';
  return r.strict.filter((m) => m.startsWith(prefix)).map((m) => JSON.parse(m.slice(prefix.length)) as string);
}

/** Walks a custom resource with its structural schema; `prune` deletes what it reports (on a copy the caller owns). */
function walkStructural(
  value: unknown,
  schema: SchemaObject,
  resolve: SchemaResolver,
  out: CustomResourceUnknownFields,
  prune: boolean,
): void {
  const visit = (v: unknown, s0: SchemaObject, path: string, resourceRoot: boolean): void => {
    const s = deref(s0, resolve);
    if (s['x-kubernetes-int-or-string']) return;
    if (Array.isArray(v)) {
      if (s.items) v.forEach((item, i) => visit(item, s.items!, `${path}[${i}]`, false));
      return;
    }
    if (!isPlainObject(v)) return;
    const embedded = resourceRoot || s['x-kubernetes-embedded-resource'] === true;
    const props = s.properties ?? {};
    const ap = s.additionalProperties;
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    for (const key of Object.keys(v).sort(compareGoStrings)) {
      const child = childPath(path, key);
      if (embedded && resourceKeys.has(key)) {
        if (key === 'metadata') {
          const found = metadataUnknown(v[key], child, resolve);
          (resourceRoot && path === '' ? out.metadata : out.embeddedMetadata).push(...found);
          if (prune) pruneMetadata(v[key], resolve);
        }
        continue;
      }
      if (Object.prototype.hasOwnProperty.call(props, key)) visit(v[key], props[key]!, child, false);
      else if (ap && typeof ap === 'object') visit(v[key], ap, child, false);
      else if (ap === true || preserve) continue;
      else {
        out.pruned.push(child);
        if (prune) delete v[key];
      }
    }
  };
  visit(value, schema, '', true);
  out.pruned.sort(compareGoStrings);
}

function pruneMetadata(meta: unknown, resolve: SchemaResolver): void {
  if (!isPlainObject(meta)) return;
  if (resolve(objectMetaRef)) pruneTyped(meta, goTypesFor(resolve).of(objectMetaSchema));
}

/** Unknown field paths of a custom resource, grouped in upstream's reporting order. */
export function customResourceUnknownFields(value: unknown, schema: SchemaObject, resolve: SchemaResolver): CustomResourceUnknownFields {
  const out: CustomResourceUnknownFields = { metadata: [], pruned: [], embeddedMetadata: [] };
  walkStructural(value, schema, resolve, out, false);
  return out;
}

/** Deletes, in place, every key the Go type does not declare (what decoding into the struct drops). */
export function pruneTyped(value: unknown, type: GoType): void {
  switch (type.k) {
    case 'struct':
      if (!isPlainObject(value)) return;
      for (const key of Object.keys(value)) {
        const ft = type.field(key);
        if (ft) pruneTyped(value[key], ft);
        else if (!type.preserve) delete value[key];
      }
      return;
    case 'map':
      if (!isPlainObject(value)) return;
      for (const key of Object.keys(value)) pruneTyped(value[key], type.elem());
      return;
    case 'slice':
      if (Array.isArray(value)) for (const item of value) pruneTyped(item, type.elem());
      return;
    default:
      return;
  }
}

export interface PruneOptions {
  /** Custom resource: prune with the structural schema (the root implies apiVersion, kind, metadata). */
  custom?: boolean;
}

/** A copy of `value` without the fields its schema does not know (Ignore level, and Warn after warning). */
export function pruneUnknown<T>(value: T, schema: SchemaObject, resolve: SchemaResolver, options: PruneOptions = {}): T {
  const copy = structuredClone(value);
  if (options.custom) walkStructural(copy, schema, resolve, { metadata: [], pruned: [], embeddedMetadata: [] }, true);
  else pruneTyped(copy, goTypesFor(resolve).root(schema));
  return copy;
}

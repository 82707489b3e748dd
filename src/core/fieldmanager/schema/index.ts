/**
 * Package schema: the type language structured-merge-diff walks values with.
 *
 * OpenAPI schemas (Swagger 2.0 definitions with `$ref`, or a custom
 * resource's structural schema) are read lazily into atoms: scalar, list
 * (atomic, or associative with key fields: a set when it has no keys) and map
 * (atomic or separable, with declared struct fields and/or an element type).
 * `deduced` stands for schemaless data: its shape is read from the value, maps
 * are granular and lists atomic. Imports nothing but the registry's schema type.
 */
import type { SchemaObject } from '../../registry/types';
import { OBJECT_META_SCHEMA } from './objectMeta';

export type ElementRelationship = 'atomic' | 'associative' | 'separable';

/** A reference to a type: an OpenAPI node, or the deduced (schemaless) type. */
export type TypeNode = SchemaObject | typeof DEDUCED;
export const DEDUCED: unique symbol = Symbol('deduced');

export interface ScalarAtom {
  kind: 'scalar';
}
export interface ListAtom {
  kind: 'list';
  relationship: 'atomic' | 'associative';
  /** Key field names of an associative list; empty for a set. Sorted. */
  keys: readonly string[];
  /** Values used for key fields an item omits (listMapKey defaults). */
  keyDefaults: Readonly<Record<string, string | number | boolean>>;
  element: TypeNode;
}
export interface MapAtom {
  kind: 'map';
  relationship: 'atomic' | 'separable';
  /** Declared struct fields (properties). */
  fields: Readonly<Record<string, TypeNode>>;
  /** Type of undeclared keys; undefined when a struct admits none. */
  element: TypeNode | undefined;
  /** True for the schemaless map (never reconciled, see topology rules). */
  deduced: boolean;
}
export type Atom = ScalarAtom | ListAtom | MapAtom;

const SCALAR: ScalarAtom = { kind: 'scalar' };
const DEDUCED_LIST: ListAtom = { kind: 'list', relationship: 'atomic', keys: [], keyDefaults: {}, element: DEDUCED };
const DEDUCED_MAP: MapAtom = { kind: 'map', relationship: 'separable', fields: {}, element: DEDUCED, deduced: true };

/**
 * Fallback defaults for list-map key fields that the published OpenAPI omits
 * but the server's own models carry (ports are keyed by port and protocol).
 */
const WELL_KNOWN_KEY_DEFAULTS: Record<string, string> = { protocol: 'TCP' };

/** Resolves OpenAPI nodes to atoms; one per set of definitions (cached per node). */
export class Schema {
  private readonly cache = new WeakMap<SchemaObject, Atom>();

  constructor(private readonly definitions: Readonly<Record<string, SchemaObject>> = {}) {}

  /**
   * The atom for a node. A deduced node takes its shape from the value; the
   * value may be undefined when only the type is known.
   */
  resolve(node: TypeNode, value?: unknown): Atom {
    if (node === DEDUCED) return deducedAtom(value);
    let atom = this.cache.get(node);
    if (!atom) {
      atom = this.convert(node);
      this.cache.set(node, atom);
    }
    return atom === DEDUCED_ATOM_MARKER ? deducedAtom(value) : atom;
  }

  /** Follows `$ref` and single-element `allOf` wrappers. */
  deref(node: SchemaObject): SchemaObject {
    let s = node;
    for (let depth = 0; depth < 32; depth++) {
      if (s.$ref) {
        const name = s.$ref.replace(/^#\/(definitions|components\/schemas)\//, '');
        const target = this.definitions[name];
        if (!target) return {};
        s = mergeExtensions(s, target);
        continue;
      }
      if (s.allOf && s.allOf.length === 1 && !s.type && !s.properties) {
        s = mergeExtensions(s, s.allOf[0]);
        continue;
      }
      return s;
    }
    return s;
  }

  private convert(node: SchemaObject): Atom {
    const s = this.deref(node);
    if (s['x-kubernetes-int-or-string'] || s.format === 'int-or-string') return SCALAR;
    const type = s.type;
    if (type === 'array' || (!type && s.items)) return listAtom(s);
    if (type === 'object' || (!type && (s.properties || s.additionalProperties))) return this.mapAtom(s);
    if (type === 'string' || type === 'integer' || type === 'number' || type === 'boolean') return SCALAR;
    // No type at all: arbitrary JSON, read from the value.
    return DEDUCED_ATOM_MARKER;
  }

  private mapAtom(s: SchemaObject): MapAtom {
    const relationship = s['x-kubernetes-map-type'] === 'atomic' ? 'atomic' : 'separable';
    const fields: Record<string, TypeNode> = { ...(s.properties ?? {}) };
    let element: TypeNode | undefined;
    if (s.additionalProperties && typeof s.additionalProperties === 'object') element = s.additionalProperties;
    else if (s.additionalProperties === true || s['x-kubernetes-preserve-unknown-fields']) element = DEDUCED;
    else if (!s.properties) element = DEDUCED; // `type: object` and nothing else: free-form
    if (s['x-kubernetes-embedded-resource'] && !fields.metadata) fields.metadata = OBJECT_META_SCHEMA;
    return { kind: 'map', relationship, fields, element, deduced: false };
  }

  /**
   * The root node for a kind. Without a schema the object is unstructured,
   * but its metadata is still ObjectMeta (as the server types it for every
   * object); a custom resource's loose `metadata` is replaced likewise.
   */
  rootNode(root: SchemaObject | undefined): SchemaObject {
    if (!root) {
      return { type: 'object', properties: { metadata: OBJECT_META_SCHEMA }, 'x-kubernetes-preserve-unknown-fields': true };
    }
    const s = this.deref(root);
    const meta = s.properties?.metadata;
    if (s.properties && (!meta || (!meta.$ref && !meta.properties && !meta.allOf))) {
      return { ...s, properties: { ...s.properties, metadata: OBJECT_META_SCHEMA } };
    }
    return s;
  }
}

// convert() returns this marker for typeless nodes; resolve() turns it into a value-driven atom.
const DEDUCED_ATOM_MARKER: MapAtom = { ...DEDUCED_MAP };

function deducedAtom(value: unknown): Atom {
  if (Array.isArray(value)) return DEDUCED_LIST;
  if (typeof value === 'object' && value !== null) return DEDUCED_MAP;
  if (value === undefined) return DEDUCED_MAP;
  return SCALAR;
}

function listAtom(s: SchemaObject): ListAtom {
  const element: TypeNode = s.items ?? DEDUCED;
  const listType = s['x-kubernetes-list-type'];
  let keys: string[] = [];
  let relationship: ListAtom['relationship'] = 'atomic';
  if (listType === 'map') {
    relationship = 'associative';
    keys = [...(s['x-kubernetes-list-map-keys'] ?? [])];
  } else if (listType === 'set') {
    relationship = 'associative';
  } else if (!listType) {
    // Without a list type, patchStrategy merge reads as a map keyed by patchMergeKey (or a set).
    const strategies = (s['x-kubernetes-patch-strategy'] ?? '').split(',');
    if (strategies.includes('merge')) {
      relationship = 'associative';
      const key = s['x-kubernetes-patch-merge-key'];
      if (key) keys = [key];
    }
  }
  keys.sort();
  const keyDefaults: Record<string, string | number | boolean> = {};
  for (const k of keys) {
    const prop = s.items?.properties?.[k];
    const d = prop?.default;
    if (typeof d === 'string' || typeof d === 'number' || typeof d === 'boolean') keyDefaults[k] = d;
    else if (k in WELL_KNOWN_KEY_DEFAULTS) keyDefaults[k] = WELL_KNOWN_KEY_DEFAULTS[k];
  }
  return { kind: 'list', relationship, keys, keyDefaults, element };
}

function mergeExtensions(outer: SchemaObject, inner: SchemaObject): SchemaObject {
  // Markers written beside a $ref (or allOf) apply to the referenced type.
  const result: SchemaObject = { ...inner };
  for (const [k, v] of Object.entries(outer)) {
    if (k.startsWith('x-kubernetes-') && k !== 'x-kubernetes-group-version-kind') {
      (result as Record<string, unknown>)[k] = v;
    }
  }
  return result;
}

export { OBJECT_META_SCHEMA };

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

/** What a scalar admits, as structured-merge-diff types OpenAPI primitives. */
export type ScalarType = 'string' | 'numeric' | 'boolean' | 'untyped';

export interface ScalarAtom {
  kind: 'scalar';
  /** `untyped` admits any scalar (int-or-string, formatted strings, Quantity, schemaless values). */
  type: ScalarType;
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
  /** x-kubernetes-preserve-unknown-fields: structs below it admit undeclared fields too. */
  preserveUnknown: boolean;
}
export type Atom = ScalarAtom | ListAtom | MapAtom;

const STRING: ScalarAtom = { kind: 'scalar', type: 'string' };
const NUMERIC: ScalarAtom = { kind: 'scalar', type: 'numeric' };
const BOOLEAN: ScalarAtom = { kind: 'scalar', type: 'boolean' };
const UNTYPED: ScalarAtom = { kind: 'scalar', type: 'untyped' };
const DEDUCED_LIST: ListAtom = { kind: 'list', relationship: 'atomic', keys: [], keyDefaults: {}, element: DEDUCED };
const DEDUCED_MAP: MapAtom = { kind: 'map', relationship: 'separable', fields: {}, element: DEDUCED, deduced: true, preserveUnknown: true };

/**
 * Definitions the server types as any scalar whatever their OpenAPI says
 * (kube-openapi's schemaconv hardcodes Quantity, which clients send as a
 * string or a number).
 */
const UNTYPED_DEFINITIONS = new Set(['io.k8s.apimachinery.pkg.api.resource.Quantity']);

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
    const ref = refName(node);
    if (ref !== undefined && UNTYPED_DEFINITIONS.has(ref)) return UNTYPED;
    const s = this.deref(node);
    if (s['x-kubernetes-int-or-string'] || s.format === 'int-or-string') return UNTYPED;
    const type = s.type;
    if (type === 'array' || (!type && s.items)) return listAtom(s);
    if (type === 'object' || (!type && (s.properties || s.additionalProperties))) return this.mapAtom(s);
    if (type === 'integer' || type === 'number') return NUMERIC;
    if (type === 'boolean') return BOOLEAN;
    // Only plain (and base64 `byte`) strings are strings; any other format admits any scalar.
    if (type === 'string') return !s.format || s.format === 'byte' ? STRING : UNTYPED;
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
    return { kind: 'map', relationship, fields, element, deduced: false, preserveUnknown: s['x-kubernetes-preserve-unknown-fields'] === true };
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
    if (!s.properties) return s;
    const meta = s.properties.metadata;
    const looseMeta = !meta || (!meta.$ref && !meta.properties && !meta.allOf);
    // A custom resource's published schema always declares apiVersion and kind, whatever its CRD says.
    if (!looseMeta && s.properties.apiVersion && s.properties.kind) return s;
    return {
      ...s,
      properties: {
        apiVersion: TYPE_META_STRING,
        kind: TYPE_META_STRING,
        ...s.properties,
        ...(looseMeta ? { metadata: OBJECT_META_SCHEMA } : {}),
      },
    };
  }

  /**
   * True where a type starts afresh: a named definition (`$ref`) or
   * ObjectMeta. x-kubernetes-preserve-unknown-fields reaches down to the
   * types written inline below it, never into named ones.
   */
  isNamed(node: TypeNode): boolean {
    return node === OBJECT_META_SCHEMA || (node !== DEDUCED && refName(node) !== undefined);
  }
}

const TYPE_META_STRING: SchemaObject = { type: 'string' };

/** The definition a node refers to (`$ref`, or a single-element `allOf` holding one). */
function refName(node: SchemaObject): string | undefined {
  const ref = node.$ref ?? (node.allOf && node.allOf.length === 1 ? node.allOf[0].$ref : undefined);
  return ref === undefined ? undefined : ref.replace(/^#\/(definitions|components\/schemas)\//, '');
}

// convert() returns this marker for typeless nodes; resolve() turns it into a value-driven atom.
const DEDUCED_ATOM_MARKER: MapAtom = { ...DEDUCED_MAP };

function deducedAtom(value: unknown): Atom {
  if (Array.isArray(value)) return DEDUCED_LIST;
  if (typeof value === 'object' && value !== null) return DEDUCED_MAP;
  if (value === undefined) return DEDUCED_MAP;
  return UNTYPED;
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

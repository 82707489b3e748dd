/**
 * The Go types behind the OpenAPI definitions of built-in kinds, as far as
 * JSON decoding can tell them apart: structs (a fixed field set), maps
 * (additionalProperties), slices, scalars of a given width, and the
 * apimachinery types that decode themselves (IntOrString, Quantity, Time,
 * MicroTime, RawExtension, FieldsV1, apiextensions JSON). Types are built
 * lazily and cached per schema object, so recursive and widely shared
 * definitions are resolved once.
 */
import type { SchemaObject } from '../registry';

/** Looks up a `#/definitions/<name>` reference. */
export type SchemaResolver = (ref: string) => SchemaObject | undefined;

export type GoType =
  | StructType
  | { k: 'map'; elem: () => GoType; goName: () => string; preserve: boolean }
  | { k: 'slice'; elem: () => GoType; goName: () => string }
  | { k: 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'int' | 'float64'; goName: () => string }
  /** Decodes itself (custom UnmarshalJSON). */
  | { k: 'intOrString' | 'quantity' | 'time' | 'microTime'; goName: () => string }
  /** Accepts any JSON without looking inside (interface{}, RawExtension, FieldsV1, JSON, preserve-unknown-fields). */
  | { k: 'any'; goName: () => string };

export interface StructType {
  k: 'struct';
  /** Go's reflect.Type.Name(): `DeploymentSpec`. */
  name: string;
  goName: () => string;
  /** Field by exact JSON name (decoding is case-sensitive). */
  field(name: string): GoType | undefined;
  /** x-kubernetes-preserve-unknown-fields on a struct: extra keys are kept, not reported. */
  preserve: boolean;
  /** x-kubernetes-embedded-resource: apiVersion, kind and metadata are implied. */
  embedded: boolean;
  schema: SchemaObject;
}

const definitionPrefix = '#/definitions/';
const opaqueDefinitions = new Set([
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.JSON',
]);
export const objectMetaDefinition = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec` (package name, then type name). */
export function goNameOfDefinition(def: string): string {
  const parts = def.split('.');
  const name = parts[parts.length - 1] ?? def;
  const pkg = parts[parts.length - 2];
  return pkg ? `${pkg}.${name}` : name;
}

export function definitionNameOfRef(ref: string): string {
  return ref.startsWith(definitionPrefix) ? ref.slice(definitionPrefix.length) : ref;
}

const lazy = <T>(f: () => T): (() => T) => {
  let done = false;
  let v: T;
  return () => {
    if (!done) {
      v = f();
      done = true;
    }
    return v;
  };
};

/**
 * Builds and caches Go types for one resolver. Keep one per registry (or per
 * registry generation): the cache is keyed by schema object identity.
 */
export class GoTypes {
  private readonly bySchema = new WeakMap<SchemaObject, GoType>();
  /** Resolved refs, remembered with the schema they resolved to so a re-registered definition is noticed. */
  private readonly byRef = new Map<string, { target: SchemaObject | undefined; type: GoType }>();

  constructor(readonly resolve: SchemaResolver) {}

  /** The type of a kind's root schema; `name` names the struct when the schema is not a $ref (e.g. from its GVK). */
  root(schema: SchemaObject): GoType {
    if (schema.$ref) return this.of(schema);
    const gvk = schema['x-kubernetes-group-version-kind']?.[0];
    const name = gvk ? `${gvk.version}.${gvk.kind}` : 'Object';
    return this.of(schema, name);
  }

  of(schema: SchemaObject, defName?: string): GoType {
    const cached = this.bySchema.get(schema);
    if (cached) return cached;
    const t = this.build(schema, defName);
    this.bySchema.set(schema, t);
    return t;
  }

  private ref(ref: string): GoType {
    const target = this.resolve(ref);
    const cached = this.byRef.get(ref);
    if (cached && cached.target === target) return cached.type;
    const def = definitionNameOfRef(ref);
    const type: GoType =
      target && !opaqueDefinitions.has(def) ? this.of(target, goNameOfDefinition(def)) : { k: 'any', goName: () => goNameOfDefinition(def) };
    this.byRef.set(ref, { target, type });
    return type;
  }

  private build(schema: SchemaObject, goName?: string): GoType {
    if (schema.$ref) return this.ref(schema.$ref);
    const only = schema.allOf?.length === 1 && !schema.type ? schema.allOf[0] : undefined;
    if (only) return this.of(only, goName);
    const name = goName ?? '';
    const special = this.special(schema, name);
    if (special) return special;
    if (schema['x-kubernetes-int-or-string'] || schema.format === 'int-or-string') return { k: 'intOrString', goName: () => 'intstr.IntOrString' };
    switch (schema.type) {
      case 'string':
        if (schema.format === 'byte') return { k: 'bytes', goName: () => '[]uint8' };
        if (schema.format === 'date-time') return { k: 'time', goName: () => 'v1.Time' };
        return { k: 'string', goName: () => 'string' };
      case 'boolean':
        return { k: 'bool', goName: () => 'bool' };
      case 'integer':
        if (schema.format === 'int32') return { k: 'int32', goName: () => 'int32' };
        if (schema.format === 'int64') return { k: 'int64', goName: () => 'int64' };
        return { k: 'int', goName: () => 'int' };
      case 'number':
        return { k: 'float64', goName: () => 'float64' };
      case 'array': {
        const items = schema.items;
        const elem = lazy(() => (items ? this.of(items) : ({ k: 'any', goName: () => 'interface {}' } as GoType)));
        return { k: 'slice', elem, goName: () => `[]${elem().goName()}` };
      }
      case 'object':
      case undefined: {
        const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
        if (schema.properties || (schema.type === 'object' && schema.additionalProperties === undefined && !preserve)) {
          return this.struct(schema, name);
        }
        const ap = schema.additionalProperties;
        if (ap && typeof ap === 'object') {
          const elem = lazy(() => this.of(ap));
          return { k: 'map', elem, goName: () => `map[string]${elem().goName()}`, preserve };
        }
        if (ap === true) return { k: 'map', elem: () => ({ k: 'any', goName: () => 'interface {}' }), goName: () => 'map[string]interface {}', preserve };
        return { k: 'any', goName: () => (name || 'interface {}') };
      }
      default:
        return { k: 'any', goName: () => (name || 'interface {}') };
    }
  }

  private special(schema: SchemaObject, goName: string): GoType | undefined {
    switch (goName) {
      case 'intstr.IntOrString':
        return { k: 'intOrString', goName: () => goName };
      case 'resource.Quantity':
        return { k: 'quantity', goName: () => goName };
      default:
        break;
    }
    if (schema.format === 'date-time' && goName.endsWith('.MicroTime')) return { k: 'microTime', goName: () => goName };
    if (schema.format === 'date-time' && goName.endsWith('.Time')) return { k: 'time', goName: () => goName };
    return undefined;
  }

  private struct(schema: SchemaObject, goName: string): StructType {
    const props = schema.properties ?? {};
    const fields = new Map<string, GoType>();
    const dot = goName.lastIndexOf('.');
    return {
      k: 'struct',
      name: dot >= 0 ? goName.slice(dot + 1) : goName,
      goName: () => goName || 'struct {}',
      preserve: schema['x-kubernetes-preserve-unknown-fields'] === true,
      embedded: schema['x-kubernetes-embedded-resource'] === true,
      schema,
      field: (name) => {
        // A field met before is one lookup: decoding asks for the same few fields on every request.
        let t = fields.get(name);
        if (t) return t;
        if (!Object.prototype.hasOwnProperty.call(props, name)) return undefined;
        t = this.of(props[name]!);
        fields.set(name, t);
        return t;
      },
    };
  }
}

const typesByResolver = new WeakMap<SchemaResolver, GoTypes>();

/** The shared GoTypes of a resolver: pass the same resolver function on every request to reuse resolved types. */
export function goTypesFor(resolve: SchemaResolver): GoTypes {
  let t = typesByResolver.get(resolve);
  if (!t) {
    t = new GoTypes(resolve);
    typesByResolver.set(resolve, t);
  }
  return t;
}

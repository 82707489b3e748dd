/** Test helpers: the built-in registry's schemas and a stable resolver (one per process, so resolved types are shared). */
import { builtinRegistry, type SchemaObject } from '../registry';
import type { SchemaResolver } from './goTypes';

const registry = builtinRegistry();

export const resolveBuiltin: SchemaResolver = (ref) => registry.definition(ref.replace('#/definitions/', ''));

export function builtinSchema(group: string, version: string, kind: string): SchemaObject {
  const s = registry.schemaFor({ group, version, kind });
  if (!s) throw new Error(`no schema for ${group}/${version} ${kind}`);
  return s;
}

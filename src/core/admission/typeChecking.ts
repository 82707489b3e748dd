/**
 * ValidatingAdmissionPolicy type checking (the policy's status.typeChecking):
 * every validation expression is compiled again with `object` and `oldObject`
 * typed from the schema of each kind the matchConstraints name explicitly;
 * what fails becomes an expressionWarning ("apps/v1, Kind=Deployment: ERROR: ...").
 * Wildcard rules are not checked, as kube-apiserver does not.
 */
import { isObject, type KubeObject } from '../api/types';
import { compileKubernetes, newEnvironment, schemaToType, type CelSchema } from '../cel';
import type { ResourceRegistry } from '../registry/registry';
import type { SchemaObject } from '../registry/types';

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

const MAX_DEPTH = 12;

/** The kind's schema with its $refs inlined (deep recursion ends in preserved unknown fields), as CEL typing needs. */
function inline(registry: ResourceRegistry, s: SchemaObject, depth: number): CelSchema {
  let schema = s;
  for (let i = 0; i < 8 && schema.$ref; i++) schema = registry.definition(schema.$ref.replace('#/definitions/', '')) ?? {};
  if (!schema.type && schema.allOf?.length === 1) return inline(registry, schema.allOf[0]!, depth);
  if (schema.format === 'int-or-string') return { 'x-kubernetes-int-or-string': true } as CelSchema;
  if (depth > MAX_DEPTH) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as CelSchema;
  const out: Record<string, unknown> = { type: schema.type ?? 'object' };
  if (schema.format && schema.format !== 'int32' && schema.format !== 'int64') out['format'] = schema.format;
  if (schema.properties) {
    const props: Record<string, CelSchema> = {};
    for (const [k, v] of Object.entries(schema.properties)) props[k] = inline(registry, v, depth + 1);
    out['properties'] = props;
  }
  if (schema.items) out['items'] = inline(registry, schema.items, depth + 1);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out['additionalProperties'] = inline(registry, schema.additionalProperties, depth + 1);
  if (!schema.type && !schema.properties) out['x-kubernetes-preserve-unknown-fields'] = true;
  for (const k of ['x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-embedded-resource', 'x-kubernetes-preserve-unknown-fields'] as const) {
    if (schema[k] !== undefined) out[k] = schema[k];
  }
  return out as CelSchema;
}

const typeCache = new WeakMap<ResourceRegistry, Map<string, ReturnType<typeof newEnvironment>>>();

/** The admission environment with object and oldObject typed as the kind (cached per registry generation). */
function typedEnvironment(registry: ResourceRegistry, group: string, version: string, kind: string): ReturnType<typeof newEnvironment> | undefined {
  let cache = typeCache.get(registry);
  if (!cache) typeCache.set(registry, (cache = new Map()));
  const key = `${registry.generation}/${group}/${version}/${kind}`;
  let env = cache.get(key);
  if (!env) {
    const schema = registry.schemaFor({ group, version, kind });
    if (!schema) return undefined;
    const t = schemaToType(inline(registry, schema, 0), 'Object', true);
    env = newEnvironment('admission', { variables: { object: t, oldObject: t } });
    cache.set(key, env);
  }
  return env;
}

/** The expression warnings of one policy. */
export function typeCheckPolicy(registry: ResourceRegistry, policy: KubeObject): ExpressionWarning[] {
  const spec = isObject(policy['spec']) ? policy['spec'] : {};
  const constraints = isObject(spec['matchConstraints']) ? spec['matchConstraints'] : {};
  const rules = Array.isArray(constraints['resourceRules']) ? constraints['resourceRules'].filter(isObject) : [];
  const kinds: { group: string; version: string; kind: string }[] = [];
  for (const r of rules) {
    const groups = (r['apiGroups'] as string[] | undefined) ?? [];
    const versions = (r['apiVersions'] as string[] | undefined) ?? [];
    const resources = (r['resources'] as string[] | undefined) ?? [];
    for (const g of groups) for (const v of versions) for (const res of resources) {
      if (g === '*' || v === '*' || res.includes('*') || res.includes('/')) continue;
      const type = registry.resourceFor(g, v, res);
      if (type && !kinds.some((k) => k.group === g && k.version === v && k.kind === type.kind)) kinds.push({ group: g, version: v, kind: type.kind });
    }
  }
  const validations = Array.isArray(spec['validations']) ? spec['validations'].filter(isObject) : [];
  const warnings: ExpressionWarning[] = [];
  validations.forEach((v, i) => {
    const expression = v['expression'];
    if (typeof expression !== 'string') return;
    const problems: string[] = [];
    for (const k of kinds) {
      const env = typedEnvironment(registry, k.group, k.version, k.kind);
      if (!env) continue;
      const c = compileKubernetes(env, expression);
      if (!c.program) problems.push(`${k.group ? `${k.group}/` : ''}${k.version}, Kind=${k.kind}: ${c.message ?? ''}`);
    }
    if (problems.length) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: problems.join('\n') });
  });
  return warnings;
}

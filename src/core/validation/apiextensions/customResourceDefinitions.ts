/**
 * ValidateCustomResourceDefinition(Update) of apiextensions-apiserver: group,
 * scope, versions (exactly one storage version), names, structural schemas,
 * subresources, printer columns, conversion, and the schemas' CEL rules
 * (compile errors and estimated cost).
 *
 * Field paths follow the internal version kube validates: a schema,
 * subresources or printer columns identical in every version are hoisted to
 * spec.validation / spec.subresources / spec.additionalPrinterColumns, and
 * errors under them are reported there.
 */
import { isObject, type KubeObject } from '../../api/types';
import { estimateCrdCost, type CelSchema } from '../../cel';
import { jsonEqual } from '../../api/equality';
import { forbidden, goQuote, invalid, notSupported, required, type FieldError } from '../../errors';
import { isDNS1035Label, isDNS1123Subdomain } from '../names';
import type { KindValidation } from '../kinds';
import { validateSchemaRules } from '../../apiextensions/celRules';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps } from '../../apiextensions/types';
import { Path } from '../field';

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const openapiV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const metaFields = new Set(['metadata', 'apiVersion', 'kind']);

/** Go's %#v of a []string. */
const goStrings = (values: readonly string[]): string => `[]string{${values.map(goQuote).join(', ')}}`;

function identical<T>(versions: CustomResourceDefinitionVersion[], pick: (v: CustomResourceDefinitionVersion) => T | undefined, empty: (x: T | undefined) => boolean): boolean {
  if (!versions.length) return false;
  const first = pick(versions[0]!);
  return versions.every((v) => !empty(pick(v)) && jsonEqual(pick(v), first));
}

function validateSimpleJSONPath(s: string, fld: string): FieldError[] {
  if (s.length === 0) return [invalid(fld, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(fld, s, 'must be a simple json path starting with .')];
  return [];
}

/** ValidateCustomResourceDefinitionOpenAPISchema plus the structural checks (ValidateStructural). */
function validateSchema(schema: JSONSchemaProps, fld: Path, isRoot: boolean, insideMeta: boolean, errs: FieldError[], forbidDefaults?: string): void {
  const at = (c: string) => fld.child(c).toString();
  const type = schema.type ?? '';
  if (type && type !== 'null' && !openapiV3Types.includes(type)) errs.push(notSupported(at('type'), type, openapiV3Types));
  if (type === 'null') errs.push(forbidden(at('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (schema.default !== undefined && forbidDefaults !== undefined) errs.push(forbidden(at('default'), `must not be set ${forbidDefaults}`));
  if (schema.$ref !== undefined) errs.push(forbidden(at('$ref'), '$ref is not supported'));
  if ((schema as Record<string, unknown>)['additionalItems'] !== undefined) errs.push(forbidden(at('additionalItems'), 'additionalItems is not supported'));
  if ((schema as Record<string, unknown>)['patternProperties'] !== undefined) errs.push(forbidden(at('patternProperties'), 'patternProperties is not supported'));
  if ((schema as Record<string, unknown>)['definitions'] !== undefined) errs.push(forbidden(at('definitions'), 'definitions is not supported'));
  if ((schema as Record<string, unknown>)['dependencies'] !== undefined) errs.push(forbidden(at('dependencies'), 'dependencies is not supported'));
  if (insideMeta && schema['x-kubernetes-embedded-resource']) errs.push(forbidden(at('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  if (schema.uniqueItems === true) errs.push(forbidden(at('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));

  // Structural: every specified field has a type, unless int-or-string or preserved unknown fields say otherwise.
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (!type && !intOrString && !preserve && !schema['x-kubernetes-embedded-resource']) {
    errs.push(required(at('type'), isRoot ? 'must not be empty at the root' : 'must not be empty for specified object fields'));
  }
  if (intOrString && type) errs.push(forbidden(at('type'), 'must be empty to be structural'));
  if (schema['x-kubernetes-embedded-resource'] && type !== 'object') errs.push(required(at('type'), 'must be object if x-kubernetes-embedded-resource is true'));
  if (type === 'array' && !schema.items) errs.push(required(at('items'), 'must be specified'));
  if (schema.properties && Object.keys(schema.properties).length && type && type !== 'object') errs.push(forbidden(at('properties'), `must not be specified for ${type} type`));

  const ap = schema.additionalProperties;
  if (ap !== undefined) {
    if (schema.properties && Object.keys(schema.properties).length && (ap === false || typeof ap === 'object')) {
      errs.push(forbidden(at('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (typeof ap === 'object') validateSchema(ap, fld.child('additionalProperties'), false, insideMeta, errs, insideMeta ? 'inside additionalProperties applying to object metadata' : forbidDefaults);
  }
  for (const name of Object.keys(schema.properties ?? {}).sort()) {
    const meta = (isRoot || schema['x-kubernetes-embedded-resource'] === true) && metaFields.has(name);
    validateSchema(schema.properties![name]!, fld.child('properties').key(name), false, insideMeta || meta, errs, isRoot && meta ? `in top-level ${name}` : forbidDefaults);
  }
  for (const [k, list] of [['allOf', schema.allOf], ['oneOf', schema.oneOf], ['anyOf', schema.anyOf]] as const) {
    (list ?? []).forEach((s, i) => validateSchema(s as JSONSchemaProps, fld.child(k).index(i), false, insideMeta, errs, forbidDefaults));
  }
  if (schema.not) validateSchema(schema.not, fld.child('not'), false, insideMeta, errs, forbidDefaults);
  if (schema.items) {
    if (Array.isArray(schema.items)) errs.push(forbidden(at('items'), 'items must be a schema object and not an array'));
    else validateSchema(schema.items, fld.child('items'), false, insideMeta, errs, forbidDefaults);
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] === false) errs.push(invalid(at('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));

  // Merge markers.
  const listType = schema['x-kubernetes-list-type'];
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (listType !== undefined && type !== 'array') errs.push(invalid(at('x-kubernetes-list-type'), listType, 'must only be used on array type'));
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) errs.push(notSupported(at('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  if (keys.length) {
    if (listType === undefined) errs.push(required(at('x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(invalid(at('x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  const items = schema.items && !Array.isArray(schema.items) ? schema.items : undefined;
  if (listType === 'map') {
    if (!keys.length) errs.push(required(at('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (!items) errs.push(required(at('items'), 'must have a schema if x-kubernetes-list-type is map'));
    else if (items.type !== 'object') errs.push(invalid(fld.child('items', 'type').toString(), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    else {
      const seen = new Set<string>();
      for (const k of keys) {
        const ks = items.properties?.[k];
        if (!ks) errs.push({ ...invalid(at('x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'), valueText: goStrings(keys) });
        else if (ks.type === 'array' || ks.type === 'object') errs.push(invalid(fld.child('items', 'properties').key(k).child('type').toString(), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        if (seen.has(k)) errs.push({ ...invalid(at('x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'), valueText: goStrings(keys) });
        seen.add(k);
      }
    }
  }
  if (listType === 'set' && items && (items.type === 'object' || items.type === 'array')) {
    errs.push(invalid(fld.child('items', 'type').toString(), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is set"));
  }
  const mapType = schema['x-kubernetes-map-type'];
  if (mapType !== undefined && !['atomic', 'granular'].includes(mapType)) errs.push(notSupported(at('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  if (mapType !== undefined && type && type !== 'object') errs.push(invalid(at('x-kubernetes-map-type'), mapType, 'must only be used on object type'));
}

function validateVersionParts(
  schemaHolder: { openAPIV3Schema?: JSONSchemaProps } | undefined,
  subresources: CustomResourceDefinitionVersion['subresources'],
  columns: CustomResourceDefinitionVersion['additionalPrinterColumns'],
  paths: { schema: Path; subresources: Path; columns: Path },
  errs: FieldError[],
): void {
  const schema = schemaHolder?.openAPIV3Schema;
  if (schema && isObject(schema)) {
    const fld = paths.schema.child('openAPIV3Schema');
    if (subresources?.status && schema.type && schema.type !== 'object') {
      errs.push(invalid(fld.child('type').toString(), schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
    }
    if (schema.nullable) errs.push(forbidden(fld.child('nullable').toString(), 'nullable cannot be true at the root'));
    const before = errs.length;
    validateSchema(schema, fld, true, false, errs);
    if (errs.length === before) {
      errs.push(...validateSchemaRules(schema, fld.toString()));
      errs.push(...estimateCrdCost(schema as CelSchema, fld.toString()).errors);
    }
  }
  const scale = subresources?.scale;
  if (scale) {
    const s = paths.subresources;
    const spec = s.child('scale.specReplicasPath').toString();
    const status = s.child('scale.statusReplicasPath').toString();
    if (!scale.specReplicasPath) errs.push(required(spec));
    else {
      const e = validateSimpleJSONPath(scale.specReplicasPath, spec);
      if (e.length) errs.push(...e);
      else if (!scale.specReplicasPath.startsWith('.spec.')) errs.push(invalid(spec, scale.specReplicasPath, 'should be a json path under .spec'));
    }
    if (!scale.statusReplicasPath) errs.push(required(status));
    else {
      const e = validateSimpleJSONPath(scale.statusReplicasPath, status);
      if (e.length) errs.push(...e);
      else if (!scale.statusReplicasPath.startsWith('.status.')) errs.push(invalid(status, scale.statusReplicasPath, 'should be a json path under .status'));
    }
    if (scale.labelSelectorPath) {
      const sel = s.child('scale.labelSelectorPath').toString();
      const e = validateSimpleJSONPath(scale.labelSelectorPath, sel);
      if (e.length) errs.push(...e);
      else if (!scale.labelSelectorPath.startsWith('.spec.') && !scale.labelSelectorPath.startsWith('.status.')) {
        errs.push(invalid(sel, scale.labelSelectorPath, 'should be a json path under either .spec or .status'));
      }
    }
  }
  (columns ?? []).forEach((col, i) => {
    const fld = paths.columns.index(i);
    if (!col.name) errs.push(required(fld.child('name').toString()));
    const types = `must be one of ${printerColumnTypes.join(',')}`;
    if (!col.type) errs.push(required(fld.child('type').toString(), types));
    else if (!printerColumnTypes.includes(col.type)) errs.push(invalid(fld.child('type').toString(), col.type, types));
    if (col.format && !printerColumnFormats.includes(col.format)) errs.push(invalid(fld.child('format').toString(), col.format, `must be one of ${printerColumnFormats.join(',')}`));
    if (!col.jsonPath) errs.push(required(fld.child('jsonPath').toString()));
    else errs.push(...validateSimpleJSONPath(col.jsonPath, fld.child('jsonPath').toString()));
  });
}

function validateNames(names: Record<string, unknown>, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  const str = (k: string) => (typeof names[k] === 'string' ? (names[k] as string) : '');
  for (const k of ['plural', 'singular']) {
    const v = str(k);
    const e = isDNS1035Label(v);
    if (v && e.length) errs.push(invalid(fld.child(k).toString(), v, e.join(',')));
  }
  for (const k of ['kind', 'listKind']) {
    const v = str(k);
    const e = isDNS1035Label(v.toLowerCase());
    if (v && e.length) errs.push(invalid(fld.child(k).toString(), v, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  for (const k of ['shortNames', 'categories']) {
    const list = Array.isArray(names[k]) ? (names[k] as string[]) : [];
    list.forEach((v, i) => {
      const e = isDNS1035Label(v);
      if (e.length) errs.push(invalid(fld.child(k).index(i).toString(), v, e.join(',')));
    });
  }
  if (str('kind') && str('kind') === str('listKind')) errs.push(invalid(fld.child('listKind').toString(), str('listKind'), 'kind and listKind may not be the same'));
  return errs;
}

export function validateCustomResourceDefinition(obj: KubeObject): FieldError[] {
  const crd = obj as CustomResourceDefinition;
  const spec = isObject(crd.spec) ? crd.spec : ({} as CustomResourceDefinition['spec']);
  const names = (isObject(spec.names) ? spec.names : {}) as Record<string, unknown>;
  const errs: FieldError[] = [];
  const requiredName = `${String(names['plural'] ?? '')}.${spec.group ?? ''}`;
  if (crd.metadata.name !== undefined && crd.metadata.name !== requiredName) {
    errs.push(invalid('metadata.name', crd.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  }
  const group = spec.group ?? '';
  if (!group) errs.push(required('spec.group'));
  else {
    const e = isDNS1123Subdomain(group);
    if (e.length) errs.push(invalid('spec.group', group, e.join(',')));
    else if (group.split('.').length < 2) errs.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  if (!spec.scope) errs.push(required('spec.scope'));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));

  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) as CustomResourceDefinitionVersion[] : [];
  versions.forEach((v, i) => {
    if (!v.schema?.openAPIV3Schema) errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
  });
  const sameSchema = identical(versions, (v) => v.schema?.openAPIV3Schema, (x) => x === undefined);
  const sameSubresources = identical(versions, (v) => v.subresources, (x) => x === undefined);
  const sameColumns = identical(versions, (v) => v.additionalPrinterColumns, (x) => !x || x.length === 0);
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    if (v.storage) storage++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const e = isDNS1035Label(v.name ?? '');
    if (e.length) errs.push(invalid(`spec.versions[${i}].name`, v.name ?? '', e.join(',')));
    const base = Path.root('spec').child('versions').index(i);
    validateVersionParts(sameSchema ? undefined : v.schema, sameSubresources ? undefined : v.subresources, sameColumns ? undefined : v.additionalPrinterColumns, {
      schema: base.child('schema'), subresources: base.child('subresources'), columns: base.child('additionalPrinterColumns'),
    }, errs);
  });
  const versionsText = `[]apiextensions.CustomResourceDefinitionVersion{${versions.map((v) => `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(v.name ?? '')}, Served:${!!v.served}, Storage:${!!v.storage}, ...}`).join(', ')}}`;
  if (!unique) errs.push({ ...invalid('spec.versions', null, 'must contain unique version names'), valueText: versionsText });
  if (storage !== 1) errs.push({ ...invalid('spec.versions', null, 'must have exactly one version marked as storage version'), valueText: versionsText });
  for (const k of ['plural', 'singular', 'kind', 'listKind']) if (!names[k]) errs.push(required(`spec.names.${k}`));
  errs.push(...validateNames(names, Path.root('spec', 'names')));
  const first = versions[0];
  validateVersionParts(sameSchema ? first?.schema : undefined, sameSubresources ? first?.subresources : undefined, sameColumns ? first?.additionalPrinterColumns : undefined, {
    schema: Path.root('spec', 'validation'), subresources: Path.root('spec', 'subresources'), columns: Path.root('spec', 'additionalPrinterColumns'),
  }, errs);
  const conversion = spec.conversion;
  if (conversion) {
    const strategy = conversion.strategy as string | undefined;
    if (!strategy) errs.push(required('spec.conversion.strategy'));
    else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
    else if (strategy === 'Webhook') {
      // Paths name the internal version's fields (conversion.webhookClientConfig, conversion.conversionReviewVersions).
      const webhook = isObject(conversion.webhook) ? conversion.webhook : undefined;
      const cc = webhook && isObject(webhook['clientConfig']) ? webhook['clientConfig'] : undefined;
      if (!cc) errs.push(required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'));
      else if ((cc['url'] === undefined) === (cc['service'] === undefined)) errs.push(required('spec.conversion.webhookClientConfig', 'exactly one of url or service is required'));
      const reviewVersions = Array.isArray(webhook?.['conversionReviewVersions']) ? (webhook['conversionReviewVersions'] as string[]) : [];
      if (!reviewVersions.length) errs.push(required('spec.conversion.conversionReviewVersions'));
      else if (!reviewVersions.some((v) => v === 'v1' || v === 'v1beta1')) {
        errs.push({ ...invalid('spec.conversion.conversionReviewVersions', null, 'must include at least one of v1, v1beta1'), valueText: goStrings(reviewVersions) });
      }
    } else if (conversion.webhook) errs.push(forbidden('spec.conversion.webhook', 'should not be set when strategy is not set to Webhook'));
  }
  if (spec.preserveUnknownFields === true) {
    errs.push(invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  return errs;
}

function conditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return !!crd.status?.conditions?.some((c) => c.type === type && c.status === 'True');
}

export function validateCustomResourceDefinitionUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const crd = obj as CustomResourceDefinition;
  const prev = old as CustomResourceDefinition;
  const errs = validateCustomResourceDefinition(obj);
  const immutable = (field: string, a: unknown, b: unknown) => {
    if (a !== b) errs.push(invalid(field, a, 'field is immutable'));
  };
  if (conditionTrue(prev, 'Established')) {
    immutable('spec.scope', crd.spec?.scope, prev.spec?.scope);
    immutable('spec.names.kind', crd.spec?.names?.kind, prev.spec?.names?.kind);
  }
  immutable('spec.group', crd.spec?.group, prev.spec?.group);
  immutable('spec.names.plural', crd.spec?.names?.plural, prev.spec?.names?.plural);
  return errs;
}

export const customResourceDefinitionValidation: KindValidation = {
  validate: (obj) => validateCustomResourceDefinition(obj),
  validateUpdate: (obj, old, ctx) => (ctx.subresource === 'status' ? [] : validateCustomResourceDefinitionUpdate(obj, old)),
};

/**
 * ObjectMeta validation (k8s.io/apimachinery/pkg/api/validation): names per
 * kind, generateName, labels, annotations, finalizers, and immutability of
 * identity fields on update. Returns field errors; never throws.
 */
import type { ObjectMeta } from '../api/types';
import { forbidden, invalid, required, tooLong, type FieldError } from '../errors';
import { isConfigMapKey } from './core/configKeys';
import { validateLabels } from './labels';
import { nameIsIPAddress } from './networking/ipAddress';
import {
  isQualifiedName,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
  type NameValidator,
} from './names';

const totalAnnotationSizeLimitB = 256 * 1024;

/** Name rules by group/resource; everything else is a DNS-1123 subdomain. */
const nameValidators: Record<string, NameValidator> = {
  '/namespaces': nameIsDNSLabel,
  '/services': nameIsDNS1035Label,
  '/persistentvolumes': nameIsPathSegment,
  // Pods are named <statefulset>-<ordinal> and their hostname is that name: a DNS label.
  'apps/statefulsets': nameIsDNSLabel,
  'rbac.authorization.k8s.io/roles': nameIsPathSegment,
  'rbac.authorization.k8s.io/rolebindings': nameIsPathSegment,
  'rbac.authorization.k8s.io/clusterroles': nameIsPathSegment,
  'rbac.authorization.k8s.io/clusterrolebindings': nameIsPathSegment,
  'scheduling.k8s.io/priorityclasses': nameIsDNSSubdomain,
  // Checked against spec (version.group) by the kind's own validation.
  'apiregistration.k8s.io/apiservices': nameIsPathSegment,
  // Checked against spec.signerName by the kind's own validation.
  'certificates.k8s.io/clustertrustbundles': nameIsPathSegment,
  'coordination.k8s.io/leasecandidates': (name) => isConfigMapKey(name),
  // Called through a function: the table is built at start, the kinds' validation is a part loaded on first use (src/sw/chunkLoader.ts).
  'networking.k8s.io/ipaddresses': (name, prefix) => nameIsIPAddress(name, prefix),
};

/** nameValidatorFor's answers by group, then resource: a write looks its kind up without building a key. */
const validatorsByGroup = new Map<string, Map<string, NameValidator>>();

export function nameValidatorFor(group: string, resource: string): NameValidator {
  let byResource = validatorsByGroup.get(group);
  if (!byResource) validatorsByGroup.set(group, (byResource = new Map()));
  let validator = byResource.get(resource);
  if (!validator) byResource.set(resource, (validator = nameValidators[`${group}/${resource}`] ?? nameIsDNSSubdomain));
  return validator;
}

export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (annotations === undefined || annotations === null) return errs;
  let total = 0;
  const map = annotations as Record<string, unknown>;
  for (const k in map) {
    const v = map[k];
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid(field, k, m));
    total += k.length + (typeof v === 'string' ? v.length : 0);
  }
  if (total > totalAnnotationSizeLimitB) errs.push(tooLong(field, '', totalAnnotationSizeLimitB));
  return errs;
}

function validateFinalizers(finalizers: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(finalizers)) return errs;
  const seen = new Set<string>();
  finalizers.forEach((f, i) => {
    if (typeof f !== 'string') return;
    for (const m of isQualifiedName(f)) errs.push(invalid(`${field}[${i}]`, f, m));
    if (seen.has(f)) errs.push({ type: 'FieldValueDuplicate', field: `${field}[${i}]`, value: f });
    seen.add(f);
  });
  return errs;
}

export interface MetaValidationContext {
  group: string;
  resource: string;
  namespaced: boolean;
}

export function validateObjectMetaForCreate(meta: ObjectMeta, ctx: MetaValidationContext): FieldError[] {
  const errs: FieldError[] = [];
  const nameValidator = nameValidatorFor(ctx.group, ctx.resource);
  if (meta.generateName) {
    for (const m of nameValidator(meta.generateName, true)) errs.push(invalid('metadata.generateName', meta.generateName, m));
  }
  if (!meta.name) {
    errs.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const m of nameValidator(meta.name, false)) errs.push(invalid('metadata.name', meta.name, m));
  }
  if (ctx.namespaced) {
    if (!meta.namespace) errs.push(required('metadata.namespace'));
  } else if (meta.namespace) {
    errs.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }
  errs.push(...validateCommonMeta(meta));
  return errs;
}

function validateCommonMeta(meta: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generation !== undefined && meta.generation < 0) errs.push(invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  return errs;
}

/** Every reference names its owner fully; at most one is the controller (ValidateOwnerReferences). */
export function validateOwnerReferences(refs: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(refs)) return errs;
  let firstController = '';
  for (const ref of refs as Record<string, unknown>[]) {
    const apiVersion = typeof ref['apiVersion'] === 'string' ? ref['apiVersion'] : '';
    const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
    if (!version) errs.push(invalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!ref['kind']) errs.push(invalid(`${field}.kind`, ref['kind'] ?? '', 'kind must not be empty'));
    if (!ref['name']) errs.push(invalid(`${field}.name`, ref['name'] ?? '', 'name must not be empty'));
    if (!ref['uid']) errs.push(invalid(`${field}.uid`, ref['uid'] ?? '', 'uid must not be empty'));
    if (ref['controller'] === true) {
      const name = `${String(ref['kind'])}/${String(ref['name'])}`;
      if (firstController) {
        errs.push({ ...invalid(field, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`), valueText: '[]v1.OwnerReference{...}' });
      } else firstController = name;
    }
  }
  return errs;
}

/** A *metav1.Time as field.Error prints it: its String() (`2026-01-01 00:00:00 +0000 UTC`), or null. */
function goTimeString(t: string | null | undefined): string {
  if (!t) return '"null"';
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return JSON.stringify(t);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

/** Identity fields cannot change on update. */
export function validateObjectMetaUpdate(next: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  const immutable = 'field is immutable';
  if (next.name !== old.name) errs.push(invalid('metadata.name', next.name, immutable));
  if ((next.namespace ?? '') !== (old.namespace ?? '')) errs.push(invalid('metadata.namespace', next.namespace, immutable));
  if (next.uid !== old.uid) errs.push(invalid('metadata.uid', next.uid, immutable));
  if (next.creationTimestamp !== old.creationTimestamp) errs.push(invalid('metadata.creationTimestamp', next.creationTimestamp, immutable));
  if ((next.deletionTimestamp ?? null) !== (old.deletionTimestamp ?? null)) {
    errs.push({ ...invalid('metadata.deletionTimestamp', null, immutable), valueText: goTimeString(next.deletionTimestamp) });
  }
  if ((next.deletionGracePeriodSeconds ?? null) !== (old.deletionGracePeriodSeconds ?? null)) {
    errs.push(invalid('metadata.deletionGracePeriodSeconds', next.deletionGracePeriodSeconds ?? null, immutable));
  }
  errs.push(...validateCommonMeta(next));
  return errs;
}

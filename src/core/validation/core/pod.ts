/**
 * Pods (ValidatePodCreate, ValidatePodUpdate, the ephemeralcontainers
 * subresource), PodTemplates and ReplicationControllers, keyed for the core
 * group's validation table.
 */
import { jsonEqual } from '../../api/equality';
import type { KubeObject } from '../../api/types';
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { append, arr, obj, objects, str, validateNonnegativeField, type Obj } from './common';
import { goStringMap } from './goSyntax';
import { validatePodSpec, validatePodTemplateSpec, validateTolerations } from './podSpec';
import { validatePodStatusUpdate } from './podStatus';
import { validatePodResize } from './podResize';

const specPath = newPath('spec');
const containersPath = specPath.child('containers');

/** validateContainersOnlyForPod: a pod's images may not carry surrounding whitespace. */
function validateImagesTrimmed(containers: unknown, fld: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const [c, i] of objects(containers)) {
    const image = str(c['image']);
    if (image.trim().length !== image.length) errs.push(invalid(String(fld.index(i).child('image')), image, 'must not have leading or trailing whitespace'));
  }
  return errs;
}

/** validatePodMetadataAndSpec (object metadata is checked by the store). */
export function validatePodMetadataAndSpec(pod: KubeObject): FieldError[] {
  const spec = obj(pod['spec']) ?? {};
  const errs = validatePodSpec(spec, specPath);
  append(errs, validateImagesTrimmed(spec['containers'], containersPath));
  if (spec['initContainers'] !== undefined) append(errs, validateImagesTrimmed(spec['initContainers'], specPath.child('initContainers')));
  return errs;
}

/** ValidatePodCreate */
export function validatePod(pod: KubeObject): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  const spec = obj(pod['spec']) ?? {};
  if (arr(spec['ephemeralContainers']).length > 0) errs.push(forbidden(String(specPath.child('ephemeralContainers')), 'cannot be set on create'));
  if (str(spec['nodeName']) && arr(spec['schedulingGates']).length > 0) {
    errs.push(forbidden(String(specPath.child('nodeName')), 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

/** ValidateContainerUpdates: same number of containers, each with an image. */
function validateContainerUpdates(next: unknown, old: unknown, fld: Path): { errs: FieldError[]; stop: boolean } {
  if (arr(next).length !== arr(old).length) return { errs: [forbidden(String(fld), 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  for (const [c, i] of objects(next)) {
    const image = str(c['image']);
    if (!image) errs.push(required(String(fld.index(i).child('image'))));
    if (image.trim().length !== image.length) errs.push(invalid(String(fld.index(i).child('image')), image, 'must not have leading or trailing whitespace'));
  }
  return { errs, stop: false };
}

/** validateOnlyAddedTolerations: existing tolerations stay (only their tolerationSeconds may change). */
function validateOnlyAddedTolerations(next: unknown, old: unknown, fld: Path): FieldError[] {
  const nextList = objects(next).map(([t]) => t);
  for (const [o] of objects(old)) {
    const found = nextList.some((n) => jsonEqual({ ...o, tolerationSeconds: n['tolerationSeconds'] }, { ...n, tolerationSeconds: n['tolerationSeconds'] }));
    if (!found) return [forbidden(String(fld), 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, fld);
}

const goFieldName = (k: string) => k.charAt(0).toUpperCase() + k.slice(1);

/** A go-cmp style summary of what changed (kube prints cmp.Diff of the internal PodSpec). */
function specDiff(old: Obj, next: Obj): string {
  const lines = ['  core.PodSpec{'];
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])];
  for (const k of keys) {
    if (jsonEqual(old[k], next[k])) continue;
    if (old[k] !== undefined) lines.push(`- \t${goFieldName(k)}: ${JSON.stringify(old[k])},`);
    if (next[k] !== undefined) lines.push(`+ \t${goFieldName(k)}: ${JSON.stringify(next[k])},`);
  }
  lines.push('  }');
  return lines.join('\n');
}

const podUpdateMessage =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** ValidatePodUpdate: the new pod is valid, and its spec changed only where kube allows. */
export function validatePodUpdate(pod: KubeObject, oldPod: KubeObject): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  const spec = obj(pod['spec']) ?? {};
  const oldSpec = obj(oldPod['spec']) ?? {};
  for (const list of ['containers', 'initContainers']) {
    const r = validateContainerUpdates(spec[list], oldSpec[list], specPath.child(list));
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const adsPath = String(specPath.child('activeDeadlineSeconds'));
  const ads = spec['activeDeadlineSeconds'];
  const oldAds = oldSpec['activeDeadlineSeconds'];
  if (typeof ads === 'number') {
    if (ads < 0 || ads > 2147483647) return [...errs, invalid(adsPath, ads, 'must be between 0 and 2147483647, inclusive')];
    if (typeof oldAds === 'number' && oldAds < ads) return [...errs, invalid(adsPath, ads, 'must be less than or equal to previous value')];
  } else if (typeof oldAds === 'number') {
    errs.push(invalid(adsPath, null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(spec['tolerations'], oldSpec['tolerations'], specPath.child('tolerations')));
  const schedulingGates = arr(spec['schedulingGates']);
  const oldGates = arr(oldSpec['schedulingGates']);
  if (schedulingGates.some((g) => !oldGates.some((o) => jsonEqual(o, g)))) {
    errs.push(forbidden(String(specPath.child('schedulingGates')), 'only deletion is allowed, but found new scheduling gate'));
  }
  if (jsonEqual(spec, oldSpec)) return errs;

  // Carry the mutable fields over from the old spec, then anything left that differs is forbidden.
  const munged: Obj = { ...spec };
  for (const list of ['containers', 'initContainers']) {
    const oldList = arr(oldSpec[list]);
    if (Array.isArray(spec[list])) munged[list] = (spec[list] as unknown[]).map((c, i) => (obj(c) ? { ...obj(c), image: obj(oldList[i])?.['image'] } : c));
  }
  for (const k of ['activeDeadlineSeconds', 'tolerations', 'schedulingGates']) {
    if (oldSpec[k] === undefined) delete munged[k];
    else munged[k] = oldSpec[k];
  }
  const oldGrace = oldSpec['terminationGracePeriodSeconds'];
  if (typeof oldGrace === 'number' && oldGrace < 0 && munged['terminationGracePeriodSeconds'] === 1) munged['terminationGracePeriodSeconds'] = oldGrace;
  // Omitted containers' images compare as the old ones, so normalise `undefined` keys away.
  const clean = (o: Obj) => JSON.parse(JSON.stringify(o)) as Obj;
  if (!jsonEqual(clean(munged), clean(oldSpec))) errs.push(forbidden(String(specPath), `${podUpdateMessage}\n${specDiff(oldSpec, clean(munged))}`));
  return errs;
}

/** The annotation a kubelet puts on the mirror pod of a static pod. */
export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

/** ValidatePodEphemeralContainersUpdate: new ephemeral containers are valid; existing ones never change. */
function validateEphemeralContainersUpdate(pod: KubeObject, oldPod: KubeObject): FieldError[] {
  if (oldPod.metadata.annotations?.[mirrorPodAnnotation] !== undefined) return [forbidden('', 'static pods do not support ephemeral containers')];
  const spec = obj(pod['spec']) ?? {};
  const errs = validatePodSpec(spec, specPath).filter((e) => e.field.startsWith('spec.ephemeralContainers'));
  const next = new Map(objects(spec['ephemeralContainers']).map(([c]) => [str(c['name']), c]));
  for (const [c] of objects(obj(oldPod['spec'])?.['ephemeralContainers'])) {
    const name = str(c['name']);
    const n = next.get(name);
    if (!n) errs.push(forbidden(String(specPath.child('ephemeralContainers')), `existing ephemeral containers "${name}" may not be removed\n`));
    else if (!jsonEqual(n, c)) errs.push(forbidden(String(specPath.child('ephemeralContainers')), `existing ephemeral containers "${name}" may not be changed\n`));
  }
  return errs;
}

export const podValidation: KindValidation = {
  validate: (obj) => validatePod(obj),
  validateUpdate(obj, old, ctx) {
    if (ctx.subresource === 'ephemeralcontainers') return validateEphemeralContainersUpdate(obj, old);
    if (ctx.subresource === 'status') return validatePodStatusUpdate(obj, old);
    if (ctx.subresource === 'resize') return validatePodResize(obj, old);
    if (ctx.subresource) return [];
    return validatePodUpdate(obj, old);
  },
};

/** ValidatePodTemplate / ValidatePodTemplateUpdate (the template is fully mutable). */
export const podTemplateValidation: KindValidation = {
  validate: (o) => validatePodTemplateSpec(obj(o['template']) ?? {}, newPath('template')),
  validateUpdate: (o) => validatePodTemplateSpec(obj(o['template']) ?? {}, newPath('template')),
};

/** labels.SelectorFromSet(selector).Matches(labels) */
export function selectorMapMatches(selector: Obj, labels: unknown): boolean {
  const l = obj(labels) ?? {};
  return Object.entries(selector).every(([k, v]) => l[k] === v);
}

/** ValidatePodTemplateSpecForRC */
function validatePodTemplateSpecForRC(template: Obj | undefined, selector: Obj, fld: Path): FieldError[] {
  if (!template) return [required(String(fld))];
  const errs: FieldError[] = [];
  const labels = obj(template['metadata'])?.['labels'];
  if (Object.keys(selector).length > 0 && !selectorMapMatches(selector, labels)) {
    errs.push({ type: 'FieldValueInvalid', field: String(fld.child('metadata', 'labels')), valueText: goStringMap(labels), detail: '`selector` does not match template `labels`' });
  }
  errs.push(...validatePodTemplateSpec(template, fld));
  const spec = obj(template['spec']) ?? {};
  const restartPolicy = str(spec['restartPolicy']);
  if (restartPolicy !== 'Always') errs.push(notSupported(String(fld.child('spec', 'restartPolicy')), restartPolicy, ['Always']));
  if (spec['activeDeadlineSeconds'] !== undefined && spec['activeDeadlineSeconds'] !== null) {
    errs.push(forbidden(String(fld.child('spec', 'activeDeadlineSeconds')), 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

/** ValidateReplicationControllerSpec */
function validateReplicationController(rc: KubeObject): FieldError[] {
  const spec = obj(rc['spec']) ?? {};
  const selector = obj(spec['selector']) ?? {};
  const errs = validateNonnegativeField(spec['minReadySeconds'], specPath.child('minReadySeconds'));
  if (Object.keys(selector).length === 0) errs.push(required(String(specPath.child('selector'))));
  errs.push(...validateNonnegativeField(spec['replicas'], specPath.child('replicas')));
  errs.push(...validatePodTemplateSpecForRC(obj(spec['template']), selector, specPath.child('template')));
  return errs;
}

export const replicationControllerValidation: KindValidation = {
  validate: (o) => validateReplicationController(o),
  validateUpdate: (o, _old, ctx) => (ctx.subresource === 'status' ? [] : validateReplicationController(o)),
};

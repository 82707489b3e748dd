/**
 * StatefulSets (ValidateStatefulSet, ValidateStatefulSetUpdate): policies,
 * selector and template labels (kube validates the template's pod spec only
 * when pods are created), and the few spec fields an update may change.
 */
import { jsonEqual } from '../../api/equality';
import type { KubeObject } from '../../api/types';
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import { validateLabels } from '../labels';
import type { KindValidation } from '../kinds';
import { validateAnnotations } from '../objectMeta';
import { invalidText } from '../core/common';
import { goLabelSelector } from '../core/goSyntax';
import {
  intOrPercentValue, isNotMoreThan100Percent, obj, str, validateNonnegativeField, validatePositiveIntOrPercent, validateSelector,
  validateSelectorMatchesTemplate, validateTemplateRestartAndDeadline, type Obj,
} from './common';
import { goIntOrString } from '../core/goSyntax';

const specPath = newPath('spec');

/** apps.RollingUpdateStatefulSetStrategy as %#v prints it (a set maxUnavailable would be an address in Go). */
function goRollingUpdate(ru: Obj): string {
  const mu = ru['maxUnavailable'] === undefined || ru['maxUnavailable'] === null ? '(*intstr.IntOrString)(nil)' : `&${goIntOrString(ru['maxUnavailable'])}`;
  return `apps.RollingUpdateStatefulSetStrategy{Partition:${typeof ru['partition'] === 'number' ? ru['partition'] : 0}, MaxUnavailable:${mu}}`;
}
const retentionPolicies = ['Retain', 'Delete'];

function validateRollingUpdate(ru: Obj, fld: Path): FieldError[] {
  const errs = validateNonnegativeField(ru['partition'], fld.child('partition'));
  const mu = ru['maxUnavailable'];
  if (mu !== undefined && mu !== null) {
    const p = fld.child('maxUnavailable');
    errs.push(...validatePositiveIntOrPercent(mu, p));
    if (intOrPercentValue(mu) === 0) errs.push(invalidText(p, goIntOrString(mu), 'cannot be 0'));
    errs.push(...isNotMoreThan100Percent(mu, p));
  }
  return errs;
}

/** ValidateStatefulSetSpec */
function validateStatefulSetSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const pmp = str(spec['podManagementPolicy']);
  if (!pmp) errs.push(required(String(specPath.child('podManagementPolicy'))));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') errs.push(invalid(String(specPath.child('podManagementPolicy')), pmp, "must be 'OrderedReady' or 'Parallel'"));
  const us = obj(spec['updateStrategy']) ?? {};
  const usType = str(us['type']);
  const ru = obj(us['rollingUpdate']);
  switch (usType) {
    case '':
      errs.push(required(String(specPath.child('updateStrategy'))));
      break;
    case 'OnDelete':
      if (ru) errs.push(invalidText(specPath.child('updateStrategy', 'rollingUpdate'), goRollingUpdate(ru), "only allowed for updateStrategy 'RollingUpdate'"));
      break;
    case 'RollingUpdate':
      if (ru) errs.push(...validateRollingUpdate(ru, specPath.child('updateStrategy', 'rollingUpdate')));
      break;
    default:
      errs.push(invalidText(specPath.child('updateStrategy'), `apps.StatefulSetUpdateStrategy{Type:${JSON.stringify(usType)}, RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(${ru ? '...' : 'nil'})}`, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = obj(spec['persistentVolumeClaimRetentionPolicy']);
  if (retention) {
    for (const k of ['whenDeleted', 'whenScaled']) {
      const v = str(retention[k]);
      if (!retentionPolicies.includes(v)) errs.push(notSupported(String(specPath.child('persistentVolumeClaimRetentionPolicy', k)), v, retentionPolicies));
    }
  }
  errs.push(...validateNonnegativeField(spec['replicas'], specPath.child('replicas')));
  errs.push(...validateNonnegativeField(spec['minReadySeconds'], specPath.child('minReadySeconds')));
  const ordinals = obj(spec['ordinals']);
  if (ordinals) errs.push(...validateNonnegativeField(ordinals['start'], specPath.child('ordinals.start')));
  const { errs: selErrs, selector } = validateSelector(spec, specPath.child('selector'), 'statefulset');
  errs.push(...selErrs);
  const template = obj(spec['template']) ?? {};
  const tp = specPath.child('template');
  if (!selector) errs.push(invalidText(specPath.child('selector'), goLabelSelector(spec['selector']), ''));
  else {
    // ValidatePodTemplateSpecForStatefulSet: labels and annotations only.
    const meta = obj(template['metadata']) ?? {};
    errs.push(...validateSelectorMatchesTemplate(selector, template, tp));
    errs.push(...validateLabels(meta['labels'], String(tp.child('labels'))), ...validateAnnotations(meta['annotations'], String(tp.child('annotations'))));
  }
  errs.push(...validateTemplateRestartAndDeadline(template, tp, 'StatefulSet'));
  return errs;
}

const mutableSpecFields = ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'ordinals', 'persistentVolumeClaimRetentionPolicy'];

/** ValidateStatefulSetUpdate: only the fields kube lets a StatefulSet change (the selector among the others). */
function validateStatefulSetUpdate(next: KubeObject, old: KubeObject): FieldError[] {
  // kube's strategy runs ValidateStatefulSet and ValidateStatefulSetUpdate, each validating the spec.
  const spec = obj(next['spec']) ?? {};
  const errs = [...validateStatefulSetSpec(spec), ...validateStatefulSetSpec(spec)];
  const a: Obj = { ...(obj(next['spec']) ?? {}) };
  const b: Obj = { ...(obj(old['spec']) ?? {}) };
  for (const k of mutableSpecFields) {
    delete a[k];
    delete b[k];
  }
  if (!jsonEqual(a, b)) {
    errs.push(forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  }
  return errs;
}

export const statefulSetValidation: KindValidation = {
  validate: (o) => validateStatefulSetSpec(obj(o['spec']) ?? {}),
  validateUpdate: (o, old, ctx) => (ctx.subresource === 'status' ? [] : validateStatefulSetUpdate(o, old)),
};

/** DaemonSets (ValidateDaemonSet, ValidateDaemonSetUpdate and the strategy's immutable selector). */
import type { KubeObject } from '../../api/types';
import { isObject } from '../../api/types';
import { notSupported, required, type FieldError } from '../../errors';
import { isSelectorError, labelSelectorFromObject, type LabelSelectorObject } from '../../selectors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { validateLabelSelector } from '../metav1';
import { invalidText } from '../core/common';
import { goIntOrString, goLabelSelector, goStringMap } from '../core/goSyntax';
import { validatePodTemplateSpec } from '../core/podSpec';
import {
  intOrPercentValue, isNotMoreThan100Percent, obj, str, validateNonnegativeField, validatePositiveIntOrPercent,
  validateSelectorImmutable, validateTemplateRestartAndDeadline, type Obj,
} from './common';

const specPath = newPath('spec');

/** ValidateRollingUpdateDaemonSet: exactly one of maxUnavailable and maxSurge is non-zero. */
function validateRollingUpdate(ru: Obj, fld: Path): FieldError[] {
  const mu = ru['maxUnavailable'];
  const ms = ru['maxSurge'];
  const errs = [
    ...validatePositiveIntOrPercent(mu, fld.child('maxUnavailable')),
    ...validatePositiveIntOrPercent(ms, fld.child('maxSurge')),
    ...isNotMoreThan100Percent(mu, fld.child('maxUnavailable')),
    ...isNotMoreThan100Percent(ms, fld.child('maxSurge')),
  ];
  const hasUnavailable = intOrPercentValue(mu) !== 0;
  const hasSurge = intOrPercentValue(ms) !== 0;
  if (hasUnavailable && hasSurge) errs.push(invalidText(fld.child('maxSurge'), goIntOrString(ms), 'may not be set when maxUnavailable is non-zero'));
  else if (!hasUnavailable && !hasSurge) errs.push(required(String(fld.child('maxUnavailable')), 'cannot be 0 when maxSurge is 0'));
  return errs;
}

/** ValidateDaemonSetUpdateStrategy */
function validateUpdateStrategy(us: Obj, fld: Path): FieldError[] {
  const type = str(us['type']);
  const ru = obj(us['rollingUpdate']);
  switch (type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate':
      return ru ? validateRollingUpdate(ru, fld.child('rollingUpdate')) : [required(String(fld.child('rollingUpdate')))];
    default: {
      const e = notSupported(String(fld), type, ['RollingUpdate', 'OnDelete']);
      return [{ ...e, valueText: `apps.DaemonSetUpdateStrategy{Type:${JSON.stringify(type)}, RollingUpdate:(*apps.RollingUpdateDaemonSet)(${ru ? '...' : 'nil'})}` }];
    }
  }
}

/** ValidateDaemonSetSpec */
function validateDaemonSetSpec(spec: Obj): FieldError[] {
  const sel = spec['selector'];
  const errs = validateLabelSelector(sel, {}, specPath.child('selector'));
  const template = obj(spec['template']) ?? {};
  const parsed = labelSelectorFromObject(isObject(sel) ? (sel as LabelSelectorObject) : undefined);
  // Unlike the other apps kinds, an empty selector is not exempt (and a missing one matches nothing).
  const labels = obj(template['metadata'])?.['labels'];
  if (!isSelectorError(parsed) && !parsed.matches((obj(labels) ?? {}) as Record<string, string>)) {
    errs.push(invalidText(specPath.child('template', 'metadata', 'labels'), goStringMap(labels), '`selector` does not match template `labels`'));
  }
  if (isObject(sel) && Object.keys(obj(sel['matchLabels']) ?? {}).length + (Array.isArray(sel['matchExpressions']) ? sel['matchExpressions'].length : 0) === 0) {
    errs.push(invalidText(specPath.child('selector'), goLabelSelector(sel), 'empty selector is invalid for daemonset'));
  }
  errs.push(...validatePodTemplateSpec(template, specPath.child('template')));
  errs.push(...validateTemplateRestartAndDeadline(template, specPath.child('template'), 'DaemonSet'));
  errs.push(...validateNonnegativeField(spec['minReadySeconds'], specPath.child('minReadySeconds')));
  errs.push(...validateNonnegativeField(spec['templateGeneration'], specPath.child('templateGeneration')));
  errs.push(...validateUpdateStrategy(obj(spec['updateStrategy']) ?? {}, specPath.child('updateStrategy')));
  if (spec['revisionHistoryLimit'] !== undefined) errs.push(...validateNonnegativeField(spec['revisionHistoryLimit'], specPath.child('revisionHistoryLimit')));
  return errs;
}

const specOf = (o: KubeObject): Obj => obj(o['spec']) ?? {};

export const daemonSetValidation: KindValidation = {
  validate: (o) => validateDaemonSetSpec(specOf(o)),
  validateUpdate(o, old, ctx) {
    if (ctx.subresource === 'status') return [];
    return [...validateDaemonSetSpec(specOf(o)), ...validateSelectorImmutable(o, old, specPath.child('selector'))];
  },
};

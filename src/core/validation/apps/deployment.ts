/** Deployments (ValidateDeployment, ValidateDeploymentUpdate and the strategy's immutable selector). */
import type { KubeObject } from '../../api/types';
import { forbidden, invalid, notSupported, required, type FieldError } from '../../errors';
import { newPath, type Path } from '../field';
import type { KindValidation } from '../kinds';
import { invalidText, num } from '../core/common';
import { goIntOrString, goLabelSelector } from '../core/goSyntax';
import {
  intOrPercentValue, isNotMoreThan100Percent, obj, str, validateNonnegativeField, validatePodTemplateSpecForReplicaSet,
  validatePositiveIntOrPercent, validateSelector, validateSelectorImmutable, type Obj,
} from './common';

const specPath = newPath('spec');

/** ValidateRollingUpdateDeployment */
function validateRollingUpdate(ru: Obj, fld: Path): FieldError[] {
  const errs = [
    ...validatePositiveIntOrPercent(ru['maxUnavailable'], fld.child('maxUnavailable')),
    ...validatePositiveIntOrPercent(ru['maxSurge'], fld.child('maxSurge')),
  ];
  if (intOrPercentValue(ru['maxUnavailable']) === 0 && intOrPercentValue(ru['maxSurge']) === 0) {
    errs.push(invalidText(fld.child('maxUnavailable'), goIntOrString(ru['maxUnavailable']), 'may not be 0 when `maxSurge` is 0'));
  }
  errs.push(...isNotMoreThan100Percent(ru['maxUnavailable'], fld.child('maxUnavailable')));
  return errs;
}

/** ValidateDeploymentStrategy */
function validateStrategy(strategy: Obj, fld: Path): FieldError[] {
  const type = str(strategy['type']);
  const ru = obj(strategy['rollingUpdate']);
  switch (type) {
    case 'Recreate':
      return ru ? [forbidden(String(fld.child('rollingUpdate')), "may not be specified when strategy `type` is 'Recreate'")] : [];
    case 'RollingUpdate':
      return ru ? validateRollingUpdate(ru, fld.child('rollingUpdate')) : [required(String(fld.child('rollingUpdate')), 'this should be defaulted and never be nil')];
    default: {
      const e = notSupported(String(fld), type, ['Recreate', 'RollingUpdate']);
      // kube passes the whole strategy struct as the value.
      return [{ ...e, valueText: `apps.DeploymentStrategy{Type:${JSON.stringify(type)}, RollingUpdate:(*apps.RollingUpdateDeployment)(${ru ? '...' : 'nil'})}` }];
    }
  }
}

/** ValidateDeploymentSpec */
function validateDeploymentSpec(spec: Obj): FieldError[] {
  const errs = validateNonnegativeField(spec['replicas'], specPath.child('replicas'));
  const { errs: selErrs, selector } = validateSelector(spec, specPath.child('selector'), 'deployment');
  errs.push(...selErrs);
  if (!selector) errs.push(invalidText(specPath.child('selector'), goLabelSelector(spec['selector']), 'invalid label selector'));
  else errs.push(...validatePodTemplateSpecForReplicaSet(obj(spec['template']) ?? {}, selector, specPath.child('template'), 'ReplicaSet'));
  errs.push(...validateStrategy(obj(spec['strategy']) ?? {}, specPath.child('strategy')));
  errs.push(...validateNonnegativeField(spec['minReadySeconds'], specPath.child('minReadySeconds')));
  if (spec['revisionHistoryLimit'] !== undefined) errs.push(...validateNonnegativeField(spec['revisionHistoryLimit'], specPath.child('revisionHistoryLimit')));
  const pds = num(spec['progressDeadlineSeconds']);
  if (pds !== undefined) {
    errs.push(...validateNonnegativeField(pds, specPath.child('progressDeadlineSeconds')));
    if (pds <= (num(spec['minReadySeconds']) ?? 0)) errs.push(invalid(String(specPath.child('progressDeadlineSeconds')), pds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

const specOf = (o: KubeObject): Obj => obj(o['spec']) ?? {};

export const deploymentValidation: KindValidation = {
  validate: (o) => validateDeploymentSpec(specOf(o)),
  validateUpdate(o, old, ctx) {
    if (ctx.subresource === 'status') return [];
    return [...validateDeploymentSpec(specOf(o)), ...validateSelectorImmutable(o, old, specPath.child('selector'))];
  },
};

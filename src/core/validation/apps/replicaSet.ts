/** ReplicaSets (ValidateReplicaSet, ValidateReplicaSetUpdate and the strategy's immutable selector). */
import type { KubeObject } from '../../api/types';
import type { FieldError } from '../../errors';
import { newPath } from '../field';
import type { KindValidation } from '../kinds';
import { invalidText } from '../core/common';
import { goLabelSelector } from '../core/goSyntax';
import { obj, validateNonnegativeField, validatePodTemplateSpecForReplicaSet, validateSelector, validateSelectorImmutable, type Obj } from './common';

const specPath = newPath('spec');

/** ValidateReplicaSetSpec (its empty-selector message says "deployment", as kube's does). */
function validateReplicaSetSpec(spec: Obj): FieldError[] {
  const errs = [
    ...validateNonnegativeField(spec['replicas'], specPath.child('replicas')),
    ...validateNonnegativeField(spec['minReadySeconds'], specPath.child('minReadySeconds')),
  ];
  const { errs: selErrs, selector } = validateSelector(spec, specPath.child('selector'), 'deployment');
  errs.push(...selErrs);
  if (!selector) errs.push(invalidText(specPath.child('selector'), goLabelSelector(spec['selector']), 'invalid label selector'));
  else errs.push(...validatePodTemplateSpecForReplicaSet(obj(spec['template']) ?? {}, selector, specPath.child('template'), 'ReplicaSet'));
  return errs;
}

const specOf = (o: KubeObject): Obj => obj(o['spec']) ?? {};

export const replicaSetValidation: KindValidation = {
  validate: (o) => validateReplicaSetSpec(specOf(o)),
  validateUpdate(o, old, ctx) {
    if (ctx.subresource === 'status') return [];
    return [...validateReplicaSetSpec(specOf(o)), ...validateSelectorImmutable(o, old, specPath.child('selector'))];
  },
};
